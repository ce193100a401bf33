"""The upload caches: hits, misses, expiry, a directory cache shared across objects and threads,
and hostile or corrupt cache files refused with a clear error instead of handed out."""

from __future__ import annotations

import sqlite3
import threading
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
    cache.discard("new")
    assert cache.get("new") is None
    for bad in (b"file-5", "", "x" * 5000, None):
        with pytest.raises(mb.SourceError, match="refusing to store"):
            cache.put("k", bad)  # type: ignore[arg-type]
    with pytest.raises(mb.SourceError, match="not a time"):
        cache.put("k", "file-6", expires_at=float("nan"))
    assert cache.get("k") == "file-2"


def test_directory_cache_is_shared_by_objects(tmp_path: Path) -> None:
    mb.DirectoryUploadCache(tmp_path / "c").put("k", "s3://b/x")
    assert mb.DirectoryUploadCache(tmp_path / "c").get("k") == "s3://b/x"
    assert (tmp_path / "c" / "uploads.sqlite").is_file()
    (mode,) = sqlite3.connect(tmp_path / "c" / "uploads.sqlite").execute("PRAGMA journal_mode")
    assert mode == ("wal",)


def test_directory_cache_that_cannot_be_made_raises_source_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"x")
    with pytest.raises(mb.SourceError, match="upload cache"):
        mb.DirectoryUploadCache(blocker / "sub")


def _db(tmp_path: Path, *statements: str) -> Path:
    db = sqlite3.connect(tmp_path / "uploads.sqlite")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return tmp_path


@pytest.mark.parametrize(
    "statements",
    [
        ["CREATE TABLE uploads (key, reference, expires_at)"],
        ["CREATE TABLE uploads (key TEXT PRIMARY KEY, reference BLOB, expires_at REAL)"],
        ["CREATE TABLE other (x)"],
        [
            "CREATE TABLE uploads (key TEXT PRIMARY KEY, reference TEXT NOT NULL, expires_at REAL)",
            "CREATE TRIGGER t AFTER INSERT ON uploads BEGIN DELETE FROM uploads; END",
        ],
        [
            "CREATE TABLE uploads (key TEXT PRIMARY KEY, reference TEXT NOT NULL, expires_at REAL)",
            "PRAGMA user_version = 7",
        ],
    ],
)
def test_a_database_that_is_not_this_cache_is_refused(
    tmp_path: Path, statements: list[str]
) -> None:
    with pytest.raises(mb.SourceError, match="not a mediablocks upload cache"):
        mb.DirectoryUploadCache(_db(tmp_path, *statements))


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    (tmp_path / "uploads.sqlite").write_bytes(b"garbage, not a database" * 100)
    with pytest.raises(mb.SourceError, match="not a mediablocks upload cache"):
        mb.DirectoryUploadCache(tmp_path)


def test_an_earlier_cache_keeps_its_sound_entries_and_drops_garbage(tmp_path: Path) -> None:
    old = "CREATE TABLE uploads (key TEXT PRIMARY KEY, reference TEXT NOT NULL, expires_at REAL)"
    folder = _db(
        tmp_path,
        old,
        "INSERT INTO uploads VALUES ('good', 'file-1', NULL)",
        "INSERT INTO uploads VALUES ('blob', X'6669', NULL)",
        "INSERT INTO uploads VALUES ('expiry', 'file-2', 'soon')",
        "INSERT INTO uploads VALUES ('long', printf('%.5000c', 'x'), NULL)",
    )
    cache = mb.DirectoryUploadCache(folder)
    assert cache.get("good") == "file-1"
    assert len(cache) == 1
    assert cache.get("blob") is None
    assert cache.get("expiry") is None


