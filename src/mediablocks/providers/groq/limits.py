"""Groq limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import MB, WEB_IMAGES, ProviderLimits

_GROQ = (
    "https://console.groq.com/docs/vision (image URLs up to 20 MB each; base64-encoded images "
    "up to 4 MB per request, counted as the whole request; 5 images per request, 33 megapixels)"
)

LIMITS = ProviderLimits(
    provider="groq",
    image_types=WEB_IMAGES - {"image/gif"},
    max_image_bytes=20 * MB,
    image_bytes_measure="raw",
    max_request_bytes=4 * MB,
    request_bytes_measure="base64",
    max_images=5,
    max_image_pixels=33_177_600,
    animated_images=False,
    sources=MappingProxyType({"*": _GROQ}),
)
