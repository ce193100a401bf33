"""Batch files that never end, and writers that fail: refused or bounded, always a
`SourceError`, never a hang or a raw `AttributeError`."""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.batch.results import iter_batch_results

LINE = {
    "custom_id": "request-0",
    "response": {
        "status_code": 200,
        "body": {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Red."},
                }
            ],
        },
    },
}


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()`` in a thread; fails the test if it has not returned in ``seconds``."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the call hung"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture
def kept_open_fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO with a writer that keeps it open and has written one line: a reader never sees
    its end."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    fifo = tmp_path / "results.jsonl"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer that never closes
    os.write(writer, json.dumps(LINE).encode() + b"\n")
    yield fifo
    os.close(writer)


def test_a_fifo_kept_open_is_refused_at_once(kept_open_fifo: Path) -> None:
    with pytest.raises(mb.SourceError, match="FIFO"):
        _within(5, lambda: mb.read_batch_results(kept_open_fifo, "openai"))
    with pytest.raises(mb.SourceError, match="FIFO"):
        _within(5, lambda: next(iter_batch_results(kept_open_fifo, "openai")))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_character_devices_are_refused(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    with pytest.raises(mb.SourceError, match="character device"):
        _within(5, lambda: mb.read_batch_results(device, "openai"))


def test_a_pipe_opened_on_purpose_is_read_as_a_file_object(kept_open_fifo: Path) -> None:
    with open(kept_open_fifo, "rb", buffering=0) as pipe:  # a FIFO, opened on purpose
        handle = io.BufferedReader(pipe)
        first = _within(5, lambda: next(iter_batch_results(handle, "openai")))
    assert first.id == "request-0"
    assert first.message is not None
    assert first.message.text == "Red."


def test_a_regular_file_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(LINE) + "\n")
    [result] = mb.read_batch_results(path, "openai")
    assert result.message is not None
    assert result.message.text == "Red."


class _FailingWriter(io.RawIOBase):
    """A caller's binary writer that accepts ``good`` writes, then fails with ``error``."""

    def __init__(self, good: int, error: BaseException) -> None:
        self.good, self.error, self.chunks = good, error, []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if len(self.chunks) >= self.good:
            raise self.error
        self.chunks.append(bytes(data))
        return len(data)


@pytest.mark.parametrize(
    "error",
    [
        OSError(28, "No space left on device"),
        BrokenPipeError(32, "Broken pipe"),
        ValueError("write to closed file"),
        RuntimeError("the caller's own failure"),
    ],
    ids=["enospc", "pipe", "closed", "custom"],
)
def test_a_writer_failing_mid_way_is_a_source_error(error: BaseException) -> None:
    requests = [[mb.UserMessage.text(f"q{n}")] for n in range(5)]
    writer = _FailingWriter(3, error)
    with pytest.raises(mb.SourceError, match="batch stream: cannot write") as caught:
        mb.write_batch(requests, "anthropic", writer, model="m", max_tokens=5)  # type: ignore[arg-type]
    assert type(error).__name__ in str(caught.value)
    assert caught.value.__cause__ is error
    assert len(writer.chunks) == 3  # the lines before the failure went out, then it stopped


def test_a_writer_failing_at_the_final_flush_is_a_source_error() -> None:
    class FailsOnFlush(io.BytesIO):
        def flush(self) -> None:
            if self.getvalue():
                raise ValueError("flush of closed file")

    with pytest.raises(mb.SourceError, match="batch stream: cannot write"):
        mb.write_batch([[mb.UserMessage.text("q")]], "openai", FailsOnFlush(), model="m")
