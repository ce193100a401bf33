"""The upload caches: hits, misses, expiry, and a directory cache shared across objects."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import mediablocks as mb


@pytest.mark.parametrize("kind", ["memory", "directory"])
def test_put_get_expiry_and_replace(kind: str, tmp_path: Path) -> None:
    cache = mb.MemoryUploadCache() if kind == "memory" else mb.DirectoryUploadCache(tmp_path)
    assert isinstance(cache, mb.UploadCache)
    assert cache.get("k") is None
    cache.put("k", "file-1")
    assert cache.get("k") == "file-1"
    cache.put("k", "file-2")
    assert cache.get("k") == "file-2"
    cache.put("old", "file-3", expires_at=time.time() - 1)
    assert cache.get("old") is None
    cache.put("new", "file-4", expires_at=time.time() + 3600)
    assert cache.get("new") == "file-4"
    assert len(cache) == 3


def test_directory_cache_is_shared_by_objects(tmp_path: Path) -> None:
    mb.DirectoryUploadCache(tmp_path / "c").put("k", "s3://b/x")
    assert mb.DirectoryUploadCache(tmp_path / "c").get("k") == "s3://b/x"
    assert (tmp_path / "c" / "uploads.sqlite").is_file()


def test_directory_cache_that_cannot_be_made_raises_source_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"x")
    with pytest.raises(mb.SourceError, match="upload cache"):
        mb.DirectoryUploadCache(blocker / "sub")
