"""OpenAI Chat Completions limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ...limits import MB, WEB_IMAGES, ProviderLimits, with_sources

_OPENAI_VISION = (
    "https://platform.openai.com/docs/guides/images-vision (Image input requirements; "
    "Calculating costs)"
)
_OPENAI_PDF = "https://platform.openai.com/docs/guides/pdf-files (File inputs)"
OPENAI_FILES = (
    "https://developers.openai.com/api/docs/guides/file-inputs (Responses: PDF, text and code, "
    "Office documents, spreadsheets; Chat Completions: PDF only)"
)
_OPENAI_AUDIO = "https://platform.openai.com/docs/guides/audio (input_audio: wav, mp3)"

LIMITS = ProviderLimits(
    provider="openai-chat",
    image_types=WEB_IMAGES,
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


ASSUMED_MODEL = "gpt-4.1"
"""What `prepare` fits to without ``model=``: a current model without audio input (only the
audio models take ``input_audio``), so a prepared request is one every chat model accepts."""

_OPENAI_PATCH_MODELS = ("gpt-4.1-mini", "gpt-4.1-nano", "o4-mini", "gpt-5-mini", "gpt-5-nano")


def for_model(limits: ProviderLimits, model: str) -> ProviderLimits:
    """OpenAI's model families: patch-based models, and only audio models take audio."""
    name = model.lower()
    if name.startswith(_OPENAI_PATCH_MODELS):
        # Patch-based models: 32 px patches, at most 1536 per image (images scale down to fit).
        limits = with_sources(
            limits,
            model,
            image_patch_size=32,
            max_image_patches=1536,
            image_tile_size=None,
            server_short_side=None,
        )
    if limits.audio_types and "audio" not in name:
        # Only the audio models (gpt-4o-audio-preview, gpt-audio...) take input_audio.
        limits = with_sources(limits, model, audio_types=frozenset())
    return replace(limits, model=model)
