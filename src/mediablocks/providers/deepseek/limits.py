"""DeepSeek limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import ProviderLimits

_DEEPSEEK = (
    "https://api-docs.deepseek.com/api/create-chat-completion (message content is text); "
    "https://api-docs.deepseek.com/guides/reasoning_model (reasoning_content)"
)

LIMITS = ProviderLimits(provider="deepseek", sources=MappingProxyType({"*": _DEEPSEEK}))
"""DeepSeek's chat models take text only: every media block needs converting or raises."""
