"""Opening a file under an allowed folder through descriptors, never by name twice.

Checking a path by name (``realpath``, ``stat``) and then opening it by name again leaves a
window in which a folder can be swapped for a symbolic link to ``/`` or a file for a FIFO. Here the
root is opened once and every component below it is opened relative to its parent's descriptor
(``openat``) with ``O_NOFOLLOW``, so what is read is exactly what was checked:

- a symbolic link met on the way is read (``readlinkat``) and resolved by this walk, within the
  root: a link that stays inside is followed, one that leads outside (absolute, or ``..`` above
  the root) raises `PathNotAllowedError`; ``..`` never goes above the root;
- the last component is opened with ``O_NONBLOCK`` (a FIFO swapped in cannot hang the open) and
  judged by ``fstat`` on the open descriptor; devices are refused from an ``lstat`` first, so
  opening one has no effect.

Platforms without ``O_NOFOLLOW`` and ``dir_fd`` (Windows) fall back to resolving the real path and
checking it against the root, which is not race-free; docs/isolation.md says so.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import FileTooLargeError, PathNotAllowedError, SourceError

__all__ = [
    "MAX_LINKS",
    "Confinement",
    "confined_open",
    "descriptors_supported",
    "kind_of",
    "plain_open",
    "refusal",
]

MAX_LINKS = 40
"""Symbolic links one path may go through (Linux's own limit), so a link loop ends."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_READ = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_LINK_ERRORS = frozenset({errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)})


@dataclass(frozen=True)
class Confinement:
    """The folders a path must be read under, and where they came from (said in errors)."""

    roots: tuple[str, ...]
    hint: str
    """``FetchPolicy.allowed_roots=[...]``, ``allow_paths=[...]``: what the caller set."""


def descriptors_supported() -> bool:
    """Whether files can be opened component by component without following links."""
    return bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd


def _cannot(what: str, exc: OSError) -> SourceError:
    return SourceError(f"{what}: cannot read: {exc.strerror or exc}")


def kind_of(mode: int) -> str | None:
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


def refusal(what: str, kind: str) -> SourceError:
    """The error for a file of ``kind`` (see `kind_of`): only regular files are read."""
    if kind == "a directory":
        return SourceError(f"{what}: is a directory, not a file")
    return FileTooLargeError(
        f"{what}: is {kind}, which has no bounded size; only regular files are read"
    )


def _is_device(mode: int) -> bool:
    """Devices are refused before they are opened: opening one can have effects (a tape)."""
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def plain_open(path: str, what: str) -> int:
    """A descriptor on ``path`` as the caller named it (links followed): non-blocking, so a FIFO
    cannot hang the open; the caller judges the file by ``fstat`` on it."""
    try:
        mode = os.stat(path).st_mode  # a hint to spare devices an open: fstat decides
        if _is_device(mode):
            raise refusal(what, kind_of(mode) or "not a regular file")
        return os.open(path, _READ | _NONBLOCK | _NOCTTY)
    except SourceError:
        raise
    except OSError as exc:
        raise _cannot(what, exc) from None


def _below(path: str, root: str) -> list[str] | None:
    """The components of absolute ``path`` below ``root`` (both as written, compared without
    resolving anything), or None when ``path`` is not under ``root``."""
    root = root.rstrip(os.sep) or os.sep
    if path == root:
        return []
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not path.startswith(prefix):
        return None
    return [part for part in path[len(prefix) :].split(os.sep) if part]


def _parts_under(path: str, root: str) -> list[str] | None:
    """Where ``path`` lies below ``root``: as written, or through links outside the root (the
    folder reached through ``/var`` -> ``/private/var``). Any answer is safe: the walk from the
    root's descriptor decides what is opened."""
    absolute = os.path.abspath(path)
    for candidate in (os.path.abspath(root), os.path.realpath(root)):
        parts = _below(absolute, candidate)
        if parts is not None:
            return parts
    return _below(os.path.realpath(absolute), os.path.realpath(root))


def confined_open(path: str, roots: Sequence[str], what: str, hint: str) -> int:
    """A descriptor on the file ``path`` names, reached from one of ``roots`` without leaving it.

    ``hint`` says where the roots came from, for the error (``FetchPolicy.allowed_roots=[...]``).
    Raises `PathNotAllowedError` when ``path`` is not under a root, goes up with ``..``, or meets
    a link leading outside; `SourceError` when it cannot be opened. The caller checks the file's
    kind with ``fstat`` on the descriptor and closes it.
    """
    if ".." in path.replace("\\", "/").split("/"):
        raise PathNotAllowedError(f"{what}: '..' is not allowed in confined paths ({hint})")
    if not descriptors_supported():
        return _open_by_real_path(path, roots, what, hint)
    for root in roots:
        parts = _parts_under(path, root)
        if parts is not None:
            return _walk(root, parts, what, hint)
    raise PathNotAllowedError(f"{what}: resolves outside the allowed roots ({hint})")


def _open_by_real_path(path: str, roots: Sequence[str], what: str, hint: str) -> int:
    """The fallback without ``dir_fd``: the real path checked, then opened (not race-free)."""
    real = os.path.realpath(path)
    for root in roots:
        real_root = os.path.realpath(root)
        if os.path.commonpath([real, real_root]) == real_root:
            return plain_open(real, what)
    raise PathNotAllowedError(f"{what}: resolves outside the allowed roots ({hint})")


class _Link(Exception):
    """The component just met is a symbolic link (to be resolved by the walk)."""


def _walk(root: str, parts: list[str], what: str, hint: str) -> int:
    """Open ``root``, then each of ``parts`` below it by descriptor (see the module docstring)."""
    try:
        root_fd = os.open(root, _READ | _DIRECTORY)  # the caller named the root: a link is fine
    except OSError as exc:
        raise _cannot(what, exc) from None
    stack = [root_fd]  # the folders walked through, root first: '..' pops one
    pending = deque(parts)
    links = 0
    try:
        while pending:
            name = pending.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                if len(stack) == 1:
                    raise PathNotAllowedError(
                        f"{what}: a symbolic link on the way leads above the allowed root ({hint})"
                    )
                os.close(stack.pop())
                continue
            last = not any(part not in ("", ".") for part in pending)
            try:
                fd = _open_component(name, stack[-1], last, what)
            except _Link:
                links += 1
                if links > MAX_LINKS:
                    raise SourceError(f"{what}: cannot read: too many symbolic links") from None
                target = os.readlink(name, dir_fd=stack[-1])
                if os.path.isabs(target):
                    inside = _parts_under(target, root)
                    if inside is None:
                        raise PathNotAllowedError(
                            f"{what}: a symbolic link on the way resolves outside the allowed "
                            f"roots ({hint})"
                        ) from None
                    while len(stack) > 1:
                        os.close(stack.pop())
                    pending.extendleft(reversed(inside))
                else:
                    pending.extendleft(reversed(target.split("/")))
                continue
            if last:
                return fd
            stack.append(fd)
        raise SourceError(f"{what}: is a directory, not a file")
    except OSError as exc:
        if isinstance(exc, SourceError):
            raise
        raise _cannot(what, exc) from None
    finally:
        for fd in stack:
            os.close(fd)


def _open_component(name: str, folder: int, last: bool, what: str) -> int:
    """One component below ``folder``: a folder to walk into, or (``last``) the file itself.
    Raises `_Link` for a symbolic link, which is never opened."""
    if last:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            raise _Link
        if _is_device(info.st_mode):
            raise refusal(what, kind_of(info.st_mode) or "not a regular file")
        flags = _READ | _NOFOLLOW | _NONBLOCK | _NOCTTY
    else:
        flags = _READ | _NOFOLLOW | _DIRECTORY | _NONBLOCK
    try:
        return os.open(name, flags, dir_fd=folder)
    except OSError as exc:
        if exc.errno not in _LINK_ERRORS:
            raise
        # Swapped for a link since the lstat, or a link where a folder was expected.
        if stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
            raise _Link from None
        raise
