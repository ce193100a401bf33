"""What the integrations share: plain values from framework objects, media from base64 with the
class the bytes decide, and the optional packages imported on first use with their install line."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, cast

from pydantic import BaseModel

from .._depth import check_depth
from ..blocks import ContentBlock
from ..errors import DecodeError, MediaBlocksError, UnsupportedBlockError
from ..media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ..mime import mime_kind

__all__ = ["as_content", "media_from_base64", "media_of_kind", "plain", "require"]

_CLASSES: dict[str, type[MediaBlock]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "file": FileBlock,
}


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import an optional framework package, or raise `UnsupportedBlockError` naming the extra
    that installs it (``pip install 'mediablocks[mcp]'``)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UnsupportedBlockError(
            f"{what} needs the {module.split('.')[0]} package: pip install 'mediablocks[{extra}]'"
        ) from None


def plain(value: Any, what: str) -> Any:
    """``value`` as JSON-like Python values: a pydantic model is dumped by alias (the wire
    names: ``mimeType``, ``_meta``), a dict or list is taken as is; nesting is bounded."""
    if isinstance(value, BaseModel):
        try:
            value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        except (ValueError, TypeError) as exc:
            raise DecodeError(f"{what} cannot be read: {exc}") from None
    check_depth(value, what)
    return value


def media_of_kind(kind: str) -> type[MediaBlock]:
    """The block class for a kind (``image``, ``audio``, ``video``, ``file``)."""
    return _CLASSES[kind]


def media_from_base64(
    data: Any, mime_type: str | None, filename: str | None, what: str
) -> MediaBlock:
    """A media block over base64 text, of the class its decoded header says (the declared type is
    a hint, as everywhere); nothing but the header window is decoded here."""
    if not isinstance(data, str):
        raise DecodeError(f"{what}: the data is a {type(data).__name__}, not base64 text")
    try:
        probe = FileBlock.from_base64(data, mime_type, filename=filename)
        cls = _CLASSES[mime_kind(probe.mime_type)]
    except MediaBlocksError as exc:
        raise type(exc)(f"{what}: {exc}") from None
    if cls is FileBlock:
        return probe
    return cls.from_source(probe.source, probe.declared_mime, probe.filename)


def as_content(block: MediaBlock) -> ContentBlock:
    """A media block as tool-result content (every media class is one; the base class is not
    in the union, so the checker needs telling)."""
    return cast(ContentBlock, block)
