"""Anthropic decoding: `from_anthropic` reads requests, message lists and ``Message`` responses back
into messages.

See ``translate`` for what maps to what; blocks mediablocks does not model decode to `RawBlock`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ...blocks import (
    Block,
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    text_block,
)
from ...errors import DecodeError, MediaBlocksError
from ...media import FileBlock, ImageBlock, MediaBlock, sanitize_filename
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
    built_message,
)
from .._common import (
    dumped,
    tool_args,
    usage_count,
    user_turns,
)
from .._payload import decode_payload, has_messages, wire_object
from ._wire import (
    _PDF,
    _PLAIN_TEXT,
    _UNTITLED,
    PROVIDER,
)

_M = TypeVar("_M", bound=MediaBlock)

# The keys of each block type that mediablocks models; every other key is kept verbatim in
# ``provider_data["anthropic"]`` and sent back out with the block.
_TEXT_KEYS = frozenset({"type", "text", "citations"})
_PLAIN_TEXT_KEYS = frozenset({"type", "text"})
_IMAGE_KEYS = frozenset({"type", "source"})
_DOCUMENT_KEYS = frozenset({"type", "source", "title"})
_THINKING_KEYS = frozenset({"type", "thinking", "signature"})
_REDACTED_KEYS = frozenset({"type", "data"})
_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})
_TOOL_RESULT_KEYS = frozenset({"type", "tool_use_id", "content", "is_error"})
_MESSAGE_OBJECT = "a message object"
_BLOCK_OBJECT = "a content block object"


def _text_from_anthropic(part: dict[str, Any], where: str) -> TextBlock:
    text = part.get("text")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: text block has no text string")
    citations = part.get("citations") or []
    if citations and (
        not isinstance(citations, list) or not all(isinstance(c, dict) for c in citations)
    ):
        raise DecodeError(f"{where}: text block citations are not a list of objects")
    return text_block(text, citations, _stored(part, _TEXT_KEYS))


def _stored(part: dict[str, Any], known: frozenset[str]) -> dict[str, dict[str, Any]]:
    """``provider_data`` holding the part's unmodelled fields (empty when there are none)."""
    if part.keys() <= known:
        return {}
    extras = {key: value for key, value in part.items() if key not in known}
    return {PROVIDER: extras} if extras else {}


def _thinking_from_anthropic(part: dict[str, Any], where: str) -> ThinkingBlock:
    thinking = part.get("thinking")
    signature = part.get("signature")
    if not isinstance(thinking, str):
        raise DecodeError(f"{where}: thinking block has no thinking string")
    if signature is not None and not isinstance(signature, str):
        raise DecodeError(f"{where}: thinking signature is not a string")
    return ThinkingBlock(
        thinking=thinking,
        signature=signature or None,
        provider=PROVIDER,
        provider_data=_stored(part, _THINKING_KEYS),
    )


def _redacted_from_anthropic(part: dict[str, Any], where: str) -> ThinkingBlock:
    data = part.get("data")
    if not isinstance(data, str):
        raise DecodeError(f"{where}: redacted_thinking block has no data string")
    return ThinkingBlock(
        redacted=True,
        redacted_data=data,
        provider=PROVIDER,
        provider_data=_stored(part, _REDACTED_KEYS),
    )


def _image_from_anthropic(part: dict[str, Any], where: str) -> Block:
    source = _plain(part.get("source"))
    if not isinstance(source, dict):
        raise DecodeError(f"{where}: image block has no source object")
    kind = source.get("type")
    block: ImageBlock
    if kind == "base64":
        block = _from_base64(ImageBlock, source, None, where)
    elif kind == "url":
        block = _from_url(ImageBlock, source, None, None, where)
    elif kind == "file":
        block = ImageBlock.from_file_id(_file_id(source, where), provider=PROVIDER)
    else:
        return RawBlock(provider=PROVIDER, data=part)
    return _with_stored(block, _stored(part, _IMAGE_KEYS))


def _document_from_anthropic(part: dict[str, Any], where: str) -> Block:
    source = _plain(part.get("source"))
    if not isinstance(source, dict):
        raise DecodeError(f"{where}: document block has no source object")
    title = part.get("title")
    filename = title if isinstance(title, str) and title else None
    kind = source.get("type")
    block: FileBlock
    if kind == "base64":
        block = _from_base64(FileBlock, source, filename, where)
    elif kind == "text":
        data = source.get("data")
        if not isinstance(data, str):
            raise DecodeError(f"{where}: text document source has no data string")
        mime = source.get("media_type")
        block = FileBlock.from_bytes(
            data.encode("utf-8"), mime if isinstance(mime, str) else _PLAIN_TEXT, filename=filename
        )
    elif kind == "url":
        block = _from_url(FileBlock, source, _PDF, filename, where)
    elif kind == "file":
        block = FileBlock.from_file_id(
            _file_id(source, where), provider=PROVIDER, filename=filename
        )
    else:  # a "content" source (custom chunks) and anything newer stay verbatim
        return RawBlock(provider=PROVIDER, data=part)
    stored = _stored(part, _DOCUMENT_KEYS)
    if filename is None and block.filename is not None:
        # from_url names the block after the URL's path; Anthropic did not send that title.
        stored.setdefault(PROVIDER, {})[_UNTITLED] = True
    if filename is not None and not _is_filename(filename):
        # The exact title (not a basename), kept as a title: a provider with no field for one
        # (Gemini) raises or reports it instead of losing it with the filename.
        stored.setdefault(PROVIDER, {})["title"] = filename
    return _with_stored(block, stored)


