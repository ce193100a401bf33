"""Where `write_batch` puts its lines: whole files renamed into place, or the caller's stream.

A path that names a regular file (or nothing yet) is written through a temporary file beside
it (``O_EXCL``, same folder, so the rename is atomic) which replaces the target only once every
line is written, flushed and synced: a failure (a request that cannot be encoded, a full disk at
the final flush) leaves the old target as it was, or nothing, and removes only the temporary
files this call created. A path that exists but is not a regular file (a FIFO, ``/dev/stdout``)
is written directly and never removed. A write error is a `SourceError`, never a raw `OSError`;
so is a caller's writer that fails mid-way (an ``OSError``, a ``ValueError`` on a closed file, or
its own exception, kept as the cause).

When a batch outgrows one file (``max_requests`` lines or ``max_bytes`` bytes), a path output
rolls over to numbered files ``<stem>-001<suffix>``, ``-002``...; a stream cannot roll over and
raises `TooLargeError` naming the limit.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass, field
from typing import IO

from ..errors import SourceError, TooLargeError

__all__ = ["BatchOutput", "Part"]


@dataclass
class Part:
    """One file of a batch: where it ends up and the request ids it holds."""

    path: str
    ids: list[str] = field(default_factory=list)
    size: int = 0


class BatchOutput:
    """Lines in, whole files out (see the module docstring)."""

    def __init__(
        self,
        target: str | os.PathLike[str] | IO[bytes],
        *,
        max_requests: int,
        max_bytes: int,
        limits: str,
    ) -> None:
        self.max_requests, self.max_bytes, self.limits = max_requests, max_bytes, limits
        self.parts: list[Part] = []
        self._temps: list[str] = []
        self._handle: IO[bytes] | None = None
        self._stream: IO[bytes] | None = None
        self._direct: str | None = None  # an existing FIFO or device, written in place
        self._final: str | None = None
        self.name = "<stream>"
        if not isinstance(target, (str, os.PathLike)):
            self._stream = target
            self.parts.append(Part("<stream>"))
            self._handle = target
            return
        self.name = os.fspath(target)
        try:
            info: os.stat_result | None = os.stat(self.name)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise self._error("cannot write", exc) from None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise SourceError(f"batch file {self.name!r}: cannot write: it is a folder")
        if info is not None and not stat.S_ISREG(info.st_mode):
            self._direct = self.name
            try:
                self._handle = open(self.name, "wb")  # noqa: SIM115 - closed in finish/abort
            except OSError as exc:
                raise self._error("cannot write", exc) from None
            self.parts.append(Part(self.name))
            return
        # a symlink's target is replaced, not the link itself
        self._final = os.path.realpath(self.name) if os.path.islink(self.name) else self.name
        self._mode = stat.S_IMODE(info.st_mode) if info is not None else 0o644
        self._open_part()

    def _error(self, what: str, exc: Exception) -> SourceError:
        if self._stream is not None:
            return SourceError(f"batch stream: {what}: {type(exc).__name__}: {exc}")
        return SourceError(f"batch file {self.name!r}: {what}: {exc}")

    def _open_part(self) -> None:
        assert self._final is not None
        folder, base = os.path.split(self._final)
        try:
            fd, temp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder or ".")
        except OSError as exc:
            raise self._error("cannot write", exc) from None
        self._temps.append(temp)
        self._handle = os.fdopen(fd, "wb")
        self.parts.append(Part(temp))

    def write(self, line: bytes, request_id: str, index: int) -> None:
        """Add one line (without its newline), rolling over to a new file at the limits."""
        size = len(line) + 1
        if size > self.max_bytes:
            raise TooLargeError(
                f"batch request {index} ({request_id!r}) is {size} bytes, more than one batch "
                f"file may hold ({self.max_bytes} bytes, {self.limits})"
            )
        part = self.parts[-1]
        if part.ids and (len(part.ids) >= self.max_requests or part.size + size > self.max_bytes):
            if self._final is None:
                raise TooLargeError(
                    f"batch request {index} ({request_id!r}) goes past one batch file's limit "
                    f"({self.max_requests} requests or {self.max_bytes} bytes, {self.limits}); "
                    "write to a path so the batch rolls over to numbered files"
                )
            self._close_part()
            self._open_part()
            part = self.parts[-1]
        assert self._handle is not None
        try:
            self._handle.write(line)
            self._handle.write(b"\n")
        except Exception as exc:  # a caller's writer may fail its own way (closed: ValueError)
            if self._stream is None and not isinstance(exc, OSError):
                raise
            cause = exc if self._stream is not None else None  # the writer's error is news
            raise self._error("cannot write", exc) from cause
        part.ids.append(request_id)
        part.size += size

    def _close_part(self) -> None:
        """Flush, sync and close the current temporary file (a full disk shows up here)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), self._mode)
        except OSError as exc:
            with contextlib.suppress(OSError):
                handle.close()
            raise self._error("cannot write", exc) from None
        try:
            handle.close()
        except OSError as exc:
            raise self._error("cannot write", exc) from None

    def finish(self) -> list[Part]:
        """Put every file in place; returns the parts with their final paths."""
        if self._stream is not None:
            try:
                self._stream.flush()
            except Exception as exc:  # OSError, or the caller's writer's own failure
                raise SourceError(f"batch stream: cannot write: {exc}") from exc
            return self.parts
        if self._direct is not None:
            handle, self._handle = self._handle, None
            try:
                assert handle is not None
                handle.close()
            except OSError as exc:
                raise self._error("cannot write", exc) from None
            return self.parts
        self._close_part()
        assert self._final is not None
        finals = [self._final] if len(self.parts) == 1 else self._numbered(len(self.parts))
        for part, final in zip(self.parts, finals, strict=True):
            try:
                os.replace(part.path, final)
            except OSError as exc:
                raise self._error("cannot put the finished file in place", exc) from None
            self._temps.remove(part.path)
            part.path = final
        return self.parts

    def _numbered(self, count: int) -> list[str]:
        assert self._final is not None
        stem, suffix = os.path.splitext(self._final)
        width = max(3, len(str(count)))
        return [f"{stem}-{n:0{width}d}{suffix}" for n in range(1, count + 1)]

    def abort(self) -> None:
        """Undo: close, and remove only the temporary files this call created."""
        handle, self._handle = self._handle, None
        if handle is not None and self._stream is None:
            with contextlib.suppress(OSError):
                handle.close()
        for temp in self._temps:
            with contextlib.suppress(OSError):
                os.remove(temp)
        self._temps.clear()
