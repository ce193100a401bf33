"""OpenAI Responses decoding: `from_openai_responses` reads requests, input item lists and
``Response`` objects back into messages.

See ``translate`` for what maps to what; items mediablocks does not model decode to `RawBlock`.
"""

from __future__ import annotations

from datetime import datetime, timezone
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
from ...media import FileBlock, ImageBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    Usage,
    UserMessage,
)
from .._common import (
    as_dict,
    media_from_reference,
    parse_args,
    tool_result_content,
    usage_count,
)
from .._payload import decode_payload, wire_object
from ..openai_chat.translate import FILE_STORE
from ._wire import (
    PROVIDER,
    _summary_text,
)

# Item types the client sends after the model's turn: decoded into a `ToolMessage` run.
_TOOL_SIDE = frozenset({"function_call_output", "mcp_approval_response"})
# Item types that set up a turn rather than answer one: decoded into a `UserMessage` run.
_USER_SIDE = frozenset({"additional_tools", "compaction_trigger"})

# The keys of each item and part that mediablocks models; every other key is kept in
# ``provider_data["openai-responses"]`` ("item" for item keys, "extra" for part keys) and sent back.
_ITEM_KEYS = {
    "message": frozenset({"type", "role", "content"}),
    "function_call": frozenset({"type", "call_id", "name", "arguments"}),
    "function_call_output": frozenset({"type", "call_id", "output"}),
    "reasoning": frozenset({"type", "summary", "encrypted_content"}),
}
_PART_KEYS = {
    "input_text": frozenset({"type", "text"}),
    "output_text": frozenset({"type", "text", "annotations"}),
    "refusal": frozenset({"type", "refusal"}),
    "input_image": frozenset({"type", "image_url", "file_id", "detail"}),
    "input_file": frozenset({"type", "file_data", "file_id", "file_url", "filename"}),
}

# Item fields the SDK's input types require even when null (image generation ``result``,
# code interpreter ``code`` and ``outputs``, an error's ``code`` and ``param``, keypress ``keys``).
_REQUIRED_NULLS = frozenset({"result", "code", "outputs", "param", "keys"})


def _reasoning_from_openai_responses(item: dict[str, Any], where: str) -> ThinkingBlock:
    summary = item.get("summary") or []
    if not isinstance(summary, list):
        raise DecodeError(f"{where}: reasoning summary is not a list")
    parts = [_json_safe(part) for part in summary]
    signature = item.get("encrypted_content")
    if signature is not None and not isinstance(signature, str):
        raise DecodeError(f"{where}: encrypted_content is not a string")
    text = _summary_text(parts)
    notes: dict[str, Any] = {"item": _unmodelled(item, _ITEM_KEYS["reasoning"])}
    content = notes["item"].get("content")
    if not parts and isinstance(content, list) and content:
        # Some servers (gpt-oss) return the reasoning text itself as ``content``, no summary.
        text = _summary_text(content)
        notes["text_from"] = "content"
    if len(parts) > 1 or any(set(part) != {"type", "text"} for part in parts):
        notes["summary"] = parts  # one plain summary part is rebuilt from ``thinking``
    return ThinkingBlock(
        thinking=text,
        signature=signature or None,
        provider=PROVIDER,
        provider_data={PROVIDER: notes},
    )


def _image_from_openai_responses(part: dict[str, Any], where: str) -> ImageBlock:
    url = part.get("image_url")
    file_id = part.get("file_id")
    if isinstance(url, str) and url:
        block = media_from_reference(ImageBlock, url, None, None, where)
    elif isinstance(file_id, str) and file_id:
        block = ImageBlock.from_file_id(file_id, provider=FILE_STORE)
    else:
        raise DecodeError(f"{where}: input_image has neither image_url nor file_id")
    detail = part.get("detail")
    marks: dict[str, Any] = {}
    update: dict[str, Any] = {}
    if detail in ("low", "high"):
        update["detail"] = detail
    elif isinstance(detail, str) and detail != "auto":
        marks["detail"] = detail  # a level newer than ImageBlock.detail knows ("original"...)
    update["provider_data"] = _stored(part, "input_image", **marks)
    return block.model_copy(update=update)


