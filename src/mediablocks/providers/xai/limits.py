"""xAI limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import MIB, ProviderLimits

_XAI = "https://docs.x.ai/docs/guides/image-understanding (jpg/jpeg and png, at most 20 MiB)"

LIMITS = ProviderLimits(
    provider="xai",
    image_types=frozenset({"image/jpeg", "image/png"}),
    max_image_bytes=20 * MIB,
    sources=MappingProxyType({"*": _XAI}),
)
