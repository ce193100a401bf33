"""Google Gemini limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import MB, ProviderLimits

_GEMINI_IMAGE = "https://ai.google.dev/gemini-api/docs/image-understanding"
_GEMINI_AUDIO = "https://ai.google.dev/gemini-api/docs/audio (Technical details about audio)"
_GEMINI_VIDEO = "https://ai.google.dev/gemini-api/docs/video-understanding"
_GEMINI_DOC = "https://ai.google.dev/gemini-api/docs/document-processing"
_GEMINI_INLINE = (
    "https://ai.google.dev/gemini-api/docs/file-input-methods (method comparison: inline data "
    "up to 100 MB per request payload, base64; raised from 20 MB on 2026-01-12, "
    "https://blog.google/innovation-and-ai/technology/developers-tools/gemini-api-new-file-limits)"
)

LIMITS = ProviderLimits(
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
    max_request_bytes=100 * MB,
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
