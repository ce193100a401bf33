"""Remember what was uploaded, so the same bytes go to a provider's file store once.

`mb.upload` looks every media block up by a key made of the file store (``openai``,
``anthropic``, ``gemini``, ``s3``), the account (API endpoint and a hash of the key, or the S3
bucket and prefix) and the SHA-256 of the bytes. A hit reuses the stored file reference; a miss
uploads and stores it. Entries may carry an expiry (Gemini deletes files after 48 hours): an
expired entry counts as a miss.

`MemoryUploadCache` lives as long as the object; `DirectoryUploadCache` keeps a small SQLite
database in a directory, so separate runs (and processes) share it. Any object with the two
methods of `UploadCache` will do (Redis, a database table...).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from typing import Protocol, runtime_checkable

from .errors import SourceError

__all__ = ["DirectoryUploadCache", "MemoryUploadCache", "UploadCache"]


@runtime_checkable
class UploadCache(Protocol):
    """Where `mb.upload` remembers file references, by content key."""

    def get(self, key: str) -> str | None:
        """The file reference stored under ``key``, or None (also when it has expired)."""
        ...

    def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
        """Store ``reference`` under ``key``; ``expires_at`` is a Unix time, None for never."""
        ...


class MemoryUploadCache:
    """An in-process cache: a dict guarded by a lock, safe to share between threads."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, float | None]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return None
        reference, expires_at = entry
        if expires_at is not None and expires_at <= time.time():
            return None
        return reference

    def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
        with self._lock:
            self._entries[key] = (reference, expires_at)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


class DirectoryUploadCache:
    """A cache kept on disk: ``uploads.sqlite`` inside ``directory`` (created if missing).

    Each call opens its own short SQLite connection, so the cache is safe across threads and
    processes (SQLite serialises the writers).
    """

    FILENAME = "uploads.sqlite"

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = os.fspath(directory)
        self.path = os.path.join(self.directory, self.FILENAME)
        try:
            os.makedirs(self.directory, exist_ok=True)
            with self._connect() as db:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS uploads "
                    "(key TEXT PRIMARY KEY, reference TEXT NOT NULL, expires_at REAL)"
                )
        except (OSError, sqlite3.Error) as exc:
            raise SourceError(f"upload cache {self.path!r}: cannot open: {exc}") from None

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get(self, key: str) -> str | None:
        try:
            db = self._connect()
            try:
                row = db.execute(
                    "SELECT reference, expires_at FROM uploads WHERE key = ?", (key,)
                ).fetchone()
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise SourceError(f"upload cache {self.path!r}: cannot read: {exc}") from None
        if row is None:
            return None
        reference, expires_at = row
        if expires_at is not None and expires_at <= time.time():
            return None
        return str(reference)

    def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
        try:
            db = self._connect()
            try:
                with db:
                    db.execute(
                        "INSERT OR REPLACE INTO uploads (key, reference, expires_at) "
                        "VALUES (?, ?, ?)",
                        (key, reference, expires_at),
                    )
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise SourceError(f"upload cache {self.path!r}: cannot write: {exc}") from None

    def __len__(self) -> int:
        db = self._connect()
        try:
            (count,) = db.execute("SELECT COUNT(*) FROM uploads").fetchone()
        finally:
            db.close()
        return int(count)