def _is_filename(title: str) -> bool:
    """A title that is a plain filename (``report.pdf``: safe as a basename, with an extension),
    as the encoder writes a block's filename; anything else (``Annual report``) is a title."""
    stem, dot, ext = title.rpartition(".")
    return (
        sanitize_filename(title) == title
        and bool(stem and dot)
        and 0 < len(ext) <= 5
        and ext.isalnum()
    )


def _with_stored(block: _M, stored: dict[str, dict[str, Any]]) -> _M:
    return block.model_copy(update={"provider_data": stored}) if stored else block


def _from_base64(cls: type[_M], source: dict[str, Any], filename: str | None, where: str) -> _M:
    data = source.get("data")
    mime = source.get("media_type")
    if not isinstance(data, str):
        raise DecodeError(f"{where}: base64 source has no data string")
    try:
        return cls.from_base64(data, mime if isinstance(mime, str) else None, filename=filename)
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc


def _from_url(
    cls: type[_M], source: dict[str, Any], mime: str | None, filename: str | None, where: str
) -> _M:
    url = source.get("url")
    if not isinstance(url, str):
        raise DecodeError(f"{where}: url source has no url string")
    try:
        return cls.from_url(url, mime, filename=filename)
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc


def _file_id(source: dict[str, Any], where: str) -> str:
    file_id = source.get("file_id")
    if not isinstance(file_id, str) or not file_id:
        raise DecodeError(f"{where}: file source has no file_id")
    return file_id


def _tool_call_from_anthropic(part: dict[str, Any], where: str) -> ToolCallBlock:
    call_id = part.get("id")
    name = part.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise DecodeError(f"{where}: tool_use block needs an id and a name")
    # A string ``input`` is seen from stream fold-ups that kept the partial JSON text.
    args, raw_args = tool_args(part.get("input"))
    return ToolCallBlock(
        id=call_id,
        name=name,
        args=args,
        raw_args=raw_args,
        provider_data=_stored(part, _TOOL_USE_KEYS),
    )


def _tool_result_from_anthropic(
    part: dict[str, Any], where: str, names: dict[str, str]
) -> ToolResultBlock:
    call_id = part.get("tool_use_id")
    if not isinstance(call_id, str):
        raise DecodeError(f"{where}: tool_result block has no tool_use_id")
    raw = part.get("content")
    content: str | list[ContentBlock]
    if raw is None or isinstance(raw, str):
        content = raw or ""
    elif isinstance(raw, list):
        content = []
        for number, item in enumerate(raw):
            block = _part_from_anthropic(item, f"{where}, content {number}", names)
            if not isinstance(block, (TextBlock, ImageBlock, FileBlock, RawBlock)):
                block = RawBlock(provider=PROVIDER, data=_plain(item))
            content.append(block)
    else:
        raise DecodeError(f"{where}: tool_result content is neither text nor a list of blocks")
    return ToolResultBlock(
        tool_call_id=call_id,
        content=content,
        is_error=part.get("is_error") is True,
        name=names.get(call_id),
        provider_data=_stored(part, _TOOL_RESULT_KEYS),
    )


def from_anthropic(payload: Any) -> list[Message]:
    """Messages from an Anthropic request body, a message list, or a Messages API response.

    A request's ``system`` becomes the first `SystemMessage`. Tool results, which Anthropic
    carries in user turns, become `ToolMessage`s (text in the same turn becomes a `UserMessage`
    after them), and each result gets its tool's ``name`` from the call it answers. SDK objects
    (``anthropic.types.Message``, content blocks in a message list) are read like dicts.
    """
    return decode_payload(
        payload,
        "an Anthropic payload",
        _messages_from_anthropic,
        ("a response (type 'message')", _is_response, _response_from_anthropic),
        request=(
            "a request with 'messages'",
            has_messages,
            _request_from_anthropic,
        ),
        plain=_plain,
    )


def _is_response(data: dict[str, Any]) -> bool:
    return data.get("type") == "message" or (
        data.get("role") == "assistant" and ("usage" in data or "stop_reason" in data)
    )


