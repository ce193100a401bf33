"""LangChain v1 messages in and out: `from_langchain` and `to_langchain`.

A LangChain message is read through its standard view (``message.content_blocks``, which already
unpacks OpenAI, Anthropic, Gemini and Converse content), block by block
(`_langchain_blocks`); tool calls, tool results, names, ids, usage and the message's own
metadata come along. What mediablocks has no field for is kept in the message's
``metadata["langchain"]`` or the block's ``provider_data["langchain"]`` (never sent to a model) and
comes back out, so a LangChain history read and written again is the history it was. What cannot
be carried raises `UnsupportedBlockError` or `DecodeError` naming the message.

``langchain-core`` is imported inside the functions: ``import mediablocks`` does not load it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._base import BlockBase
from ..blocks import (
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ..errors import DecodeError, MediaBlocksError, UnsupportedBlockError
from ..media import MediaBlock
from ..message_input import as_messages
from ..messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..usage import Usage
from ._common import require
from ._langchain_blocks import (
    LANGCHAIN,
    block_from_standard,
    block_to_standard,
    langchain_provider,
    mediablocks_provider,
)

__all__ = ["from_langchain", "to_langchain"]

_ROLES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant"}


def from_langchain(messages: Any) -> list[Message]:
    """mediablocks messages for LangChain messages (``BaseMessage`` objects, or anything
    ``langchain_core.messages.convert_to_messages`` takes: dicts, ``(role, text)`` pairs).

    ``HumanMessage`` -> `UserMessage`, ``AIMessage`` -> `AssistantMessage` (tool calls, invalid
    tool calls with their raw text, reasoning with its signature, usage, model and provider),
    ``SystemMessage`` -> `SystemMessage`, ``ToolMessage`` -> `ToolMessage` holding one
    `ToolResultBlock` (``status="error"`` is ``is_error``). Needs the ``langchain`` extra.
    """
    core = require("langchain_core.messages", "langchain", "from_langchain")
    items = [messages] if isinstance(messages, core.BaseMessage) else messages
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise DecodeError(
            f"from_langchain takes a LangChain message or a list of them, not a "
            f"{type(messages).__name__}"
        )
    out: list[Message] = []
    for index, item in enumerate(items):
        if not isinstance(item, core.BaseMessage):
            item = _converted(core, item, index)
        out.append(_message_in(item, index))
    return out


def _converted(core: Any, item: Any, index: int) -> Any:
    try:
        (message,) = core.convert_to_messages([item])
    except (ValueError, TypeError, KeyError, NotImplementedError) as exc:
        raise DecodeError(f"LangChain message {index} is not a message: {exc}") from None
    return message


def _message_in(message: Any, index: int) -> Message:
    kind = message.type
    where = f"LangChain message {index} ({type(message).__name__})"
    if kind == "chat":
        kind = _ROLES.get(message.role, message.role)
    kind = _ROLES.get(kind, kind)
    response_metadata = dict(message.response_metadata or {})
    provider = mediablocks_provider(response_metadata.get("model_provider"))
    kept = _kept(message, response_metadata)
    if kind == "tool":
        return ToolMessage(content=[_tool_result(message, where)], metadata={LANGCHAIN: kept})
    try:
        standard = message.content_blocks
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise DecodeError(f"{where}: its content cannot be read: {exc}") from None
    blocks: list[Any] = [
        block_from_standard(block, f"{where}, block {position}", provider)
        for position, block in enumerate(standard)
    ]
    if kind == "user":
        return UserMessage(
            content=blocks, name=message.name, id=_message_id(message), metadata={LANGCHAIN: kept}
        )
    if kind == "system":
        return SystemMessage(content=blocks, id=_message_id(message), metadata={LANGCHAIN: kept})
    if kind == "assistant":
        blocks = [*_reasoning_marked(message, blocks), *_invalid_calls(message, blocks, where)]
        return AssistantMessage(
            content=blocks,
            id=_message_id(message),
            model=response_metadata.get("model_name") or response_metadata.get("model"),
            provider=provider,
            usage=_usage(message),
            metadata={LANGCHAIN: kept},
        )
    raise UnsupportedBlockError(
        f"{where}: a {type(message).__name__} has no mediablocks message (LangChain's legacy "
        "function messages and removals are not conversation turns)"
    )


def _message_id(message: Any) -> Any:
    return message.id if isinstance(message.id, str) and message.id else _default_id()


def _default_id() -> str:
    return str(UserMessage.model_fields["id"].get_default(call_default_factory=True))


def _kept(message: Any, response_metadata: dict[str, Any]) -> dict[str, Any]:
    """The message's LangChain fields mediablocks has no place for, for the way back."""
    kept: dict[str, Any] = {"type": message.type}
    if message.id is not None:
        kept["id"] = message.id
    if message.name is not None:
        kept["name"] = message.name
    if isinstance(message.content, str):
        kept["text_content"] = True
    for field in ("additional_kwargs",):
        if getattr(message, field, None):
            kept[field] = dict(getattr(message, field))
    if response_metadata:
        kept["response_metadata"] = response_metadata
    if getattr(message, "usage_metadata", None):
        kept["usage_metadata"] = dict(message.usage_metadata)
    if getattr(message, "role", None) is not None and message.type == "chat":
        kept["role"] = message.role
    return kept


