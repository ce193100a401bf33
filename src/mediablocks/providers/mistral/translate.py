"""Mistral chat completions: `to_mistral` turns messages into ``client.chat.complete`` fields,
`from_mistral` reads requests, message lists and responses back.

What maps to what (details and examples in ``docs/providers/mistral.md``):

- text -> ``text`` chunks; a message holding exactly one text block is sent as a plain string.
- images -> ``image_url`` chunks: the URL itself (Mistral fetches images) or a data URI.
- audio -> ``input_audio`` chunks holding base64, or the URL (Mistral fetches it; with
  ``url_media="inline"`` it is downloaded and inlined).
- PDF files -> ``document_url`` chunks (the URL, or a data URI); a Mistral file id -> ``file``.
- thinking -> ``thinking`` chunks with nested text; another provider's thinking follows
  ``options.thinking``.
- tool calls -> ``tool_calls`` with JSON-string arguments; tool results -> ``tool`` messages.
  Mistral needs tool-call ids of exactly 9 letters or digits: other ids are remapped consistently
  across the history (see `mistral_tool_call_ids`).
- media inside tool results follow ``options.tool_result_media``; video raises.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
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
from ...errors import DecodeError, MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    Usage,
    UserMessage,
)
from ...sources import URLSource
from .._common import (
    add_tool_result,
    as_dict,
    base64_data,
    blocks_from_content,
    call_names,
    data_uri,
    dump_args,
    file_id_of,
    is_own_thinking,
    media_from_reference,
    pair_call,
    sendable,
    tool_args,
    unsupported,
    usage_count,
    use_url,
)
from .._options import EncodeOptions

_NOTHING_SAID = {"role": "assistant", "content": ""}
"""An assistant message left with nothing to send: not sent, as for every provider."""

__all__ = ["from_mistral", "mistral_tool_call_ids", "to_mistral"]

_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]
_M = TypeVar("_M", bound=MediaBlock)

PROVIDER = "mistral"
_ID_ALPHABET = string.ascii_letters + string.digits
_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
_IMAGE_DETAILS = ("auto", "low", "high")
_DOCUMENT_MIME = "application/pdf"


# -- tool-call ids ----------------------------------------------------------------------------


def _fits_mistral(call_id: str) -> bool:
    return _MISTRAL_ID.fullmatch(call_id) is not None


def _hashed_id(original: str, attempt: int) -> str:
    """Nine base-62 characters from a SHA-256 of the original id (and the collision attempt)."""
    salt = f"{attempt}:" if attempt else ""
    number = int.from_bytes(hashlib.sha256((salt + original).encode("utf-8")).digest()[:16], "big")
    characters = []
    for _ in range(9):
        number, remainder = divmod(number, len(_ID_ALPHABET))
        characters.append(_ID_ALPHABET[remainder])
    return "".join(characters)


def mistral_tool_call_ids(messages: Sequence[Message]) -> dict[str, str]:
    """The tool-call id each original id gets on the Mistral wire: ``{original: sent}``.

    Mistral accepts only ids of exactly 9 ASCII letters or digits. Ids that already fit are kept;
    every other id becomes 9 characters derived from a SHA-256 of it, so a call and its result get
    the same new id, the same history always maps the same way, and no two ids collide (a clash is
    resolved by hashing again). `to_mistral` uses exactly this mapping. Mistral's replies carry
    the sent ids, so invert the mapping to translate them back:
    ``original = {sent: orig for orig, sent in mistral_tool_call_ids(history).items()}[sent]``.
    """
    originals: list[str] = []
    seen: set[str] = set()
    for _, message in sendable(messages):
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                call_id = block.id
            elif isinstance(block, ToolResultBlock):
                call_id = block.tool_call_id
            else:
                continue
            if call_id not in seen:
                seen.add(call_id)
                originals.append(call_id)
    taken = {call_id for call_id in originals if _fits_mistral(call_id)}
    mapping: dict[str, str] = {}
    for original in originals:
        if _fits_mistral(original):
            mapping[original] = original
            continue
        attempt = 0
        candidate = _hashed_id(original, attempt)
        while candidate in taken:
            attempt += 1
            candidate = _hashed_id(original, attempt)
        taken.add(candidate)
        mapping[original] = candidate
    return mapping


def _new_call_id() -> str:
    """A fresh Mistral-shaped id for a tool call that arrived without one."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(9))


