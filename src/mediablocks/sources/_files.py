"""Bounded reads of local files: regular files only, never more than a cap (plus one byte).

`from_path` names a file the caller chose, but a path can still be ``/dev/zero``, a FIFO that never
closes, or a log that grows while it is read. Every read of a path goes through here: special
files are refused before a byte is read (a FIFO is opened non-blocking, so opening it cannot hang),
and a read stops one byte past its cap, so memory is bounded by the cap whatever the file does.
A file is judged by ``fstat`` on the descriptor it is read through; a path confined to roots is
reached from them by descriptor (`._confined`), never checked by name and opened again.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from ..errors import FileTooLargeError, SourceError
from ._confined import Confinement, confined_open, kind_of, plain_open, refusal

__all__ = ["open_descriptor", "open_regular", "path_from_file_uri", "read_capped", "read_window"]

_CHUNK = 1024 * 1024
"""Bytes asked for per read once a file has gone past the size it had when opened."""


def open_descriptor(path: str, what: str, confine: Confinement | None) -> tuple[int, int]:
    """An open descriptor on a regular file and its size when opened; refuses anything else.

    With ``confine``, the file is reached from its roots by descriptor (`confined_open`);
    without, ``path`` is opened as named. Either way the file is judged by ``fstat`` on the
    descriptor it is then read through, never by its name again.
    """
    if confine is None:
        fd = plain_open(path, what)
    else:
        fd = confined_open(path, confine.roots, what, confine.hint)
    try:
        info = os.fstat(fd)
        kind = kind_of(info.st_mode)
        if kind is not None:
            raise refusal(what, kind)
    except OSError as exc:
        os.close(fd)
        if isinstance(exc, SourceError):
            raise
        raise SourceError(f"{what}: cannot read: {exc.strerror or exc}") from None
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


def read_capped(path: str, cap: int, what: str, confine: Confinement | None = None) -> bytes:
    """The whole regular file at ``path``, if it holds at most ``cap`` bytes.

    Raises `FileTooLargeError` for a file larger than ``cap`` (before reading, when its size says
    so; after at most ``cap + 1`` bytes when it grows while read) and for devices, FIFOs and
    sockets; `SourceError` for a directory or a file that cannot be opened;
    `PathNotAllowedError` for a path that leaves ``confine``'s roots.
    """
    fd, size = open_descriptor(path, what, confine)
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


def open_regular(path: str, what: str, confine: Confinement | None = None) -> BinaryIO:
    """An open binary file on the regular file at ``path`` (for random access); refuses the rest."""
    fd, _ = open_descriptor(path, what, confine)
    return os.fdopen(fd, "rb")


def read_window(path: str, n: int, what: str, confine: Confinement | None = None) -> bytes:
    """At most the first ``n`` bytes of the regular file at ``path``; never reads past them."""
    fd, size = open_descriptor(path, what, confine)
    try:
        return _read_upto(fd, n, min(size, n), what)
    finally:
        os.close(fd)


def path_from_file_uri(uri: str) -> str:
    """The local path of a ``file:`` URI: ``file:/a/b``, ``file:///a/b``, ``file://localhost/a/b``.

    Percent-escapes are decoded. A remote host (``file://server/share``) is refused.
    """
    from urllib.parse import unquote, urlsplit
    from urllib.request import url2pathname

    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        raise ValueError(f"not a file: URI: {uri!r}")
    if parts.netloc not in ("", "localhost"):
        raise ValueError(
            f"file: URI names a remote host {parts.netloc!r}; only local files are read"
        )
    path = parts.path
    if not path:
        raise ValueError(f"file: URI has no path: {uri!r}")
    return url2pathname(path) if os.name == "nt" else unquote(path)
