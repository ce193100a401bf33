"""History utilities: a flat one-block-per-item view, trimming, merging, filtering, token counts.

All functions take a list of messages and return new lists; messages are frozen and never changed
in place.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, Literal, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from .._checks import check_count
from ..blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    parse_block,
    summarize_validation_error,
)
from ..errors import DecodeError, MediaBlocksError
from ..media import MediaBlock
from ..message_input import MessageLike, MessagesLike, is_role_pair, message_from_dict, message_of
from ..message_input import as_messages as _as_messages
from ..messages import (
    SESSION_ROLES,
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    _message_adapter,
    _MessageBase,
    normalize_role,
    sent_content,
)
from ..tokens import CHARS_PER_TOKEN as _CHARS_PER_TOKEN
from ..tokens import estimate_tokens

__all__ = [
    "FlatItem",
    "block_to_message",
    "count_tokens",
    "filter_messages",
    "merge_consecutive",
    "normalize_messages",
    "parse_message",
    "pretty",
    "pretty_print",
    "regroup_messages",
    "trim_messages",
]

BlockKind = Literal["text", "thinking", "tool_call", "tool_result", "media", "raw", "tools"]


class FlatItem(BaseModel):
    """One block of a history with its parent message's identity.

    ``message`` holds the parent's other fields (usage, stop_reason, metadata...) on the first item
    of each message only, so `regroup_messages` can rebuild the message exactly; ``metadata``
    repeats the parent's metadata on every item, so a filter on a session id sees them all. A
    message with no blocks gives one item whose ``block`` is None.
    """

    model_config = ConfigDict(
        frozen=True, ser_json_bytes="base64", val_json_bytes="base64", defer_build=True
    )

    message_id: str
    role: str
    timestamp: datetime
    model: str | None = None
    index: int = 0
    block: Block | None = None
    message: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    """The parent message's ``metadata`` (a session id...), on every item of the message."""


_IDENTITY_FIELDS = {"id", "role", "timestamp", "content"}


def parse_message(data: Message | dict[str, Any]) -> Message:
    """A message from a dict in mediablocks' JSON form (a message object is returned as is).

    Its ``content`` may be a raw JSON list of blocks: block types mediablocks does not know are
    kept verbatim as ``RawBlock(provider="unknown", data=...)`` instead of failing the message.
    """
    if isinstance(data, dict):
        return message_from_dict(data)
    if isinstance(data, _MessageBase):
        return data
    raise DecodeError(f"a message is a dict or a Message, not a {type(data).__name__}")


def as_messages(messages: Any) -> list[Message]:
    """Messages from anything message-like (`mediablocks.message_input`): what every history
    utility accepts."""
    return _as_messages(messages, "history")


def normalize_messages(messages: MessagesLike) -> list[FlatItem]:
    """A flat stream: one `FlatItem` per block, carrying its message's id, role, time and model.

    Takes messages as every entry point does (`mediablocks.message_input`): messages, their
    dicts, strings, ``(role, content)`` pairs, or one of them.
    """
    items: list[FlatItem] = []
    for message in _as_messages(messages, "normalize_messages"):
        _flatten(message, items)
    return items


def _flatten(message: Message, items: list[FlatItem]) -> None:
    rest = {
        name: getattr(message, name)
        for name in type(message).model_fields
        if name not in _IDENTITY_FIELDS
    }
    model = rest.get("model")
    first = FlatItem(
        message_id=message.id,
        role=message.role,
        timestamp=message.timestamp,
        model=model if isinstance(model, str) else None,
        message=rest,
        metadata=dict(message.metadata),
    )
    if not message.content:
        items.append(first)
        return
    items.append(first.model_copy(update={"block": message.content[0]}))
    items.extend(
        first.model_copy(update={"index": index, "block": block, "message": {}})
        for index, block in enumerate(message.content[1:], start=1)
    )