def _tool_result(message: Any, where: str) -> ToolResultBlock:
    content: str | list[ContentBlock]
    if isinstance(message.content, str):
        content = message.content
    else:
        content = []
        for position, block in enumerate(message.content_blocks):
            item = block_from_standard(block, f"{where}, block {position}")
            if not isinstance(item, (TextBlock, MediaBlock, RawBlock)):
                raise UnsupportedBlockError(
                    f"{where}, block {position}: a tool result carries text and media, not a "
                    f"{type(item).__name__}"
                )
            content.append(item)  # type: ignore[arg-type]
    metadata: dict[str, Any] = {}
    if getattr(message, "artifact", None) is not None:
        metadata[LANGCHAIN] = {"artifact": message.artifact}
    return ToolResultBlock(
        tool_call_id=message.tool_call_id,
        name=message.name,
        content=content,
        is_error=getattr(message, "status", "success") == "error",
        metadata=metadata,
    )


def _reasoning_marked(message: Any, blocks: list[BlockBase]) -> list[BlockBase]:
    """Reasoning LangChain lifted out of ``additional_kwargs`` is marked, so the way back puts
    it there (its place) and not twice."""
    kwargs = message.additional_kwargs or {}
    raw = message.content if isinstance(message.content, list) else []
    in_content = any(
        isinstance(part, Mapping) and part.get("type") in ("reasoning", "thinking") for part in raw
    )
    if in_content or not any(key in kwargs for key in ("reasoning_content", "reasoning")):
        return blocks
    out: list[BlockBase] = []
    for block in blocks:
        if isinstance(block, ThinkingBlock):
            data = {
                **block.provider_data,
                LANGCHAIN: {**block.for_provider(LANGCHAIN), "kwargs": True},
            }
            block = block.model_copy(update={"provider_data": data})
        out.append(block)
    return out


def _invalid_calls(message: Any, blocks: list[BlockBase], where: str) -> list[BlockBase]:
    """The tool calls (and invalid ones, with their raw argument text) that the standard view
    left out: a provider's translator reads calls from the content only."""
    seen = {b.id for b in blocks if isinstance(b, ToolCallBlock) and b.id}
    extra: list[BlockBase] = []
    listed = [
        *({**call, "type": "tool_call"} for call in getattr(message, "tool_calls", None) or ()),
        *(
            {**call, "type": "invalid_tool_call"}
            for call in getattr(message, "invalid_tool_calls", None) or ()
        ),
    ]
    for position, call in enumerate(listed):
        if call.get("id") and call["id"] in seen:
            continue
        extra.append(block_from_standard(call, f"{where}, tool call {position}"))
    return extra


def _usage(message: Any) -> Usage | None:
    usage = getattr(message, "usage_metadata", None)
    if not usage:
        return None
    read = usage.get("input_token_details") or {}
    wrote = usage.get("output_token_details") or {}
    return Usage(
        input_tokens=usage.get("input_tokens", 0),
        output_tokens=usage.get("output_tokens", 0),
        cache_read_tokens=read.get("cache_read", 0) or 0,
        cache_write_tokens=read.get("cache_creation", 0) or 0,
        reasoning_tokens=wrote.get("reasoning", 0) or 0,
        raw=dict(usage),
    )


# -- out ------------------------------------------------------------------------------------


def to_langchain(messages: Message | Sequence[Message]) -> list[Any]:
    """LangChain v1 messages (``BaseMessage``) for mediablocks messages: content as standard
    content blocks, tool calls in ``tool_calls`` (arguments that were not JSON in
    ``invalid_tool_calls``), each tool result its own ``ToolMessage``. Fields kept by
    `from_langchain` come back. Session messages (custom, branch and compaction summaries) and
    other providers' raw blocks in tool results raise `UnsupportedBlockError`.
    Needs the ``langchain`` extra.
    """
    core = require("langchain_core.messages", "langchain", "to_langchain")
    out: list[Any] = []
    for index, message in enumerate(as_messages(messages, "to_langchain")):
        where = f"message {index} ({message.role})"
        try:
            out.extend(_message_out(core, message, where))
        except MediaBlocksError:
            raise
        except (ValueError, TypeError) as exc:  # LangChain's own validation
            raise DecodeError(f"{where}: LangChain refused it: {exc}") from None
    return out


