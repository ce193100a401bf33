"""Media blocks: `ImageBlock`, `AudioBlock`, `VideoBlock` and `FileBlock` over a lazy source.

A block holds a source (bytes, path, URL or provider file id) and the MIME type the caller declared,
if any. The MIME type that counts is the one the bytes say (`mime_type`); a declared type is a hint
that is normalised and checked against the bytes. Nothing is read or fetched at construction, except
that in-memory bytes are checked at once because that is free.
"""

from __future__ import annotations

import mimetypes
import os
import re
from collections.abc import Mapping
from io import BytesIO
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar
from urllib.parse import unquote, urlsplit

from pydantic import AfterValidator, Field

from ._base import BlockBase
from ._frozen import EMPTY, FROZEN
from .datauri import (
    b64decode,
    data_uri_prefix,
    is_clean_base64,
    is_data_uri,
    parse_data_uri,
    split_data_uri,
)
from .errors import InvalidSourceError, MediaTypeError
from .fetching.policy import FetchPolicy
from .mime import HEADER_WINDOW, detect_mime, normalize_mime
from .mime._declared import (
    _DEFINITE,
    _KIND_TWINS,
    _WEAK_DETECTIONS,
    _is_text_like,
    _same_media,
    _stays_text,
)
from .mime.detect import PREFIX_SIZE, decided_by_prefix
from .mime.encodings import declared_text, is_text_type
from .sources import (
    Base64Source,
    BytesSource,
    FileIdSource,
    PathSource,
    Source,
    URLSource,
    path_from_file_uri,
)

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "AudioBlock",
    "FileBlock",
    "ImageBlock",
    "MediaBlock",
    "VideoBlock",
    "sanitize_filename",
]

_M = TypeVar("_M", bound="MediaBlock")

_RESOLVED_MIME = "_mime"
"""The key of a media block's resolved MIME type in its pydantic private state (`_mime`): the
name pydantic gave it when it was declared a private attribute, so older pickles carry it too."""

_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


def sanitize_filename(name: str | None) -> str | None:
    """A safe basename: no folders, no control characters, at most 255 characters.

    Filenames travel to providers; a local path (``/home/ana/scans/x.pdf``) must never leave.
    """
    if not name:
        return None
    base = re.split(r"[\\/]", name)[-1]
    base = _CONTROL_CHARACTERS.sub("", base).strip()
    if base in ("", ".", ".."):
        return None
    if len(base) > 255:
        stem, dot, ext = base.rpartition(".")
        base = stem[: 255 - len(ext) - 1] + dot + ext if dot and len(ext) < 16 else base[:255]
    return base


