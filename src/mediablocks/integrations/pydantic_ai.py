"""pydantic-ai messages in and out: `from_pydantic_ai` and `to_pydantic_ai`.

A ``ModelRequest`` becomes one mediablocks message per part (its ``instructions`` a system message
first), consecutive tool returns sharing one `ToolMessage`; a ``ModelResponse`` becomes one
`AssistantMessage`. Messages are read through pydantic-ai's own serializer (python mode, bytes
kept), so every field a part or message has, in any pydantic-ai version, is kept: what mediablocks
models becomes blocks, the rest rides in ``metadata["pydantic_ai"]`` (messages) and
``provider_data["pydantic-ai"]`` (blocks), never sent to a model, and `to_pydantic_ai` puts it
back. Parts this module does not know are kept whole (a `CustomMessage` in a request, a
``RawBlock(provider="pydantic-ai")`` in a response, which providers refuse when encoded).

``pydantic_ai`` is imported inside the functions: ``import mediablocks`` does not load it.
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
from ..errors import DecodeError
from ..media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ..media_input import media_block
from ..messages import (
    AssistantMessage,
    CustomMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..usage import Usage
from ._common import as_content, require
from ._pydantic_ai_out import KEY, META, to_pydantic_ai

__all__ = ["from_pydantic_ai", "message_groups", "to_pydantic_ai"]

PROVIDERS = {
    "anthropic": "anthropic",
    "openai": "openai-chat",
    "azure": "azure-openai",
    "google-gla": "gemini",
    "google-vertex": "gemini",
    "google": "gemini",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "groq": "groq",
    "cohere": "cohere",
    "deepseek": "deepseek",
    "grok": "xai",
    "xai": "xai",
    "openrouter": "openrouter",
    "ollama": "ollama",
}
"""pydantic-ai ``provider_name`` / model ``system`` -> mediablocks provider."""

_URL_KINDS: dict[str, type[MediaBlock]] = {
    "image-url": ImageBlock,
    "audio-url": AudioBlock,
    "video-url": VideoBlock,
    "document-url": FileBlock,
}
_FINISH = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_call": "tool_use",
    "content_filter": "content_filter",
    "error": "error",
}
_TOOL_RETURNS = ("tool-return", "retry-prompt")


def mediablocks_provider(name: Any) -> str | None:
    """The mediablocks provider for a pydantic-ai provider name, or None when unknown."""
    return PROVIDERS.get(name) if isinstance(name, str) else None


def from_pydantic_ai(messages: Any) -> list[Message]:
    """mediablocks messages for pydantic-ai's ``ModelRequest``/``ModelResponse`` list (objects,
    their JSON, or ``ModelMessagesTypeAdapter`` dicts).

    ``SystemPromptPart`` -> `SystemMessage`; ``UserPromptPart`` -> `UserMessage` (text,
    ``BinaryContent`` by its bytes, ``ImageUrl``/``AudioUrl``/``VideoUrl``/``DocumentUrl`` as lazy
    URL blocks, ``UploadedFile`` as a file id); ``ToolReturnPart`` (media included) and retry
    prompts -> `ToolResultBlock` in a `ToolMessage`; ``TextPart``, ``ThinkingPart`` (signature and
    provider), ``ToolCallPart``, ``FilePart`` -> an `AssistantMessage`. Needs ``pydantic-ai``.
    """
    return [message for group in message_groups(messages) for message in group]


def message_groups(messages: Any) -> list[list[Message]]:
    """`from_pydantic_ai`, grouped: the mediablocks messages of each pydantic-ai message."""
    dumped = _dumped(messages)
    return [_message_in(message, index) for index, message in enumerate(dumped)]


def _dumped(messages: Any) -> list[dict[str, Any]]:
    """The messages as pydantic-ai's python-mode dicts (bytes kept), validated."""
    module = require("pydantic_ai.messages", "pydantic-ai", "from_pydantic_ai")
    adapter = module.ModelMessagesTypeAdapter
    if isinstance(messages, (module.ModelRequest, module.ModelResponse)):
        messages = [messages]
    try:
        if isinstance(messages, (str, bytes, bytearray)):
            validated = adapter.validate_json(messages)
        else:
            validated = adapter.validate_python(list(messages))
        dumped: list[dict[str, Any]] = adapter.dump_python(validated)
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        raise DecodeError(f"not a pydantic-ai message list: {str(exc)[:300]}") from None
    return dumped


def _jsonable(value: Any) -> Any:
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)


