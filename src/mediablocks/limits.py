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
from .providers._options import PROVIDERS, canonical_provider

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


# -- sources ------------------------------------------------------------------------------------

_ANTHROPIC_VISION = "https://docs.anthropic.com/en/docs/build-with-claude/vision (Vision: limits)"
_ANTHROPIC_PDF = "https://docs.anthropic.com/en/docs/build-with-claude/pdf-support (PDF support)"
_ANTHROPIC_API = "Anthropic API error 'image exceeds 5 MB maximum: N bytes > 5242880 bytes'"
_OPENAI_VISION = (
    "https://platform.openai.com/docs/guides/images-vision (Image input requirements; "
    "Calculating costs)"
)
_OPENAI_PDF = "https://platform.openai.com/docs/guides/pdf-files (File inputs)"
_OPENAI_FILES = (
    "https://developers.openai.com/api/docs/guides/file-inputs (Responses: PDF, text and code, "
    "Office documents, spreadsheets; Chat Completions: PDF only)"
)
_OPENAI_AUDIO = "https://platform.openai.com/docs/guides/audio (input_audio: wav, mp3)"
_GEMINI_IMAGE = "https://ai.google.dev/gemini-api/docs/image-understanding"
_GEMINI_AUDIO = "https://ai.google.dev/gemini-api/docs/audio (Technical details about audio)"
_GEMINI_VIDEO = "https://ai.google.dev/gemini-api/docs/video-understanding"
_GEMINI_DOC = "https://ai.google.dev/gemini-api/docs/document-processing"
_GEMINI_INLINE = (
    "https://ai.google.dev/gemini-api/docs/files (use the File API when the whole request "
    "is larger than 20 MB)"
)
_BEDROCK_MESSAGE = (
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html "
    "(content restrictions)"
)
_BEDROCK_SHAPES = "botocore bedrock-runtime service-2.json (ImageFormat, DocumentFormat ...)"
_BEDROCK_VIDEO = "botocore bedrock-runtime service-2.json (VideoSource: base64 below 25MB)"
_MISTRAL_VISION = "https://docs.mistral.ai/capabilities/vision (image size and count limits)"
_MISTRAL_DOC = "https://docs.mistral.ai/capabilities/document_ai (PDF: 50 MB, 1000 pages)"
_MISTRAL_AUDIO = "https://docs.mistral.ai/capabilities/audio (Voxtral audio input)"
_OLLAMA = "https://github.com/ollama/ollama/blob/main/docs/api.md (images: base64 list)"


# -- the tables -----------------------------------------------------------------------------------

_WEB_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

_ANTHROPIC = ProviderLimits(
    provider="anthropic",
    image_types=_WEB_IMAGES,
    document_types=frozenset({"application/pdf", "text/plain"}),
    max_image_bytes=5 * MIB,
    image_bytes_measure="base64",
    max_image_side=8000,
    many_images_threshold=20,
    many_images_max_side=2000,
    max_images=100,
    optimal_image_side=1568,
    optimal_image_pixels=1_150_000,
    max_request_bytes=32 * MB,
    request_bytes_measure="base64",
    max_document_pages=100,
    sources=MappingProxyType(
        {
            "*": _ANTHROPIC_VISION,
            "max_image_bytes": _ANTHROPIC_API,
            "image_bytes_measure": _ANTHROPIC_API,
            "document_types": _ANTHROPIC_PDF,
            "max_document_pages": _ANTHROPIC_PDF,
        }
    ),
)

_OPENAI_CHAT = ProviderLimits(
    provider="openai-chat",
    image_types=_WEB_IMAGES,
    audio_types=frozenset({"audio/wav", "audio/mpeg"}),
    document_types=frozenset({"application/pdf"}),
    max_image_bytes=20 * MB,
    image_bytes_measure="raw",
    max_total_image_bytes=50 * MB,
    max_images=500,
    animated_images=False,
    optimal_image_side=2048,
    server_short_side=768,
    image_tile_size=512,
    max_document_pages=100,
    max_document_bytes=32 * MB,
    sources=MappingProxyType(
        {
            "*": _OPENAI_VISION,
            "audio_types": _OPENAI_AUDIO,
            "document_types": _OPENAI_PDF,
            "max_document_pages": _OPENAI_PDF,
            "max_document_bytes": _OPENAI_PDF,
        }
    ),
)