class MediaBlock(BlockBase):
    """The common base of media blocks: a lazy source plus what is known of its type.

    Fields: ``source``; ``declared_mime`` (the caller's or the container's hint, normalised);
    ``filename`` (a sanitised basename, never a path); ``strict`` (raise `MediaTypeError` when the
    declared type contradicts the bytes instead of correcting it); ``metadata`` (yours and
    `prepare`'s notes, never sent to a model); ``url_media`` (a URL block's own download hint:
    ``"inline"`` to download it and send the bytes, ``"url"`` to let the provider fetch it;
    ``None`` leaves it to the call's ``url_media``).
    """

    accepts: ClassVar[str | None] = None
    """The MIME prefix this block requires, e.g. ``"image/"``; None accepts anything."""

    source: Source
    declared_mime: Annotated[str, AfterValidator(normalize_mime)] | None = None
    filename: Annotated[str, AfterValidator(sanitize_filename)] | None = None
    strict: bool = False
    metadata: Annotated[Mapping[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)
    """Yours and `prepare`'s notes, read-only (copy to change: ``{**block.metadata, k: v}``)."""
    url_media: Literal["url", "inline"] | None = None
    """Who fetches this block's URL: ``"inline"`` (downloaded under the fetch policy, sent as
    bytes), ``"url"`` (the provider fetches it), ``None`` (the call's ``url_media``)."""

    @property
    def _mime(self) -> str | None:
        """The MIME type resolved from the bytes, once `_resolve_mime` has (None before).

        Kept in pydantic's private state, which copies, deep copies and pickles carry, but not
        declared as a private attribute: pydantic would then set up that state for every block
        built (a Python call per media block of a loaded history); it is made on first use.
        """
        private = self.__pydantic_private__
        return None if private is None else private.get(_RESOLVED_MIME)

    def _keep_mime(self, mime: str) -> str:
        """Remember ``mime`` as `_mime` (a subclass's own private attributes are kept)."""
        private = self.__pydantic_private__
        if private is None:
            object.__setattr__(self, "__pydantic_private__", {_RESOLVED_MIME: mime})
        else:
            private[_RESOLVED_MIME] = mime
        return mime

    @classmethod
    def from_source(
        cls: type[_M],
        source: Source,
        mime_type: str | None = None,
        filename: str | None = None,
        strict: bool = False,
    ) -> _M:
        """A block over an existing source (shared, not copied: its read cache comes along).

        Used to turn one kind of block into another over the same bytes. In-memory bytes are
        checked at once; a bad declared type raises `MediaTypeError`.
        """
        if mime_type is not None:
            try:
                mime_type = normalize_mime(mime_type)
            except ValueError as exc:
                raise MediaTypeError(f"{cls.__name__}: declared type {exc}") from None
        block = cls(source=source, declared_mime=mime_type, filename=filename, strict=strict)
        if isinstance(source, (BytesSource, Base64Source)):
            # In memory: refuse a bad declared type now (from the first bytes when they decide).
            prefix = block._deciding_prefix()
            block._resolve_mime(prefix if prefix is not None else source.header())
        return block

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def from_bytes(
        cls: type[_M],
        data: bytes | bytearray | memoryview,
        mime_type: str | None = None,
        *,
        filename: str | None = None,
        strict: bool = False,
    ) -> _M:
        """A block over bytes in memory. ``bytes`` are kept as is; other buffers are copied once."""
        if not isinstance(data, bytes):
            if not isinstance(data, (bytearray, memoryview)):
                raise InvalidSourceError(
                    f"{cls.__name__}.from_bytes needs bytes, bytearray or memoryview, "
                    f"got {type(data).__name__}"
                )
            data = bytes(data)
        return cls.from_source(BytesSource(data=data), mime_type, filename, strict)

    @classmethod
    def from_base64(
        cls: type[_M],
        data: str,
        mime_type: str | None = None,
        *,
        filename: str | None = None,
        strict: bool = False,
    ) -> _M:
        """A block from base64 text, bare or as a data URI. Malformed input raises `DecodeError`.

        Clean standard base64 is kept as text and decoded only when bytes are needed (the type
        comes from the decoded header window), so moving it to a provider that takes base64
        copies it through. ``strict=True`` decodes and checks all of it here, as does base64
        with line breaks or the URL-safe alphabet.
        """
        if is_data_uri(data):
            return cls.from_data_uri(data, mime_type, filename=filename, strict=strict)
        return cls._from_base64_text(data, mime_type, filename, strict, "from_base64 input")

    @classmethod
    def _from_base64_text(
        cls: type[_M],
        text: str,
        mime_type: str | None,
        filename: str | None,
        strict: bool,
        what: str,
    ) -> _M:
        if not strict and isinstance(text, str) and is_clean_base64(text):
            return cls.from_source(Base64Source(data=text), mime_type, filename, strict)
        raw = b64decode(text, what=f"{cls.__name__}.{what}")
        return cls.from_bytes(raw, mime_type, filename=filename, strict=strict)

    @classmethod
    def from_data_uri(
        cls: type[_M],
        uri: str,
        mime_type: str | None = None,
        *,
        filename: str | None = None,
        strict: bool = False,
    ) -> _M:
        """A block from an RFC 2397 data URI; its media type is a hint checked against the bytes."""
        parts = split_data_uri(uri)
        declared = mime_type or parts.mime_type
        name = filename or parts.filename
        if parts.is_base64:
            block = cls._from_base64_text(
                parts.payload, declared, name, strict, "from_data_uri payload"
            )
            source = block.source
            if isinstance(source, Base64Source) and uri.startswith(
                data_uri_prefix(block.mime_type)
            ):
                source.keep_data_uri(uri)  # sent on as it came, to providers taking data URIs
            return block
        return cls.from_bytes(parse_data_uri(uri).data, declared, filename=name, strict=strict)

    @classmethod
    def from_path(
        cls: type[_M],
        path: str | os.PathLike[str],
        mime_type: str | None = None,
        *,
        filename: str | None = None,
        strict: bool = False,
    ) -> _M:
        """A block over a local file: a path, an ``os.PathLike`` or a ``file:`` URI.

        Calling ``from_path`` is how a caller says "this string is a local path": `media_block`
        never reads a plain string as one, so ``media_block("x")`` refuses what
        ``ImageBlock.from_path("x")`` takes. Nothing is opened here (the class is yours, so no
        header is needed to pick it); a missing or unreadable file raises `SourceError` on first
        use, as ``media_block(Path("x"))``, which must read the header, raises at once. An empty
        path raises `InvalidSourceError`.
        """
        text = os.fspath(path)
        if not isinstance(text, str):
            raise InvalidSourceError(f"{cls.__name__}.from_path needs a str path, got bytes")
        if text[:5].lower() == "file:":
            try:
                text = path_from_file_uri(text)
            except ValueError as exc:
                raise InvalidSourceError(str(exc)) from None
        if not text.strip():
            raise InvalidSourceError(f"{cls.__name__}.from_path needs a path, got an empty string")
        absolute = os.path.abspath(os.path.expanduser(text))
        return cls.from_source(
            PathSource(path=absolute), mime_type, filename or os.path.basename(absolute), strict
        )

    @classmethod
    def from_url(
        cls: type[_M],
        url: str,
        mime_type: str | None = None,
        *,
        filename: str | None = None,
        strict: bool = False,
        url_media: Literal["url", "inline"] | None = None,
    ) -> _M:
        """A block over an http(s) URL. Nothing is fetched here; `read` fetches under a policy.

        A ``data:`` URL is decoded at once (it holds its bytes). ``file:`` URLs are refused: local
        files are read only through `from_path`, never because a URL pointed at them.
        ``url_media`` is the block's download hint (see `MediaBlock.url_media`).
        """
        if is_data_uri(url):
            return cls.from_data_uri(url, mime_type, filename=filename, strict=strict)
        parts = urlsplit(url)
        if parts.scheme.lower() == "file":
            raise InvalidSourceError(
                f"{cls.__name__}.from_url refuses file: URLs; use from_path to read local files"
            )
        if not parts.scheme or not parts.netloc:
            raise InvalidSourceError(f"{cls.__name__}.from_url needs an absolute URL, got {url!r}")
        name = filename or unquote(parts.path.rsplit("/", 1)[-1]) or None
        block = cls.from_source(URLSource(url=url), mime_type, name, strict)
        if url_media is not None:
            if url_media not in ("url", "inline"):
                raise InvalidSourceError(f"url_media={url_media!r}: 'url', 'inline' or None")
            block = block.model_copy(update={"url_media": url_media})
        return block

    @classmethod
    def from_file_id(
        cls: type[_M],
        file_id: str,
        mime_type: str | None = None,
        *,
        provider: str | None = None,
        filename: str | None = None,
    ) -> _M:
        """A block naming a file already uploaded to a provider (its bytes stay there)."""
        return cls.from_source(
            FileIdSource(file_id=file_id, provider=provider), mime_type, filename, False
        )

    # -- reading ----------------------------------------------------------------------------------

    def describe(self) -> str:
        """A short description for messages: ``ImageBlock(path 'cat.png', image/png)``."""
        known = self._mime or self.declared_mime
        return f"{type(self).__name__}({self.source.describe()}{', ' + known if known else ''})"

    @property
    def mime_type(self) -> str:
        """The MIME type the bytes say, normalised.

        For a URL not fetched yet this is provisional (the declared type, else the URL's extension,
        else ``application/octet-stream``) and becomes exact once the block is read.
        """
        if self._mime is not None:
            return self._mime
        prefix = self._deciding_prefix()
        if prefix is not None:
            return self._resolve_mime(prefix)
        header = self.source.peek_header()
        if header is None:
            return self._provisional_mime()
        return self._resolve_mime(header)

    def _deciding_prefix(self) -> bytes | None:
        """The first bytes of base64 text not decoded yet when they alone decide the type the
        whole header window would give (`decided_by_prefix`: JPEG, PNG, GIF) and nothing else
        in `_resolve_mime` needs more (no declared type, or one of the same media): decoding a
        64 KiB window per image was most of translating a history of photos."""
        source = self.source
        if not isinstance(source, Base64Source):
            return None
        prefix = source.prefix(PREFIX_SIZE)
        detected = None if prefix is None else decided_by_prefix(prefix)
        if detected is None:
            return None
        declared = self.declared_mime
        return prefix if declared is None or _same_media(declared, detected) else None

    def read(self, policy: FetchPolicy | None = None) -> bytes:
        """The media bytes. Paths are read and URLs fetched once, then cached on the block."""
        data = self.source.read(policy)
        self._resolve_mime(data)
        return data

    def read_header(self, n: int = HEADER_WINDOW, policy: FetchPolicy | None = None) -> bytes:
        """At most the first ``n`` bytes (default `HEADER_WINDOW`, 64 KiB), for a quick look.

        A local file not read yet gives only those bytes: the rest of the file is never read, so
        this is safe on a file of any size. Bytes in memory are sliced; a URL not fetched yet is
        fetched (under ``policy``) and sliced. Special files are refused like in `read`.
        """
        return self.source.read_header(n, policy)

    async def aread(self, policy: FetchPolicy | None = None) -> bytes:
        """`read` for asyncio code."""
        data = await self.source.aread(policy)
        self._resolve_mime(data)
        return data

    @property
    def loaded(self) -> bool:
        """True once the bytes are in memory (no read or fetch needed)."""
        return self.source.loaded

    def to_base64(self, policy: FetchPolicy | None = None) -> tuple[str, str]:
        """``(base64 data, mime type)``, ready for a provider. Computed once and cached."""
        data = self.source.base64(policy)
        return data, self._known_mime(policy)

    def to_data_uri(self, policy: FetchPolicy | None = None) -> str:
        """``data:<mime>;base64,<data>``. Computed once and cached; reuses a cached base64."""
        return self.source.data_uri(self._known_mime(policy), policy)

    def _known_mime(self, policy: FetchPolicy | None) -> str:
        """The type the bytes say, learnt once (a URL is fetched for it, under ``policy``)."""
        if self._mime is not None:
            return self._mime
        return self._resolve_mime(self.source.header(policy))

    # -- MIME resolution ------------------------------------------------------------------------

    def _provisional_mime(self) -> str:
        """The type before any byte is read: declared, else guessed from the URL or filename.

        A guess never contradicts the block's kind: an `AudioBlock` over ``voice.webm`` is
        ``audio/webm`` (containers carry both), and a guess of another kind is no guess at all.
        """
        if self.declared_mime:
            return self.declared_mime
        names = [urlsplit(self.source.url).path] if isinstance(self.source, URLSource) else []
        if self.filename:
            names.append(self.filename)
        for name in names:
            guessed, _ = mimetypes.guess_type(name)
            if guessed:
                kept = self._within_kind(normalize_mime(guessed))
                if kept is not None:
                    return kept
        return "application/octet-stream"

    def _within_kind(self, mime: str) -> str | None:
        """``mime`` as this block's kind: itself, its audio/video twin, or None."""
        if self.accepts is None or mime.startswith(self.accepts):
            return mime
        twin = _KIND_TWINS.get(mime)
        return twin if twin is not None and twin.startswith(self.accepts) else None

    def _resolve_mime(self, header: bytes | memoryview) -> str:
        if self._mime is not None:
            return self._mime
        if isinstance(self.source, FileIdSource):
            return self._keep_mime(self.declared_mime or "application/octet-stream")
        declared = self.declared_mime
        if len(header) == 0 and self.accepts is not None:
            raise MediaTypeError(f"{self.describe()}: holds no bytes")
        detected = detect_mime(header)
        if detected is None:
            mime = self._undetected(declared, header)
        elif declared is None or _same_media(declared, detected):
            mime = declared if declared and self._prefer_declared(declared, detected) else detected
        elif detected in _WEAK_DETECTIONS and _is_text_like(declared):
            mime = declared
        elif _stays_text(declared, detected, header):
            mime = declared  # text that starts like a binary format's signature
        elif self.strict:
            raise MediaTypeError(
                f"{self.describe()}: declared {declared} but the bytes are {detected}"
            )
        else:
            mime = detected
        if self.accepts is not None and not mime.startswith(self.accepts):
            raise MediaTypeError(
                f"{self.describe()}: the bytes are {mime}, not {self.accepts[:-1]} media"
            )
        return self._keep_mime(mime)

    def _prefer_declared(self, declared: str, detected: str) -> bool:
        # A declared audio/* for a container detected as video (or the reverse) keeps the kind.
        if self.accepts is not None and not detected.startswith(self.accepts):
            return declared.startswith(self.accepts)
        return declared == detected

    def _undetected(self, declared: str | None, header: bytes | memoryview) -> str:
        if declared is None:
            hint = self.source.content_type_hint
            if hint:
                hinted = normalize_mime(hint)
                if is_text_type(hinted) and not _is_text(header):
                    return "application/octet-stream"  # a .txt name on bytes that are not text
                return hinted
            return "application/octet-stream"
        if declared in _DEFINITE:
            raise MediaTypeError(f"{self.describe()}: declared {declared} but the bytes are not")
        if is_text_type(declared) and not _is_text(header):
            raise MediaTypeError(
                f"{self.describe()}: declared {declared} but the bytes are not text (in UTF-8, "
                "UTF-16, UTF-32 or Windows-1252)"
            )
        return declared


def _is_text(header: bytes | memoryview) -> bool:
    """Whether a header (the whole data, or its first `HEADER_WINDOW` bytes) is text."""
    data = bytes(header)
    return declared_text(data, truncated=len(data) >= HEADER_WINDOW) is not None


class ImageBlock(MediaBlock):
    """An image: JPEG, PNG, GIF, WebP, HEIC, AVIF... The bytes must be an image.

    ``detail`` is OpenAI's image detail hint (``"auto"``, ``"low"``, ``"high"``), kept for other
    providers' translators to ignore.
    """

    type: Literal["image"] = "image"
    accepts: ClassVar[str | None] = "image/"
    detail: Literal["auto", "low", "high"] | None = None

    @classmethod
    def from_pil(cls, image: Image.Image, format: str | None = None) -> ImageBlock:
        """Encode a Pillow image: in its own format when it has one providers take, else PNG.

        ``format`` forces one (``"JPEG"``, ``"PNG"``, ``"WEBP"``, ``"GIF"``). Images with
        transparency become PNG unless a format is forced. An animated image keeps every frame
        in GIF, WebP and PNG (APNG); JPEG holds its first frame only.
        """
        chosen = (format or image.format or "PNG").upper()
        if chosen == "JPG":
            chosen = "JPEG"
        if format is None and chosen not in ("JPEG", "PNG", "WEBP", "GIF"):
            chosen = "PNG"
        if format is None and chosen == "JPEG" and image.mode not in ("RGB", "L", "CMYK"):
            chosen = "PNG"
        frame = image
        if chosen == "JPEG" and image.mode not in ("RGB", "L", "CMYK"):
            frame = image.convert("RGB")
        # Every frame of an animation goes along where the format can hold them (GIF, WebP, APNG).
        animated = chosen in ("GIF", "WEBP", "PNG") and getattr(image, "n_frames", 1) > 1
        buffer = BytesIO()
        try:
            frame.save(buffer, format=chosen, save_all=animated)
        except (KeyError, OSError, ValueError) as exc:
            raise MediaTypeError(f"ImageBlock.from_pil: cannot save as {chosen}: {exc}") from None
        return cls.from_bytes(buffer.getvalue())


class AudioBlock(MediaBlock):
    """Audio: WAV, MP3, FLAC, Ogg, AAC, M4A, WebM audio... The bytes must be audio."""

    type: Literal["audio"] = "audio"
    accepts: ClassVar[str | None] = "audio/"


class VideoBlock(MediaBlock):
    """Video: MP4, MOV, WebM, Matroska, AVI, MPEG... The bytes must be video."""

    type: Literal["video"] = "video"
    accepts: ClassVar[str | None] = "video/"


class FileBlock(MediaBlock):
    """Any other file, usually a document: PDF, DOCX, plain text, CSV..."""

    type: Literal["file"] = "file"
