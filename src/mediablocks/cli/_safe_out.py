"""Writing under ``prepare --out`` without ever writing outside it.

The folder named by ``--out`` is opened once; everything below it is reached through folder file
descriptors opened with ``O_NOFOLLOW``, so a symbolic link planted inside ``--out`` (to a folder
or to a file) is refused or replaced, never followed. Each file is written to a fresh temporary
name beside its target (``O_CREAT | O_EXCL | O_NOFOLLOW``) and moved into place only when
complete: with ``replace`` by ``rename`` (which replaces a planted link itself, not what it
points to), without it by ``link``, which fails when the name exists, so not even a race
replaces a file. ``--out`` itself is the user's choice and is followed if it is a link.

Names handed in are relative POSIX paths; an absolute one, ``..``, ``.`` or an empty part is
refused (a URL's last path segment can be ``..``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path, PurePosixPath

from ._wording import ItemError

__all__ = ["OutputFolder"]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_SYMLINK_ERRORS = (errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP))


def _parts(relative: PurePosixPath) -> tuple[str, ...]:
    parts = relative.parts
    if relative.is_absolute() or not parts or any(p in ("", ".", "..") for p in parts):
        raise ItemError(f"{relative}: not a name inside --out; refusing to write it")
    return parts


class OutputFolder:
    """The ``--out`` folder, open; `write`, `remove_file` and `read` stay inside it."""

    def __init__(self, out: Path) -> None:
        if not (os.open in os.supports_dir_fd and _NOFOLLOW):
            raise ItemError("this platform cannot write without following links (no dir_fd)")
        self.out = out
        self._root = os.open(out, _DIR_FLAGS)
        self._dirs: dict[tuple[str, ...], int] = {(): self._root}

    def close(self) -> None:
        """Close every folder descriptor."""
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs = {}

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _folder(self, parts: tuple[str, ...], create: bool) -> int | None:
        """The descriptor of ``out/parts``; None when missing and not ``create``."""
        if parts in self._dirs:
            return self._dirs[parts]
        parent = self._folder(parts[:-1], create)
        if parent is None:
            return None
        name = parts[-1]
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=parent)
        try:
            fd = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=parent)
        except FileNotFoundError:
            if create:
                raise
            return None
        except OSError as exc:
            if exc.errno in _SYMLINK_ERRORS:
                where = self.out.joinpath(*parts)
                raise ItemError(
                    f"{where} is a symbolic link or not a folder; refusing to write through it"
                ) from None
            raise
        self._dirs[parts] = fd
        return fd

    def exists(self, relative: PurePosixPath) -> bool:
        """Whether anything (a link included) has this name."""
        parts = _parts(relative)
        try:
            folder = self._folder(parts[:-1], create=False)
        except ItemError:
            return False
        if folder is None:
            return False
        try:
            os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return True

    def write(self, relative: PurePosixPath, data: bytes, replace: bool) -> bool:
        """Write ``data`` as ``out/relative``; True when it replaced something.

        Without ``replace`` an existing name is an error; with it, whatever has the name (a
        planted link included) is replaced, never written through.
        """
        parts = _parts(relative)
        folder = self._folder(parts[:-1], create=True)
        assert folder is not None
        name = parts[-1]
        temporary = f".{name[:40]}.{secrets.token_hex(6)}.part"
        fd = os.open(temporary, _NEW_FILE, 0o666, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            existed = self.exists(relative)
            if replace:
                try:
                    os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
                except IsADirectoryError:
                    raise ItemError(f"{self.out.joinpath(*parts)} is a folder") from None
                return existed
            try:
                os.link(
                    temporary, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False
                )
            except FileExistsError:
                raise ItemError(
                    f"{self.out.joinpath(*parts)} already exists; pass --overwrite to replace it"
                ) from None
            return False
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=folder)

    def remove_file(self, relative: PurePosixPath) -> str | None:
        """Remove ``out/relative`` if it is a regular file; else say why it was left."""
        try:
            parts = _parts(relative)
            folder = self._folder(parts[:-1], create=False)
        except ItemError as exc:
            return str(exc)
        if folder is None:
            return "already gone"
        try:
            info = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return "already gone"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file; left in place"
        os.unlink(parts[-1], dir_fd=folder)
        return None

    def read(self, relative: PurePosixPath, limit: int) -> bytes | None:
        """A regular file's first ``limit`` + 1 bytes, read without following a link; None if
        there is no such file. A link or anything but a regular file is an `ItemError`."""
        parts = _parts(relative)
        folder = self._folder(parts[:-1], create=False)
        if folder is None:
            return None
        try:
            fd = os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in _SYMLINK_ERRORS:
                raise ItemError(f"{self.out.joinpath(*parts)} is a symbolic link") from None
            raise
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ItemError(f"{self.out.joinpath(*parts)} is not a regular file")
            return handle.read(limit + 1)