def _file_from_openai_responses(part: dict[str, Any], where: str) -> FileBlock:
    filename = part.get("filename") if isinstance(part.get("filename"), str) else None
    data, url, file_id = part.get("file_data"), part.get("file_url"), part.get("file_id")
    if isinstance(data, str) and data:
        block = media_from_reference(FileBlock, data, None, filename, where)
    elif isinstance(url, str) and url:
        block = media_from_reference(FileBlock, url, None, filename, where)
    elif isinstance(file_id, str) and file_id:
        block = FileBlock.from_file_id(file_id, provider=FILE_STORE, filename=filename)
    else:
        raise DecodeError(f"{where}: input_file has no file_data, file_url or file_id")
    return block.model_copy(update={"provider_data": _stored(part, "input_file")})


def _tool_call_from_openai_responses(item: dict[str, Any], where: str) -> ToolCallBlock:
    call_id, name = item.get("call_id"), item.get("name")
    if not isinstance(call_id, str) or not call_id:
        raise DecodeError(f"{where}: function_call has no call_id")
    if not isinstance(name, str):
        raise DecodeError(f"{where}: function_call has no name")
    arguments = item.get("arguments")
    if arguments is not None and not isinstance(arguments, str):
        raise DecodeError(f"{where}: function_call arguments are not JSON text")
    args, raw_args = parse_args(arguments)
    return ToolCallBlock(
        id=call_id,
        name=name,
        args=args,
        raw_args=raw_args,
        provider_data=_item_marks(item, "function_call"),
    )


def _tool_result_from_openai_responses(
    item: dict[str, Any], where: str, names: dict[str, str]
) -> ToolResultBlock:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        raise DecodeError(f"{where}: function_call_output has no call_id")
    content = tool_result_content(item.get("output"), where, _input_part, "output", "output part")
    name = item.get("name") if isinstance(item.get("name"), str) else names.get(call_id)
    return ToolResultBlock(
        tool_call_id=call_id,
        content=content,
        name=name,
        provider_data=_item_marks(item, "function_call_output"),
    )