# -- encode -----------------------------------------------------------------------------------


def to_mistral(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
    """The ``messages`` field of ``client.chat.complete(model=..., **fields)``.

    The JSON target is the same: Mistral's SDK and HTTP API both take base64 text and data URIs.
    """
    encoder = _Encoder(options or EncodeOptions(), messages)
    return {"messages": encoder.run(messages)}


class _Encoder:
    """One encoding pass: the id mapping, tool names, and media moved out of tool results."""

    def __init__(self, options: EncodeOptions, messages: Sequence[Message]) -> None:
        self.options = options
        self.ids = mistral_tool_call_ids(messages)
        self.names = call_names(messages)
        self.out: list[dict[str, Any]] = []
        self.moved: list[dict[str, Any]] = []
        """Chunks for the user message that follows a run of tool messages."""

    def run(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        for index, message in sendable(messages):
            if isinstance(message, ToolMessage):
                for position, block in enumerate(message.content):
                    if not isinstance(block, ToolResultBlock):
                        raise unsupported(
                            PROVIDER, block, index, position, "a tool message holds tool results"
                        )
                    self.out.append(self._tool_result(block, index, position))
            elif isinstance(message, UserMessage):
                self._user(message.content, index)
            elif isinstance(message, SystemMessage):
                self._flush_moved()
                self.out.append(self._system(message.content, index))
            elif isinstance(message, AssistantMessage):
                self._flush_moved()
                reply = self._assistant(message.content, index)
                if message.metadata.get(PROVIDER, {}).get("prefix") is True:
                    reply["prefix"] = True  # the reply continues from this message's text
                if reply != _NOTHING_SAID:  # every block dropped (say, foreign thinking)
                    self.out.append(reply)
        self._flush_moved()
        return self.out

    def _flush_moved(self) -> None:
        if self.moved:
            self.out.append({"role": "user", "content": self.moved})
            self.moved = []

    # -- roles ------------------------------------------------------------------------------

    def _system(self, blocks: Sequence[Block], index: int) -> dict[str, Any]:
        chunks: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            if isinstance(block, (TextBlock, ThinkingBlock, RawBlock)):
                chunk = self._chunk(block, index, position)
                if chunk is not None:
                    chunks.append(chunk)
            else:
                raise unsupported(
                    PROVIDER, block, index, position, "Mistral system messages take text only"
                )
        return {"role": "system", "content": _content_value(chunks)}

    def _user(self, blocks: Sequence[Block], index: int) -> None:
        """Tool results in a user message go out first as tool messages, then the rest."""
        rest: list[dict[str, Any]] = []
        has_results = False
        for position, block in enumerate(blocks):
            if isinstance(block, ToolResultBlock):
                has_results = True
                self.out.append(self._tool_result(block, index, position))
            elif isinstance(block, ToolCallBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool calls belong in assistant messages"
                )
            else:
                chunk = self._chunk(block, index, position)
                if chunk is not None:
                    rest.append(chunk)
        chunks = [*self.moved, *rest]
        self.moved = []
        if chunks or not has_results:
            self.out.append({"role": "user", "content": _content_value(chunks)})

    def _assistant(self, blocks: Sequence[Block], index: int) -> dict[str, Any]:
        chunks: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            if isinstance(block, ToolCallBlock):
                calls.append(_tool_call_to_mistral(block, self.ids))
            elif isinstance(block, ToolResultBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool results belong in tool messages"
                )
            else:
                chunk = self._chunk(block, index, position)
                if chunk is not None:
                    chunks.append(chunk)
        message: dict[str, Any] = {"role": "assistant"}
        if chunks or not calls:
            message["content"] = _content_value(chunks)
        if calls:
            message["tool_calls"] = calls
        return message

    # -- blocks -----------------------------------------------------------------------------

    def _chunk(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        """One content chunk (None when the block is dropped by a documented option)."""
        if isinstance(block, TextBlock):
            return _text_to_mistral(block)
        if isinstance(block, ThinkingBlock):
            return _thinking_to_mistral(block, self.options)
        if isinstance(block, RawBlock):
            return _raw_to_mistral(block, index, position)
        if isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
            return _media_to_mistral(block, index, position, self.options)
        raise unsupported(PROVIDER, block, index, position, "not allowed here")

    def _tool_result(self, result: ToolResultBlock, index: int, position: int) -> dict[str, Any]:
        call_id = self.ids.get(result.tool_call_id, result.tool_call_id)
        name = result.name or self.names.get(result.tool_call_id)
        content: str | list[dict[str, Any]]
        if isinstance(result.content, str):
            content = result.content
        else:
            chunks: list[dict[str, Any]] = []
            media: list[_Media] = []
            for block in result.content:
                if isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
                    media.append(block)
                    continue
                chunk = self._chunk(block, index, position)
                if chunk is not None:
                    chunks.append(chunk)
            if media:
                self._move_media(media, call_id, name, index, position)
            content = chunks if chunks else ""
        message: dict[str, Any] = {"role": "tool", "content": content, "tool_call_id": call_id}
        if name:
            message["name"] = name
        return message

    def _move_media(
        self,
        media: list[_Media],
        call_id: str,
        name: str | None,
        index: int,
        position: int,
    ) -> None:
        if self.options.tool_result_media == "error":
            raise unsupported(
                PROVIDER,
                media[0],
                index,
                position,
                "Mistral tool messages carry text only (media in a tool result); "
                "tool_result_media='user_message' moves the media into a user message",
            )
        label = f"Media returned by tool call {call_id}" + (f" ({name})" if name else "") + ":"
        self.moved.append({"type": "text", "text": label})
        for block in media:
            self.moved.append(_media_to_mistral(block, index, position, self.options))


def _content_value(chunks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A lone text chunk goes out as a plain string (the form every Mistral model takes)."""
    if not chunks:
        return ""
    if len(chunks) == 1 and chunks[0].get("type") == "text" and set(chunks[0]) == {"type", "text"}:
        text: str = chunks[0]["text"]
        return text
    return chunks


def _text_to_mistral(block: TextBlock) -> dict[str, Any]:
    return {"type": "text", "text": block.text}


def _text_from_mistral(chunk: dict[str, Any], where: str) -> TextBlock:
    text = chunk.get("text", "")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: text chunk has a {type(text).__name__}, not a string")
    return TextBlock(text=text)


def _thinking_to_mistral(block: ThinkingBlock, options: EncodeOptions) -> dict[str, Any] | None:
    """Mistral's own thinking is replayed as a ``thinking`` chunk; other thinking per option."""
    if is_own_thinking(block, PROVIDER) and not block.redacted:
        stored = block.for_provider(PROVIDER)
        inner = stored.get("thinking")
        if not (isinstance(inner, list) and _joined_thinking(inner) == block.thinking):
            inner = [{"type": "text", "text": block.thinking}]
        chunk: dict[str, Any] = {"type": "thinking", "thinking": inner}
        if block.signature is not None:
            chunk["signature"] = block.signature
        if "closed" in stored:
            chunk["closed"] = stored["closed"]
        return chunk
    if options.thinking == "text" and block.thinking:
        return {"type": "text", "text": block.thinking}
    return None


def _joined_thinking(inner: list[Any]) -> str:
    """The text of a thinking chunk's nested list (its text chunks, in order)."""
    texts = []
    for part in inner:
        if isinstance(part, dict) and part.get("type", "text") == "text":
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


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


def _raw_to_mistral(block: RawBlock, index: int, position: int) -> dict[str, Any]:
    if block.provider != PROVIDER:
        raise unsupported(
            PROVIDER, block, index, position, f"it holds {block.provider} content, not Mistral's"
        )
    return dict(block.data)


def _media_to_mistral(
    block: _Media, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    if isinstance(block, ImageBlock):
        return _image_to_mistral(block, index, position, options)
    if isinstance(block, AudioBlock):
        return _audio_to_mistral(block, index, position, options)
    if isinstance(block, FileBlock):
        return _file_to_mistral(block, index, position, options)
    raise unsupported(PROVIDER, block, index, position, "Mistral models take no video")


def _url_or_inline(
    block: _Media, provider_fetches: bool, index: int, position: int, options: EncodeOptions
) -> bool:
    """`use_url`, with the block's position added to its error."""
    try:
        return use_url(block, provider_fetches, options)
    except MediaBlocksError as exc:
        raise unsupported(PROVIDER, block, index, position, str(exc)) from None


def _image_to_mistral(
    block: ImageBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    if file_id_of(block) is not None:
        raise unsupported(
            PROVIDER, block, index, position, "Mistral takes images by URL or inline, not file id"
        )
    if _url_or_inline(block, True, index, position, options):
        assert isinstance(block.source, URLSource)
        url = block.source.url
    else:
        url = data_uri(block, options)
    image_url: str | dict[str, Any] = url
    stored_detail = block.for_provider(PROVIDER).get("detail")
    detail = block.detail or stored_detail
    if detail is not None:
        image_url = {"url": url, "detail": detail}
    return {"type": "image_url", "image_url": image_url}


def _image_from_mistral(chunk: dict[str, Any], where: str) -> ImageBlock:
    value = chunk.get("image_url")
    detail: Any = None
    if isinstance(value, dict):
        detail = value.get("detail")
        value = value.get("url")
    if not isinstance(value, str):
        raise DecodeError(f"{where}: image_url chunk has no URL string")
    block = media_from_reference(ImageBlock, value, None, None, where)
    if detail in _IMAGE_DETAILS:
        return block.model_copy(update={"detail": detail})
    if detail is not None:
        return block.model_copy(update={"provider_data": {PROVIDER: {"detail": detail}}})
    return block


def _audio_to_mistral(
    block: AudioBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    if file_id_of(block) is not None:
        raise unsupported(
            PROVIDER, block, index, position, "Mistral takes audio inline, not by file id"
        )
    if _url_or_inline(block, True, index, position, options):  # Mistral fetches audio URLs
        assert isinstance(block.source, URLSource)
        return {"type": "input_audio", "input_audio": block.source.url}
    return {"type": "input_audio", "input_audio": base64_data(block, options)}


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


def _file_to_mistral(
    block: FileBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    file_id = file_id_of(block)
    if file_id is not None:
        if file_id.provider not in (None, PROVIDER):
            raise unsupported(
                PROVIDER, block, index, position, f"it is a {file_id.provider} file id"
            )
        return {"type": "file", "file_id": file_id.file_id}
    fetched_by_mistral = _url_or_inline(block, True, index, position, options)
    mime = block.mime_type  # provisional for an unread URL (declared type or extension)
    unknown_url = isinstance(block.source, URLSource) and mime == "application/octet-stream"
    if mime != _DOCUMENT_MIME and not unknown_url:
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            f"Mistral reads PDF documents only, this is {mime}; upload other files and send "
            "their Mistral file id",
        )
    if fetched_by_mistral:
        assert isinstance(block.source, URLSource)
        url = block.source.url
    else:
        url = data_uri(block, options)
    chunk: dict[str, Any] = {"type": "document_url", "document_url": url}
    if block.filename:
        chunk["document_name"] = block.filename
    return chunk


def _document_from_mistral(chunk: dict[str, Any], where: str) -> FileBlock:
    value = chunk.get("document_url")
    if not isinstance(value, str):
        raise DecodeError(f"{where}: document_url chunk has no URL string")
    name = chunk.get("document_name")
    return media_from_reference(
        FileBlock, value, None, name if isinstance(name, str) else None, where
    )


def _file_from_mistral(chunk: dict[str, Any], where: str) -> FileBlock:
    file_id = chunk.get("file_id")
    if not isinstance(file_id, str) or not file_id:
        raise DecodeError(f"{where}: file chunk has no file_id")
    return FileBlock.from_file_id(file_id, provider=PROVIDER)


def _tool_call_to_mistral(block: ToolCallBlock, ids: dict[str, str]) -> dict[str, Any]:
    return {
        "id": ids.get(block.id, block.id),
        "type": "function",
        "function": {"name": block.name, "arguments": dump_args(block)},
    }


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
    return ToolCallBlock(id=call_id, name=function["name"], args=args, raw_args=raw_args)


# -- decode -----------------------------------------------------------------------------------


def from_mistral(payload: Any) -> list[Message]:
    """Messages from a Mistral request body, a message list, or a chat completion response.

    The SDK's objects (``ChatCompletionResponse``, message models) are read like dicts.
    """
    data = as_dict(payload)
    if isinstance(data, dict):
        if "choices" in data:
            return _response_from_mistral(data)
        if "messages" in data:
            return _messages_from_mistral(data["messages"])
        if "role" in data:
            return _messages_from_mistral([data])
        raise DecodeError(
            "not a Mistral payload: expected a request with 'messages', a response with "
            "'choices', or a message with 'role'"
        )
    if isinstance(data, list):
        return _messages_from_mistral(data)
    raise DecodeError(f"not a Mistral payload: a {type(payload).__name__}")


def _response_from_mistral(data: dict[str, Any]) -> list[Message]:
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise DecodeError("Mistral response: 'choices' is not a list")
    usage = _usage_from_mistral(data.get("usage"))
    out: list[Message] = []
    for number, choice in enumerate(choices):
        choice = as_dict(choice)
        if not isinstance(choice, dict):
            raise DecodeError(f"Mistral response choice {number} is not an object")
        message = as_dict(choice.get("message")) or {"role": "assistant"}
        if not isinstance(message, dict):
            raise DecodeError(f"Mistral response choice {number}: message is not an object")
        reason = choice.get("finish_reason")
        model = data.get("model")
        response_id = data.get("id")
        out.append(
            _assistant_from_mistral(
                message,
                f"Mistral response choice {number}",
                usage=usage if number == 0 else None,
                stop_reason=reason if isinstance(reason, str) else None,
                model=model if isinstance(model, str) else None,
                response_id=response_id if isinstance(response_id, str) else None,
            )
        )
    return out


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
    if not isinstance(items, list):
        raise DecodeError("Mistral 'messages' is not a list")
    out: list[Message] = []
    pending: list[tuple[str, str]] = []  # (id, name) of calls not answered yet
    previous_was_tool = False
    for position, raw in enumerate(items):
        item = as_dict(raw)
        where = f"Mistral message {position}"
        if not isinstance(item, dict):
            raise DecodeError(f"{where} is a {type(raw).__name__}, not a message object")
        role = item.get("role")
        if role == "tool":
            result = _tool_result_from_mistral(item, where, pending)
            add_tool_result(out, result, join=previous_was_tool)
            previous_was_tool = True
            continue
        previous_was_tool = False
        if role == "system":
            out.append(SystemMessage(content=_content_from_mistral(item.get("content"), where)))
        elif role == "user":
            out.append(UserMessage(content=_content_from_mistral(item.get("content"), where)))
        elif role == "assistant":
            assistant = _assistant_from_mistral(item, where)
            pending = [(call.id, call.name) for call in assistant.tool_calls]
            out.append(assistant)
        else:
            raise DecodeError(f"{where} has role {role!r}, not system, user, assistant or tool")
    return out


def _assistant_from_mistral(item: dict[str, Any], where: str, **fields: Any) -> AssistantMessage:
    blocks = _content_from_mistral(item.get("content"), where)
    calls = item.get("tool_calls") or []
    if not isinstance(calls, list):
        raise DecodeError(f"{where}: tool_calls is not a list")
    for number, call in enumerate(calls):
        blocks.append(_tool_call_from_mistral(call, f"{where}, tool call {number}"))
    if item.get("prefix") is True:
        fields["metadata"] = {PROVIDER: {"prefix": True}}
    return AssistantMessage(content=blocks, provider=PROVIDER, **fields)


def _content_from_mistral(content: Any, where: str) -> list[Block]:
    return blocks_from_content(content, where, _chunk_from_mistral, "chunk")


def _chunk_from_mistral(raw: Any, where: str) -> Block:
    chunk = as_dict(raw)
    if not isinstance(chunk, dict):
        raise DecodeError(f"{where} is a {type(raw).__name__}, not a chunk object")
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


def _tool_result_from_mistral(
    item: dict[str, Any], where: str, pending: list[tuple[str, str]]
) -> ToolResultBlock:
    name = item.get("name") if isinstance(item.get("name"), str) else None
    call_id = item.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        call_id = pair_call(pending, name) or _new_call_id()
    else:
        pending[:] = [entry for entry in pending if entry[0] != call_id]
    content = item.get("content")
    result: str | list[ContentBlock]
    if content is None or isinstance(content, str):
        result = content or ""
    elif isinstance(content, list):
        result = []
        for number, raw in enumerate(content):
            block = _chunk_from_mistral(raw, f"{where}, chunk {number}")
            if isinstance(block, ThinkingBlock):  # not a tool-result block: keep it verbatim
                block = RawBlock(provider=PROVIDER, data=as_dict(raw))
            assert not isinstance(block, (ToolCallBlock, ToolResultBlock))
            result.append(block)
    else:
        raise DecodeError(f"{where}: content is a {type(content).__name__}, not text or chunks")
    return ToolResultBlock(tool_call_id=call_id, content=result, name=name)
