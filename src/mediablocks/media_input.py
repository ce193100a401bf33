"""`media_block`: a media block of the right class from whatever a caller holds.

Bytes, a Pillow image, a path object, a data URI, an http(s) URL, a ``file:`` URI or bare base64:
the class (`ImageBlock`, `AudioBlock`, `VideoBlock` or `FileBlock`) comes from the detected type.
A plain string is never read as a local path. `mediablocks.media` holds the classes themselves.
"""

from __future__ import annotations

import os
from typing import Any, Union, cast
from urllib.parse import urlsplit

from .datauri import b64decode, is_data_uri, parse_data_uri
from .errors import DecodeError, InvalidSourceError
from .media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from .mime import HEADER_WINDOW, detect_mime, mime_kind, normalize_mime
from .mime._declared import _stays_text
from .sources import path_from_file_uri

__all__ = ["AnyMediaBlock", "media_block"]

_CLASS_BY_KIND: dict[str, type[MediaBlock]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "file": FileBlock,
}


AnyMediaBlock = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]
"""What `media_block` returns: one of the four media classes (each a member of `mb.Block`, so
``blocks: list[mb.Block] = [mb.media_block(data)]`` type-checks)."""


def _class_for(mime: str | None) -> type[MediaBlock]:
    return _CLASS_BY_KIND[mime_kind(mime)] if mime else FileBlock


def media_block(
    source: Any,
    mime_type: str | None = None,
    *,
    filename: str | None = None,
    strict: bool = False,
) -> AnyMediaBlock:
    """A media block of the right class for any source, chosen from the detected type.

    ``source`` may be a `MediaBlock` (returned as is), bytes, a Pillow image, an ``os.PathLike``,
    or a string holding a data URI, an http(s) URL, a ``file:`` URI, or bare base64 (taken when
    its bytes are media mediablocks recognises, or ``mime_type`` is given). A plain string is
    never taken for a path, so a string that came from a user cannot make mediablocks read a
    local file: wrap it in ``pathlib.Path`` to read one. For a path the header window is
    read to pick the class; for a URL the class comes from ``mime_type`` or the URL's extension,
    since nothing is fetched here.
    """
    block = _media_block(source, mime_type, filename=filename, strict=strict)
    return cast(AnyMediaBlock, block)  # every MediaBlock is one of the four classes


def _media_block(
    source: Any, mime_type: str | None, *, filename: str | None, strict: bool
) -> MediaBlock:
    if isinstance(source, MediaBlock):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = source if isinstance(source, bytes) else bytes(source)
        detected = detect_mime(data)
        declared = normalize_mime(mime_type) if mime_type else None
        if declared and detected and _stays_text(declared, detected, data[:HEADER_WINDOW]):
            detected = None  # text that only starts like a binary signature: the text kind
        cls = _class_for(detected or declared)
        return cls.from_bytes(data, mime_type, filename=filename, strict=strict)
    if isinstance(source, os.PathLike):
        probe = FileBlock.from_path(source, mime_type, filename=filename, strict=strict)
        cls = _class_for(probe.mime_type)
        if cls is FileBlock:
            return probe
        return cls.from_source(probe.source, probe.declared_mime, probe.filename, strict)
    if isinstance(source, str):
        return _media_block_from_string(source, mime_type, filename=filename, strict=strict)
    if _is_pil_image(source):
        return ImageBlock.from_pil(source)
    raise InvalidSourceError(
        f"media_block cannot use a {type(source).__name__} as a media source; pass bytes, a "
        "pathlib.Path, a data URI, an http(s) URL, a file: URI or a Pillow image"
    )


def _media_block_from_string(
    source: str, mime_type: str | None, *, filename: str | None, strict: bool
) -> MediaBlock:
    if is_data_uri(source):
        parsed = parse_data_uri(source)
        return media_block(
            parsed.data,
            mime_type or parsed.mime_type,
            filename=filename or parsed.filename,
            strict=strict,
        )
    scheme = urlsplit(source).scheme.lower()
    if scheme == "file":
        return media_block(_path_object(source), mime_type, filename=filename, strict=strict)
    if scheme in ("http", "https"):
        probe = FileBlock.from_url(source, mime_type, filename=filename, strict=strict)
        cls = _class_for(probe.mime_type if probe.mime_type != "application/octet-stream" else None)
        return cls.from_url(source, mime_type, filename=filename, strict=strict)
    data = _bare_base64(source)
    if data is not None and (mime_type is not None or detect_mime(data) is not None):
        return media_block(data, mime_type, filename=filename, strict=strict)
    raise InvalidSourceError(
        f"media_block will not guess what the string {source[:40]!r} is: it is not a data URI, "
        "an http(s) URL, a file: URI, or base64 of media it recognises; a plain string is never "
        "read as a local path: pass pathlib.Path(...) for a file (or say it is one with "
        "ImageBlock.from_path(...) and the other classes' from_path)"
    )


def _bare_base64(text: str) -> bytes | None:
    """The bytes of ``text`` if it is strict base64 (bare, as `from_base64` takes it), else None."""
    if len(text) < 8 or len(text) % 4:
        return None
    try:
        return b64decode(text)
    except DecodeError:
        return None


def _path_object(uri: str) -> os.PathLike[str]:
    from pathlib import Path

    try:
        return Path(path_from_file_uri(uri))
    except ValueError as exc:
        raise InvalidSourceError(str(exc)) from None


def _is_pil_image(value: object) -> bool:
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a dependency
        return False
    return isinstance(value, Image.Image)