_OPENAI_RESPONSES = replace(
    _OPENAI_CHAT,
    provider="openai-responses",
    audio_types=frozenset(),
    # input_file takes far more than PDF here (text is extracted from non-PDF files).
    document_types=frozenset(
        {
            "application/pdf",
            "text/plain",
            "text/markdown",
            "text/html",
            "text/csv",
            "text/tab-separated-values",
            "application/json",
            "application/xml",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.ms-excel",
        }
    ),
    sources=MappingProxyType({**_OPENAI_CHAT.sources, "document_types": _OPENAI_FILES}),
)

_GEMINI = ProviderLimits(
    provider="gemini",
    image_types=frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}),
    audio_types=frozenset(
        {"audio/wav", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
    ),
    video_types=frozenset(
        {
            "video/mp4",
            "video/mpeg",
            "video/quicktime",
            "video/x-msvideo",
            "video/x-flv",
            "video/webm",
            "video/x-ms-wmv",
            "video/3gpp",
        }
    ),
    document_types=frozenset(
        {
            "application/pdf",
            "text/plain",
            "text/html",
            "text/css",
            "text/csv",
            "text/xml",
            "text/rtf",
            "text/markdown",
            "text/javascript",
            "text/x-python",
        }
    ),
    max_images=3600,
    image_tile_size=768,
    max_request_bytes=20 * MB,
    request_bytes_measure="base64",
    max_document_pages=1000,
    max_document_bytes=50 * MB,
    max_audio_seconds=9.5 * 3600,
    max_video_seconds=3600,
    sources=MappingProxyType(
        {
            "*": _GEMINI_IMAGE,
            "max_request_bytes": _GEMINI_INLINE,
            "request_bytes_measure": _GEMINI_INLINE,
            "audio_types": _GEMINI_AUDIO,
            "max_audio_seconds": _GEMINI_AUDIO,
            "video_types": _GEMINI_VIDEO,
            "max_video_seconds": _GEMINI_VIDEO + " (1 hour at default media resolution)",
            "document_types": _GEMINI_DOC,
            "max_document_pages": _GEMINI_DOC,
            "max_document_bytes": _GEMINI_DOC,
        }
    ),
)

_BEDROCK = ProviderLimits(
    provider="bedrock",
    image_types=_WEB_IMAGES,
    audio_types=frozenset(
        {
            "audio/mpeg",
            "audio/opus",
            "audio/wav",
            "audio/aac",
            "audio/flac",
            "audio/mp4",
            "audio/x-m4a",
            "audio/ogg",
            "audio/x-matroska",
            "audio/webm",
            "audio/pcm",
        }
    ),
    video_types=frozenset(
        {
            "video/x-matroska",
            "video/quicktime",
            "video/mp4",
            "video/webm",
            "video/x-flv",
            "video/mpeg",
            "video/x-ms-wmv",
            "video/3gpp",
        }
    ),
    document_types=frozenset(
        {
            "application/pdf",
            "text/csv",
            "application/msword",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.ms-excel",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "text/html",
            "text/plain",
            "text/markdown",
        }
    ),
    max_image_bytes=3_750_000,
    image_bytes_measure="raw",
    max_image_side=8000,
    max_images=20,
    max_document_bytes=4_500_000,
    document_bytes_measure="raw",
    max_documents=5,
    max_video_bytes=25 * MB,
    video_bytes_measure="base64",
    sources=MappingProxyType(
        {
            "*": _BEDROCK_MESSAGE,
            "image_types": _BEDROCK_SHAPES,
            "audio_types": _BEDROCK_SHAPES,
            "video_types": _BEDROCK_SHAPES,
            "document_types": _BEDROCK_SHAPES,
            "max_video_bytes": _BEDROCK_VIDEO,
            "video_bytes_measure": _BEDROCK_VIDEO,
        }
    ),
)

