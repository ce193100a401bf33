"""What the command line names: files, folders (walked in sorted order) and http(s) URLs."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ..fetch import fetch
from ..media import MediaBlock, media_block

__all__ = ["Item", "expand", "is_url", "load"]


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
    """Every file named, folders walked in sorted order, URLs as they are."""
    for name in names:
        if is_url(name):
            yield Item(label=name, url=name)
            continue
        path = Path(name)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for file in sorted(files):
                    found = Path(root) / file
                    yield Item(label=str(found), path=found, root=path)
        else:
            yield Item(label=name, path=path)


def load(item: Item) -> MediaBlock:
    """The item's media block: a file is read lazily, a URL is fetched under the current policy."""
    if item.path is not None:
        return media_block(item.path)
    assert item.url is not None
    result = fetch(item.url)
    return media_block(result.data, result.mime_type, filename=item.relative().name)
