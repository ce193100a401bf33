"""A source's read cache (plain slots, `mediablocks.sources._cache`) survives copies, deep copies
and pickles; a copy reads on its own; a loaded source's trust marker comes along."""

from __future__ import annotations

import copy
import json
import pickle
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.sources import Base64Source, BytesSource, PathSource
from tests.conftest import TESTDATA

PNG = (TESTDATA / "image" / "rgb.png").read_bytes()

_COPIES: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda source: pickle.loads(pickle.dumps(source)),
    "model_copy": lambda source: source.model_copy(),
}


@pytest.mark.parametrize("how", list(_COPIES))
def test_a_copy_keeps_the_bytes_already_read_and_reads_on_its_own(tmp_path: Path, how: str) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(PNG)
    source = PathSource(path=str(path))
    assert not source.loaded
    assert source.read() == PNG
    copied = _COPIES[how](source)
    path.unlink()  # the copy cannot read the file again: its bytes must come from the cache
    assert copied.loaded
    assert copied.read() == PNG
    assert copied.base64() == source.base64()
    assert copied == source
    assert copied._loader is None or copied._loader is not source._loader


@pytest.mark.parametrize("how", list(_COPIES))
def test_an_unread_copy_reads_for_itself(tmp_path: Path, how: str) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(PNG)
    copied = _COPIES[how](PathSource(path=str(path)))
    assert not copied.loaded
    assert copied.read() == PNG
    assert copied.loaded


@pytest.mark.parametrize("how", list(_COPIES))
def test_a_loaded_path_stays_unreadable_in_every_copy(how: str) -> None:
    block = {"type": "image", "source": {"kind": "path", "path": str(TESTDATA / "image/rgb.png")}}
    (message,) = mb.load_messages(json.dumps([{"role": "user", "content": [block]}]))
    copied = _COPIES[how](message.content[0].source)
    assert copied.loaded_from == "a loaded history"
    with pytest.raises(mb.PathNotAllowedError):
        copied.read()
    allowed = mb.FetchPolicy(allowed_roots=[str(TESTDATA)])
    assert copied.read(allowed) == PNG


@pytest.mark.parametrize("how", list(_COPIES))
def test_in_memory_sources_copy_with_their_bytes(how: str) -> None:
    for source in (
        BytesSource(data=PNG),
        Base64Source(data=mb.ImageBlock.from_bytes(PNG).to_base64()[0]),
    ):
        copied = _COPIES[how](source)
        assert copied.read() == PNG
        assert copied == source
        assert copied == BytesSource(data=PNG)  # in memory: equal by the bytes they hold


def test_threads_reading_one_source_at_once_read_the_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mediablocks.sources as sources

    path = tmp_path / "photo.png"
    path.write_bytes(PNG)
    source = PathSource(path=str(path))
    reads: list[str] = []
    started = threading.Barrier(8)
    original = sources.read_capped

    def counted(*args: Any, **kwargs: Any) -> bytes:
        reads.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(sources, "read_capped", counted)
    results: list[bytes] = []

    def read() -> None:
        started.wait()
        results.append(source.read())

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [PNG] * 8
    assert len(reads) == 1