def _message_in(message: dict[str, Any], index: int) -> list[Message]:
    parts: list[dict[str, Any]] = list(message.get("parts") or ())
    kept = _jsonable({k: v for k, v in message.items() if k != "parts"})
    where = f"pydantic-ai message {index}"
    if message.get("kind") == "response":
        return [_response(parts, kept, where)]
    out: list[Message] = []
    if message.get("instructions"):
        out.append(
            SystemMessage.text(message["instructions"], metadata={KEY: {"instructions": True}})
        )
    results: list[ToolResultBlock] = []
    for position, part in enumerate(parts):
        part_where = f"{where}, part {position} ({part.get('part_kind')})"
        if part.get("part_kind") in _TOOL_RETURNS and part.get("tool_call_id"):
            results.append(_tool_return(part, part_where))
            continue
        if results:
            out.append(ToolMessage(content=results))
            results = []
        out.append(_request_part(part, part_where))
    if results:
        out.append(ToolMessage(content=results))
    if not out:
        out.append(CustomMessage(custom_type=KEY, data={"empty": True}))
    first = out[0]
    marker = {**first.metadata.get(KEY, {}), META: kept}
    out[0] = first.model_copy(update={"metadata": {**first.metadata, KEY: marker}})
    return out


def _part_kept(part: dict[str, Any], *modelled: str) -> dict[str, Any]:
    return dict(_jsonable({k: v for k, v in part.items() if k not in modelled}))


def _request_part(part: dict[str, Any], where: str) -> Message:
    kind = part.get("part_kind")
    if kind == "system-prompt":
        kept = _part_kept(part, "content")
        return SystemMessage.text(str(part.get("content", "")), metadata={KEY: {"part": kept}})
    if kind == "user-prompt":
        kept = _part_kept(part, "content")
        content = part.get("content")
        if isinstance(content, str):
            kept["text_content"] = True
            return UserMessage.text(content, metadata={KEY: {"part": kept}})
        blocks, cache_points = _user_items(content or [], where)
        if cache_points:
            kept["cache_points"] = cache_points
        return UserMessage(content=list(blocks), metadata={KEY: {"part": kept}})
    # parts this module does not model (speech, deltas, compaction...): kept whole, not sent
    return CustomMessage(custom_type=KEY, data={"part": _jsonable(part)})


def _user_items(items: Sequence[Any], where: str) -> tuple[list[Any], list[Any]]:
    """The blocks of a prompt's items, and its cache points (position and item) kept aside."""
    blocks: list[Any] = []
    cache_points: list[Any] = []
    for position, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("kind") == "cache-point":
            cache_points.append({"index": position, "item": _jsonable(item)})
            continue
        blocks.append(_item(item, f"{where}, item {position}"))
    return blocks, cache_points


def _item(item: Any, where: str) -> BlockBase:
    """One user or tool-return content item as a block."""
    if isinstance(item, str):
        return TextBlock(text=item)
    if not isinstance(item, Mapping):
        return TextBlock(text=_json_text(item), provider_data={KEY: {"json": _jsonable(item)}})
    kind = item.get("kind")
    kept = _part_kept(dict(item), "data", "url", "file_id", "content")
    if kind == "binary":
        data = item.get("data")
        if not isinstance(data, (bytes, bytearray)):
            raise DecodeError(f"{where}: binary content without bytes")
        block = media_block(bytes(data), item.get("media_type"))
        return _with_details(block, item, kept)
    if kind in _URL_KINDS:
        cls = _URL_KINDS[kind]
        linked = cls.from_url(str(item.get("url")), item.get("media_type"))
        return _with_details(linked, item, kept)
    if kind == "uploaded-file":
        provider = mediablocks_provider(item.get("provider_name"))
        block = FileBlock.from_file_id(
            str(item.get("file_id")), item.get("media_type"), provider=provider
        )
        return _with_details(block, item, kept)
    if kind == "text-content" and isinstance(item.get("content"), str):
        return TextBlock(text=item["content"], provider_data={KEY: kept})
    if kind is None:  # a plain dict a tool returned: its JSON is what the model reads
        return TextBlock(text=_json_text(item), provider_data={KEY: {"json": _jsonable(item)}})
    return RawBlock(provider=KEY, data=_jsonable(item))


def _with_details(block: MediaBlock, item: Mapping[str, Any], kept: dict[str, Any]) -> MediaBlock:
    update: dict[str, Any] = {"provider_data": {KEY: kept}}
    vendor = item.get("vendor_metadata") or {}
    if isinstance(block, ImageBlock) and vendor.get("detail") in ("auto", "low", "high"):
        update["detail"] = vendor["detail"]
    return block.model_copy(update=update)


