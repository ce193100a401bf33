"""The stand-in caches: in memory (bounded, most recently used kept) and on disk (one JSON file
per entry, written whole, never through a link, read back bounded)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.standins.cache import MAX_ENTRY_BYTES, default_stand_in_cache


def test_memory_cache_keeps_the_most_recently_used() -> None:
    cache = mb.MemoryStandInCache(max_entries=2)
    cache.put("a", "1")
    cache.put("b", "2")
    assert cache.get("a") == "1"  # "a" is now the most recent
    cache.put("c", "3")
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("1", None, "3")
    assert len(cache) == 2
    assert isinstance(cache, mb.StandInCache)
    assert default_stand_in_cache() is default_stand_in_cache()


def test_memory_cache_options_and_values_are_checked() -> None:
    with pytest.raises(mb.InvalidOptionError):
        mb.MemoryStandInCache(max_entries=0)
    with pytest.raises(mb.SourceError):
        mb.MemoryStandInCache().put("k", b"bytes")  # type: ignore[arg-type]


@settings(max_examples=50, deadline=None)
@given(key=st.text(min_size=1, max_size=80), value=st.text(max_size=400))
def test_directory_cache_round_trips_any_text(
    tmp_path_factory: pytest.TempPathFactory, key: str, value: str
) -> None:
    folder = tmp_path_factory.mktemp("cache")
    cache = mb.DirectoryStandInCache(folder)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        with pytest.raises((mb.SourceError, UnicodeEncodeError)):
            cache.put(key, value)
        return
    cache.put(key, value)
    assert mb.DirectoryStandInCache(folder).get(key) == value
    assert [p.suffix for p in Path(folder).iterdir()] == [".json"]


def test_a_planted_link_is_not_followed(tmp_path: Path) -> None:
    cache = mb.DirectoryStandInCache(tmp_path / "cache")
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    cache.put("k", "v")
    (entry,) = (tmp_path / "cache").iterdir()
    entry.unlink()
    os.symlink(secret, entry)
    with pytest.raises(mb.SourceError, match="cannot open"):
        cache.get("k")


def test_an_oversized_or_binary_entry_is_refused(tmp_path: Path) -> None:
    cache = mb.DirectoryStandInCache(tmp_path)
    cache.put("big", "x")
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(b"x" * (MAX_ENTRY_BYTES + 1))
    with pytest.raises(mb.SourceError, match="larger than"):
        cache.get("big")
    entry.write_bytes(b"\xff\xfe")
    with pytest.raises(mb.SourceError, match="UTF-8"):
        cache.get("big")
    assert cache.get("missing") is None


def test_a_cache_without_get_and_put_is_an_option_error() -> None:
    with pytest.raises(mb.InvalidOptionError, match="stand_in_cache"):
        mb.prepare([], "anthropic", transcriber=lambda b: "x", stand_in_cache={})  # type: ignore[arg-type]