def regroup_messages(
    items: Iterable[FlatItem | MessageLike] | FlatItem | MessageLike,
) -> list[Message]:
    """The inverse of `normalize_messages`: consecutive items of one message id become a message.

    Items may be `FlatItem`s (or their dicts), and messages or message dicts are accepted too (as
    `normalize_messages` takes them): they are flattened first.
    """
    flat: list[FlatItem] = []
    if isinstance(items, (FlatItem, str, dict, _MessageBase)) or is_role_pair(items):
        items = [items]  # type: ignore[list-item]  # one item or one message-like value
    elif isinstance(items, (bytes, bytearray, memoryview, BaseModel)) or not isinstance(
        items, Iterable
    ):
        _as_messages(items, "regroup_messages")  # raises, naming what it is
    for index, given in enumerate(items):
        if isinstance(given, FlatItem):
            flat.append(given)
        elif isinstance(given, dict) and "message_id" in given:
            try:
                flat.append(FlatItem.model_validate(given))
            except ValidationError as exc:
                raise DecodeError(
                    f"not a valid flat item: {summarize_validation_error(exc)}"
                ) from None
        else:
            _flatten(message_of(given, "regroup_messages", index), flat)
    messages: list[Message] = []
    current: FlatItem | None = None
    blocks: list[Block] = []

    def flush() -> None:
        if current is None:
            return
        data = {
            **current.message,
            "id": current.message_id,
            "role": current.role,
            "timestamp": current.timestamp,
            "content": blocks,
        }
        messages.append(_message_adapter().validate_python(data))

    for item in flat:
        if current is None or item.message_id != current.message_id:
            flush()
            current, blocks = item, []
        if item.block is not None:
            blocks.append(item.block)
    flush()
    return messages


_ROLE_OF_BLOCK = {"tool_result": "tool", "tool_call": "assistant", "thinking": "assistant"}


def block_to_message(item: FlatItem | Block | dict[str, Any], role: str | None = None) -> Message:
    """One block as a message: a `FlatItem` becomes its message holding just that block (id,
    role, time and the message's fields kept; `regroup_messages` for several); a bare block
    becomes a message of ``role``, by default the role that block belongs to (a tool result a
    tool message, a tool call or thinking an assistant message, anything else a user message)."""
    if isinstance(item, dict):
        item = FlatItem.model_validate(item) if "message_id" in item else parse_block(item)
    if isinstance(item, FlatItem):
        data = {
            **item.message,
            "metadata": item.metadata,
            "id": item.message_id,
            "role": role or item.role,
            "timestamp": item.timestamp,
            "content": [item.block] if item.block is not None else [],
        }
        if item.model is not None and data["role"] == "assistant":
            data.setdefault("model", item.model)
        try:
            return _message_adapter().validate_python(data)
        except ValidationError as exc:
            raise DecodeError(f"not a valid flat item: {summarize_validation_error(exc)}") from None
    if not isinstance(item, BaseModel) or not isinstance(getattr(item, "type", None), str):
        raise DecodeError(
            f"block_to_message takes a block or a FlatItem, not a {type(item).__name__}"
        )
    chosen = normalize_role(role) if role else _ROLE_OF_BLOCK.get(item.type, "user")
    try:
        return _message_adapter().validate_python({"role": chosen, "content": [item]})
    except ValidationError as exc:
        raise DecodeError(
            f"a {item.type} block as a {chosen} message: {summarize_validation_error(exc)}"
        ) from None


def merge_consecutive(messages: MessagesLike) -> list[Message]:
    """Merge adjacent messages of the same role into one.

    The merged message keeps the first message's id, timestamp and other fields, with the blocks
    of all of them in order; assistant usages are added up. Session messages (custom, summaries)
    are never merged: each holds its own record.
    """
    merged: list[Message] = []
    for message in as_messages(messages):
        previous = merged[-1] if merged else None
        if previous is None or previous.role != message.role or message.role in SESSION_ROLES:
            merged.append(message)
            continue
        update: dict[str, Any] = {"content": [*previous.content, *message.content]}
        if isinstance(previous, AssistantMessage) and isinstance(message, AssistantMessage):
            if previous.usage is not None and message.usage is not None:
                update["usage"] = previous.usage + message.usage
            else:
                update["usage"] = previous.usage or message.usage
        merged[-1] = previous.model_copy(update=update)
    return merged


