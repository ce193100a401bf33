"""Anthropic Messages on Amazon Bedrock (InvokeModel): ``anthropic.platforms`` with this platform's
``anthropic_version`` (https://docs.anthropic.com/en/api/claude-on-amazon-bedrock)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...messages import Message
from .._options import EncodeOptions
from ..anthropic.platforms import decode_on_platform, encode_on_platform

__all__ = ["ANTHROPIC_VERSION", "from_anthropic_bedrock", "to_anthropic_bedrock"]

ANTHROPIC_VERSION = "bedrock-2023-05-31"


def to_anthropic_bedrock(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """Anthropic's fields; the JSON target adds ``anthropic_version: "bedrock-2023-05-31"``."""
    return encode_on_platform(
        messages, options, provider="anthropic-bedrock", version=ANTHROPIC_VERSION
    )


from_anthropic_bedrock = decode_on_platform