def _json_text(value: Any) -> str:
    from pydantic_core import to_json

    return to_json(value).decode("utf-8")


def _tool_return(part: dict[str, Any], where: str) -> ToolResultBlock:
    kind = part.get("part_kind")
    kept = _part_kept(part, "content", "tool_call_id", "tool_name", "content_file_digests")
    content = part.get("content")
    if kind == "retry-prompt":
        kept["content"] = _jsonable(content)
        text = _retry_text(content)
        return ToolResultBlock(
            tool_call_id=part["tool_call_id"],
            name=part.get("tool_name"),
            content=text,
            is_error=True,
            metadata={KEY: {"part": kept}},
        )
    body: str | list[ContentBlock]
    if isinstance(content, str):
        body = content
    elif isinstance(content, list):
        items = [_item(item, f"{where}, item {i}") for i, item in enumerate(content)]
        body = [as_content(b) if isinstance(b, MediaBlock) else b for b in items]  # type: ignore[misc]
    elif content is None:
        body = ""
    else:
        body = [_item(content, where)]  # type: ignore[list-item]
    return ToolResultBlock(
        tool_call_id=part["tool_call_id"],
        name=part.get("tool_name"),
        content=body,
        is_error=part.get("outcome") in ("failed", "denied"),
        metadata={KEY: {"part": kept}},
    )


def _retry_text(content: Any) -> str:
    """What pydantic-ai tells the model for a retry: the errors, then the request to fix them."""
    errors = content if isinstance(content, str) else _json_text(content)
    return f"{errors}\n\nFix the errors and try again."


def _response(parts: list[dict[str, Any]], kept: dict[str, Any], where: str) -> AssistantMessage:
    provider = mediablocks_provider(kept.get("provider_name"))
    blocks: list[Any] = []
    for position, part in enumerate(parts):
        blocks.append(_response_part(part, provider, f"{where}, part {position}"))
    usage = kept.get("usage") or {}
    finish = kept.get("finish_reason")
    return AssistantMessage(
        content=blocks,
        model=kept.get("model_name"),
        provider=provider,
        response_id=kept.get("provider_response_id"),
        stop_reason=_FINISH.get(finish) if isinstance(finish, str) else None,
        provider_stop_reason=finish if isinstance(finish, str) else None,
        usage=Usage(
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            cache_read_tokens=usage.get("cache_read_tokens", 0),
            cache_write_tokens=usage.get("cache_write_tokens", 0),
            reasoning_tokens=usage.get("output_reasoning_tokens", 0),
            raw=usage,
        )
        if usage
        else None,
        metadata={KEY: {META: kept}},
    )


def _response_part(part: dict[str, Any], provider: str | None, where: str) -> BlockBase:
    kind = part.get("part_kind")
    if kind == "text":
        return TextBlock(
            text=str(part.get("content", "")), provider_data={KEY: _part_kept(part, "content")}
        )
    if kind == "thinking":
        signature = part.get("signature")
        own = mediablocks_provider(part.get("provider_name")) or provider
        return ThinkingBlock(
            thinking=str(part.get("content", "")),
            signature=signature,
            provider=own if signature else None,
            provider_data={KEY: _part_kept(part, "content", "signature")},
        )
    if kind == "tool-call":
        return _tool_call(part)
    if kind == "file" and isinstance(part.get("content"), Mapping):
        return _item(part["content"], where).model_copy(
            update={"provider_data": {KEY: {"part": _part_kept(part, "content")}}}
        )
    return RawBlock(provider=KEY, data=_jsonable(part))


def _tool_call(part: dict[str, Any]) -> ToolCallBlock:
    import json

    kept = {KEY: _part_kept(part, "tool_name", "args", "tool_call_id")}
    args = part.get("args")
    call_id, name = str(part.get("tool_call_id", "")), str(part.get("tool_name", ""))
    if isinstance(args, Mapping):
        return ToolCallBlock(id=call_id, name=name, args=dict(args), provider_data=kept)
    if args is None or args == "":
        return ToolCallBlock(id=call_id, name=name, provider_data=kept)
    try:
        parsed = json.loads(args)
    except (ValueError, TypeError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        kept[KEY]["args"] = args  # the model's own text, given back as it was
        return ToolCallBlock(id=call_id, name=name, args=parsed, provider_data=kept)
    return ToolCallBlock(id=call_id, name=name, raw_args=str(args), provider_data=kept)
