"""Mistral decoding: `from_mistral` reads requests, message lists and chat completion responses
back into messages.

See ``translate`` for what maps to what; chunks mediablocks does not model decode to `RawBlock`.
"""

from __future__ import annotations

import secrets
from typing import Any

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import DecodeError
from ...media import AudioBlock, FileBlock, ImageBlock
from ...messages import (
    AssistantMessage,
    Message,
    Usage,
)
from .._chat_completions import chat_messages, image_url_block, tool_calls_of
from .._chat_envelope import ABSENT, envelope_notes, response_choices
from .._common import (
    as_dict,
    blocks_from_content,
    media_from_reference,
    pair_call,
    tool_args,
    tool_result_content,
    usage_count,
)
from .._payload import decode_payload, wire_object
from ..openai_chat.decode import message_fields
from ._wire import (
    _ID_ALPHABET,
    PROVIDER,
    _joined_thinking,
)


def _new_call_id() -> str:
    """A fresh Mistral-shaped id for a tool call that arrived without one."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(9))


def _text_from_mistral(chunk: dict[str, Any], where: str) -> TextBlock:
    text = chunk.get("text", "")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: text chunk has a {type(text).__name__}, not a string")
    return TextBlock(text=text)


def _thinking_from_mistral(chunk: dict[str, Any], where: str) -> ThinkingBlock:
    inner = chunk.get("thinking") or []
    if isinstance(inner, str):  # a bare string is read leniently
        inner = [{"type": "text", "text": inner}]
    if not isinstance(inner, list):
        raise DecodeError(f"{where}: thinking chunk holds a {type(inner).__name__}, not a list")
    inner = [as_dict(part) for part in inner]
    stored: dict[str, Any] = {}
    simple = (
        len(inner) == 1
        and isinstance(inner[0], dict)
        and inner[0] == {"type": "text", "text": inner[0].get("text")}
    )
    if not simple:
        stored["thinking"] = inner
    if chunk.get("closed") is not None:
        stored["closed"] = chunk["closed"]
    signature = chunk.get("signature")
    return ThinkingBlock(
        thinking=_joined_thinking(inner),
        signature=signature if isinstance(signature, str) else None,
        provider=PROVIDER,
        provider_data={PROVIDER: stored} if stored else {},
    )


def _image_from_mistral(chunk: dict[str, Any], where: str) -> ImageBlock:
    return image_url_block(chunk.get("image_url"), where, PROVIDER, "image_url chunk")


def _audio_from_mistral(chunk: dict[str, Any], where: str) -> AudioBlock:
    value = chunk.get("input_audio")
    mime: str | None = None
    if isinstance(value, dict):  # the older {"data": ..., "format": "mp3"} form
        audio_format = value.get("format")
        mime = f"audio/{audio_format}" if isinstance(audio_format, str) and audio_format else None
        value = value.get("data")
    if not isinstance(value, str):
        raise DecodeError(f"{where}: input_audio chunk has no audio string")
    return media_from_reference(AudioBlock, value, mime, None, where)


def _document_from_mistral(chunk: dict[str, Any], where: str) -> FileBlock:
    value = chunk.get("document_url")
    if not isinstance(value, str):
        raise DecodeError(f"{where}: document_url chunk has no URL string")
    name = chunk.get("document_name")
    block = media_from_reference(
        FileBlock, value, None, name if isinstance(name, str) else None, where
    )
    if not isinstance(name, str) and block.filename:
        # a name read from the URL, not sent: it does not go back as document_name
        block = block.model_copy(update={"provider_data": {PROVIDER: {"unnamed": True}}})
    return block


def _file_from_mistral(chunk: dict[str, Any], where: str) -> FileBlock:
    file_id = chunk.get("file_id")
    if not isinstance(file_id, str) or not file_id:
        raise DecodeError(f"{where}: file chunk has no file_id")
    return FileBlock.from_file_id(file_id, provider=PROVIDER)


def _tool_call_from_mistral(call: Any, where: str) -> ToolCallBlock:
    data = as_dict(call)
    function = as_dict(data.get("function")) if isinstance(data, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise DecodeError(f"{where}: tool call has no function name")
    arguments = function.get("arguments")
    args, raw_args = tool_args(arguments)
    call_id = data.get("id")
    if not isinstance(call_id, str) or call_id in ("", "null"):
        call_id = _new_call_id()
    extra = {k: v for k, v in data.items() if k not in ("id", "type", "function")}
    if "type" not in data:
        extra["type"] = ABSENT  # a reply's call without a type goes back without one
    return ToolCallBlock(
        id=call_id,
        name=function["name"],
        args=args,
        raw_args=raw_args,
        provider_data={PROVIDER: {"call": extra}} if extra else {},  # a reply's index...
    )


def _response_from_mistral(data: dict[str, Any]) -> list[Message]:
    choices = response_choices(data, "Mistral", empty_is_absent=False)
    usage = _usage_from_mistral(data.get("usage"))
    out: list[Message] = []
    for number, choice, message, where in choices:
        reason = choice.get("finish_reason")
        model = data.get("model")
        response_id = data.get("id")
        reply = _assistant_from_mistral(
            message,
            where,
            usage=usage if number == 0 else None,
            stop_reason=reason if isinstance(reason, str) else None,
            model=model if isinstance(model, str) else None,
            response_id=response_id if isinstance(response_id, str) else None,
        )
        kept = message_fields(message, _ASSISTANT_KEYS)
        if message.get("prefix") is False:
            kept["prefix"] = False  # written back as the reply had it
        if "content" not in message:
            kept["content"] = ABSENT
        elif message.get("content") == "" and message.get("tool_calls"):
            kept["content"] = ""  # empty text beside the calls, where null is the default
        kept_usage = data.get("usage") == {}
        if "role" not in message:
            kept["role"] = ABSENT
        if kept:
            notes = {**reply.metadata.get(PROVIDER, {}), "message_fields": kept}
            reply = reply.model_copy(update={"metadata": {**reply.metadata, PROVIDER: notes}})
        # created, usage details, a choice's extra fields...: as the response had them
        reply = envelope_notes(reply, data, choice, number, PROVIDER, {})
        if kept_usage and number == 0:  # an empty usage record goes back empty
            notes = {**reply.metadata.get(PROVIDER, {}), "usage": {}}
            reply = reply.model_copy(update={"metadata": {**reply.metadata, PROVIDER: notes}})
        out.append(reply)
    return out


_ASSISTANT_KEYS = frozenset({"role", "content", "tool_calls", "prefix"})


def _usage_from_mistral(value: Any) -> Usage | None:
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    prompt_details = as_dict(usage.get("prompt_tokens_details")) or {}
    completion_details = as_dict(usage.get("completion_tokens_details")) or {}
    return Usage(
        input_tokens=usage_count(usage.get("prompt_tokens")),
        output_tokens=usage_count(usage.get("completion_tokens")),
        cache_read_tokens=usage_count(prompt_details.get("cached_tokens")),
        reasoning_tokens=usage_count(completion_details.get("reasoning_tokens")),
        raw=usage,
    )


def _messages_from_mistral(items: Any) -> list[Message]:
    return chat_messages(
        items,
        "Mistral",
        assistant=_assistant_from_mistral,
        tool_result=_tool_result_from_mistral,
        content=_content_from_mistral,
    )


def _assistant_from_mistral(item: dict[str, Any], where: str, **fields: Any) -> AssistantMessage:
    blocks = _content_from_mistral(item.get("content"), where)
    blocks.extend(tool_calls_of(item, where, _tool_call_from_mistral))
    if item.get("prefix") is True:
        fields["metadata"] = {PROVIDER: {"prefix": True}}
    return AssistantMessage(content=blocks, provider=PROVIDER, **fields)


def _chunk_from_mistral(raw: Any, where: str) -> Block:
    chunk = wire_object(raw, where, "a chunk object")
    kind = chunk.get("type")
    if kind == "UNKNOWN" and chunk.get("is_unknown"):  # the SDK's wrapper for chunks it lacks
        inner = chunk.get("raw")
        return RawBlock(provider=PROVIDER, data=inner if isinstance(inner, dict) else chunk)
    if kind == "text" or (kind is None and "text" in chunk):
        return _text_from_mistral(chunk, where)
    if kind == "image_url":
        return _image_from_mistral(chunk, where)
    if kind == "input_audio":
        return _audio_from_mistral(chunk, where)
    if kind == "document_url":
        return _document_from_mistral(chunk, where)
    if kind == "file":
        return _file_from_mistral(chunk, where)
    if kind == "thinking":
        return _thinking_from_mistral(chunk, where)
    return RawBlock(provider=PROVIDER, data=chunk)


def _content_from_mistral(content: Any, where: str) -> list[Block]:
    return blocks_from_content(content, where, _chunk_from_mistral, "chunk")


def _tool_result_from_mistral(
    item: dict[str, Any], where: str, pending: list[tuple[str, str]]
) -> ToolResultBlock:
    name = item.get("name") if isinstance(item.get("name"), str) else None
    call_id = item.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        call_id = pair_call(pending, name) or _new_call_id()
    else:
        pending[:] = [entry for entry in pending if entry[0] != call_id]
    result = tool_result_content(
        item.get("content"),
        where,
        _chunk_from_mistral,
        "content",
        "chunk",
        plural="chunks",
        kept_for=PROVIDER,
    )
    return ToolResultBlock(tool_call_id=call_id, content=result, name=name)


def from_mistral(payload: Any) -> list[Message]:
    """Messages from a Mistral request body, a message list, or a chat completion response.

    The SDK's objects (``ChatCompletionResponse``, message models) are read like dicts.
    """
    return decode_payload(
        payload,
        "a Mistral payload",
        _messages_from_mistral,
        ("a response with 'choices'", lambda data: "choices" in data, _response_from_mistral),
    )
