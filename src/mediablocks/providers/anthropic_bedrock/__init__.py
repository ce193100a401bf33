"""Anthropic Messages on Amazon Bedrock (InvokeModel):
the envelope in `translate`, the rest is ``anthropic``'s."""

from __future__ import annotations

from .translate import from_anthropic_bedrock, to_anthropic_bedrock

__all__ = ["from_anthropic_bedrock", "to_anthropic_bedrock"]