def _message_out(core: Any, message: Message, where: str) -> list[Any]:
    kept: dict[str, Any] = dict(message.metadata.get(LANGCHAIN, {}))
    common: dict[str, Any] = {"id": kept.get("id") if kept else message.id}
    if kept.get("additional_kwargs"):
        common["additional_kwargs"] = dict(kept["additional_kwargs"])
    if isinstance(message, ToolMessage):
        return [_tool_message(core, result, kept, where) for result in message.results]
    if isinstance(message, SystemMessage):
        return [core.SystemMessage(content=_content(message.content, kept, where), **common)]
    if isinstance(message, UserMessage):
        name = message.name or kept.get("name")
        return [
            core.HumanMessage(content=_content(message.content, kept, where), name=name, **common)
        ]
    if isinstance(message, AssistantMessage):
        return [_ai_message(core, message, kept, common, where)]
    raise UnsupportedBlockError(
        f"{where}: LangChain has no {type(message).__name__}; turn it into a user message first "
        "(CompactionSummaryMessage.as_user())"
    )


def _content(blocks: Sequence[BlockBase], kept: dict[str, Any], where: str) -> Any:
    texts_only = all(isinstance(b, TextBlock) and not b.provider_data for b in blocks)
    if texts_only and (kept.get("text_content") or (len(blocks) == 1 and not kept)):
        return "".join(b.text for b in blocks if isinstance(b, TextBlock))
    return [block_to_standard(b, f"{where}, block {i}") for i, b in enumerate(blocks)]


def _ai_message(
    core: Any, message: AssistantMessage, kept: dict[str, Any], common: dict[str, Any], where: str
) -> Any:
    content: list[BlockBase] = []
    calls: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    ordered: list[Any] = []  # the standard content, tool calls in their place
    for position, block in enumerate(message.content):
        if isinstance(block, ToolCallBlock):
            call = _call_out(block)
            (invalid if block.raw_args is not None else calls).append(call)
            ordered.append(call)
        elif isinstance(block, ThinkingBlock) and block.for_provider(LANGCHAIN).get("kwargs"):
            continue  # it lives in additional_kwargs, which come back as they were
        elif isinstance(block, ToolResultBlock):
            raise UnsupportedBlockError(f"{where}, block {position}: a tool result in a reply")
        else:
            content.append(block)
            ordered.append(block)
    response_metadata = dict(kept.get("response_metadata", {}))
    if message.provider and "model_provider" not in response_metadata:
        response_metadata["model_provider"] = langchain_provider(message.provider)
    if message.model and "model_name" not in response_metadata:
        response_metadata["model_name"] = message.model
    body = _content(content, kept, where)
    if isinstance(body, list):
        body = [
            item if isinstance(item, dict) else block_to_standard(item, f"{where}, block {i}")
            for i, item in enumerate(ordered)
        ]
        response_metadata["output_version"] = "v1"  # the content is standard blocks, as is
    fields: dict[str, Any] = {**common, "response_metadata": response_metadata}
    usage = kept.get("usage_metadata") or _usage_out(message.usage)
    if usage:
        fields["usage_metadata"] = usage
    if kept.get("name"):
        fields["name"] = kept["name"]
    return core.AIMessage(content=body, tool_calls=calls, invalid_tool_calls=invalid, **fields)


def _call_out(block: ToolCallBlock) -> dict[str, Any]:
    kept = dict(block.for_provider(LANGCHAIN))
    kept.pop("type", None)
    signature = block.for_provider("gemini").get("thought_signature")
    if signature:
        kept["extras"] = {**kept.get("extras", {}), "signature": signature}
    if block.raw_args is not None:
        return {
            "type": "invalid_tool_call",
            "id": block.id or None,
            "name": block.name or None,
            "args": block.raw_args,
            "error": kept.pop("error", None),
            **kept,
        }
    kept.pop("error", None)
    return {
        "type": "tool_call",
        "id": block.id or None,
        "name": block.name,
        "args": block.args,
        **kept,
    }


def _usage_out(usage: Usage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    out: dict[str, Any] = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }
    if usage.cache_read_tokens or usage.cache_write_tokens:
        out["input_token_details"] = {
            "cache_read": usage.cache_read_tokens,
            "cache_creation": usage.cache_write_tokens,
        }
    if usage.reasoning_tokens:
        out["output_token_details"] = {"reasoning": usage.reasoning_tokens}
    return out


def _tool_message(core: Any, result: ToolResultBlock, kept: dict[str, Any], where: str) -> Any:
    lc = result.metadata.get(LANGCHAIN, {})
    content: Any = result.content
    if not isinstance(content, str):
        content = [
            block_to_standard(b, f"{where}, tool result item {i}") for i, b in enumerate(content)
        ]
    fields: dict[str, Any] = {"tool_call_id": result.tool_call_id}
    if kept.get("id") is not None:
        fields["id"] = kept["id"]
    if result.name is not None:
        fields["name"] = result.name
    if "artifact" in lc:
        fields["artifact"] = lc["artifact"]
    if kept.get("additional_kwargs"):
        fields["additional_kwargs"] = dict(kept["additional_kwargs"])
    return core.ToolMessage(
        content=content, status="error" if result.is_error else "success", **fields
    )