def _kind(block: Block) -> str:
    if isinstance(block, MediaBlock):
        return "media"
    return block.type


def filter_messages(
    messages: MessagesLike,
    *,
    roles: Iterable[str] | None = None,
    drop: Iterable[BlockKind] = (),
    keep_empty: bool = False,
) -> list[Message]:
    """Keep some roles and drop some block kinds.

    ``drop`` takes ``"thinking"``, ``"media"`` (also inside tool results), ``"tools"`` (tool calls,
    tool results and tool messages), ``"raw"``, ``"text"``. Messages left empty are removed unless
    ``keep_empty``.
    """
    wanted_roles = {normalize_role(r) for r in roles} if roles is not None else None
    dropped = set(drop)
    if "tools" in dropped:
        dropped |= {"tool_call", "tool_result"}
    result: list[Message] = []
    for message in as_messages(messages):
        if wanted_roles is not None and message.role not in wanted_roles:
            continue
        content: list[Block] = []
        for block in message.content:
            if _kind(block) in dropped:
                continue
            if (
                "media" in dropped
                and isinstance(block, ToolResultBlock)
                and not isinstance(block.content, str)
            ):
                kept = [b for b in block.content if not isinstance(b, MediaBlock)]
                block = block.model_copy(update={"content": kept})
            content.append(block)
        if content or keep_empty or (not message.content and wanted_roles is not None):
            result.append(message.model_copy(update={"content": content}))
    return result


CHARS_PER_TOKEN = _CHARS_PER_TOKEN
"""Text token rule: one token per four characters, rounded up (a common, documented average)."""
FALLBACK_MEDIA_TOKENS = 1000
"""Media whose size cannot be estimated (nothing readable) count this."""
DEFAULT_MEDIA_PROVIDER = "anthropic"
"""Whose media rules `count_tokens` uses when no provider is given."""


def _text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _media_tokens(block: MediaBlock, provider: str | None, model: str | None) -> int:
    try:
        return int(estimate_tokens(block, provider or DEFAULT_MEDIA_PROVIDER, model=model))
    except MediaBlocksError:  # media it cannot measure (an unread URL...): a flat figure
        return FALLBACK_MEDIA_TOKENS


def _block_tokens(block: Block, provider: str | None, model: str | None) -> int:
    if isinstance(block, TextBlock):
        return _text_tokens(block.text)
    if isinstance(block, ThinkingBlock):
        return _text_tokens(block.thinking or block.redacted_data or "")
    if isinstance(block, ToolCallBlock):
        return _text_tokens(block.name) + _text_tokens(block.raw_args or json.dumps(block.args))
    if isinstance(block, ToolResultBlock):
        if isinstance(block.content, str):
            return _text_tokens(block.content)
        return sum(_block_tokens(b, provider, model) for b in block.content)
    if isinstance(block, MediaBlock):
        return _media_tokens(block, provider, model)
    if isinstance(block, RawBlock):
        return _text_tokens(str(block.data))
    return 0  # pragma: no cover - every block kind is handled above


def count_tokens(
    messages: MessagesLike,
    provider: str | None = None,
    *,
    model: str | None = None,
) -> int:
    """An approximate token count: text by `CHARS_PER_TOKEN`, media by `estimate_tokens`.

    Media estimates come from header dimensions and durations; nothing is fetched. An unknown
    provider name raises `UnknownProviderError`.
    """
    if provider is not None:
        from ..providers._options import canonical_provider

        provider = canonical_provider(provider)
    items = as_messages(messages)
    return sum(_block_tokens(b, provider, model) for m in items for b in sent_content(m))


