"""What each provider accepts, as data: media types, byte, pixel, count and length limits.

This module is the schema, below the providers: each provider's numbers live in its package and
`mediablocks.providers.registry.limits_for` (``mb.limits_for``) gives one frozen `ProviderLimits`
per provider (and model, where a model family is documented to differ). `prepare` fits media to
these numbers and `estimate_tokens` reads the image sizes providers scale to. Every number carries
its source in ``ProviderLimits.sources`` (the documentation page it comes from), so a reader can
check it and a maintainer can update it.

Conventions:

- ``None`` means "no documented limit", never "unknown so anything goes" for a type set: an
  empty type set means the provider cannot carry that kind of media at all.
- Byte sizes written "MB" in a provider's docs are read as 10**6 bytes (the stricter reading),
  except where the provider states the exact byte count (Anthropic's 5 MB image limit is
  5,242,880 bytes of base64 text, as its own error messages say).
- ``*_measure`` says how the provider counts bytes: ``"raw"`` (the file) or ``"base64"`` (the
  base64 text, 4/3 of the file). `measured_size` converts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from .errors import InvalidOptionError

__all__ = [
    "ByteMeasure",
    "ProviderLimits",
    "measured_size",
]

ByteMeasure = Literal["raw", "base64"]
"""How a provider counts the bytes of a file: the file itself, or its base64 text."""


MB = 1_000_000
MIB = 1024 * 1024


def measured_size(raw_bytes: int, measure: ByteMeasure) -> int:
    """The size of ``raw_bytes`` bytes as a provider counts them (base64 text is 4/3, padded)."""
    if measure == "base64":
        return 4 * ((raw_bytes + 2) // 3)
    return raw_bytes


@dataclass(frozen=True)
class ProviderLimits:
    """The media limits of one provider (optionally one model). ``None``: no documented limit.

    Types are normalised MIME types (``image/jpeg``, ``audio/mpeg``...). Counts are per request.
    ``sources`` maps a field name to the documentation it comes from (see `source_of`).
    """

    provider: str
    model: str | None = None

    # What kinds and types the provider carries (empty: not at all).
    image_types: frozenset[str] = frozenset()
    audio_types: frozenset[str] = frozenset()
    video_types: frozenset[str] = frozenset()
    document_types: frozenset[str] = frozenset()

    # Images.
    max_image_bytes: int | None = None
    """Largest single image, counted as ``image_bytes_measure`` says."""
    image_bytes_measure: ByteMeasure = "raw"
    max_total_image_bytes: int | None = None
    """All images of one request together, counted as ``image_bytes_measure`` says."""
    max_image_side: int | None = None
    """Largest width and largest height, in pixels."""
    many_images_threshold: int | None = None
    """With more images than this in one request, ``many_images_max_side`` applies instead."""
    many_images_max_side: int | None = None
    max_image_pixels: int | None = None
    """Largest width x height the provider accepts."""
    max_images: int | None = None
    animated_images: bool = True
    """False: animated GIF/WebP/PNG are refused, so only their first frame can be sent."""
    optimal_image_side: int | None = None
    """The long edge beyond which the provider scales an image down itself (so larger images
    only cost upload time); `prepare` targets it with ``optimal_size=True``."""
    optimal_image_pixels: int | None = None
    """The pixel count beyond which the provider scales an image down itself."""
    server_short_side: int | None = None
    """After fitting in ``optimal_image_side``, the short side is scaled to this (OpenAI)."""
    image_tile_size: int | None = None
    """The tile (in px) token counts are made of (OpenAI 512, Gemini 768)."""
    image_patch_size: int | None = None
    """The patch (in px) token counts are made of, for patch-based models (OpenAI 32)."""
    max_image_patches: int | None = None
    """The most patches one image may cost; larger images are scaled down to fit."""

    # Whole request.
    max_request_bytes: int | None = None
    request_bytes_measure: ByteMeasure = "base64"

    # Documents.
    max_document_bytes: int | None = None
    document_bytes_measure: ByteMeasure = "raw"
    max_documents: int | None = None
    max_document_pages: int | None = None
    """Pages of all PDFs of one request together."""

    # Audio and video.
    max_audio_bytes: int | None = None
    audio_bytes_measure: ByteMeasure = "raw"
    max_audio_seconds: float | None = None
    """All audio of one request together."""
    max_video_bytes: int | None = None
    video_bytes_measure: ByteMeasure = "raw"
    max_video_seconds: float | None = None
    """All video of one request together."""
    video_frames: bool = True
    """False: video may not become frames either (a declared profile with ``video=None``)."""

    sources: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def types_for(self, kind: str) -> frozenset[str]:
        """The accepted types of a kind: ``"image"``, ``"audio"``, ``"video"`` or ``"document"``
        (``"file"`` is the same as ``"document"``)."""
        if kind == "image":
            return self.image_types
        if kind == "audio":
            return self.audio_types
        if kind == "video":
            return self.video_types
        if kind in ("document", "file"):
            return self.document_types
        raise InvalidOptionError(f"unknown media kind {kind!r}: image, audio, video or document")

    def accepts(self, mime: str) -> bool:
        """True when some kind of block of this provider carries ``mime``."""
        return mime in (
            self.image_types | self.audio_types | self.video_types | self.document_types
        )

    def max_side_for(self, image_count: int) -> int | None:
        """The largest image side allowed in a request holding ``image_count`` images."""
        if (
            self.many_images_threshold is not None
            and self.many_images_max_side is not None
            and image_count > self.many_images_threshold
        ):
            if self.max_image_side is None:
                return self.many_images_max_side
            return min(self.max_image_side, self.many_images_max_side)
        return self.max_image_side

    def source_of(self, name: str) -> str:
        """Where the number in field ``name`` comes from (a documentation URL and page)."""
        return self.sources.get(name, self.sources.get("*", "not documented"))


WEB_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The four image types every web-era vision API takes (JPEG, PNG, GIF, WebP)."""


def with_sources(limits: ProviderLimits, model: str, **changes: object) -> ProviderLimits:
    """``limits`` for one model family: ``changes`` applied, each source noting the override."""
    sources = dict(limits.sources)
    note = f"model family override for {model!r}"
    for name in changes:
        sources[name] = f"{limits.source_of(name)} ({note})"
    return replace(limits, model=model, sources=MappingProxyType(sources), **changes)  # type: ignore[arg-type]
