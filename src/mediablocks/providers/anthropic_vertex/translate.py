"""Anthropic Messages on Google Vertex AI (rawPredict): ``anthropic.platforms`` with this platform's
``anthropic_version`` (https://docs.anthropic.com/en/api/claude-on-vertex-ai)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...messages import Message
from .._options import EncodeOptions
from ..anthropic.platforms import decode_on_platform, encode_on_platform

__all__ = ["ANTHROPIC_VERSION", "from_anthropic_vertex", "to_anthropic_vertex"]

ANTHROPIC_VERSION = "vertex-2023-10-16"


def to_anthropic_vertex(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """Anthropic's fields; the JSON target adds ``anthropic_version: "vertex-2023-10-16"``."""
    return encode_on_platform(
        messages, options, provider="anthropic-vertex", version=ANTHROPIC_VERSION
    )


from_anthropic_vertex = decode_on_platform
