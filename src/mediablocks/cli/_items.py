"""What the command line names: files, folders (walked in sorted order) and http(s) URLs."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ..fetching import fetch
from ..media import MediaBlock
from ..media_input import media_block
from ..mime import HEADER_WINDOW
from ._wording import ItemError

__all__ = ["Item", "expand", "is_url", "load", "load_bounded"]


@dataclass(frozen=True)
class Item:
    """One thing named on the command line (or found in a folder): a local file or a URL."""

    label: str
    path: Path | None = None
    url: str | None = None
    root: Path | None = None
    """The folder it was found in, for keeping relative names in ``prepare --out``."""

    def relative(self) -> PurePosixPath:
        """The name to keep under an output folder: relative to the folder it was found in."""
        if self.path is not None and self.root is not None:
            return PurePosixPath(self.path.relative_to(self.root).as_posix())
        if self.path is not None:
            return PurePosixPath(self.path.name)
        name = PurePosixPath(urlsplit(self.url or "").path).name
        return PurePosixPath(name or "download")


def is_url(name: str) -> bool:
    """Whether a command-line argument is an http(s) URL rather than a path."""
    return urlsplit(name).scheme.lower() in ("http", "https")


def expand(names: Sequence[str]) -> Iterator[Item]:
    """Every file named, folders walked in sorted order, URLs as they are; a folder with no
    file in it is one item, which `load` refuses (so it is an error line, not nothing)."""
    for name in names:
        if is_url(name):
            yield Item(label=name, url=name)
            continue
        path = Path(name)
        if path.is_dir():
            found_any = False
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for file in sorted(files):
                    found = Path(root) / file
                    found_any = True
                    yield Item(label=str(found), path=found, root=path)
            if not found_any:  # said, not silently nothing: `load` names it
                yield Item(label=name, path=path)
        else:
            yield Item(label=name, path=path)


def _judged(info: os.stat_result) -> int:
    """The size of a regular file; a folder, a device, a pipe or a socket is refused
    (``/dev/zero`` or a FIFO would otherwise be read without end)."""
    if stat.S_ISDIR(info.st_mode):
        raise ItemError("a folder with no files in it")
    if not stat.S_ISREG(info.st_mode):
        raise ItemError("not a regular file (a device, pipe or socket); only files are read")
    return info.st_size


def _regular_file(path: Path) -> int:
    """The size of a regular file, judged by name: a first look that spares devices an open.
    What is then read is judged again on its open descriptor (`_open_regular`, `PathSource`)."""
    try:
        return _judged(path.stat())
    except FileNotFoundError:
        raise ItemError("no such file or directory") from None
    except OSError as exc:
        raise ItemError(f"cannot read: {exc.strerror or exc}") from None


_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _open_regular(path: Path) -> tuple[int, int]:
    """``(descriptor, size)`` of a regular file, judged on the descriptor it is read through: a
    file swapped for a FIFO after the first look is opened without blocking and refused."""
    _regular_file(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise ItemError("no such file or directory") from None
    except OSError as exc:
        raise ItemError(f"cannot read: {exc.strerror or exc}") from None
    try:
        return fd, _judged(os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise


def load(item: Item) -> MediaBlock:
    """The item's media block: a file is read lazily, a URL is fetched under the current policy."""
    if item.path is not None:
        _regular_file(item.path)
        return media_block(item.path)
    assert item.url is not None
    result = fetch(item.url)
    return media_block(result.data, result.mime_type, filename=item.relative().name)


def load_bounded(item: Item, max_bytes: int) -> tuple[MediaBlock, int, bool]:
    """``(block, size, whole)``: a file's block read with at most ``max_bytes`` bytes in memory.

    A file larger than that gives a block over its first `HEADER_WINDOW` bytes only (enough for
    its type and header facts) and ``whole`` False; a file that grows while read is cut the same
    way. URLs are fetched under the policy, whose ``max_bytes`` bounds them.
    """
    if item.path is None:
        block = load(item)
        return block, len(block.read()), True
    fd, size = _open_regular(item.path)
    limit = HEADER_WINDOW if size > max_bytes else max_bytes + 1
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(limit)
    except OSError as exc:
        raise ItemError(f"cannot read: {exc.strerror or exc}") from None
    whole = size <= max_bytes and len(data) <= max_bytes
    if not whole:
        data = data[:HEADER_WINDOW]
    return media_block(data, filename=item.path.name), max(size, len(data)), whole
