"""Remember transcripts and descriptions, so the same media is transcribed once.

`prepare` looks every stand-in up by a key made of the kind (``transcript``, ``description``),
the callable's identity (its ``cache_key`` attribute, else its qualified name) and the SHA-256
of the media's bytes. A hit reuses the stored text: a saved history prepared again calls the
transcriber 0 times. Values are the `Transcript` or `Description` as JSON text.

`MemoryStandInCache` lives as long as the object (`prepare`'s default is one per process);
`DirectoryStandInCache` keeps one small JSON file per entry in a directory, so separate runs
and processes share it. Any object with ``get`` and ``put`` will do (Redis, a table...).
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
from collections import OrderedDict
from typing import Protocol, runtime_checkable

from ..errors import InvalidOptionError, SourceError

__all__ = [
    "DirectoryStandInCache",
    "MemoryStandInCache",
    "StandInCache",
    "default_stand_in_cache",
]

MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""The largest entry a cache stores or reads back (a 30-hour transcript is far smaller)."""


@runtime_checkable
class StandInCache(Protocol):
    """Where `prepare` keeps transcripts and descriptions, by content key."""

    def get(self, key: str) -> str | None:
        """The JSON text stored under ``key``, or None."""
        ...

    def put(self, key: str, value: str) -> None:
        """Store ``value`` (JSON text) under ``key``."""
        ...


def _check(key: object, value: object) -> None:
    if not isinstance(key, str) or not key:
        raise SourceError(f"stand-in cache: a key is non-empty text, not {key!r:.60}")
    if not isinstance(value, str) or len(value.encode("utf-8", "surrogatepass")) > MAX_ENTRY_BYTES:
        raise SourceError(f"stand-in cache: refusing to store {key!r}: not text of at most 16 MiB")


class MemoryStandInCache:
    """An in-process cache: the ``max_entries`` most recently used entries, behind a lock."""

    def __init__(self, max_entries: int = 4096) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise InvalidOptionError(
                f"MemoryStandInCache: max_entries must be a whole number >= 1, got {max_entries!r}"
            )
        self.max_entries = max_entries
        self._entries: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: str, value: str) -> None:
        _check(key, value)
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


class DirectoryStandInCache:
    """A cache kept on disk: one ``<sha256 of the key>.json`` file per entry in ``directory``.

    Files are written whole or not at all (a temporary file renamed into place), never through a
    symbolic link, and read back only when they are regular files of at most `MAX_ENTRY_BYTES`;
    what `prepare` reads is validated again as a `Transcript` or `Description`, so a damaged or
    planted file is a miss (or an error naming it), never text of the wrong shape.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = os.fspath(directory)
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as exc:
            raise SourceError(f"stand-in cache {self.directory!r}: cannot create: {exc}") from None

    def _path(self, key: str) -> str:
        name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(self.directory, name + ".json")

    def get(self, key: str) -> str | None:
        path = self._path(key)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            descriptor = os.open(path, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SourceError(f"stand-in cache {path!r}: cannot open: {exc}") from None
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise SourceError(f"stand-in cache {path!r}: not a regular file")
            data = handle.read(MAX_ENTRY_BYTES + 1)
        if len(data) > MAX_ENTRY_BYTES:
            raise SourceError(f"stand-in cache {path!r}: larger than {MAX_ENTRY_BYTES:,} bytes")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SourceError(f"stand-in cache {path!r}: not UTF-8 text") from None

    def put(self, key: str, value: str) -> None:
        _check(key, value)
        path = self._path(key)
        try:
            descriptor, temporary = tempfile.mkstemp(
                prefix=".stand-in-", suffix=".tmp", dir=self.directory
            )
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(value.encode("utf-8"))
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as exc:
            raise SourceError(f"stand-in cache {path!r}: cannot write: {exc}") from None


_default: MemoryStandInCache | None = None
_default_lock = threading.Lock()


def default_stand_in_cache() -> MemoryStandInCache:
    """The process-wide in-memory cache `prepare` uses when given none."""
    global _default
    with _default_lock:
        if _default is None:
            _default = MemoryStandInCache()
        return _default
