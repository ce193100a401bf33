"""Anthropic Messages: `to_anthropic` builds ``client.messages.create`` fields, `from_anthropic`
reads requests, message lists and responses back.

What maps to what (details and examples in ``docs/providers/anthropic.md``):

- system messages -> the top-level ``system`` (a string when it is one plain text block).
- text -> ``text`` blocks; ``TextBlock.annotations`` are the block's ``citations``.
- images -> ``image`` blocks: base64 (JPEG, PNG, GIF, WebP), a URL (Anthropic fetches it) or an
  Anthropic file id.
- files -> ``document`` blocks: PDF (base64, URL or file id) and plain text (a ``text`` source);
  ``title`` is the filename.
- thinking -> ``thinking`` (with its signature) and ``redacted_thinking``, replayed only when
  Anthropic produced them; other thinking follows ``options.thinking``.
- tool calls -> ``tool_use``; results -> ``tool_result`` blocks first in a user turn.
- audio and video raise `UnsupportedBlockError`; unknown blocks decode to `RawBlock`.
- fields mediablocks does not model (``cache_control``, ``caller``...) live in
  ``block.provider_data["anthropic"]`` and go back out on the same block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, Union

from ...blocks import (
    Block,
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import DecodeError, MediaBlocksError, UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock, sanitize_filename
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
)
from ...sources import URLSource
from .._common import (
    as_dict,
    base64_data,
    file_id_of,
    group_turns,
    is_own_thinking,
    object_args,
    results_first,
    tool_args,
    tool_results,
    unsupported,
    usage_count,
    use_url,
    user_turns,
)
from .._options import EncodeOptions

__all__ = ["from_anthropic", "to_anthropic"]

PROVIDER = "anthropic"
_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_PDF = "application/pdf"
_PLAIN_TEXT = "text/plain"
_M = TypeVar("_M", bound=MediaBlock)
_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]

# The keys of each block type that mediablocks models; every other key is kept verbatim in
# ``provider_data["anthropic"]`` and sent back out with the block.
_TEXT_KEYS = frozenset({"type", "text", "citations"})
_IMAGE_KEYS = frozenset({"type", "source"})
_DOCUMENT_KEYS = frozenset({"type", "source", "title"})
_THINKING_KEYS = frozenset({"type", "thinking", "signature"})
_REDACTED_KEYS = frozenset({"type", "data"})
_UNTITLED = "untitled"
"""Marks a document Anthropic sent without a title, so encoding adds none."""
_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})
_TOOL_RESULT_KEYS = frozenset({"type", "tool_use_id", "content", "is_error"})


# -- encode -----------------------------------------------------------------------------------


def to_anthropic(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """The ``messages`` (and ``system``) fields of ``client.messages.create(...)``.

    System messages before the conversation starts are lifted, in order, into the top-level
    ``system``; a system message later in the conversation stays in place as a ``system``
    message (the Messages API carries them there). Consecutive turns of the
    same role are merged (the API wants user and assistant to alternate) and in each user turn the
    ``tool_result`` blocks come first. A turn left with no blocks is not sent. The JSON target is
    the same: Anthropic's SDK and HTTP API both take base64 text.
    """
    options = options or EncodeOptions()
    system, turns = group_turns(
        messages,
        system=lambda blocks, index: _system_to_anthropic(blocks, index, options),
        assistant=lambda blocks, index: _assistant_to_anthropic(blocks, index, options),
        tool=lambda blocks, index: _tool_message_to_anthropic(blocks, index, options),
        user=lambda blocks, index: _user_to_anthropic(blocks, index, options),
        lift_system="leading",
    )
    out: dict[str, Any] = {
        "messages": [{"role": role, "content": _turn_content(role, parts)} for role, parts in turns]
    }
    if system:
        out["system"] = _system_value(system)
    return out


def _turn_content(role: str, parts: list[dict[str, Any]]) -> Any:
    if role == "user":
        return results_first(parts, _is_result)
    if role == "system":
        return _system_value(parts)
    return parts


def _is_result(part: dict[str, Any]) -> bool:
    return part.get("type") == "tool_result"


def _system_value(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """One plain text block goes as a string; anything richer as the list of blocks."""
    if len(blocks) == 1 and set(blocks[0]) == {"type", "text"} and blocks[0]["type"] == "text":
        text: str = blocks[0]["text"]
        return text
    return blocks


def _system_to_anthropic(
    blocks: Sequence[Block], index: int, options: EncodeOptions
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            part = _text_to_anthropic(block)
        elif isinstance(block, ThinkingBlock):
            part = _thinking_to_anthropic(block, options, replay=False)
        elif isinstance(block, RawBlock):
            part = _raw_to_anthropic(block, index, position)
        else:
            raise unsupported(
                PROVIDER, block, index, position, "Anthropic system prompts take text only"
            )
        if part is not None:
            parts.append(part)
    return parts


def _user_to_anthropic(
    blocks: Sequence[Block], index: int, options: EncodeOptions
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        part: dict[str, Any] | None
        if isinstance(block, ToolResultBlock):
            part = _tool_result_to_anthropic(block, index, position, options)
        elif isinstance(block, ToolCallBlock):
            raise unsupported(
                PROVIDER, block, index, position, "tool calls belong in assistant messages"
            )
        elif isinstance(block, ThinkingBlock):
            part = _thinking_to_anthropic(block, options, replay=False)
        else:
            part = _content_to_anthropic(block, index, position, options)
        if part is not None:
            parts.append(part)
    return parts


def _assistant_to_anthropic(
    blocks: Sequence[Block], index: int, options: EncodeOptions
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        part: dict[str, Any] | None
        if isinstance(block, TextBlock):
            part = _text_to_anthropic(block)
        elif isinstance(block, ThinkingBlock):
            part = _thinking_to_anthropic(block, options, replay=True)
        elif isinstance(block, ToolCallBlock):
            part = _tool_call_to_anthropic(block, index, position)
        elif isinstance(block, RawBlock):
            part = _raw_to_anthropic(block, index, position)
        elif isinstance(block, ToolResultBlock):
            raise unsupported(
                PROVIDER, block, index, position, "tool results belong in tool or user messages"
            )
        else:
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "Anthropic assistant turns hold text, thinking and tool calls; media goes in "
                "user turns",
            )
        if part is not None:
            parts.append(part)
    return parts


def _tool_message_to_anthropic(
    blocks: Sequence[Block], index: int, options: EncodeOptions
) -> list[dict[str, Any]]:
    return [
        _tool_result_to_anthropic(block, index, position, options)
        for position, block in tool_results(PROVIDER, blocks, index)
    ]


def _content_to_anthropic(
    block: Block, index: int, position: int, options: EncodeOptions
) -> dict[str, Any] | None:
    """A block of user content or tool-result content (None: dropped by a documented rule)."""
    if isinstance(block, TextBlock):
        return _text_to_anthropic(block)
    if isinstance(block, ImageBlock):
        return _image_to_anthropic(block, index, position, options)
    if isinstance(block, FileBlock):
        return _document_to_anthropic(block, index, position, options)
    if isinstance(block, RawBlock):
        return _raw_to_anthropic(block, index, position)
    if isinstance(block, AudioBlock):
        raise unsupported(PROVIDER, block, index, position, "Anthropic models take no audio")
    if isinstance(block, VideoBlock):
        raise unsupported(PROVIDER, block, index, position, "Anthropic models take no video")
    raise unsupported(PROVIDER, block, index, position, "not allowed here")


def _extras(block: Block) -> dict[str, Any]:
    """The block's unmodelled Anthropic fields (``cache_control``...), copied."""
    return dict(block.for_provider(PROVIDER))


