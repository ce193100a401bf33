"""Bedrock Converse decoding (`from_bedrock`); see ``translate`` for what maps to what."""

from __future__ import annotations

import json
from typing import Any

from ...blocks import (
    Block,
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...datauri import b64decode, b64encode
from ...errors import DecodeError, MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
)
from .._common import (
    as_dict,
    strict_b64decode,
    tool_args,
    usage_count,
    user_turns,
)
from .._payload import decode_payload, has_messages, wire_object
from ._wire import (
    _DOCUMENT_EXTENSIONS,
    _DOCUMENT_KEYS,
    _FORMAT_MIMES,
    _M,
    _MEDIA_CLASSES,
    _MEDIA_KEYS,
    _TOOL_RESULT_KEYS,
    _TOOL_USE_KEYS,
    BYTES_MARKER,
    PROVIDER,
    _Media,
)

# -- decode -----------------------------------------------------------------------------------


def from_bedrock(payload: Any) -> list[Message]:
    """Messages from a Converse request body, a message list, or a Converse response.

    Bytes may be raw (boto3) or base64 text (the HTTP API's JSON). Tool results, which Bedrock
    carries in user turns, become `ToolMessage`s, each result named after the call it answers.
    """
    return decode_payload(
        payload,
        "a Bedrock Converse payload",
        _messages_from_bedrock,
        ("a response with 'output'", lambda data: "output" in data, _response_from_bedrock),
        request=(
            "a request with 'messages'",
            has_messages,
            _request_from_bedrock,
        ),
    )


