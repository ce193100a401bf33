"""Groq limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import MB, WEB_IMAGES, ProviderLimits

_GROQ = (
    "https://console.groq.com/docs/vision (base64 images up to 4 MB, 5 images per request, "
    "33 megapixels)"
)

LIMITS = ProviderLimits(
    provider="groq",
    image_types=WEB_IMAGES - {"image/gif"},
    max_image_bytes=4 * MB,
    image_bytes_measure="raw",
    max_images=5,
    max_image_pixels=33_177_600,
    animated_images=False,
    sources=MappingProxyType({"*": _GROQ}),
)
