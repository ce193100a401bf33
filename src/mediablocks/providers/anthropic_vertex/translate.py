"""Anthropic Messages on Google Vertex AI (rawPredict): the same content, a different envelope.

With the official SDK (``anthropic.AnthropicVertex().messages.create(model=..., **fields)``) the
fields are exactly Anthropic's. The HTTP body (``target="json"``) carries ``anthropic_version:
"vertex-2023-10-16"`` instead of a header, and the model goes in the URL, not the body. Files-API
ids are refused: the Files API is not available on this platform
(https://docs.anthropic.com/en/api/claude-on-vertex-ai).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import UnsupportedBlockError
from ...media import MediaBlock
from ...messages import Message
from .._common import file_id_of, sendable
from .._options import EncodeOptions
from ..anthropic.translate import from_anthropic, to_anthropic

__all__ = ["ANTHROPIC_VERSION", "from_anthropic_vertex", "to_anthropic_vertex"]

ANTHROPIC_VERSION = "vertex-2023-10-16"
PROVIDER = "anthropic-vertex"


def to_anthropic_vertex(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """Anthropic's fields; the JSON target adds ``anthropic_version``."""
    chosen = options or EncodeOptions()
    _refuse_file_ids(messages)
    fields = to_anthropic(messages, chosen)
    if chosen.target == "json":
        return {"anthropic_version": ANTHROPIC_VERSION, **fields}
    return fields


def from_anthropic_vertex(payload: Any) -> list[Message]:
    """Anthropic's decoder: the envelope's ``anthropic_version`` is not content."""
    if isinstance(payload, dict) and "anthropic_version" in payload:
        payload = {key: value for key, value in payload.items() if key != "anthropic_version"}
    return from_anthropic(payload)


def _refuse_file_ids(messages: Sequence[Message]) -> None:
    for index, message in sendable(messages):
        for position, block in enumerate(message.content):
            if isinstance(block, MediaBlock) and file_id_of(block) is not None:
                raise UnsupportedBlockError(
                    f"{PROVIDER} cannot carry {block.describe()} (message {index}, block "
                    f"{position}): the Files API is not available there; send the bytes inline"
                )