def _verbatim(value: Any) -> Any:
    """A plain JSON copy of a response field, nulls kept (the response is written back whole,
    never replayed as input)."""
    value = as_dict(value)
    if isinstance(value, dict):
        return {str(key): _verbatim(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_verbatim(item) for item in value]
    return value


def _json_safe(value: Any) -> Any:
    """A plain copy of decoded data (SDK objects as dicts) without unset (null) fields.

    ``Response.model_dump()`` fills every optional field the API did not send with ``None``,
    and the API rejects many of those nulls when the items are sent back as input; so nulls are
    dropped, except in the few fields the API requires even when null (`_REQUIRED_NULLS`).
    """
    value = as_dict(value)
    if isinstance(value, dict):
        return {
            str(key): _json_safe(item)
            for key, item in value.items()
            if item is not None or key in _REQUIRED_NULLS
        }
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def _unmodelled(data: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The keys mediablocks does not model, without nulls (unset optional fields)."""
    return {
        key: _json_safe(value)
        for key, value in data.items()
        if key not in known and value is not None
    }


def _item_marks(item: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    extra = _unmodelled(item, _ITEM_KEYS[kind])
    return {PROVIDER: {"item": extra}} if extra else {}


def _stored(part: dict[str, Any], kind: str, **marks: Any) -> dict[str, dict[str, Any]]:
    """``provider_data`` for a decoded part: its unmodelled keys and our own marks."""
    data: dict[str, Any] = {key: value for key, value in marks.items() if value is not None}
    extra = _unmodelled(part, _PART_KEYS.get(kind, frozenset({"type"})))
    if extra:
        data["extra"] = extra
    return {PROVIDER: data} if data else {}


def _raw(data: dict[str, Any], **marks: Any) -> RawBlock:
    stored = {key: value for key, value in marks.items() if value is not None}
    plain = as_dict(data)
    nulls = [k for k, v in plain.items() if v is None and k not in _REQUIRED_NULLS]
    if nulls and isinstance(data, dict):  # a response's null fields, written back there
        stored["nulls"] = nulls
    return RawBlock(
        provider=PROVIDER, data=_json_safe(data), provider_data={PROVIDER: stored} if stored else {}
    )


def _text_of(part: dict[str, Any], key: str, where: str) -> str:
    text = part.get(key)
    if not isinstance(text, str):
        raise DecodeError(f"{where}: {part.get('type')} part has no {key} string")
    return text


def _input_part(raw: Any, where: str) -> Block:
    """A user, system or tool-output content part."""
    part = wire_object(raw, where, "a content part object")
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text"):
        return TextBlock(
            text=_text_of(part, "text", where), provider_data=_stored(part, "input_text")
        )
    if kind == "input_image":
        return _image_from_openai_responses(part, where)
    if kind == "input_file":
        return _file_from_openai_responses(part, where)
    return _raw(part, slot="part")  # input_audio from compatible servers, and newer kinds


def _output_content(content: Any, item: dict[str, Any], where: str) -> list[Block]:
    """The parts of an assistant message item, each carrying the item's id and status."""
    notes = _unmodelled(item, _ITEM_KEYS["message"])
    if isinstance(content, str):
        return [TextBlock(text=content, provider_data={PROVIDER: {"item": notes}} if notes else {})]
    if not isinstance(content, list):
        raise DecodeError(f"{where}: content is a {type(content).__name__}, not text or parts")
    if not content:  # nothing to hold the item's id: keep the whole item
        return [_raw(item)]
    blocks: list[Block] = []
    for number, raw in enumerate(content):
        place = f"{where}, part {number}"
        part = wire_object(raw, place, "a content part object")
        kind = part.get("type")
        marks: dict[str, Any] = {"item": notes} if notes else {}
        if kind in ("output_text", "input_text", "text"):
            annotations = part.get("annotations") or []
            if not isinstance(annotations, list):
                raise DecodeError(f"{place}: annotations is not a list")
            stored = _stored(part, "output_text", **marks)
            blocks.append(
                TextBlock(
                    text=_text_of(part, "text", place),
                    annotations=[_json_safe(note) for note in annotations],
                    provider_data=stored,
                )
            )
        elif kind == "refusal":
            stored = _stored(part, "refusal", refusal=True, **marks)
            blocks.append(TextBlock(text=_text_of(part, "refusal", place), provider_data=stored))
        else:
            blocks.append(_raw(part, slot="part", **marks))
    return blocks


def from_openai_responses(payload: Any) -> list[Message]:
    """Messages from a Responses request body, a list of input items, or a response.

    A request body's ``instructions`` becomes the first `SystemMessage` and ``input`` may be a
    string. A response (a dict or the SDK's ``Response``) gives one `AssistantMessage` holding
    every output item, with usage, stop reason, model and response id.
    """
    return decode_payload(
        payload,
        "an OpenAI Responses payload",
        _items_from_openai_responses,
        ("a response with 'output'", _is_response, _response_from_openai_responses),
        request=("a request with 'input'", _is_request, _request_from_openai_responses),
        item=("an input item", lambda data: "type" in data or "role" in data),
    )


def _is_request(data: dict[str, Any]) -> bool:
    return "input" in data or "instructions" in data


def _is_response(data: dict[str, Any]) -> bool:
    return data.get("object") == "response" or (
        isinstance(data.get("output"), list) and "type" not in data
    )


def _request_from_openai_responses(data: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    instructions = data.get("instructions")
    if isinstance(instructions, str):
        out.append(
            SystemMessage(
                content=[TextBlock(text=instructions)],
                metadata={PROVIDER: {"instructions": True}},
            )
        )
    elif instructions is not None:
        raise DecodeError("OpenAI Responses request: 'instructions' is not a string")
    items = data.get("input")
    if isinstance(items, str):  # goes back as a string
        out.append(
            UserMessage(content=[TextBlock(text=items)], metadata={PROVIDER: {"input": "string"}})
        )
    elif items is not None:
        out.extend(_items_from_openai_responses(items))
    return out


def _response_from_openai_responses(data: dict[str, Any]) -> AssistantMessage:
    output = data.get("output") or []
    if not isinstance(output, list):
        raise DecodeError("OpenAI Responses response: 'output' is not a list")
    blocks: list[Block] = []
    for number, raw in enumerate(output):
        where = f"OpenAI Responses output item {number}"
        item = wire_object(raw, where, "an item object")
        blocks.extend(_assistant_item(item, where))
    status = data.get("status") if isinstance(data.get("status"), str) else None
    details = as_dict(data.get("incomplete_details"))
    reason = details.get("reason") if isinstance(details, dict) else None
    # status, the request's echoed settings (tools, text, reasoning, store...), errors: as sent
    notes = {
        key: _verbatim(value)
        for key, value in data.items()
        if key not in _RESPONSE_KEYS and (value is not None or key in _ECHOED)
    }
    model, response_id = data.get("model"), data.get("id")
    created = data.get("created_at")
    when: dict[str, Any] = {}
    if isinstance(created, (int, float)) and not isinstance(created, bool) and created >= 0:
        when["timestamp"] = datetime.fromtimestamp(created, tz=timezone.utc)
        if isinstance(created, float):
            notes["created_at"] = created  # a fraction goes back as it came
    elif "created_at" not in data:
        notes["created_at"] = None
    raw_reason = reason if isinstance(reason, str) and reason else status or None
    refused = bool(blocks) and all(
        isinstance(b, TextBlock) and b.for_provider(PROVIDER).get("refusal") is True
        for b in blocks
        if not isinstance(b, ThinkingBlock)
    )
    return AssistantMessage(
        content=blocks,
        provider=PROVIDER,
        usage=_usage_from_openai_responses(data.get("usage")),
        # a reply that is only a refusal stopped because the model refused
        stop_reason="refusal" if refused and raw_reason == "completed" else raw_reason,
        provider_stop_reason=raw_reason if refused and raw_reason == "completed" else None,
        model=model if isinstance(model, str) and model else None,
        response_id=response_id if isinstance(response_id, str) and response_id else None,
        metadata={PROVIDER: notes} if notes else {},
        **when,
    )


_RESPONSE_KEYS = frozenset({"id", "object", "created_at", "model", "output", "usage"})
_ECHOED = frozenset(
    {
        "error",
        "incomplete_details",
        "instructions",
        "max_output_tokens",
        "previous_response_id",
        "reasoning",
        "user",
        "metadata",
        "max_tool_calls",
        "prompt_cache_key",
        "safety_identifier",
        "service_tier",
        "top_logprobs",
        "truncation",
        "background",
        "temperature",
        "top_p",
        "text",
        "prompt",
        "conversation",
        "usage",
    }
)
"""Response fields the API writes as ``null`` when unset: kept as sent, ``null`` included."""


def _usage_from_openai_responses(value: Any) -> Usage | None:
    """Token counts; ``input_tokens`` already includes the cached ones, as `Usage` defines it."""
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    inputs = as_dict(usage.get("input_tokens_details")) or {}
    outputs = as_dict(usage.get("output_tokens_details")) or {}
    return Usage(
        input_tokens=usage_count(usage.get("input_tokens")),
        output_tokens=usage_count(usage.get("output_tokens")),
        cache_read_tokens=usage_count(inputs.get("cached_tokens")),
        cache_write_tokens=usage_count(inputs.get("cache_write_tokens")),
        reasoning_tokens=usage_count(outputs.get("reasoning_tokens")),
        raw=usage,
    )


def _side(item: dict[str, Any]) -> str:
    """Which message an item belongs to: system, user, assistant or tool."""
    kind = item.get("type")
    role = item.get("role")
    if (kind == "message" or kind is None) and isinstance(role, str):
        if role in ("system", "developer"):
            return "system"
        if role in ("user", "assistant"):
            return role
        return "unknown-role"
    if kind in _TOOL_SIDE or (isinstance(kind, str) and kind.endswith("_output")):
        return "tool"
    if kind in _USER_SIDE:
        return "user"
    return "assistant"


def _items_from_openai_responses(items: Any) -> list[Message]:
    if not isinstance(items, list):
        raise DecodeError("OpenAI Responses 'input' is not a list of items")
    out: list[Message] = []
    names: dict[str, str] = {}  # tool name by call id, for the results' ``name``
    previous = ""  # the side of the item before, to group runs of items into one message
    for number, raw in enumerate(items):
        where = f"OpenAI Responses input item {number}"
        item = wire_object(raw, where, "an item object")
        side = _side(item)
        last = out[-1] if out else None
        if side == "assistant":
            blocks = _assistant_item(item, where)
            names.update({b.id: b.name for b in blocks if isinstance(b, ToolCallBlock)})
            if previous == "assistant" and isinstance(last, AssistantMessage):
                out[-1] = last.model_copy(update={"content": [*last.content, *blocks]})
            else:
                out.append(AssistantMessage(content=blocks, provider=PROVIDER))
        elif side == "tool":
            block: Block = (
                _tool_result_from_openai_responses(item, where, names)
                if item.get("type") == "function_call_output"
                else _raw(item)
            )
            if previous == "tool" and isinstance(last, ToolMessage):
                out[-1] = last.model_copy(update={"content": [*last.content, block]})
            else:
                out.append(ToolMessage(content=[block]))
        elif side in ("user", "system") and item.get("type", "message") != "message":
            # an item of a type mediablocks does not model, with or without a role
            # (additional_tools...): kept verbatim, in place
            if previous == "user-raw" and isinstance(last, UserMessage):
                out[-1] = last.model_copy(update={"content": [*last.content, _raw(item)]})
            else:
                out.append(UserMessage(content=[_raw(item)]))
            side = "user-raw"
        elif side == "user" and item.get("type") != "message" and "role" not in item:
            if previous == "user-raw" and isinstance(last, UserMessage):
                out[-1] = last.model_copy(update={"content": [*last.content, _raw(item)]})
            else:
                out.append(UserMessage(content=[_raw(item)]))
            side = "user-raw"
        elif side in ("user", "system"):
            out.append(_input_message(item, side, where))
        else:
            raise DecodeError(
                f"{where} has role {item.get('role')!r}, not system, developer, user or assistant"
            )
        previous = side
    return out


def _input_message(item: dict[str, Any], side: str, where: str) -> Message:
    content = item.get("content")
    if isinstance(content, str):
        blocks: list[Block] = [TextBlock(text=content)]
    elif isinstance(content, list):
        blocks = [
            _input_part(part, f"{where}, part {number}") for number, part in enumerate(content)
        ]
    else:
        raise DecodeError(f"{where}: content is a {type(content).__name__}, not text or parts")
    notes: dict[str, Any] = {}
    if item.get("role") == "developer":
        notes["role"] = "developer"
    form: dict[str, Any] = {}
    if "type" not in item:
        form["untyped"] = True
    if isinstance(content, str):
        form["content"] = "string"
    if form:  # the API reference's EasyInputMessage: no type, text as a string
        notes["form"] = form
    item_keys = _unmodelled(item, _ITEM_KEYS["message"])
    if item_keys:
        notes["item"] = item_keys  # an input item's id and status: kept, not sent back
    metadata = {PROVIDER: notes} if notes else {}
    if side == "system":
        return SystemMessage(content=blocks, metadata=metadata)
    return UserMessage(content=blocks, metadata=metadata)


def _assistant_item(item: dict[str, Any], where: str) -> list[Block]:
    kind = item.get("type")
    if kind == "message" or (kind is None and item.get("role") == "assistant"):
        if item.get("role", "assistant") != "assistant":
            raise DecodeError(f"{where}: an output message with role {item.get('role')!r}")
        return _output_content(item.get("content"), item, where)
    if kind == "reasoning":
        return [_reasoning_from_openai_responses(item, where)]
    if kind == "function_call":
        return [_tool_call_from_openai_responses(item, where)]
    return [_raw(item)]
