"""Remember what was uploaded, so the same bytes go to a provider's file store once.

`mb.upload` looks every media block up by a key made of the file store (``openai``,
``anthropic``, ``gemini``, ``s3``), the account (API endpoint and a hash of the key, or the S3
bucket and prefix) and the SHA-256 of the bytes. A hit reuses the stored file reference; a miss
uploads and stores it. Entries may carry an expiry (Gemini deletes files after 48 hours): an
expired entry counts as a miss. `discard` forgets one entry (a file the provider deleted).

`MemoryUploadCache` lives as long as the object; `DirectoryUploadCache` keeps a small SQLite
database in a directory, so separate runs (and processes) share it. Any object with ``get`` and
``put`` will do (Redis, a database table...); ``discard`` is used when present, and ``entries``
(every `UploadEntry`, with when it was stored) by `mb.list_uploads` and `mb.delete_uploads`.
"""

from __future__ import annotations

import math
import os
import sqlite3
import stat
import threading
import time
import urllib.parse
import weakref
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..errors import InvalidOptionError, SourceError

__all__ = [
    "DirectoryUploadCache",
    "MemoryUploadCache",
    "UploadCache",
    "UploadEntry",
    "default_cache",
    "split_key",
]

MAX_REFERENCE = 2048
"""The longest file reference a cache hands out (file ids and URIs are far shorter)."""


@runtime_checkable
class UploadCache(Protocol):
    """Where `mb.upload` remembers file references, by content key."""

    def get(self, key: str) -> str | None:
        """The file reference stored under ``key``, or None (also when it has expired)."""
        ...

    def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
        """Store ``reference`` under ``key``; ``expires_at`` is a Unix time, None for never."""
        ...


@dataclass(frozen=True)
class UploadEntry:
    """One file a cache remembers: where it is, for which content, since when, until when."""

    key: str
    store: str
    """The file store: ``openai``, ``anthropic``, ``gemini`` or ``s3``."""
    account: str
    """The endpoint and API key hash (for S3: endpoint, bucket and prefix) it belongs to."""
    sha256: str
    reference: str
    uploaded_at: float | None
    """When it was stored in the cache (Unix time); None for entries from before this was kept."""
    expires_at: float | None

    def expired(self, now: float | None = None) -> bool:
        """True once the provider has deleted (or is about to delete) the file."""
        return self.expires_at is not None and self.expires_at <= (now or time.time())


def split_key(key: str) -> tuple[str, str, str] | None:
    """``(store, account, sha256)`` of a cache key ``store|account|sha256``, None if not one."""
    store, _, rest = key.partition("|")
    account, _, digest = rest.rpartition("|")
    if not store or not _ or len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        return None
    return store, account, digest


def _entry(
    key: str, reference: str, uploaded_at: float | None, expires_at: float | None
) -> UploadEntry | None:
    parts = split_key(key)
    if parts is None:
        return None
    return UploadEntry(key, *parts, reference, uploaded_at, expires_at)


def _valid(reference: object, expires_at: object) -> str | None:
    """Why a stored entry cannot be handed out, or None when it is sound."""
    if not isinstance(reference, str):
        return f"reference is {type(reference).__name__}, not text"
    if not reference or len(reference) > MAX_REFERENCE or not reference.isprintable():
        return "reference is empty, too long or not printable text"
    if expires_at is not None and (
        isinstance(expires_at, bool)
        or not isinstance(expires_at, (int, float))
        or math.isnan(expires_at)
    ):
        return f"expiry is {type(expires_at).__name__} {expires_at!r}, not a time"
    return None


def _check_put(key: str, reference: str, expires_at: float | None) -> None:
    problem = _valid(reference, expires_at) if isinstance(key, str) else "key is not text"
    if problem is not None:
        raise SourceError(f"upload cache: refusing to store {key!r}: {problem}")


