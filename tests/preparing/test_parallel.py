"""Documents of one `prepare` call convert side by side (`mediablocks.preparing.parallel`),
report in the blocks' order, fall back to one after another without threads, and stop when the
call fails."""

from __future__ import annotations

import importlib
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.convert import _jobs
from mediablocks.convert.isolation import run_isolated
from mediablocks.preparing import parallel

walk = importlib.import_module(
    "mediablocks.preparing.walk"
)  # the package exports a function `walk`


def rtf(text: str, name: str) -> mb.FileBlock:
    return mb.FileBlock.from_bytes(b"{\\rtf1 " + text.encode() + b"}", "text/rtf", filename=name)


def test_documents_convert_side_by_side(monkeypatch: pytest.MonkeyPatch) -> None:
    together = threading.Barrier(2)
    threads: list[str] = []
    original = parallel.convert

    def convert(run: Any, slot: Any, data: bytes) -> Any:
        threads.append(threading.current_thread().name)
        together.wait(timeout=20)  # breaks (and the call fails) unless both run at once
        return original(run, slot, data)

    monkeypatch.setattr(parallel, "convert", convert)
    blocks = [rtf("first words", "a.rtf"), rtf("second words", "b.rtf")]
    prepared = mb.prepare([mb.UserMessage(content=blocks)], "anthropic")
    texts = [block.text for block in prepared[0].content if isinstance(block, mb.TextBlock)]
    assert len(texts) == 2
    assert "first words" in texts[0]
    assert "second words" in texts[1]
    assert all(name.startswith("mediablocks-documents") for name in threads)
    assert not together.broken


def test_problems_keep_the_blocks_order() -> None:
    docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    blocks = [
        mb.FileBlock.from_bytes(b"PK\x03\x04" + b"\x00" * 40, docx, filename="one.docx"),
        rtf("fine", "fine.rtf"),
        mb.FileBlock.from_bytes(b"PK\x03\x04" + b"\x01" * 40, docx, filename="two.docx"),
    ]
    with pytest.raises(mb.DoesNotFitError) as caught:
        mb.prepare([mb.UserMessage(content=blocks)], "anthropic")
    where = [problem.split(": ", 1)[0] for problem in caught.value.problems]
    assert where == ["message 0, block 0", "message 0, block 2"]


def test_without_threads_the_documents_convert_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_thread(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(ThreadPoolExecutor, "submit", no_thread)
    blocks = [rtf("first words", "a.rtf"), rtf("second words", "b.rtf")]
    prepared = mb.prepare([mb.UserMessage(content=blocks)], "anthropic")
    texts = [block.text for block in prepared[0].content if isinstance(block, mb.TextBlock)]
    assert ["first words" in texts[0], "second words" in texts[1]] == [True, True]


def test_a_failing_call_stops_the_documents_still_converting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marks = tmp_path / "marks"

    def slow(run: Any, slot: Any, data: bytes) -> Any:
        return run_isolated("slow.rtf", _jobs.sleep, 60.0, str(marks))

    def bomb(*args: Any, **kwargs: Any) -> None:
        end = time.monotonic() + 30
        while time.monotonic() < end and not (marks.exists() and marks.stat().st_size):
            time.sleep(0.02)
        raise mb.ImageBombError("bomb.png: too many pixels")

    monkeypatch.setattr(parallel, "convert", slow)
    monkeypatch.setattr(walk, "fit_image_slot", bomb)
    image = mb.ImageBlock.from_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "image/png")
    blocks = [image, rtf("a", "a.rtf"), rtf("b", "b.rtf")]
    with pytest.raises(mb.ImageBombError):
        mb.prepare([mb.UserMessage(content=blocks)], "anthropic")
    pids = [int(line) for line in marks.read_text().split()]
    assert pids
    end = time.monotonic() + 30
    while time.monotonic() < end and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
