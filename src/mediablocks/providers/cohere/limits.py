"""Cohere v2 chat limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import WEB_IMAGES, ProviderLimits

_COHERE_VISION = (
    "https://docs.cohere.com/docs/command-a-vision (up to 20 images per request); "
    "https://docs.cohere.com/docs/image-inputs (image_url: a data URL or an HTTP URL)"
)
_COHERE_DOCUMENTS = "https://docs.cohere.com/docs/retrieval-augmented-generation-rag (documents)"

LIMITS = ProviderLimits(
    provider="cohere",
    image_types=WEB_IMAGES,
    document_types=frozenset({"text/plain", "text/markdown", "text/csv", "application/json"}),
    max_images=20,
    animated_images=False,
    sources=MappingProxyType({"*": _COHERE_VISION, "document_types": _COHERE_DOCUMENTS}),
)
