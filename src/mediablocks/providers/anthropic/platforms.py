"""Anthropic Messages on another platform's envelope (Bedrock ``InvokeModel``, Vertex AI
``rawPredict``): the same content, ``anthropic_version`` in the JSON body, no Files API, and no
URL sources: both platforms refuse them ("URL content sources are not yet supported"), so URL
images and PDFs are downloaded (safely, under the fetch policy) and sent inline by default.

With the official SDK clients (``anthropic.AnthropicBedrock``, ``anthropic.AnthropicVertex``) the
fields are exactly Anthropic's: the SDK moves the model into the URL and adds the envelope. The
HTTP body (``target="json"``) carries the platform's ``anthropic_version`` instead of a header.
The platform entries' own packages (``anthropic_bedrock``, ``anthropic_vertex``) name their
version and call these two functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...blocks import ToolResultBlock
from ...errors import UnsupportedBlockError
from ...fetching.policy import current_policy, decision_for
from ...media import MediaBlock
from ...messages import Message
from ...sources import URLSource
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
    if chosen.url_media == "url":
        raise UnsupportedBlockError(
            f"{provider} takes no URL sources (the platform refuses them); "
            "url_media='inline' or 'auto' downloads and sends the bytes"
        )
    chosen = chosen.replace(url_media="inline")
    for index, position, block in _media(messages):
        where = f"{block.describe()} (message {index}, block {position})"
        if file_id_of(block) is not None:
            raise UnsupportedBlockError(
                f"{provider} cannot carry {where}: the Files API is not available there; "
                "send the bytes inline"
            )
        if isinstance(block.source, URLSource) and _wants_url(block, chosen):
            raise UnsupportedBlockError(
                f"{provider} cannot carry {where} as a URL: the platform refuses URL sources; "
                "let it be downloaded and inlined"
            )
    fields = to_anthropic(messages, chosen)
    if chosen.target == "json":
        return {"anthropic_version": version, **fields}
    return fields


def _media(messages: Sequence[Message]) -> list[tuple[int, int, MediaBlock]]:
    found: list[tuple[int, int, MediaBlock]] = []
    for index, message in sendable(messages):
        for position, block in enumerate(message.content):
            if isinstance(block, MediaBlock):
                found.append((index, position, block))
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                found.extend(
                    (index, position, item)
                    for item in block.content
                    if isinstance(item, MediaBlock)
                )
    return found


def _wants_url(block: MediaBlock, options: EncodeOptions) -> bool:
    """True when the block's own hint or the policy's ``url_hook`` asks for its URL."""
    assert isinstance(block.source, URLSource)
    decision = decision_for(block.source.url, current_policy(options.policy))
    return decision.fetch == "url" or (decision.fetch == "auto" and block.url_media == "url")


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