def test_a_corrupt_entry_is_never_handed_out(tmp_path: Path) -> None:
    cache = mb.DirectoryUploadCache(tmp_path)
    cache.put("k", "file-1")
    raw = sqlite3.connect(tmp_path / "uploads.sqlite")
    with raw:
        raw.execute("UPDATE uploads SET reference = ? WHERE key = 'k'", ("x" * 100_000,))
        raw.execute(
            "INSERT INTO uploads (key, reference, expires_at) VALUES ('ctl', ?, NULL)",
            ("file\x00\x1b[2J",),
        )
    raw.close()
    for key in ("k", "ctl"):
        with pytest.raises(mb.SourceError, match="is corrupt"):
            cache.get(key)
        cache.discard(key)
        assert cache.get(key) is None


def test_a_lock_held_elsewhere_does_not_lose_a_finished_upload(tmp_path: Path) -> None:
    cache = mb.DirectoryUploadCache(tmp_path, timeout=0.05)
    holder = sqlite3.connect(tmp_path / "uploads.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holding the write lock
    cache.put("k", "file-1")
    assert cache.unsaved == 1
    assert cache.get("k") == "file-1"
    holder.execute("COMMIT")
    holder.close()
    cache.put("k2", "file-2")
    assert cache.unsaved == 0
    other = mb.DirectoryUploadCache(tmp_path)
    assert (other.get("k"), other.get("k2")) == ("file-1", "file-2")


def test_one_directory_cache_shared_by_threads(tmp_path: Path) -> None:
    cache = mb.DirectoryUploadCache(tmp_path)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(40):
                cache.put(f"{n}-{i}", f"file-{n}-{i}")
                assert cache.get(f"{n}-{i}") == f"file-{n}-{i}"
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(mb.DirectoryUploadCache(tmp_path)) == 320
    with pytest.raises(mb.InvalidOptionError, match="timeout"):
        mb.DirectoryUploadCache(tmp_path, timeout=float("nan"))


_DIGEST = "ab" * 32


@pytest.mark.parametrize("kind", ["memory", "directory"])
def test_entries_list_what_was_stored_and_when(kind: str, tmp_path: Path) -> None:
    cache = mb.MemoryUploadCache() if kind == "memory" else mb.DirectoryUploadCache(tmp_path)
    before = time.time()
    cache.put(f"openai|https://api.example/v1|k1|{_DIGEST}", "file-1")
    cache.put(f"s3|http://127.0.0.1:9|media|in/|{_DIGEST}", "s3://media/in/x.png", before - 5)
    cache.put("not an upload key", "file-9")  # someone else's entry: never listed
    entries = cache.entries()
    assert [(e.store, e.account, e.sha256, e.reference) for e in entries] == [
        ("openai", "https://api.example/v1|k1", _DIGEST, "file-1"),
        ("s3", "http://127.0.0.1:9|media|in/", _DIGEST, "s3://media/in/x.png"),
    ]
    assert all(
        e.uploaded_at is not None and before <= e.uploaded_at <= time.time() for e in entries
    )
    assert [e.expired() for e in entries] == [False, True]


def test_a_version_1_cache_gains_upload_times_and_keeps_its_entries(tmp_path: Path) -> None:
    v1 = (
        "CREATE TABLE uploads (key TEXT PRIMARY KEY NOT NULL, reference TEXT NOT NULL, "
        "expires_at REAL) STRICT"
    )
    folder = _db(
        tmp_path,
        v1,
        f"INSERT INTO uploads VALUES ('anthropic|u|h|{_DIGEST}', 'file_1', NULL)",
        f"PRAGMA user_version = {0x6D62_0001}",
    )
    cache = mb.DirectoryUploadCache(folder)
    (entry,) = cache.entries()
    assert (entry.reference, entry.uploaded_at) == ("file_1", None)  # its age is not known
    cache.put(f"anthropic|u|h|{'cd' * 32}", "file_2")
    assert [e.uploaded_at is None for e in mb.DirectoryUploadCache(folder).entries()] == [
        True,
        False,
    ]
    (version,) = sqlite3.connect(folder / "uploads.sqlite").execute("PRAGMA user_version")
    assert version == (0x6D62_0002,)