def _request_from_bedrock(data: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    if data.get("system"):
        out.append(_system_from_bedrock(data["system"]))
    out.extend(_messages_from_bedrock(data["messages"]))
    return out


def _response_from_bedrock(data: dict[str, Any]) -> AssistantMessage:
    output = as_dict(data.get("output"))
    message = as_dict(output.get("message")) if isinstance(output, dict) else None
    if not isinstance(message, dict):
        raise DecodeError("Bedrock response: 'output' holds no 'message'")
    decoded = _assistant_from_bedrock(message.get("content"), "Bedrock response", {})
    reason = data.get("stopReason")
    request_id = (data.get("ResponseMetadata") or {}).get("RequestId")
    notes = {
        key: _json_safe(data[key])
        for key in ("metrics", "additionalModelResponseFields", "trace", "serviceTier")
        if data.get(key) is not None
    }
    return decoded.model_copy(
        update={
            "usage": _usage_from_bedrock(data.get("usage")),
            "stop_reason": reason if isinstance(reason, str) and reason else None,
            "response_id": request_id if isinstance(request_id, str) else None,
            "metadata": {PROVIDER: notes} if notes else {},
        }
    )


def _usage_from_bedrock(value: Any) -> Usage | None:
    """Token counts; ``input_tokens`` includes cache reads and writes, as `Usage` defines it."""
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    read = usage_count(usage.get("cacheReadInputTokens"))
    write = usage_count(usage.get("cacheWriteInputTokens"))
    return Usage(
        input_tokens=usage_count(usage.get("inputTokens")) + read + write,
        output_tokens=usage_count(usage.get("outputTokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
        raw=usage,
    )


def _system_from_bedrock(value: Any) -> SystemMessage:
    if isinstance(value, str):  # lenient: a bare string
        return SystemMessage(content=[TextBlock(text=value)])
    if not isinstance(value, list):
        raise DecodeError("Bedrock 'system' is not a list of blocks")
    blocks: list[Block] = []
    for number, raw in enumerate(value):
        where = f"Bedrock system block {number}"
        key, body = _union(raw, where)
        if key == "text" and isinstance(body, str):
            blocks.append(TextBlock(text=body))
        else:
            blocks.append(RawBlock(provider=PROVIDER, data=_raw_data(key, body)))
    return SystemMessage(content=blocks)


def _messages_from_bedrock(items: Any) -> list[Message]:
    if not isinstance(items, list):
        raise DecodeError("Bedrock 'messages' is not a list")
    out: list[Message] = []
    names: dict[str, str] = {}
    for position, raw in enumerate(items):
        where = f"Bedrock message {position}"
        item = wire_object(raw, where, "a message object")
        role = item.get("role")
        if role == "assistant":
            message = _assistant_from_bedrock(item.get("content"), where, names)
            names.update({call.id: call.name for call in message.tool_calls})
            out.append(message)
        elif role == "user":
            out.extend(_user_from_bedrock(item.get("content"), where, names))
        else:
            raise DecodeError(f"{where} has role {role!r}, not user or assistant")
    return out


def _assistant_from_bedrock(content: Any, where: str, names: dict[str, str]) -> AssistantMessage:
    return AssistantMessage(content=_blocks_from_bedrock(content, where, names), provider=PROVIDER)


def _user_from_bedrock(content: Any, where: str, names: dict[str, str]) -> list[Message]:
    """Runs of tool results become `ToolMessage`s, other runs `UserMessage`s, in order."""
    return user_turns(_blocks_from_bedrock(content, where, names))


def _blocks_from_bedrock(content: Any, where: str, names: dict[str, str]) -> list[Block]:
    if content is None:
        return []
    if not isinstance(content, list):
        raise DecodeError(f"{where}: content is a {type(content).__name__}, not a list of blocks")
    return [
        _block_from_bedrock(raw, f"{where}, block {number}", names)
        for number, raw in enumerate(content)
    ]


def _union(raw: Any, where: str) -> tuple[str, Any]:
    """The one member a Bedrock union block sets: ``{"image": {...}}`` -> ``("image", {...})``."""
    part = wire_object(raw, where, "a content block object")
    present = [key for key, value in part.items() if value is not None]
    if len(present) != 1:
        raise DecodeError(
            f"{where} sets {len(present)} members ({', '.join(present) or 'none'}); a Bedrock "
            "content block sets exactly one"
        )
    return present[0], part[present[0]]


def _block_from_bedrock(raw: Any, where: str, names: dict[str, str]) -> Block:
    key, body = _union(raw, where)
    if key == "text" and isinstance(body, str):
        return TextBlock(text=body)
    if key in ("image", "document", "video", "audio") and isinstance(body, dict):
        return _media_from_bedrock(key, body, where)
    if key == "toolUse" and isinstance(body, dict):
        return _tool_call_from_bedrock(body, where)
    if key == "toolResult" and isinstance(body, dict):
        return _tool_result_from_bedrock(body, where, names)
    if key == "reasoningContent" and isinstance(body, dict):
        thinking = _thinking_from_bedrock(body, where)
        if thinking is not None:
            return thinking
    return RawBlock(provider=PROVIDER, data=_raw_data(key, body))


def _raw_data(key: str, body: Any) -> dict[str, Any]:
    """A block kept verbatim, JSON-safe: bytes (and the known base64 blob of a guardContent
    image in a JSON payload) are stored under `BYTES_MARKER`."""
    if key == "guardContent" and isinstance(body, dict):
        body = _guard_image_bytes(body)
    safe = _json_safe({key: body})
    assert isinstance(safe, dict)
    return safe


def _guard_image_bytes(body: dict[str, Any]) -> dict[str, Any]:
    """A guardContent image whose bytes came as base64 text (JSON) with the bytes decoded."""
    image = body.get("image")
    if not isinstance(image, dict):
        return body
    source = image.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("bytes"), str):
        return body
    data = b64decode(source["bytes"], what="Bedrock guardContent image bytes")
    return {**body, "image": {**image, "source": {**source, "bytes": data}}}


def _json_safe(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {BYTES_MARKER: b64encode(value)}
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


def _thinking_from_bedrock(body: dict[str, Any], where: str) -> ThinkingBlock | None:
    text_part = body.get("reasoningText")
    redacted = body.get("redactedContent")
    if isinstance(text_part, dict):
        text = text_part.get("text")
        signature = text_part.get("signature")
        if not isinstance(text, str):
            raise DecodeError(f"{where}: reasoningText has no text string")
        return ThinkingBlock(
            thinking=text,
            signature=signature if isinstance(signature, str) and signature else None,
            provider=PROVIDER,
        )
    if isinstance(redacted, (bytes, bytearray)):
        return ThinkingBlock(redacted=True, redacted_data=b64encode(redacted), provider=PROVIDER)
    if isinstance(redacted, str):
        strict_b64decode(redacted, f"{where}: redactedContent")  # checked, kept as sent
        return ThinkingBlock(redacted=True, redacted_data=redacted, provider=PROVIDER)
    if redacted is not None:
        raise DecodeError(f"{where}: redactedContent is neither bytes nor base64 text")
    return None


def _media_from_bedrock(kind: str, body: dict[str, Any], where: str) -> Block:
    source = as_dict(body.get("source"))
    fmt = body.get("format")
    if not isinstance(source, dict):
        raise DecodeError(f"{where}: {kind} block has no source object")
    mime = _FORMAT_MIMES[kind].get(fmt) if isinstance(fmt, str) else None
    if isinstance(fmt, str) and mime is None:
        return RawBlock(provider=PROVIDER, data=_raw_data(kind, body))  # a format newer than us
    cls = _MEDIA_CLASSES[kind]
    filename = _document_filename(body, fmt) if kind == "document" else None
    stored: dict[str, Any] = {
        key: _json_safe(value)
        for key, value in body.items()
        if key not in (_DOCUMENT_KEYS if kind == "document" else _MEDIA_KEYS)
    }
    block: _Media
    try:
        if "bytes" in source and source["bytes"] is not None:
            block = _from_blob(cls, source["bytes"], mime, filename, where)
        elif isinstance(source.get("s3Location"), dict):
            location = source["s3Location"]
            uri = location.get("uri")
            if not isinstance(uri, str):
                raise DecodeError(f"{where}: s3Location has no uri")
            block = cls.from_file_id(uri, mime, provider=PROVIDER, filename=filename)
            if isinstance(location.get("bucketOwner"), str):
                stored["bucketOwner"] = location["bucketOwner"]
        elif kind == "document" and isinstance(source.get("text"), str):
            block = cls.from_bytes(
                source["text"].encode("utf-8"), mime or "text/plain", filename=filename
            )
            stored["text_source"] = True
        else:  # a "content" document source, or a source kind newer than us
            return RawBlock(provider=PROVIDER, data=_raw_data(kind, body))
    except DecodeError:
        raise
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc
    if stored:
        block = block.model_copy(update={"provider_data": {PROVIDER: stored}})
    return block


def _from_blob(cls: type[_M], data: Any, mime: str | None, filename: str | None, where: str) -> _M:
    """A block from raw bytes (boto3) or base64 text (JSON), the format's type checked."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return cls.from_bytes(data, mime, filename=filename)
    if isinstance(data, str):
        raw = b64decode(data, what=f"{where}: source bytes")
        return cls.from_bytes(raw, mime, filename=filename)
    raise DecodeError(f"{where}: source bytes are a {type(data).__name__}, not bytes or base64")


def _document_filename(body: dict[str, Any], fmt: Any) -> str | None:
    """``name`` plus the format's extension: ``{"name": "report", "format": "pdf"}`` ->
    ``report.pdf``."""
    name = body.get("name")
    if not isinstance(name, str) or not name:
        return None
    extension = _DOCUMENT_EXTENSIONS.get(fmt) if isinstance(fmt, str) else None
    return f"{name}.{extension}" if extension else name


def _tool_call_from_bedrock(body: dict[str, Any], where: str) -> ToolCallBlock:
    call_id = body.get("toolUseId")
    name = body.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise DecodeError(f"{where}: toolUse needs a toolUseId and a name")
    args, raw_args = tool_args(body.get("input"))
    extras = {key: _json_safe(v) for key, v in body.items() if key not in _TOOL_USE_KEYS}
    return ToolCallBlock(
        id=call_id,
        name=name,
        args=args,
        raw_args=raw_args,
        provider_data={PROVIDER: extras} if extras else {},
    )


def _tool_result_from_bedrock(
    body: dict[str, Any], where: str, names: dict[str, str]
) -> ToolResultBlock:
    call_id = body.get("toolUseId")
    if not isinstance(call_id, str):
        raise DecodeError(f"{where}: toolResult has no toolUseId")
    raw = body.get("content") or []
    if not isinstance(raw, list):
        raise DecodeError(f"{where}: toolResult content is not a list")
    blocks: list[ContentBlock] = []
    for number, item in enumerate(raw):
        inner = f"{where}, result content {number}"
        key, value = _union(item, inner)
        if key == "json":
            text = json.dumps(value, ensure_ascii=False)
            blocks.append(TextBlock(text=text, provider_data={PROVIDER: {"json": True}}))
            continue
        block = _block_from_bedrock(item, inner, names)
        if not isinstance(block, (TextBlock, ImageBlock, AudioBlock, VideoBlock, FileBlock)):
            block = RawBlock(provider=PROVIDER, data=_raw_data(key, value))
        blocks.append(block)
    content: str | list[ContentBlock] = blocks
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not blocks[0].provider_data:
        content = blocks[0].text
    elif not blocks:
        content = ""
    extras = {key: _json_safe(v) for key, v in body.items() if key not in _TOOL_RESULT_KEYS}
    return ToolResultBlock(
        tool_call_id=call_id,
        content=content,
        is_error=body.get("status") == "error",
        name=names.get(call_id),
        provider_data={PROVIDER: extras} if extras else {},
    )
