"""The gemini wire format: translation in `translate`, re-exported here."""

from __future__ import annotations

from .translate import (
    AUDIO_TYPES,
    IMAGE_TYPES,
    PROVIDER,
    VIDEO_TYPES,
    from_gemini,
    to_gemini,
)

__all__ = [
    "AUDIO_TYPES",
    "IMAGE_TYPES",
    "PROVIDER",
    "VIDEO_TYPES",
    "from_gemini",
    "to_gemini",
]
