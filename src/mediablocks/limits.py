"""What each provider accepts, as data: media types, byte, pixel, count and length limits.

`limits_for` gives one frozen `ProviderLimits` per provider (and model, where a model family is
documented to differ). `prepare` fits media to these numbers and `estimate_tokens` reads the image
sizes providers scale to. Every number carries its source in ``ProviderLimits.sources`` (the
documentation page it comes from), so a reader can check it and a maintainer can update it.

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
from .providers._options import PROVIDERS
from .providers.registry import REGISTRY, provider_entry

__all__ = [
    "PROVIDERS",
    "ByteMeasure",
    "ProviderLimits",
    "limits_for",
    "limits_table",
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


def limits_for(provider: str, model: str | None = None) -> ProviderLimits:
    """The limits of ``provider`` (a canonical name or any alias `encode` takes: ``"openai"``,
    ``"google"``...), for ``model`` if given.

    Model families documented to differ get their own numbers (OpenAI patch-based models and
    audio models, Claude on Bedrock); other models get the provider's. Raises
    `UnknownProviderError` for a name mediablocks does not know.
    """
    entry = provider_entry(provider)
    limits = entry.limits()
    if model is None:
        return limits
    return entry.limits_for_model(limits, model)


# -- documentation --------------------------------------------------------------------------------


def _short_type(mime: str) -> str:
    subtype = mime.split("/", 1)[1]
    names = {
        "vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
        "vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
        "vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
        "tab-separated-values": "tsv",
        "msword": "doc",
        "vnd.ms-excel": "xls",
        "plain": "txt",
        "mpeg": "mp3" if mime.startswith("audio/") else "mpeg",
        "quicktime": "mov",
        "x-msvideo": "avi",
        "x-matroska": "mkv" if mime.startswith("video/") else "mka",
        "x-ms-wmv": "wmv",
        "x-m4a": "m4a",
    }
    return names.get(subtype, subtype.removeprefix("x-"))


def _types(types: frozenset[str]) -> str:
    return ", ".join(sorted({_short_type(mime) for mime in types})) or "-"


def _size(value: int | None, measure: ByteMeasure | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value / MIB:g} MiB" if value % (MIB // 4) == 0 else f"{value / MB:g} MB"
    return f"{text} {measure}" if measure else text


def _count(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:g}{unit}"


def limits_table() -> str:
    """The limits of every provider as Markdown tables (used by ``docs/preparation.md``)."""
    images = [
        "| provider | image types | per image | all images | max side | >N images | "
        "max images | animated | optimal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    others = [
        "| provider | documents | per document | PDF pages | documents | audio | "
        "audio length | video | per video | video length | request |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in (entry.name for entry in REGISTRY):
        lim = limits_for(name)
        many = (
            f">{lim.many_images_threshold}: {lim.many_images_max_side} px"
            if lim.many_images_threshold is not None
            else "-"
        )
        optimal = "-"
        if lim.optimal_image_side is not None:
            optimal = f"{lim.optimal_image_side} px"
            if lim.optimal_image_pixels:
                optimal += f", {lim.optimal_image_pixels / 1e6:g} MP"
            if lim.server_short_side:
                optimal += f", short side {lim.server_short_side} px"
        images.append(
            f"| {name} | {_types(lim.image_types)} "
            f"| {_size(lim.max_image_bytes, lim.image_bytes_measure)} "
            f"| {_size(lim.max_total_image_bytes, lim.image_bytes_measure)} "
            f"| {_count(lim.max_image_side, ' px')} | {many} | {_count(lim.max_images)} "
            f"| {'yes' if lim.animated_images else 'first frame'} | {optimal} |"
        )
        others.append(
            f"| {name} | {_types(lim.document_types)} "
            f"| {_size(lim.max_document_bytes, lim.document_bytes_measure)} "
            f"| {_count(lim.max_document_pages)} | {_count(lim.max_documents)} "
            f"| {_types(lim.audio_types)} | {_count(lim.max_audio_seconds, ' s')} "
            f"| {_types(lim.video_types)} | {_size(lim.max_video_bytes, lim.video_bytes_measure)} "
            f"| {_count(lim.max_video_seconds, ' s')} "
            f"| {_size(lim.max_request_bytes, lim.request_bytes_measure)} |"
        )
    sources = ["Sources:", ""]
    for name in (entry.name for entry in REGISTRY):
        seen = sorted(set(limits_for(name).sources.values()))
        sources.append(f"- {name}: " + "; ".join(seen))
    return "\n".join(images) + "\n\n" + "\n".join(others) + "\n\n" + "\n".join(sources) + "\n"