# -- text ---------------------------------------------------------------------------------------


def _text_to_anthropic(block: TextBlock) -> dict[str, Any] | None:
    """Empty text is not sent: the API rejects empty text blocks."""
    if not block.text:
        return None
    part: dict[str, Any] = {**_extras(block), "type": "text", "text": block.text}
    if block.annotations:
        part["citations"] = [dict(note) for note in block.annotations]
    return part


def _text_from_anthropic(part: dict[str, Any], where: str) -> TextBlock:
    text = part.get("text")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: text block has no text string")
    citations = part.get("citations") or []
    if not isinstance(citations, list) or not all(isinstance(c, dict) for c in citations):
        raise DecodeError(f"{where}: text block citations are not a list of objects")
    return TextBlock(text=text, annotations=citations, provider_data=_stored(part, _TEXT_KEYS))


def _stored(part: dict[str, Any], known: frozenset[str]) -> dict[str, dict[str, Any]]:
    """``provider_data`` holding the part's unmodelled fields (empty when there are none)."""
    extras = {key: value for key, value in part.items() if key not in known}
    return {PROVIDER: extras} if extras else {}


# -- thinking ---------------------------------------------------------------------------------


def _thinking_to_anthropic(
    block: ThinkingBlock, options: EncodeOptions, *, replay: bool
) -> dict[str, Any] | None:
    """Anthropic's own signed thinking is replayed in assistant turns; other thinking follows
    ``options.thinking`` (dropped, or sent as text when it has text)."""
    if replay and is_own_thinking(block, PROVIDER):
        if block.redacted and block.redacted_data:
            return {**_extras(block), "type": "redacted_thinking", "data": block.redacted_data}
        if not block.redacted and block.signature:
            return {
                **_extras(block),
                "type": "thinking",
                "thinking": block.thinking,
                "signature": block.signature,
            }
    if options.thinking == "text" and block.thinking:
        return {"type": "text", "text": block.thinking}
    return None


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


