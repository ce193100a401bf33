"""The gemini wire format: `translate` (encode, with decoding in `decode`), re-exported here."""

from __future__ import annotations

from ._wire import AUDIO_TYPES, IMAGE_TYPES, PROVIDER, VIDEO_TYPES
from .translate import from_gemini, to_gemini

__all__ = [
    "AUDIO_TYPES",
    "IMAGE_TYPES",
    "PROVIDER",
    "VIDEO_TYPES",
    "from_gemini",
    "to_gemini",
]