def _units(messages: Sequence[Message]) -> list[list[Message]]:
    """Groups that must stay together: an assistant turn with tool calls and the messages after
    it that hold their results (tool messages, or user turns carrying results, Anthropic style)."""
    units: list[list[Message]] = []
    for message in messages:
        calls = {
            b.id
            for m in (units[-1] if units else [])
            for b in m.content
            if isinstance(b, ToolCallBlock)
        }
        answers = isinstance(message, ToolMessage) or any(
            isinstance(b, ToolResultBlock) and b.tool_call_id in calls for b in message.content
        )
        if calls and answers:
            units[-1].append(message)
        else:
            units.append([message])
    return units


def trim_messages(
    messages: MessagesLike,
    max_tokens: int,
    *,
    provider: str | None = None,
    model: str | None = None,
    keep: Literal["last", "first"] = "last",
    keep_system: bool = True,
    counter: Callable[[Sequence[Message]], int] | None = None,
) -> list[Message]:
    """The longest run of messages (the most recent with ``keep="last"``) within ``max_tokens``.

    With ``keep_system`` every system message is kept, in its place, and counts against the
    budget (when they alone exceed it, only they are returned). A tool call is never separated
    from its results: an assistant turn with tool calls and the tool messages answering it are
    kept or dropped together. ``counter`` replaces `count_tokens` (say, a real tokenizer).
    """
    check_count("trim_messages", "max_tokens", max_tokens)
    messages = as_messages(messages)
    count = counter or (lambda ms: count_tokens(ms, provider, model=model))
    system = [m for m in messages if isinstance(m, SystemMessage)] if keep_system else []
    rest = [m for m in messages if not (keep_system and isinstance(m, SystemMessage))]
    budget = max_tokens - (count(system) if system else 0)
    units = _units(rest)
    if keep == "last":
        units.reverse()
    kept = {id(m) for m in system}
    for unit in units:
        cost = count(unit)
        if cost > budget:
            break
        kept.update(id(m) for m in unit)
        budget -= cost
    return [m for m in messages if id(m) in kept]  # in their original order


def _describe_block(block: Block) -> str:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        if block.redacted:
            return "[thinking: redacted]"
        return f"[thinking] {block.thinking}"
    if isinstance(block, ToolCallBlock):
        args = block.raw_args if block.raw_args is not None else json.dumps(block.args)
        return f"[tool call {block.id}] {block.name}({args})"
    if isinstance(block, ToolResultBlock):
        state = " error" if block.is_error else ""
        inner = (
            block.content
            if isinstance(block.content, str)
            else " ".join(_describe_block(b) for b in block.content)
        )
        return f"[tool result {block.tool_call_id}{state}] {inner}"
    if isinstance(block, MediaBlock):
        from .storage import media_summary

        return media_summary(block)
    return f"[raw {block.provider}] {block.data.get('type', '')}"


def pretty(messages: MessagesLike) -> str:
    """A readable text rendering of a history, media shown as summaries, never as base64.

    Takes what the other history utilities take: messages, message dicts, one message."""
    lines: list[str] = []
    for message in as_messages(messages):
        header: str = message.role
        notes = []
        if isinstance(message, AssistantMessage):
            notes = [note for note in (message.model, message.stop_reason) if note]
            if message.usage is not None:
                notes.append(f"{message.usage.input_tokens} in / {message.usage.output_tokens} out")
        if notes:
            header += f" ({', '.join(notes)})"
        lines.append(f"── {header}")
        for block in message.content:
            lines.extend("   " + line for line in _describe_block(block).splitlines() or [""])
    return "\n".join(lines)


def pretty_print(messages: MessagesLike, file: TextIO | None = None) -> None:
    """Print `pretty(messages)`."""
    print(pretty(messages), file=file or sys.stdout)
