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
from collections.abc import Sequence
from typing import Any, TypeVar, Union

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ...sources import URLSource
from .._chat_envelope import ABSENT
from .._common import (
    base64_data,
    call_names,
    data_uri,
    dump_args,
    file_id_of,
    is_own_thinking,
    sendable,
    unsupported,
    use_url,
)
from .._options import EncodeOptions
from ._wire import (
    _ID_ALPHABET,
    _joined_thinking,
)
from ._wire import PROVIDER as PROVIDER
from .decode import from_mistral

__all__ = ["from_mistral", "mistral_tool_call_ids", "to_mistral"]


_NOTHING_SAID = {"role": "assistant", "content": ""}
"""An assistant message left with nothing to send: not sent, as for every provider."""

_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]
_M = TypeVar("_M", bound=MediaBlock)
_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
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
    if block.filename and not block.for_provider(PROVIDER).get("unnamed"):
        chunk["document_name"] = block.filename
    return chunk


def _tool_call_to_mistral(block: ToolCallBlock, ids: dict[str, str]) -> dict[str, Any]:
    kept = block.for_provider(PROVIDER).get("call") or {}
    call = {
        **kept,
        "id": ids.get(block.id, block.id),
        "type": "function",
        "function": {"name": block.name, "arguments": dump_args(block)},
    }
    if kept.get("type") == ABSENT:
        del call["type"]
    return call