def _request_from_anthropic(data: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    if data.get("system") is not None:
        out.append(_system_from_anthropic(data["system"], "Anthropic system"))
    out.extend(_messages_from_anthropic(data["messages"]))
    return out


def _plain(value: Any) -> Any:
    """A dict for an SDK object, keeping the fields the API sent (nulls included)."""
    if isinstance(value, (dict, list, str)):  # already plain: most calls, so no dump set up
        return value
    return dumped(value, mode="json", by_alias=True, exclude_unset=True)


def _response_from_anthropic(data: dict[str, Any]) -> AssistantMessage:
    where = "Anthropic response"
    message = _assistant_from_anthropic(data.get("content"), where, {})
    notes = {
        key: data[key]
        for key in ("stop_sequence", "stop_details", "container")
        if data.get(key) is not None
    }
    reason = data.get("stop_reason")
    model = data.get("model")
    response_id = data.get("id")
    return message.model_copy(
        update={
            "usage": _usage_from_anthropic(data.get("usage")),
            "stop_reason": reason if isinstance(reason, str) and reason else None,
            "model": model if isinstance(model, str) and model else None,
            "response_id": response_id if isinstance(response_id, str) and response_id else None,
            "metadata": {PROVIDER: notes} if notes else {},
        }
    )


def _usage_from_anthropic(value: Any) -> Usage | None:
    """Token counts; ``input_tokens`` includes cache reads and writes, as `Usage` defines it."""
    usage = _plain(value)
    if not isinstance(usage, dict):
        return None
    read = usage_count(usage.get("cache_read_input_tokens"))
    write = usage_count(usage.get("cache_creation_input_tokens"))
    details = usage.get("output_tokens_details")
    thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
    return Usage(
        input_tokens=usage_count(usage.get("input_tokens")) + read + write,
        output_tokens=usage_count(usage.get("output_tokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
        reasoning_tokens=usage_count(thinking),
        raw=usage,
    )


def _system_from_anthropic(value: Any, where: str) -> SystemMessage:
    value = _plain(value)
    if isinstance(value, str):
        return SystemMessage(content=[TextBlock(text=value)] if value else [])
    if not isinstance(value, list):
        raise DecodeError(f"{where} is neither text nor a list of text blocks")
    return SystemMessage(content=_blocks_from_anthropic(value, where, {}))


def _messages_from_anthropic(items: Any) -> list[Message]:
    items = _plain(items)
    if not isinstance(items, list):
        raise DecodeError("Anthropic 'messages' is not a list")
    out: list[Message] = []
    names: dict[str, str] = {}  # tool name by call id, for the results that answer them
    for position, raw in enumerate(items):
        where = f"Anthropic message {position}"
        item = raw if isinstance(raw, dict) else wire_object(raw, where, _MESSAGE_OBJECT, _plain)
        role = item.get("role")
        if role == "assistant":
            message = _assistant_from_anthropic(item.get("content"), where, names)
            for block in message.content:
                if isinstance(block, ToolCallBlock):
                    names[block.id] = block.name
            out.append(message)
        elif role == "user":
            out.extend(_user_from_anthropic(item.get("content"), where, names))
        elif role == "system":
            out.append(_system_from_anthropic(item.get("content"), where))
        else:
            raise DecodeError(f"{where} has role {role!r}, not user, assistant or system")
    return out


def _assistant_from_anthropic(content: Any, where: str, names: dict[str, str]) -> AssistantMessage:
    blocks = _blocks_from_anthropic(_content_list(content, where), where, names)
    return built_message(AssistantMessage, blocks, provider=PROVIDER)


def _user_from_anthropic(content: Any, where: str, names: dict[str, str]) -> list[Message]:
    """Runs of tool results become `ToolMessage`s, other runs `UserMessage`s, in order."""
    return user_turns(_blocks_from_anthropic(_content_list(content, where), where, names))


def _content_list(content: Any, where: str) -> list[Any]:
    content = _plain(content)
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return content
    raise DecodeError(f"{where}: content is a {type(content).__name__}, not text or blocks")


def _blocks_from_anthropic(items: list[Any], where: str, names: dict[str, str]) -> list[Block]:
    blocks: list[Block] = []
    for number, item in enumerate(items):
        if (
            type(item) is dict
            and item.keys() == _PLAIN_TEXT_KEYS
            and item["type"] == "text"
            and type(item["text"]) is str
        ):  # most parts: text and nothing beside it, so nothing to check or keep
            blocks.append(text_block(item["text"], [], {}))
        else:
            blocks.append(_part_from_anthropic(item, f"{where}, block {number}", names))
    return blocks


def _part_from_anthropic(raw: Any, where: str, names: dict[str, str]) -> Block:
    part = raw if isinstance(raw, dict) else wire_object(raw, where, _BLOCK_OBJECT, _plain)
    kind = part.get("type")
    if kind == "text":
        return _text_from_anthropic(part, where)
    if kind == "image":
        return _image_from_anthropic(part, where)
    if kind == "document":
        return _document_from_anthropic(part, where)
    if kind == "thinking":
        return _thinking_from_anthropic(part, where)
    if kind == "redacted_thinking":
        return _redacted_from_anthropic(part, where)
    if kind == "tool_use":
        return _tool_call_from_anthropic(part, where)
    if kind == "tool_result":
        return _tool_result_from_anthropic(part, where, names)
    # server_tool_use, web_search_tool_result, container_upload, search_result and anything newer
    return RawBlock(provider=PROVIDER, data=part)
