"""Small helpers every translator shares: media fields, URL decisions, arguments, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from ..blocks import Block, ThinkingBlock, ToolCallBlock
from ..errors import UnsupportedBlockError
from ..media import MediaBlock
from ..messages import SESSION_ROLES, Message
from ..sources import FileIdSource, URLSource
from ._options import EncodeOptions

__all__ = [
    "as_dict",
    "base64_data",
    "block_label",
    "bytes_or_base64",
    "data_uri",
    "dump_args",
    "file_id_of",
    "is_own_thinking",
    "parse_args",
    "sendable",
    "unsupported",
    "use_url",
]


def sendable(messages: Sequence[Message]) -> Iterator[tuple[int, Message]]:
    """``(index, message)`` for the messages a model sees: session messages are skipped."""
    for index, message in enumerate(messages):
        if message.role not in SESSION_ROLES:
            yield index, message


def block_label(block: Block) -> str:
    """How a block is named in errors: ``ImageBlock(path 'x.png', image/png)`` or its type."""
    if isinstance(block, MediaBlock):
        return block.describe()
    return type(block).__name__


def unsupported(
    provider: str, block: Block, message_index: int, block_index: int, why: str = ""
) -> UnsupportedBlockError:
    """The error for a block a provider cannot carry: kind, position and provider named."""
    role_note = f"message {message_index}, block {block_index}"
    reason = f": {why}" if why else ""
    return UnsupportedBlockError(
        f"{provider} cannot carry {block_label(block)} ({role_note}){reason}"
    )


def base64_data(block: MediaBlock, options: EncodeOptions) -> str:
    """The block's base64 text (or an `encode_json` placeholder that streams it later)."""
    if options.media_sink is not None:
        return options.media_sink.add(block, "base64")
    return block.to_base64(options.policy)[0]


def data_uri(block: MediaBlock, options: EncodeOptions) -> str:
    """The block as a data URI (or an `encode_json` placeholder)."""
    if options.media_sink is not None:
        return options.media_sink.add(block, "data_uri")
    return block.to_data_uri(options.policy)


def bytes_or_base64(block: MediaBlock, options: EncodeOptions) -> bytes | str:
    """Raw bytes for SDKs that take bytes (boto3, google-genai), base64 text for JSON targets."""
    if options.target == "sdk":
        return block.read(options.policy)
    return base64_data(block, options)


def use_url(block: MediaBlock, provider_fetches: bool, options: EncodeOptions) -> bool:
    """Whether a URL block goes out as its URL (True) or is downloaded and inlined (False).

    Raises `UnsupportedBlockError` when the caller asked for URLs and the provider cannot fetch.
    """
    if not isinstance(block.source, URLSource):
        return False
    if options.url_media == "inline":
        return False
    if options.url_media == "url":
        if not provider_fetches:
            raise UnsupportedBlockError(
                f"{block.describe()}: this provider cannot fetch URLs for this kind of media; "
                "use url_media='inline' to download and send the bytes"
            )
        return True
    return provider_fetches


def file_id_of(block: MediaBlock) -> FileIdSource | None:
    """The block's provider file id source, if it has one."""
    return block.source if isinstance(block.source, FileIdSource) else None


def parse_args(text: str | None) -> tuple[dict[str, Any], str | None]:
    """Tool-call argument text as ``(args, raw_args)``: raw text is kept only when not an object."""
    if text is None or text.strip() == "":
        return {}, None
    try:
        value = json.loads(text)
    except ValueError:
        return {}, text
    if isinstance(value, dict):
        return value, None
    return {}, text


def dump_args(block: ToolCallBlock) -> str:
    """Tool-call arguments as the JSON text OpenAI-style APIs want; invalid ones verbatim."""
    if block.raw_args is not None:
        return block.raw_args
    return json.dumps(block.args, ensure_ascii=False, separators=(",", ":"))


def is_own_thinking(block: ThinkingBlock, provider: str) -> bool:
    """True when this provider produced the thinking block (so its signature is valid there)."""
    return block.provider == provider


def as_dict(payload: Any) -> Any:
    """A plain dict/list for an SDK object (pydantic ``model_dump``, ``to_dict``) or as is."""
    if isinstance(payload, (dict, list, str, bytes)) or payload is None:
        return payload
    dump = getattr(payload, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="python", exclude_none=True, by_alias=True)
        except TypeError:
            return dump()
    to_dict = getattr(payload, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return payload
