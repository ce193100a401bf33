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
from typing import Any

from ...blocks import (
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...media import AudioBlock, FileBlock, ImageBlock
from ...messages import (
    AssistantMessage,
    Message,
    UserMessage,
)
from ...sources import URLSource
from .._args import dump_args
from .._chat_completions import ChatEncoder
from .._chat_envelope import ABSENT
from .._common import (
    base64_data,
    call_names,
    data_uri,
    file_id_of,
    sendable,
    unsupported,
)
from .._options import EncodeOptions
from ._wire import (
    _ID_ALPHABET,
    _joined_thinking,
)
from ._wire import PROVIDER as PROVIDER
from .decode import from_mistral

__all__ = ["from_mistral", "mistral_tool_call_ids", "to_mistral"]


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


class _Encoder(ChatEncoder):
    """One encoding pass: the id mapping, tool names, and media moved out of tool results."""

    provider = PROVIDER
    system_only = "Mistral system messages take text only"
    tool_media_refusal = "Mistral tool messages carry text only (media in a tool result)"
    media_refusal = "Mistral models take no video"
    foreign_raw = "it holds {provider} content, not Mistral's"

    def __init__(self, options: EncodeOptions, messages: Sequence[Message]) -> None:
        super().__init__(options)
        self.ids = mistral_tool_call_ids(messages)
        self.names = call_names(messages)

    def user(self, message: UserMessage, index: int) -> None:
        """Tool results in a user message go out first as tool messages; the media moved out
        of them lead the user message that follows."""
        rest, has_results = self.user_parts(message.content, index)
        chunks = [*self.moved, *rest]
        self.moved = []
        if chunks or not has_results:
            self.out.append({"role": "user", "content": self.content_value(chunks)})

    def reply(self, message: AssistantMessage, index: int) -> dict[str, Any]:
        reply = super().reply(message, index)
        if message.metadata.get(PROVIDER, {}).get("prefix") is True:
            reply["prefix"] = True  # the reply continues from this message's text
        return reply

    def tool_call(self, block: ToolCallBlock) -> dict[str, Any]:
        return _tool_call_to_mistral(block, self.ids)

    def tool_message(
        self, result: ToolResultBlock, content: str | list[dict[str, Any]]
    ) -> dict[str, Any]:
        call_id = self.ids.get(result.tool_call_id, result.tool_call_id)
        message: dict[str, Any] = {"role": "tool", "content": content, "tool_call_id": call_id}
        name = self._tool_name(result)
        if name:
            message["name"] = name
        return message

    def moved_label(self, result: ToolResultBlock) -> str:
        call_id = self.ids.get(result.tool_call_id, result.tool_call_id)
        name = self._tool_name(result)
        return f"Media returned by tool call {call_id}" + (f" ({name})" if name else "") + ":"

    def _tool_name(self, result: ToolResultBlock) -> str | None:
        return result.name or self.names.get(result.tool_call_id)

    # -- blocks -----------------------------------------------------------------------------

    def own_thinking(self, block: ThinkingBlock) -> dict[str, Any]:
        """Mistral's own thinking is replayed as a ``thinking`` chunk."""
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

    def image_part(self, block: ImageBlock, index: int, position: int) -> dict[str, Any]:
        if file_id_of(block) is not None:
            why = "Mistral takes images by URL or inline, not file id"
            raise unsupported(PROVIDER, block, index, position, why)
        url = self.url_or_data_uri(block, index, position)
        image_url: str | dict[str, Any] = url
        stored_detail = block.for_provider(PROVIDER).get("detail")
        detail = block.detail or stored_detail
        if detail is not None:
            image_url = {"url": url, "detail": detail}
        return {"type": "image_url", "image_url": image_url}

    def audio_part(self, block: AudioBlock, index: int, position: int) -> dict[str, Any]:
        if file_id_of(block) is not None:
            why = "Mistral takes audio inline, not by file id"
            raise unsupported(PROVIDER, block, index, position, why)
        if self.use_url(block, index, position):  # Mistral fetches audio URLs
            assert isinstance(block.source, URLSource)
            return {"type": "input_audio", "input_audio": block.source.url}
        return {"type": "input_audio", "input_audio": base64_data(block, self.options)}

    def file_part(self, block: FileBlock, index: int, position: int) -> dict[str, Any]:
        file_id = file_id_of(block)
        if file_id is not None:
            if file_id.provider not in (None, PROVIDER):
                why = f"it is a {file_id.provider} file id"
                raise unsupported(PROVIDER, block, index, position, why)
            return {"type": "file", "file_id": file_id.file_id}
        fetched_by_mistral = self.use_url(block, index, position)
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
            url = data_uri(block, self.options)
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
