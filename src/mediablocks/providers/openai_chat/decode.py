"""OpenAI Chat decoding: `from_openai_chat` reads requests, message lists and ``ChatCompletion``s
back into messages.

See ``translate`` for what maps to what; parts mediablocks does not model decode to `RawBlock`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...datauri import b64decode
from ...errors import DecodeError, MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
    UserMessage,
)
from ...mime import detect_mime
from .._chat_completions import IMAGE_DETAILS, chat_messages, tool_calls_of
from .._chat_envelope import envelope_notes, response_choices
from .._common import (
    as_dict,
    blocks_from_content,
    media_from_reference,
    tool_args,
    tool_result_content,
    usage_count,
)
from .._payload import decode_payload, wire_object
from ._wire import (
    FILE_STORE,
    PROVIDER,
)

_FORMAT_MIMES = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_REASONING_FIELDS = ("reasoning_content", "reasoning")

# The keys of each part type that mediablocks models; any other key (``prompt_cache_breakpoint``
# and whatever OpenAI adds next) is kept in ``provider_data["openai-chat"]["extra"]`` and sent back.
_KNOWN_KEYS = {
    "text": frozenset({"type", "text"}),
    "image_url": frozenset({"type", "image_url"}),
    "input_audio": frozenset({"type", "input_audio"}),
    "video_url": frozenset({"type", "video_url"}),
    "file": frozenset({"type", "file"}),
    "refusal": frozenset({"type", "refusal"}),
}


def _stored(part: dict[str, Any], kind: str, **marks: Any) -> dict[str, dict[str, Any]]:
    """``provider_data`` for a decoded part: its unmodelled keys and our own marks."""
    known = _KNOWN_KEYS.get(kind, frozenset({"type"}))
    data: dict[str, Any] = {key: value for key, value in marks.items() if value is not None}
    extra = {key: value for key, value in part.items() if key not in known}
    if extra:
        data["extra"] = extra
    return {PROVIDER: data} if data else {}


def _text_from_openai_chat(part: dict[str, Any], where: str) -> TextBlock:
    text = part.get("text")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: text part has no text string")
    return TextBlock(text=text, provider_data=_stored(part, "text"))


def _refusal_from_openai_chat(part: dict[str, Any], where: str) -> TextBlock:
    text = part.get("refusal")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: refusal part has no refusal string")
    return TextBlock(text=text, provider_data=_stored(part, "refusal", refusal="part"))


def _thinking_from_openai_chat(text: str, field: str) -> ThinkingBlock:
    """The ``reasoning_content`` (or ``reasoning``) text OpenAI-compatible servers return."""
    return ThinkingBlock(
        thinking=text, provider=PROVIDER, provider_data={PROVIDER: {"reasoning_field": field}}
    )


def _image_from_openai_chat(part: dict[str, Any], where: str) -> ImageBlock:
    value = as_dict(part.get("image_url"))
    detail: Any = None
    if isinstance(value, dict):
        detail = value.get("detail")
        value = value.get("url")
    if not isinstance(value, str) or not value:
        raise DecodeError(f"{where}: image_url part has no URL string")
    block = media_from_reference(ImageBlock, value, None, None, where)
    marks: dict[str, Any] = {}
    if isinstance(detail, str) and detail not in IMAGE_DETAILS:
        marks["detail"] = detail  # a level newer than ImageBlock.detail knows ("original"...)
    update: dict[str, Any] = {"provider_data": _stored(part, "image_url", **marks)}
    if detail in IMAGE_DETAILS:
        update["detail"] = detail
    return block.model_copy(update=update)


def _audio_from_openai_chat(part: dict[str, Any], where: str) -> AudioBlock:
    value = as_dict(part.get("input_audio"))
    if not isinstance(value, dict) or not isinstance(value.get("data"), str):
        raise DecodeError(f"{where}: input_audio part has no base64 data")
    audio_format = value.get("format")
    mime = None
    if isinstance(audio_format, str) and audio_format:
        mime = _FORMAT_MIMES.get(audio_format.lower(), f"audio/{audio_format.lower()}")
    block = media_from_reference(AudioBlock, value["data"], mime, None, where)
    return block.model_copy(update={"provider_data": _stored(part, "input_audio")})


def _video_from_openai_chat(part: dict[str, Any], where: str) -> VideoBlock:
    """A ``video_url`` part (vLLM, OpenRouter and other OpenAI-compatible servers)."""
    value = as_dict(part.get("video_url"))
    if isinstance(value, dict):
        value = value.get("url")
    if not isinstance(value, str) or not value:
        raise DecodeError(f"{where}: video_url part has no URL string")
    block = media_from_reference(VideoBlock, value, None, None, where)
    return block.model_copy(update={"provider_data": _stored(part, "video_url")})


def _assistant_audio_from_openai_chat(value: dict[str, Any], where: str) -> AudioBlock:
    """A response's ``audio`` (bytes, transcript, expiry) or a request's ``{"id": ...}``."""
    audio_id = value.get("id")
    if not isinstance(audio_id, str) or not audio_id:
        raise DecodeError(f"{where}: audio has no id")
    marks = {key: value[key] for key in ("id", "expires_at", "transcript") if key in value}
    data = value.get("data")
    if not isinstance(data, str) or not data:
        block = AudioBlock.from_file_id(audio_id, provider=PROVIDER)
    else:
        raw = _b64(data, where)
        # pcm16 replies have no header to detect: say what they are.
        mime = None if detect_mime(raw) else "audio/pcm"
        try:
            block = AudioBlock.from_bytes(raw, mime)
        except MediaBlocksError as exc:
            raise DecodeError(f"{where}: {exc}") from exc
    return block.model_copy(update={"provider_data": {PROVIDER: {"audio": marks}}})


def _file_from_openai_chat(part: dict[str, Any], where: str) -> FileBlock:
    value = as_dict(part.get("file"))
    if not isinstance(value, dict):
        raise DecodeError(f"{where}: file part has no 'file' object")
    filename = value.get("filename") if isinstance(value.get("filename"), str) else None
    file_id = value.get("file_id")
    file_data = value.get("file_data")
    if isinstance(file_data, str) and file_data:
        block = media_from_reference(FileBlock, file_data, None, filename, where)
    elif isinstance(file_id, str) and file_id:
        block = FileBlock.from_file_id(file_id, provider=FILE_STORE, filename=filename)
    else:
        raise DecodeError(f"{where}: file part has neither file_data nor file_id")
    return block.model_copy(update={"provider_data": _stored(part, "file")})


def _b64(data: str, where: str) -> bytes:
    return b64decode(data, what=f"{where}: base64 data")


def _raw(data: Any, slot: str | None = None) -> RawBlock:
    marks = {PROVIDER: {"slot": slot}} if slot else {}
    return RawBlock(provider=PROVIDER, data=_json_safe(data), provider_data=marks)


def _tool_call_from_openai_chat(raw: Any, where: str) -> Block:
    call = wire_object(raw, where, "a tool call object")
    kind = call.get("type", "function")
    if kind != "function":
        return _raw(call, "tool_calls")  # custom tool calls and newer kinds
    function = as_dict(call.get("function"))
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise DecodeError(f"{where}: tool call has no function name")
    arguments = function.get("arguments")
    args, raw_args = tool_args(arguments)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        call_id = "call_" + uuid.uuid4().hex[:24]
    # fields beside id/type/function (the thought signature Gemini's OpenAI-compatible endpoint
    # puts in extra_content.google, a streamed call's index...): sent back to that endpoint
    stored: dict[str, Any] = {}
    call_extra = {k: _json_safe(v) for k, v in call.items() if k not in ("id", "type", "function")}
    function_extra = {k: _json_safe(v) for k, v in function.items() if k not in _CALL_KEYS}
    if call_extra:
        stored["call"] = call_extra
    if function_extra:
        stored["function"] = function_extra
    return ToolCallBlock(
        id=call_id,
        name=function["name"],
        args=args,
        raw_args=raw_args,
        provider_data={PROVIDER: stored} if stored else {},
    )


_CALL_KEYS = frozenset({"name", "arguments"})


def _json_safe(value: Any) -> Any:
    """A plain JSON-safe copy of SDK objects nested in a verbatim part."""
    value = as_dict(value)
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def from_openai_chat(payload: Any) -> list[Message]:
    """Messages from a Chat Completions request body, a message list, or a response.

    The SDK's objects (``ChatCompletion``, ``ChatCompletionMessage``) are read like dicts. A
    response gives one `AssistantMessage` per choice (usually one), the usage on the first.
    """
    return decode_payload(
        payload,
        "an OpenAI Chat payload",
        _messages_from_openai_chat,
        ("a response with 'choices'", lambda data: "choices" in data, _response_from_openai_chat),
    )


def _response_from_openai_chat(data: dict[str, Any]) -> list[Message]:
    choices = response_choices(data, "OpenAI Chat", empty_is_absent=True)
    usage = _usage_from_openai_chat(data.get("usage"))
    model = data.get("model") if isinstance(data.get("model"), str) else None
    response_id = data.get("id") if isinstance(data.get("id"), str) else None
    out: list[Message] = []
    for number, choice, message, where in choices:
        reason = choice.get("finish_reason")
        reason = reason if isinstance(reason, str) else None
        refusal = message.get("refusal")
        refused = isinstance(refusal, str) and bool(refusal) and reason == "stop"
        reply = _assistant_from_openai_chat(
            message,
            where,
            usage=usage if number == 0 else None,
            # a reply holding a refusal stopped because the model refused
            stop_reason="refusal" if refused else reason,
            provider_stop_reason=reason if refused else None,
            model=model or None,
            response_id=response_id or None,
        )
        # system_fingerprint, service_tier, a choice's logprobs...: as the response had them
        out.append(envelope_notes(reply, data, choice, number, PROVIDER, DEFAULT_CHOICE))
    return out


DEFAULT_CHOICE = {"logprobs": None}
"""What a Chat Completions choice holds besides its message, by default."""


def _usage_from_openai_chat(value: Any) -> Usage | None:
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    prompt = as_dict(usage.get("prompt_tokens_details")) or {}
    completion = as_dict(usage.get("completion_tokens_details")) or {}
    return Usage(
        input_tokens=usage_count(usage.get("prompt_tokens")),
        output_tokens=usage_count(usage.get("completion_tokens")),
        # DeepSeek counts cache hits in its own field, prompt_cache_hit_tokens (part of
        # prompt_tokens): https://api-docs.deepseek.com/guides/kv_cache
        cache_read_tokens=usage_count(
            prompt.get("cached_tokens", usage.get("prompt_cache_hit_tokens"))
        ),
        # OpenRouter (and OpenAI-compatible gateways) count cache writes beside the reads
        cache_write_tokens=usage_count(prompt.get("cache_write_tokens")),
        reasoning_tokens=usage_count(completion.get("reasoning_tokens")),
        raw=usage,
    )


def _messages_from_openai_chat(items: Any) -> list[Message]:
    names: dict[str, str] = {}  # tool name by call id, for the results' ``name``

    def assistant(item: dict[str, Any], where: str) -> AssistantMessage:
        reply = _assistant_from_openai_chat(item, where)
        names.update({call.id: call.name for call in reply.tool_calls})
        return reply

    def tool_result(item: dict[str, Any], where: str, pending: list[tuple[str, str]]) -> Block:
        if item.get("role") == "function":
            return _raw(item, "message")  # a legacy function result, kept verbatim
        return _tool_result_from_openai_chat(item, where, names)

    return chat_messages(
        items,
        "OpenAI Chat",
        assistant=assistant,
        tool_result=tool_result,
        others=_ROLES,
        tool_roles=("tool", "function"),
        roles="system, developer, user, assistant or tool",
    )


def _system_from_openai_chat(item: dict[str, Any], where: str) -> SystemMessage:
    """A ``system`` or ``developer`` message (the role noted, to go back as it came)."""
    content = _content_from_openai_chat(item.get("content"), where)
    notes: dict[str, Any] = {"role": "developer"} if item.get("role") == "developer" else {}
    kept = message_fields(item, frozenset({"role", "content"}))
    if kept:
        notes["message_fields"] = kept  # a system message's name...
    return SystemMessage(content=content, metadata={PROVIDER: notes} if notes else {})


def _user_from_openai_chat(item: dict[str, Any], where: str) -> UserMessage:
    name = item.get("name") if isinstance(item.get("name"), str) else None
    content = _content_from_openai_chat(item.get("content"), where)
    kept = message_fields(item, frozenset({"role", "content", "name"}))
    metadata = {PROVIDER: {"message_fields": kept}} if kept else {}
    return UserMessage(content=content, name=name, metadata=metadata)


_ROLES: dict[str, Callable[[dict[str, Any], str], Message]] = {
    "system": _system_from_openai_chat,
    "developer": _system_from_openai_chat,
    "user": _user_from_openai_chat,
}


_ASSISTANT_KEYS = frozenset({"role", "content", "tool_calls", "refusal", "audio", "function_call"})
_ASSISTANT_KEYS |= frozenset(_REASONING_FIELDS) | {"annotations"}


def message_fields(item: dict[str, Any], modelled: frozenset[str]) -> dict[str, Any]:
    """A message's fields mediablocks does not model, and those whose value it would not write
    back alike (a ``null`` refusal, an empty ``tool_calls``): kept in the message's metadata and
    sent back to the same provider as they came."""
    return {
        key: _json_safe(value)
        for key, value in item.items()
        if key not in modelled or (key != "content" and value in (None, [], ""))
    }


def _assistant_from_openai_chat(
    item: dict[str, Any], where: str, **fields: Any
) -> AssistantMessage:
    kept = message_fields(item, _ASSISTANT_KEYS)
    if item.get("content") == "" and item.get("tool_calls"):
        kept["content"] = ""  # empty text beside the calls, where null is written by default
    blocks: list[Block] = []
    for field in _REASONING_FIELDS:
        reasoning = item.get(field)
        if isinstance(reasoning, str) and reasoning:
            blocks.append(_thinking_from_openai_chat(reasoning, field))
            break
    content = _content_from_openai_chat(item.get("content"), where)
    annotations = item.get("annotations")
    if annotations and len(content) == 1 and isinstance(content[0], TextBlock):
        # Message-level citations index into the content text: kept with that text.
        text = content[0]
        stored = {**text.for_provider(PROVIDER), "annotations": _json_safe(annotations)}
        content = [text.model_copy(update={"provider_data": {PROVIDER: stored}})]
    blocks.extend(content)
    refusal = item.get("refusal")
    if isinstance(refusal, str) and refusal:
        blocks.append(TextBlock(text=refusal, provider_data={PROVIDER: {"refusal": "field"}}))
    audio = as_dict(item.get("audio"))
    if isinstance(audio, dict):
        blocks.append(_assistant_audio_from_openai_chat(audio, f"{where}, audio"))
    blocks.extend(tool_calls_of(item, where, _tool_call_from_openai_chat))
    function_call = item.get("function_call")
    if function_call:  # the deprecated single call, kept verbatim
        blocks.append(_raw(function_call, "function_call"))
    if isinstance(item.get("annotations"), list) and not any(
        isinstance(b, TextBlock) and "annotations" in b.for_provider(PROVIDER) for b in blocks
    ):
        kept["annotations"] = _json_safe(item["annotations"])  # not kept with a text
    notes = {PROVIDER: {"message_fields": kept}} if kept else {}
    return AssistantMessage(content=blocks, provider=PROVIDER, metadata=notes, **fields)


def _part_from_openai_chat(raw: Any, where: str) -> Block:
    part = wire_object(raw, where, "a content part object")
    kind = part.get("type")
    if kind == "text":
        return _text_from_openai_chat(part, where)
    if kind == "image_url":
        return _image_from_openai_chat(part, where)
    if kind == "input_audio":
        return _audio_from_openai_chat(part, where)
    if kind == "video_url":
        return _video_from_openai_chat(part, where)
    if kind == "file":
        return _file_from_openai_chat(part, where)
    if kind == "refusal":
        return _refusal_from_openai_chat(part, where)
    return _raw(part)


def _content_from_openai_chat(content: Any, where: str) -> list[Block]:
    return blocks_from_content(content, where, _part_from_openai_chat, "part")


def _tool_result_from_openai_chat(
    item: dict[str, Any], where: str, names: dict[str, str]
) -> ToolResultBlock:
    call_id = item.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise DecodeError(f"{where}: tool message has no tool_call_id")
    result = tool_result_content(
        item.get("content"), where, _part_from_openai_chat, "content", "part"
    )
    return ToolResultBlock(tool_call_id=call_id, content=result, name=names.get(call_id))
