"""Mistral limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import MB, WEB_IMAGES, ProviderLimits

_MISTRAL_VISION = "https://docs.mistral.ai/capabilities/vision (image size and count limits)"
_MISTRAL_DOC = "https://docs.mistral.ai/capabilities/document_ai (PDF: 50 MB, 1000 pages)"
_MISTRAL_AUDIO = "https://docs.mistral.ai/capabilities/audio (Voxtral audio input)"

LIMITS = ProviderLimits(
    provider="mistral",
    image_types=WEB_IMAGES,
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