class MemoryUploadCache:
    """An in-process cache: a dict guarded by a lock, safe to share between threads."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, float | None, float]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return None
        reference, expires_at, _ = entry
        if expires_at is not None and expires_at <= time.time():
            return None
        return reference

    def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
        _check_put(key, reference, expires_at)
        with self._lock:
            self._entries[key] = (reference, expires_at, time.time())

    def entry(self, key: str) -> UploadEntry | None:
        """The entry stored under ``key`` (expired or not), or None."""
        with self._lock:
            found = self._entries.get(key)
        if found is None:
            return None
        reference, expires_at, uploaded_at = found
        return _entry(key, reference, uploaded_at, expires_at)

    def entries(self) -> list[UploadEntry]:
        """Every entry whose key is a mediablocks upload key, oldest first."""
        with self._lock:
            items = list(self._entries.items())
        found = [_entry(k, ref, at, exp) for k, (ref, exp, at) in items]
        return sorted(
            (e for e in found if e is not None), key=lambda e: (e.uploaded_at or 0, e.key)
        )

    def discard(self, key: str) -> None:
        """Forget ``key`` (nothing happens when it is not there)."""
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


_VERSION_1 = 0x6D62_0001  # "mb", version 1, in SQLite's user_version
_SCHEMA_VERSION = 0x6D62_0002  # version 2: uploaded_at, for listing and deleting by age
_TABLE = (
    "CREATE TABLE uploads (key TEXT PRIMARY KEY NOT NULL, reference TEXT NOT NULL, "
    "expires_at REAL, uploaded_at REAL) STRICT"
)
_COLUMNS = [
    ("key", "TEXT", 1, 1),
    ("reference", "TEXT", 1, 0),
    ("expires_at", "REAL", 0, 0),
    ("uploaded_at", "REAL", 0, 0),
]
_V1_COLUMNS = _COLUMNS[:3]
_OLD_COLUMNS = [("key", "TEXT", 0, 1), ("reference", "TEXT", 1, 0), ("expires_at", "REAL", 0, 0)]
_EXPECTED = [("index", "sqlite_autoindex_uploads_1"), ("table", "uploads")]
_MIGRATE = (  # entries of a cache from before version 1: only sound rows are kept
    "ALTER TABLE uploads RENAME TO uploads_v0",
    _TABLE,
    "INSERT INTO uploads SELECT key, reference, expires_at, NULL FROM uploads_v0 "
    "WHERE typeof(key) = 'text' AND typeof(reference) = 'text' "
    f"AND length(reference) BETWEEN 1 AND {MAX_REFERENCE} "
    "AND typeof(expires_at) IN ('null', 'real', 'integer')",
    "DROP TABLE uploads_v0",
    f"PRAGMA user_version = {_SCHEMA_VERSION}",
)
_MIGRATE_V1 = (  # version 1 had no uploaded_at: its entries' age is unknown (NULL)
    "ALTER TABLE uploads ADD COLUMN uploaded_at REAL",
    f"PRAGMA user_version = {_SCHEMA_VERSION}",
)


def _read_only_error(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite failed because it may not write here (not because the file is wrong)."""
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open database file" in text


