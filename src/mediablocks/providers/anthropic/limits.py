"""Anthropic Messages limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import MB, MIB, WEB_IMAGES, ProviderLimits

_ANTHROPIC_VISION = "https://docs.anthropic.com/en/docs/build-with-claude/vision (Vision: limits)"
_ANTHROPIC_PDF = "https://docs.anthropic.com/en/docs/build-with-claude/pdf-support (PDF support)"
_ANTHROPIC_API = "Anthropic API error 'image exceeds 5 MB maximum: N bytes > 5242880 bytes'"

LIMITS = ProviderLimits(
    provider="anthropic",
    image_types=WEB_IMAGES,
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
