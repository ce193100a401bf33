"""Where media taken out of a session (or uploaded) keep their bytes, by SHA-256.

A `MediaStore` maps the SHA-256 of some bytes to the bytes. `fit_session` puts every image it
turns into a thumbnail or a text reference there, so a ``view_media`` tool can give the model the
full image again (`view_media`); `mb.upload` can put what it uploads there, so a history whose
media live in one provider's file store can still be sent inline to another.

The protocol is three methods, so a database, Redis or an object store will do:

- ``put(data) -> digest``: store the bytes (idempotent), return their SHA-256 in hex;
- ``get(digest) -> bytes | None``: the bytes for a full digest, None when not stored;
- ``find(prefix) -> list[str]``: the digests starting with a hex prefix (references the model
  sees carry 16 hex digits).

`MemoryMediaStore` lives as long as the object. `DirectoryMediaStore` keeps one file per digest
in a folder (``<folder>/<2 hex>/<digest>``): written to a temporary file and renamed, so a file is
complete or absent; never through a link; and checked against its digest when read, so a file
changed on disk is refused, never handed out.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import threading
from typing import Protocol, runtime_checkable

from ..errors import InvalidOptionError, SourceError
from ._files import read_capped

__all__ = [
    "MIN_PREFIX",
    "DirectoryMediaStore",
    "MediaStore",
    "MemoryMediaStore",
    "check_digest",
    "check_prefix",
    "checked_get",
]

MIN_PREFIX = 8
"""The shortest hex prefix `find` takes (8 digits: 32 bits, a lookup, not a guess)."""
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
"""The largest file `DirectoryMediaStore` reads back (a store holds media, not disk images)."""

_DIGEST = re.compile(r"[0-9a-f]{64}")
_PREFIX = re.compile(rf"[0-9a-f]{{{MIN_PREFIX},64}}")


def check_digest(digest: object) -> str:
    """``digest`` if it is a SHA-256 in lowercase hex, else `InvalidOptionError`."""
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise InvalidOptionError(f"not a SHA-256 hex digest: {digest!r:.80}")
    return digest


def check_prefix(prefix: object) -> str:
    """``prefix`` if it is 8 to 64 lowercase hex digits, else `InvalidOptionError`."""
    if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
        raise InvalidOptionError(
            f"a media store prefix is {MIN_PREFIX} to 64 lowercase hex digits, got {prefix!r:.80}"
        )
    return prefix


@runtime_checkable
class MediaStore(Protocol):
    """Bytes by SHA-256: what `fit_session` evicts and `mb.upload` can keep."""

    def put(self, data: bytes) -> str:
        """Store ``data`` (nothing happens when it is there already); its SHA-256 in hex."""
        ...

    def get(self, digest: str) -> bytes | None:
        """The bytes whose SHA-256 is ``digest``, or None when they are not stored."""
        ...

    def find(self, prefix: str) -> list[str]:
        """The stored digests starting with ``prefix``, sorted."""
        ...


def checked_get(store: MediaStore, digest: str) -> bytes | None:
    """``store.get(digest)``, refusing bytes that are not what the digest says (a store of
    yours, or a folder someone wrote to, is checked like any other input)."""
    data = store.get(digest)
    if data is None:
        return None
    if not isinstance(data, bytes):
        raise SourceError(f"media store {store!r}: get() returned {type(data).__name__}, not bytes")
    if hashlib.sha256(data).hexdigest() != digest:
        raise SourceError(f"media store {store!r}: the bytes stored as {digest} are not those")
    return data


class MemoryMediaStore:
    """A store in this process's memory: a dict guarded by a lock, safe to share by threads."""

    def __init__(self) -> None:
        self._items: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, data: bytes) -> str:
        if not isinstance(data, bytes):
            raise InvalidOptionError(f"MemoryMediaStore.put takes bytes, not {type(data).__name__}")
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            self._items.setdefault(digest, data)
        return digest

    def get(self, digest: str) -> bytes | None:
        with self._lock:
            return self._items.get(check_digest(digest))

    def find(self, prefix: str) -> list[str]:
        prefix = check_prefix(prefix)
        with self._lock:
            return sorted(d for d in self._items if d.startswith(prefix))

    def __contains__(self, digest: object) -> bool:
        with self._lock:
            return digest in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


_NO_LINKS = getattr(os, "O_NOFOLLOW", 0)


class DirectoryMediaStore:
    """A store in a folder: ``<directory>/<first 2 hex digits>/<digest>``, one file per content.

    Files are written to a temporary name and renamed (complete or absent), never through a
    symbolic link, and read back only if they are regular files of at most ``max_bytes`` whose
    SHA-256 is their name: anything else raises `SourceError` naming the file. Several processes
    may share the folder.
    """

    def __init__(
        self, directory: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise InvalidOptionError(
                f"DirectoryMediaStore: max_bytes must be >= 1, got {max_bytes!r}"
            )
        self.directory = os.path.abspath(os.fspath(directory))
        self.max_bytes = max_bytes
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as exc:
            raise SourceError(f"media store {self.directory!r}: cannot create: {exc}") from None

    def __repr__(self) -> str:
        return f"DirectoryMediaStore({self.directory!r})"

    def _folder(self, digest: str) -> str:
        return os.path.join(self.directory, digest[:2])

    def _path(self, digest: str) -> str:
        return os.path.join(self._folder(digest), digest)

    def put(self, data: bytes) -> str:
        if not isinstance(data, bytes):
            raise InvalidOptionError(
                f"DirectoryMediaStore.put takes bytes, not {type(data).__name__}"
            )
        digest = hashlib.sha256(data).hexdigest()
        path = self._path(digest)
        if os.path.lexists(path):
            return digest  # content-addressed: what is there is checked when read
        folder = self._folder(digest)
        temporary = os.path.join(folder, f".{digest}.{secrets.token_hex(6)}.tmp")
        try:
            if os.path.islink(folder):
                raise SourceError(f"media store {self.directory!r}: {folder!r} is a link")
            os.makedirs(folder, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINKS | getattr(os, "O_BINARY", 0)
            fd = os.open(temporary, flags, 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, path)
            except BaseException:
                if os.path.lexists(temporary):
                    os.unlink(temporary)
                raise
        except SourceError:
            raise
        except OSError as exc:
            raise SourceError(
                f"media store {self.directory!r}: cannot write {digest}: {exc}"
            ) from None
        return digest

    def get(self, digest: str) -> bytes | None:
        path = self._path(check_digest(digest))
        what = f"media store file {path!r}"
        if not os.path.lexists(path):
            return None
        if os.path.islink(path) or os.path.islink(self._folder(digest)):
            raise SourceError(f"{what}: is a symbolic link; the store never follows links")
        data = read_capped(path, self.max_bytes, what)
        if hashlib.sha256(data).hexdigest() != digest:
            raise SourceError(f"{what}: its bytes are not the ones its name says (changed on disk)")
        return data

    def find(self, prefix: str) -> list[str]:
        prefix = check_prefix(prefix)
        folder = self._folder(prefix)
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise SourceError(f"media store {self.directory!r}: cannot list: {exc}") from None
        return sorted(n for n in names if n.startswith(prefix) and _DIGEST.fullmatch(n))

    def __contains__(self, digest: object) -> bool:
        return (
            isinstance(digest, str)
            and bool(_DIGEST.fullmatch(digest))
            and os.path.lexists(self._path(digest))
        )