class DirectoryUploadCache:
    """A cache kept on disk: ``uploads.sqlite`` inside ``directory`` (created if missing).

    One SQLite connection per cache object, shared by its threads under a lock, in WAL mode
    (readers never wait for a writer) with ``synchronous=NORMAL`` and one short transaction per
    call; separate processes share the file, SQLite serialising their writes. On opening, the
    file is checked: a file that is not SQLite, or a database whose tables, columns or version
    are not this cache's (hostile or from elsewhere) is refused with `SourceError` naming the
    file; each entry read is checked again (a reference that is not short printable text is
    never handed out). ``timeout`` is how long a write waits for another process's lock; a
    write that still cannot take it keeps the reference in memory and retries on later calls,
    so a finished upload is never lost.

    A database (or journal file) that is a symbolic link, or not a regular file, is refused:
    SQLite would follow the link and write wherever it points. A valid cache in a folder this
    process cannot write (a read-only mount) opens read-only (`read_only` True): its entries are
    handed out, and storing one raises `SourceError` saying the cache is read-only (`mb.upload`
    warns and goes on); a read-only file that is not a cache is refused as any other.
    """

    FILENAME = "uploads.sqlite"

    read_only: bool
    """True when the cache could only be opened for reading (a read-only folder or mount): its
    entries are handed out, and `put` / `discard` raise `SourceError` saying so."""

    def __init__(self, directory: str | os.PathLike[str], *, timeout: float = 10.0) -> None:
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not (0 <= timeout < math.inf)
        ):
            raise InvalidOptionError(
                f"upload cache: timeout must be a finite number >= 0, got {timeout!r}"
            )
        self.directory = os.fspath(directory)
        self.path = os.path.join(self.directory, self.FILENAME)
        self._lock = threading.Lock()
        self._unsaved: dict[str, tuple[str, float | None, float]] = {}
        self.read_only = False
        self._why_read_only = ""
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as exc:
            if not os.path.isdir(self.directory):
                raise SourceError(f"upload cache {self.path!r}: cannot open: {exc}") from None
        self._refuse_links()
        self._db = self._open(timeout)
        try:
            self._refuse_links()  # a link planted while SQLite opened the file: refused too
        except SourceError:
            self._db.close()
            raise

    def _refuse_links(self) -> None:
        """Refuse a database (or its journal files) that is a symbolic link or not a regular
        file: SQLite would follow the link and write the cache wherever it points, and would
        block reading a FIFO."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            name = self.path + suffix
            try:
                mode = os.lstat(name).st_mode
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise SourceError(f"upload cache {name!r}: cannot open: {exc}") from None
            if stat.S_ISLNK(mode):
                raise SourceError(
                    f"upload cache {name!r} is a symbolic link; refusing to follow it "
                    "(the cache's writes would go where it points)"
                )
            if not stat.S_ISREG(mode):
                raise SourceError(f"upload cache {name!r} is not a regular file")

    def _open(self, timeout: float) -> sqlite3.Connection:
        """Open for reading and writing; where that cannot be (a read-only folder or mount), a
        valid cache is opened read-only instead and said to be (`read_only`)."""
        if self._writable():
            try:
                db = sqlite3.connect(
                    self.path, timeout=timeout, isolation_level=None, check_same_thread=False
                )
            except sqlite3.Error as exc:
                raise SourceError(f"upload cache {self.path!r}: cannot open: {exc}") from None
            try:
                self._prepare(db)
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                if not _read_only_error(exc):
                    raise self._not_a_cache(exc) from None
                why = str(exc)
            except sqlite3.Error as exc:
                db.close()
                raise self._not_a_cache(exc) from None
            except SourceError:
                db.close()
                raise
        else:
            why = "its folder or file is not writable"
        if not os.path.exists(self.path):
            raise SourceError(
                f"upload cache {self.path!r}: cannot create it: {why}; choose a writable folder"
            )
        return self._open_read_only(timeout, why)

    def _writable(self) -> bool:
        if not os.access(self.directory, os.W_OK):
            return False
        return not os.path.exists(self.path) or os.access(self.path, os.W_OK)

    def _open_read_only(self, timeout: float, why: str) -> sqlite3.Connection:
        """A read-only connection to a cache this process cannot write. A WAL database read-only
        needs its shared-memory file, which a read-only folder cannot hold: then the file is read
        as immutable (no locks; what other processes write later is not seen)."""
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro"
        problem: sqlite3.Error | None = None
        for extra in ("", "&immutable=1"):
            try:
                db = sqlite3.connect(
                    uri + extra,
                    uri=True,
                    timeout=timeout,
                    isolation_level=None,
                    check_same_thread=False,
                )
            except sqlite3.Error as exc:
                problem = exc
                continue
            try:
                db.execute("PRAGMA trusted_schema = OFF")
                self._check_layout(db)
            except sqlite3.OperationalError as exc:
                db.close()
                problem = exc
                if _read_only_error(exc):
                    continue
                raise self._not_a_cache(exc) from None
            except sqlite3.Error as exc:
                db.close()
                raise self._not_a_cache(exc) from None
            except SourceError:
                db.close()
                raise
            self.read_only = True
            self._why_read_only = why
            return db
        raise SourceError(f"upload cache {self.path!r}: cannot open read-only: {problem}")

    def _not_a_cache(self, exc: sqlite3.Error) -> SourceError:
        return SourceError(
            f"upload cache {self.path!r}: not a mediablocks upload cache ({exc}); "
            "delete the file or choose another directory"
        )

    def _refuse_write(self) -> None:
        if self.read_only:
            raise SourceError(
                f"upload cache {self.path!r} is read-only ({self._why_read_only}): entries are "
                "read from it, none is stored"
            )

    @staticmethod
    def _layout(
        db: sqlite3.Connection,
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str, int, int]], int]:
        objects = sorted(db.execute("SELECT type, name FROM sqlite_master").fetchall())
        columns = [
            (str(name), str(kind), int(notnull), int(pk))
            for _, name, kind, notnull, _, pk in db.execute("PRAGMA table_info(uploads)")
        ]
        (version,) = db.execute("PRAGMA user_version").fetchone()
        return objects, columns, int(version)

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Create the table in a new file, migrate an older cache, and check the layout."""
        db.execute("PRAGMA trusted_schema = OFF")
        objects, columns, version = self._layout(db)
        new = not objects and version == 0
        old = objects == _EXPECTED and columns == _OLD_COLUMNS and version == 0
        v1 = objects == _EXPECTED and columns == _V1_COLUMNS and version == _VERSION_1
        if new or old or v1:  # create, or bring a cache from an earlier release up to date
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("BEGIN IMMEDIATE")
            try:
                if self._layout(db) == ([], [], 0):
                    db.execute(_TABLE)
                    db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
                elif self._layout(db) == (_EXPECTED, _OLD_COLUMNS, 0):
                    for statement in _MIGRATE:
                        db.execute(statement)
                elif self._layout(db) == (_EXPECTED, _V1_COLUMNS, _VERSION_1):
                    for statement in _MIGRATE_V1:
                        db.execute(statement)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        self._check_layout(db)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")

    def _check_layout(self, db: sqlite3.Connection) -> None:
        """`SourceError` unless the database is this cache's current layout."""
        objects, columns, version = self._layout(db)
        if sorted(objects) != _EXPECTED or columns != _COLUMNS or version != _SCHEMA_VERSION:
            found = ", ".join(f"{kind} {name}" for kind, name in sorted(objects)) or "nothing"
            raise SourceError(
                f"upload cache {self.path!r}: not a mediablocks upload cache (holds {found}, "
                f"version {version}); delete the file or choose another directory"
            )

    def get(self, key: str) -> str | None:
        with self._lock:
            self._flush()
            unsaved = self._unsaved.get(key)
            entry: tuple[object, object]
            if unsaved is not None:
                entry = unsaved[:2]
            else:
                try:
                    row = self._db.execute(
                        "SELECT CASE WHEN length(CAST(reference AS BLOB)) <= ? THEN reference "
                        "ELSE zeroblob(0) END, expires_at FROM uploads WHERE key = ?",
                        (MAX_REFERENCE * 4, key),
                    ).fetchone()
                except sqlite3.Error as exc:
                    raise SourceError(f"upload cache {self.path!r}: cannot read: {exc}") from None
                if row is None:
                    return None
                entry = (row[0], row[1])
        reference, expires_at = entry
        problem = _valid(reference, expires_at)
        if problem is not None:
            raise SourceError(
                f"upload cache {self.path!r}: the entry for {key!r} is corrupt ({problem}); "
                "remove it with cache.discard(key) or delete the file"
            )
        assert isinstance(reference, str)
        if isinstance(expires_at, (int, float)) and expires_at <= time.time():
            return None
        return reference

    def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
        """Store an entry; a lock held elsewhere past ``timeout`` keeps it in memory for later."""
        _check_put(key, reference, expires_at)
        self._refuse_write()
        with self._lock:
            self._unsaved[key] = (reference, expires_at, time.time())
            self._flush()

    def entries(self) -> list[UploadEntry]:
        """Every sound entry whose key is a mediablocks upload key, oldest first (entries a
        hostile or damaged file holds that are not short printable text are left out)."""
        with self._lock:
            self._flush()
            try:
                rows = self._db.execute(
                    "SELECT key, reference, uploaded_at, expires_at FROM uploads "
                    "WHERE length(CAST(reference AS BLOB)) <= ? ORDER BY uploaded_at, key",
                    (MAX_REFERENCE * 4,),
                ).fetchall()
            except sqlite3.Error as exc:
                raise SourceError(f"upload cache {self.path!r}: cannot read: {exc}") from None
            pending = [(k, ref, at, exp) for k, (ref, exp, at) in self._unsaved.items()]
        found: list[UploadEntry] = []
        for key, reference, uploaded_at, expires_at in [*rows, *pending]:
            if _valid(reference, expires_at) is not None or not isinstance(key, str):
                continue
            entry = _entry(key, reference, uploaded_at, expires_at)
            if entry is not None:
                found.append(entry)
        return sorted(found, key=lambda e: (e.uploaded_at or 0, e.key))

    def _flush(self) -> None:
        """Write the entries not yet on disk in one short transaction (lock held by caller)."""
        if not self._unsaved:
            return
        rows = [(k, ref, exp, at) for k, (ref, exp, at) in self._unsaved.items()]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO uploads (key, reference, expires_at, uploaded_at) "
                    "VALUES (?, ?, ?, ?)",
                    rows,
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return  # kept in memory; the next call tries again
            raise SourceError(f"upload cache {self.path!r}: cannot write: {exc}") from None
        except sqlite3.Error as exc:
            raise SourceError(f"upload cache {self.path!r}: cannot write: {exc}") from None
        self._unsaved.clear()

    @property
    def unsaved(self) -> int:
        """How many entries wait in memory for another process's lock to be released."""
        with self._lock:
            return len(self._unsaved)

    def discard(self, key: str) -> None:
        """Forget ``key`` (a file the provider no longer has)."""
        self._refuse_write()
        with self._lock:
            self._unsaved.pop(key, None)
            try:
                self._db.execute("DELETE FROM uploads WHERE key = ?", (key,))
            except sqlite3.Error as exc:
                raise SourceError(f"upload cache {self.path!r}: cannot write: {exc}") from None

    def close(self) -> None:
        """Write what waits in memory (if the lock allows) and close the connection."""
        with self._lock:
            try:
                self._flush()
            finally:
                self._db.close()

    def __len__(self) -> int:
        with self._lock:
            self._flush()
            try:
                (count,) = self._db.execute("SELECT COUNT(*) FROM uploads").fetchone()
            except sqlite3.Error as exc:
                raise SourceError(f"upload cache {self.path!r}: cannot read: {exc}") from None
            return int(count) + len(self._unsaved)


_per_client: weakref.WeakKeyDictionary[object, MemoryUploadCache] = weakref.WeakKeyDictionary()
_per_client_lock = threading.Lock()


def default_cache(client: object) -> UploadCache:
    """The cache `mb.upload` uses when given none: one `MemoryUploadCache` per SDK client object,
    for as long as the client lives, so the same client uploads the same bytes once; a client
    that cannot be weakly referenced gets a cache for the one call."""
    try:
        with _per_client_lock:
            cache = _per_client.get(client)
            if cache is None:
                cache = MemoryUploadCache()
                _per_client[client] = cache
            return cache
    except TypeError:  # not hashable, or not weakly referenceable
        return MemoryUploadCache()