# -- media ------------------------------------------------------------------------------------


def _url_or_inline(
    block: _Media, provider_fetches: bool, index: int, position: int, options: EncodeOptions
) -> bool:
    """`use_url`, with the block's position in its error; an inlined URL is fetched now."""
    try:
        as_url = use_url(block, provider_fetches, options)
    except MediaBlocksError as exc:
        raise unsupported(PROVIDER, block, index, position, str(exc)) from None
    if not as_url and isinstance(block.source, URLSource):
        block.read(options.policy)  # the exact MIME type comes from the downloaded bytes
    return as_url


def _anthropic_file_id(block: _Media, index: int, position: int) -> str | None:
    """The Anthropic file id of a block, None when it has none; another provider's id raises."""
    source = file_id_of(block)
    if source is None:
        return None
    if source.provider not in (None, PROVIDER):
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            f"it is a {source.provider} file id; upload the file to Anthropic's Files API",
        )
    return source.file_id


def _image_to_anthropic(
    block: ImageBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    file_id = _anthropic_file_id(block, index, position)
    source: dict[str, Any]
    if file_id is not None:
        source = {"type": "file", "file_id": file_id}
    elif _url_or_inline(block, True, index, position, options):
        assert isinstance(block.source, URLSource)
        source = {"type": "url", "url": block.source.url}
    else:
        mime = block.mime_type
        if mime not in _IMAGE_TYPES:
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                f"Anthropic takes JPEG, PNG, GIF and WebP images, this is {mime}; "
                "mb.prepare(messages, 'anthropic') converts it",
            )
        source = {"type": "base64", "media_type": mime, "data": base64_data(block, options)}
    return {**_extras(block), "type": "image", "source": source}


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


