"""Anthropic Messages on another platform's envelope (Bedrock ``InvokeModel``, Vertex AI
``rawPredict``): the same content, ``anthropic_version`` in the JSON body, no Files API.

With the official SDK clients (``anthropic.AnthropicBedrock``, ``anthropic.AnthropicVertex``) the
fields are exactly Anthropic's: the SDK moves the model into the URL and adds the envelope. The
HTTP body (``target="json"``) carries the platform's ``anthropic_version`` instead of a header.
The platform entries' own packages (``anthropic_bedrock``, ``anthropic_vertex``) name their
version and call these two functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import UnsupportedBlockError
from ...media import MediaBlock
from ...messages import Message
from .._common import file_id_of, sendable
from .._options import EncodeOptions
from .translate import from_anthropic, to_anthropic

__all__ = [
    "decode_on_platform",
    "encode_on_platform",
    "platform_decode_fields",
    "platform_request_fields",
]


def encode_on_platform(
    messages: Sequence[Message], options: EncodeOptions | None, *, provider: str, version: str
) -> dict[str, Any]:
    """Anthropic's fields for ``provider``; the JSON target adds ``anthropic_version``."""
    chosen = options or EncodeOptions()
    for index, message in sendable(messages):
        for position, block in enumerate(message.content):
            if isinstance(block, MediaBlock) and file_id_of(block) is not None:
                raise UnsupportedBlockError(
                    f"{provider} cannot carry {block.describe()} (message {index}, block "
                    f"{position}): the Files API is not available there; send the bytes inline"
                )
    fields = to_anthropic(messages, chosen)
    if chosen.target == "json":
        return {"anthropic_version": version, **fields}
    return fields


def decode_on_platform(payload: Any) -> list[Message]:
    """Anthropic's decoder: the envelope's ``anthropic_version`` is not content."""
    if isinstance(payload, dict) and "anthropic_version" in payload:
        payload = {key: value for key, value in payload.items() if key != "anthropic_version"}
    return from_anthropic(payload)


def platform_request_fields(
    out: dict[str, Any], model: str | None, extra: dict[str, Any], target: str
) -> dict[str, Any]:
    """Anthropic's request fields for a platform: the JSON body carries no ``model`` (Bedrock's
    InvokeModel and Vertex's rawPredict take it in the URL); the SDK call takes it."""
    from .request import add_request_fields

    return add_request_fields(out, model if target == "sdk" else None, extra, target)


def platform_decode_fields(
    body: dict[str, Any], version: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Anthropic's request fields of a platform body: the platform's own ``anthropic_version`` is
    envelope, written again by the JSON encoder (another version stays in the rest, verbatim)."""
    from .request import decode_fields

    if body.get("anthropic_version") == version:
        body = {key: value for key, value in body.items() if key != "anthropic_version"}
    return decode_fields(body)