_MISTRAL = ProviderLimits(
    provider="mistral",
    image_types=_WEB_IMAGES,
    audio_types=frozenset({"audio/mpeg", "audio/wav", "audio/flac", "audio/ogg"}),
    document_types=frozenset({"application/pdf"}),
    max_image_bytes=10 * MB,
    image_bytes_measure="raw",
    max_images=8,
    animated_images=False,
    max_document_bytes=50 * MB,
    max_document_pages=1000,
    max_audio_seconds=40 * 60,
    sources=MappingProxyType(
        {
            "*": _MISTRAL_VISION,
            "document_types": _MISTRAL_DOC,
            "max_document_bytes": _MISTRAL_DOC,
            "max_document_pages": _MISTRAL_DOC,
            "audio_types": _MISTRAL_AUDIO,
            "max_audio_seconds": _MISTRAL_AUDIO + " (about 40 minutes for understanding)",
        }
    ),
)

_OLLAMA_LIMITS = ProviderLimits(
    provider="ollama",
    image_types=frozenset({"image/jpeg", "image/png"}),
    animated_images=False,
    sources=MappingProxyType(
        {
            "*": _OLLAMA,
            "image_types": _OLLAMA + "; JPEG and PNG are what every Ollama vision runner decodes",
        }
    ),
)

_TABLE: dict[str, ProviderLimits] = {
    limits.provider: limits
    for limits in (
        _OPENAI_CHAT,
        _OPENAI_RESPONSES,
        _ANTHROPIC,
        _GEMINI,
        _BEDROCK,
        _MISTRAL,
        _OLLAMA_LIMITS,
    )
}


# -- model families -------------------------------------------------------------------------------

_OPENAI_PATCH_MODELS = ("gpt-4.1-mini", "gpt-4.1-nano", "o4-mini", "gpt-5-mini", "gpt-5-nano")


def _with_sources(limits: ProviderLimits, model: str, **changes: object) -> ProviderLimits:
    sources = dict(limits.sources)
    note = f"model family override for {model!r}"
    for name in changes:
        sources[name] = f"{limits.source_of(name)} ({note})"
    return replace(limits, model=model, sources=MappingProxyType(sources), **changes)  # type: ignore[arg-type]


def _openai_model(limits: ProviderLimits, model: str) -> ProviderLimits:
    name = model.lower()
    if name.startswith(_OPENAI_PATCH_MODELS):
        # Patch-based models: 32 px patches, at most 1536 per image (images scale down to fit).
        limits = _with_sources(
            limits,
            model,
            image_patch_size=32,
            max_image_patches=1536,
            image_tile_size=None,
            server_short_side=None,
        )
    if limits.audio_types and "audio" not in name:
        # Only the audio models (gpt-4o-audio-preview, gpt-audio...) take input_audio.
        limits = _with_sources(limits, model, audio_types=frozenset())
    return replace(limits, model=model)


def _bedrock_model(limits: ProviderLimits, model: str) -> ProviderLimits:
    name = model.lower()
    if "anthropic.claude" in name:
        # Claude on Bedrock: Anthropic's own pixel and page limits apply too.
        return _with_sources(
            limits,
            model,
            optimal_image_side=_ANTHROPIC.optimal_image_side,
            optimal_image_pixels=_ANTHROPIC.optimal_image_pixels,
            max_document_pages=_ANTHROPIC.max_document_pages,
            video_types=frozenset(),
            audio_types=frozenset(),
        )
    return replace(limits, model=model)


def limits_for(provider: str, model: str | None = None) -> ProviderLimits:
    """The limits of ``provider`` (a canonical name or any alias `encode` takes: ``"openai"``,
    ``"google"``...), for ``model`` if given.

    Model families documented to differ get their own numbers (OpenAI patch-based models and
    audio models, Claude on Bedrock); other models get the provider's. Raises
    `UnknownProviderError` for a name mediablocks does not know.
    """
    key = canonical_provider(provider)
    limits = _TABLE[key]
    if model is None:
        return limits
    if key in ("openai-chat", "openai-responses"):
        return _openai_model(limits, model)
    if key == "bedrock":
        return _bedrock_model(limits, model)
    return replace(limits, model=model)


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
    for name in PROVIDERS:
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
    for name in PROVIDERS:
        seen = sorted(set(limits_for(name).sources.values()))
        sources.append(f"- {name}: " + "; ".join(seen))
    return "\n".join(images) + "\n\n" + "\n".join(others) + "\n\n" + "\n".join(sources) + "\n"