def _document_to_anthropic(
    block: FileBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    """PDF as a base64, URL or file source; plain text as a ``text`` source; others raise."""
    extras = _extras(block)
    untitled = extras.pop(_UNTITLED, False)  # decoded without a title: none is made up
    title = extras.pop("title", None) or (None if untitled else block.filename)
    file_id = _anthropic_file_id(block, index, position)
    source: dict[str, Any]
    if file_id is not None:
        source = {"type": "file", "file_id": file_id}
    else:
        # Anthropic fetches PDF URLs; a URL of any other (or unknown) type is downloaded first.
        fetches = isinstance(block.source, URLSource) and block.mime_type == _PDF
        if _url_or_inline(block, fetches, index, position, options):
            assert isinstance(block.source, URLSource)
            source = {"type": "url", "url": block.source.url}
        else:
            source = _inline_document(block, index, position, options)
    part: dict[str, Any] = {**extras, "type": "document", "source": source}
    if title:
        part["title"] = title
    return part


def _inline_document(
    block: FileBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    mime = block.mime_type
    if mime == _PDF:
        return {"type": "base64", "media_type": _PDF, "data": base64_data(block, options)}
    if mime == _PLAIN_TEXT:
        try:
            text = block.read(options.policy).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise unsupported(
                PROVIDER, block, index, position, f"the text is not UTF-8 ({exc.reason})"
            ) from None
        return {"type": "text", "media_type": _PLAIN_TEXT, "data": text}
    raise unsupported(
        PROVIDER,
        block,
        index,
        position,
        f"Anthropic reads PDF and plain-text documents, this is {mime}; convert it, or send "
        "its text as a TextBlock",
    )


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
    if filename is not None and sanitize_filename(filename) != filename:
        stored.setdefault(PROVIDER, {})["title"] = filename  # the exact title, not a basename
    return _with_stored(block, stored)


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


# -- tools ------------------------------------------------------------------------------------


def _tool_call_to_anthropic(block: ToolCallBlock, index: int, position: int) -> dict[str, Any]:
    """``input`` must be an object: arguments the model sent as invalid JSON raise."""
    return {
        **_extras(block),
        "type": "tool_use",
        "id": block.id,
        "name": block.name,
        "input": object_args(PROVIDER, "Anthropic", block, index, position),
    }


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


def _tool_result_to_anthropic(
    block: ToolResultBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    part: dict[str, Any] = {
        **_extras(block),
        "type": "tool_result",
        "tool_use_id": block.tool_call_id,
    }
    if isinstance(block.content, str):
        if block.content:
            part["content"] = block.content
    else:
        content: list[dict[str, Any]] = []
        for inner in block.content:
            try:
                encoded = _content_to_anthropic(inner, index, position, options)
            except UnsupportedBlockError as exc:
                raise UnsupportedBlockError(
                    f"{exc} (inside the result of tool call {block.tool_call_id!r})"
                ) from None
            if encoded is not None:
                content.append(encoded)
        if content:
            part["content"] = content
    if block.is_error:
        part["is_error"] = True
    return part


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


def _raw_to_anthropic(block: RawBlock, index: int, position: int) -> dict[str, Any]:
    if block.provider != PROVIDER:
        raise unsupported(
            PROVIDER, block, index, position, f"it holds {block.provider} content, not Anthropic's"
        )
    return dict(block.data)


# -- decode -----------------------------------------------------------------------------------


def from_anthropic(payload: Any) -> list[Message]:
    """Messages from an Anthropic request body, a message list, or a Messages API response.

    A request's ``system`` becomes the first `SystemMessage`. Tool results, which Anthropic
    carries in user turns, become `ToolMessage`s (text in the same turn becomes a `UserMessage`
    after them), and each result gets its tool's ``name`` from the call it answers. SDK objects
    (``anthropic.types.Message``, content blocks in a message list) are read like dicts.
    """
    data = _plain(payload)
    if isinstance(data, dict):
        if data.get("type") == "message" or (
            data.get("role") == "assistant" and ("usage" in data or "stop_reason" in data)
        ):
            return [_response_from_anthropic(data)]
        if "messages" in data:
            out: list[Message] = []
            if data.get("system") is not None:
                out.append(_system_from_anthropic(data["system"], "Anthropic system"))
            out.extend(_messages_from_anthropic(data["messages"]))
            return out
        if "role" in data:
            return _messages_from_anthropic([data])
        raise DecodeError(
            "not an Anthropic payload: expected a request with 'messages', a response "
            "(type 'message'), or a message with 'role'"
        )
    if isinstance(data, list):
        return _messages_from_anthropic(data)
    raise DecodeError(f"not an Anthropic payload: a {type(payload).__name__}")


def _plain(value: Any) -> Any:
    """A dict for an SDK object, keeping the fields the API sent (nulls included)."""
    if isinstance(value, (dict, list, str, bytes)) or value is None:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json", by_alias=True, exclude_unset=True)
        except TypeError:
            return as_dict(value)
    return as_dict(value)


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
        item = _plain(raw)
        where = f"Anthropic message {position}"
        if not isinstance(item, dict):
            raise DecodeError(f"{where} is a {type(raw).__name__}, not a message object")
        role = item.get("role")
        if role == "assistant":
            message = _assistant_from_anthropic(item.get("content"), where, names)
            names.update({call.id: call.name for call in message.tool_calls})
            out.append(message)
        elif role == "user":
            out.extend(_user_from_anthropic(item.get("content"), where, names))
        elif role == "system":
            out.append(_system_from_anthropic(item.get("content"), where))
        else:
            raise DecodeError(f"{where} has role {role!r}, not user, assistant or system")
    return out


def _assistant_from_anthropic(content: Any, where: str, names: dict[str, str]) -> AssistantMessage:
    return AssistantMessage(
        content=_blocks_from_anthropic(_content_list(content, where), where, names),
        provider=PROVIDER,
    )


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
    return [
        _part_from_anthropic(item, f"{where}, block {number}", names)
        for number, item in enumerate(items)
    ]


def _part_from_anthropic(raw: Any, where: str, names: dict[str, str]) -> Block:
    part = _plain(raw)
    if not isinstance(part, dict):
        raise DecodeError(f"{where} is a {type(raw).__name__}, not a content block object")
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
