"""llama.cpp / LM Studio limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import ProviderLimits

_LLAMA_CPP = (
    "https://github.com/ggml-org/llama.cpp/tree/master/tools/server (image_url parts as base64 "
    "data URIs; the server fetches no URLs); https://lmstudio.ai/docs/app/api/endpoints/openai"
)

LIMITS = ProviderLimits(
    provider="llama-cpp",
    image_types=frozenset({"image/jpeg", "image/png"}),
    animated_images=False,
    sources=MappingProxyType({"*": _LLAMA_CPP}),
)
