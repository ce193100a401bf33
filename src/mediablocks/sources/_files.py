"""Bounded reads of local files: regular files only, never more than a cap (plus one byte).

`from_path` names a file the caller chose, but a path can still be ``/dev/zero``, a FIFO that never
closes, or a log that grows while it is read. Every read of a path goes through here: special
files are refused before a byte is read (a FIFO is opened non-blocking, so opening it cannot hang),
and a read stops one byte past its cap, so memory is bounded by the cap whatever the file does.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from ..errors import FileTooLargeError, SourceError

__all__ = ["open_regular", "read_capped", "read_window"]

_CHUNK = 1024 * 1024
"""Bytes asked for per read once a file has gone past the size it had when opened."""


def _kind_of(mode: int) -> str | None:
    """Why a file with this ``st_mode`` cannot be read as media; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refuse(what: str, kind: str) -> SourceError:
    if kind == "a directory":
        return SourceError(f"{what}: is a directory, not a file")
    return FileTooLargeError(
        f"{what}: is {kind}, which has no bounded size; only regular files are read"
    )


def _open_regular(path: str, what: str) -> tuple[int, int]:
    """An open descriptor on a regular file and its size when opened; refuses anything else."""
    try:
        kind = _kind_of(os.stat(path).st_mode)
        if kind is not None:  # refused before opening: opening a device can have effects
            raise _refuse(what, kind)
        flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
        # Non-blocking, so a FIFO swapped in after the stat cannot hang the open.
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"{what}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        kind = _kind_of(info.st_mode)
        if kind is not None:
            raise _refuse(what, kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def _read_upto(fd: int, limit: int, expected: int, what: str) -> bytes:
    """At most ``limit`` bytes from ``fd``: one read of the size the file said it had, then
    bounded chunks while it keeps giving more (a file that grows, ``/proc`` files of size 0)."""
    parts: list[bytes] = []
    total = 0
    want = min(limit, expected + 1) if expected > 0 else min(limit, _CHUNK)
    try:
        while total < limit:
            chunk = os.read(fd, min(want, limit - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            want = _CHUNK
    except OSError as exc:
        raise SourceError(f"{what}: cannot read: {exc.strerror or exc}") from None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_capped(path: str, cap: int, what: str) -> bytes:
    """The whole regular file at ``path``, if it holds at most ``cap`` bytes.

    Raises `FileTooLargeError` for a file larger than ``cap`` (before reading, when its size says
    so; after at most ``cap + 1`` bytes when it grows while read) and for devices, FIFOs and
    sockets; `SourceError` for a directory or a file that cannot be opened.
    """
    fd, size = _open_regular(path, what)
    try:
        if size > cap:
            raise FileTooLargeError(
                f"{what}: {size:,} bytes is more than FetchPolicy.max_path_bytes ({cap:,})",
                limit=cap,
                size=size,
            )
        data = _read_upto(fd, cap + 1, size, what)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise FileTooLargeError(
            f"{what}: grew past FetchPolicy.max_path_bytes ({cap:,} bytes) while it was read",
            limit=cap,
            size=len(data),
        )
    return data


def open_regular(path: str, what: str) -> BinaryIO:
    """An open binary file on the regular file at ``path`` (for random access); refuses the rest."""
    fd, _ = _open_regular(path, what)
    return os.fdopen(fd, "rb")


def read_window(path: str, n: int, what: str) -> bytes:
    """At most the first ``n`` bytes of the regular file at ``path``; never reads past them."""
    fd, size = _open_regular(path, what)
    try:
        return _read_upto(fd, n, min(size, n), what)
    finally:
        os.close(fd)
