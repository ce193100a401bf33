"""Ollama limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import ProviderLimits

_OLLAMA = "https://github.com/ollama/ollama/blob/main/docs/api.md (images: base64 list)"

LIMITS = ProviderLimits(
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
