"""Azure OpenAI limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ..openai_chat.limits import LIMITS as _OPENAI

_AZURE = (
    "https://learn.microsoft.com/azure/ai-services/openai/how-to/gpt-with-vision "
    "(the same image inputs as OpenAI's models)"
)

LIMITS = replace(
    _OPENAI,
    provider="azure-openai",
    sources=MappingProxyType({**_OPENAI.sources, "*": _AZURE}),
)
"""OpenAI's numbers: Azure serves the same models behind the same Chat Completions shape."""
