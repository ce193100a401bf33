"""Anthropic on Google Vertex AI (rawPredict): Anthropic's media limits, without the Files API."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ..anthropic.limits import LIMITS as _ANTHROPIC

LIMITS = replace(
    _ANTHROPIC,
    provider="anthropic-vertex",
    sources=MappingProxyType(
        {**_ANTHROPIC.sources, "provider": "https://docs.anthropic.com/en/api/claude-on-vertex-ai"}
    ),
)
"""The same models and content limits as Anthropic's own API."""
