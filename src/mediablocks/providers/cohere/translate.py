"""Cohere v2 chat: `to_cohere` turns messages into ``client.v2.chat`` fields, `from_cohere` reads
requests, message lists and responses back.

What maps to what (details in ``docs/providers/cohere.md``):

- text -> ``text`` content; a message holding exactly one text block is sent as a plain string.
- images -> ``image_url`` content: the URL itself (Cohere fetches images) or a data URI, with
  ``detail``.
- text documents (``text/*``, JSON) -> entries of the request's ``documents`` list, which the
  model reads and cites; ``{"id", "data": {"title", "text"}}``. PDFs and other files raise (use
  ``mb.prepare(..., documents="text")``); audio and video raise (Cohere takes neither).
- Cohere's own thinking -> ``thinking`` content; other thinking follows ``options.thinking``.
- the assistant's ``tool_plan`` -> a `TextBlock` marked ``provider_data["cohere"]["tool_plan"]``,
  sent back as ``tool_plan``; ``citations`` ride on the first text block's provider data.
- tool calls -> ``tool_calls`` with JSON-string arguments; tool results -> ``tool`` messages whose
  content is text or ``document`` entries; media in tool results follows
  ``options.tool_result_media``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import DecodeError, MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from ...messages import AssistantMessage, Message, Usage, UserMessage
from ...mime.encodings import text_encoding, utf8_text
from ...sources import URLSource
from .._args import dump_args
from .._chat_completions import ChatEncoder, Reply, chat_messages, image_url_block, tool_calls_of
from .._common import (
    as_dict,
    blocks_from_content,
    file_id_of,
    pair_call,
    tool_args,
    tool_result_content,
    unsupported,
    usage_count,
)
from .._options import EncodeOptions
from .._payload import decode_payload, has_messages, wire_object

__all__ = ["from_cohere", "to_cohere"]

PROVIDER = "cohere"
_TEXT_DOCUMENTS = ("application/json", "application/xml")
_MAX_DOCUMENT_CHARS = 10_000_000
"""A text document larger than this many characters is refused rather than sent."""


# -- encode -----------------------------------------------------------------------------------


def to_cohere(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
    """The fields of ``client.v2.chat(model=..., **fields)``: ``messages``, and ``documents``
    when the messages hold text documents.

    The JSON target is the same: Cohere's SDK and HTTP API both take data URIs and JSON text.
    """
    encoder = _Encoder(options or EncodeOptions())
    fields: dict[str, Any] = {"messages": encoder.run(messages)}
    if encoder.documents:
        fields["documents"] = encoder.documents
    return fields


class _Encoder(ChatEncoder):
    """One encoding pass: the messages, the request's documents, and media moved out of tool
    results."""

    provider = PROVIDER
    system_only = "Cohere system messages take text only"
    tool_media_refusal = "Cohere tool results carry text and documents only"
    media_refusal = "Cohere models take no audio or video"
    moved_kinds = (ImageBlock, AudioBlock, VideoBlock)

    def __init__(self, options: EncodeOptions) -> None:
        super().__init__(options)
        self.documents: list[dict[str, Any]] = []
        self.plans: list[str] = []
        self.citations: list[Any] = []

    def user(self, message: UserMessage, index: int) -> None:
        self.flush_moved()
        documents_before = len(self.documents)
        parts, has_results = self.user_parts(message.content, index)
        has_documents = len(self.documents) > documents_before
        if parts or not (has_results or has_documents):
            # a message of documents only is all in the request's ``documents``
            self.out.append({"role": "user", "content": self.content_value(parts)})

    def reply(self, message: AssistantMessage, index: int) -> dict[str, Any]:
        self.plans = []
        self.citations = []
        reply = self.gather_reply(message.content, index)
        out = reply.fields
        if reply.parts or not reply.calls:
            out["content"] = reply.parts
        if self.plans:
            out["tool_plan"] = "".join(self.plans)
        if reply.calls:
            out["tool_calls"] = reply.calls
        if self.citations:
            out["citations"] = self.citations
        return out

    def reply_block(self, block: Block, index: int, position: int, reply: Reply) -> bool:
        """The ``tool_plan`` goes in its field; citations ride beside the text they cite."""
        if isinstance(block, TextBlock):
            if block.for_provider(PROVIDER).get("tool_plan"):
                self.plans.append(block.text)
                return True
            self.citations.extend(block.for_provider(PROVIDER).get("citations") or [])
        return False

    def tool_call(self, block: ToolCallBlock) -> dict[str, Any]:
        return {
            "id": block.id,
            "type": "function",
            "function": {"name": block.name, "arguments": dump_args(block)},
        }

    def result_part(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        """A file in a tool result is a ``document`` entry of the result itself."""
        if isinstance(block, FileBlock):
            document = _document_to_cohere(block, index, position, self.options)
            return {"type": "document", "document": document}
        return super().result_part(block, index, position)

    def content_value(self, parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
        """A lone plain text part goes out as a string, the form every Cohere model takes."""
        return super().content_value(parts) if parts else parts

    # -- blocks -----------------------------------------------------------------------------

    def own_thinking(self, block: ThinkingBlock) -> dict[str, Any]:
        return {"type": "thinking", "thinking": block.thinking}

    def image_part(self, block: ImageBlock, index: int, position: int) -> dict[str, Any]:
        if file_id_of(block) is not None:
            why = "Cohere takes images by URL or inline, not file id"
            raise unsupported(PROVIDER, block, index, position, why)
        image_url: dict[str, Any] = {"url": self.url_or_data_uri(block, index, position)}
        detail = block.detail or block.for_provider(PROVIDER).get("detail")
        if detail is not None:
            image_url["detail"] = detail
        return {"type": "image_url", "image_url": image_url}

    def file_part(self, block: FileBlock, index: int, position: int) -> None:
        """A text document goes to the request's ``documents``, not into the message."""
        self.documents.append(_document_to_cohere(block, index, position, self.options))
        return


def _document_to_cohere(
    block: FileBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    """A text document as a Cohere document: ``{"id", "data": {"title", "text"}}``."""
    stored = block.for_provider(PROVIDER).get("document")
    if isinstance(stored, dict):
        return dict(stored)  # a document Cohere sent, back as it was
    if file_id_of(block) is not None:
        raise unsupported(PROVIDER, block, index, position, "Cohere takes no file ids")
    try:
        if isinstance(block.source, URLSource) and options.url_media == "url":
            raise unsupported(PROVIDER, block, index, position, "Cohere fetches no documents")
        data = block.read(options.policy)
        mime = block.mime_type
    except MediaBlocksError as exc:
        raise unsupported(PROVIDER, block, index, position, str(exc)) from None
    if not (mime.startswith("text/") or mime in _TEXT_DOCUMENTS):
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            f"Cohere reads text documents only, this is {mime}; "
            "mb.prepare(messages, 'cohere', documents='text') extracts its text",
        )
    if len(data) > _MAX_DOCUMENT_CHARS * 4:
        raise unsupported(PROVIDER, block, index, position, "the document is too large to send")
    text = utf8_text(data)
    if text is None:  # never replacement characters or the NULs of UTF-16 read as UTF-8
        found = text_encoding(data) or "not text"
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            f"the text is not UTF-8 ({found}); "
            "mb.prepare(messages, 'cohere', documents='text') reads it",
        )
    digest = hashlib.sha256(data).hexdigest()[:16]
    title = block.filename or "document"
    return {"id": f"doc_{digest}", "data": {"title": title, "text": text}}


# -- decode -----------------------------------------------------------------------------------


def from_cohere(payload: Any) -> list[Message]:
    """Messages from a Cohere v2 chat request body, a message list, or a chat response.

    The SDK's objects (``V2ChatResponse``, message models) are read like dicts.
    """
    return decode_payload(
        payload,
        "a Cohere payload",
        lambda items: _messages_from_cohere(items, None),
        ("a response with 'message' and 'finish_reason'", _is_response, _response_from_cohere),
        request=(
            "a request with 'messages'",
            has_messages,
            lambda data: _messages_from_cohere(data["messages"], data.get("documents")),
        ),
    )


def _is_response(data: dict[str, Any]) -> bool:
    return "finish_reason" in data or ("message" in data and "messages" not in data)


def _response_from_cohere(data: dict[str, Any]) -> AssistantMessage:
    message = as_dict(data.get("message")) or {"role": "assistant"}
    if not isinstance(message, dict):
        raise DecodeError("Cohere response: message is not an object")
    reason = data.get("finish_reason")
    response_id = data.get("id")
    return _assistant_from_cohere(
        message,
        "Cohere response",
        usage=_usage_from_cohere(data.get("usage")),
        stop_reason=reason if isinstance(reason, str) else None,
        response_id=response_id if isinstance(response_id, str) else None,
    )


def _usage_from_cohere(value: Any) -> Usage | None:
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    tokens = as_dict(usage.get("tokens"))
    if not isinstance(tokens, dict):
        tokens = as_dict(usage.get("billed_units"))
    if not isinstance(tokens, dict):
        return None
    cached = usage.get("cached_tokens")
    return Usage(
        input_tokens=usage_count(_whole(tokens.get("input_tokens"))),
        output_tokens=usage_count(_whole(tokens.get("output_tokens"))),
        cache_read_tokens=usage_count(_whole(cached)),
        raw=usage,
    )


def _whole(value: Any) -> Any:
    """Cohere sends counts as floats (``12.0``): whole numbers become ints, the rest as is."""
    if isinstance(value, float) and value.is_integer() and 0 <= value < 2**53:
        return int(value)
    return value


def _messages_from_cohere(items: Any, documents: Any) -> list[Message]:
    out = chat_messages(
        items,
        "Cohere",
        assistant=_assistant_from_cohere,
        tool_result=_tool_result_from_cohere,
        content=_content_from_cohere,
    )
    if documents is not None:
        out.extend(_documents_message(documents))
    return out


def _documents_message(documents: Any) -> list[Message]:
    """The request's ``documents`` as one user message of files (appended: Cohere has no place
    for them in the turn order)."""
    if not isinstance(documents, list):
        raise DecodeError("Cohere 'documents' is not a list")
    blocks: list[Block] = []
    for number, raw in enumerate(documents):
        blocks.append(_document_from_cohere(raw, f"Cohere document {number}"))
    return [UserMessage(content=blocks)] if blocks else []


def _document_from_cohere(raw: Any, where: str) -> FileBlock:
    document = as_dict(raw)
    if isinstance(document, str):
        document = {"data": {"text": document}}
    if not isinstance(document, dict) or not isinstance(document.get("data", {}), dict):
        raise DecodeError(f"{where} is not a document object")
    data = document.get("data") or {}
    text = data.get("text", data.get("snippet"))
    title = data.get("title")
    if not isinstance(text, str):
        text = ""
    block = FileBlock.from_bytes(
        text.encode("utf-8"), "text/plain", filename=title if isinstance(title, str) else None
    )
    return block.model_copy(update={"provider_data": {PROVIDER: {"document": document}}})


def _assistant_from_cohere(item: dict[str, Any], where: str, **fields: Any) -> AssistantMessage:
    blocks: list[Block] = []
    plan = item.get("tool_plan")
    if isinstance(plan, str) and plan:
        blocks.append(TextBlock(text=plan, provider_data={PROVIDER: {"tool_plan": True}}))
    content = _content_from_cohere(item.get("content"), where)
    citations = item.get("citations")
    if isinstance(citations, list) and citations:
        kept = [as_dict(citation) for citation in citations]
        for number, block in enumerate(content):
            if isinstance(block, TextBlock):
                data = {PROVIDER: {"citations": kept}}
                content[number] = block.model_copy(update={"provider_data": data})
                break
        else:
            content.append(RawBlock(provider=PROVIDER, data={"citations": kept}))
    blocks.extend(content)
    blocks.extend(tool_calls_of(item, where, _tool_call_from_cohere))
    return AssistantMessage(content=blocks, provider=PROVIDER, **fields)


def _part_from_cohere(raw: Any, where: str) -> Block:
    part = wire_object(raw, where, "a content object")
    kind = part.get("type")
    if kind == "text":
        text = part.get("text", "")
        if not isinstance(text, str):
            raise DecodeError(f"{where}: text is a {type(text).__name__}, not a string")
        return TextBlock(text=text)
    if kind == "thinking":
        thinking = part.get("thinking", "")
        if not isinstance(thinking, str):
            raise DecodeError(f"{where}: thinking is a {type(thinking).__name__}, not a string")
        return ThinkingBlock(thinking=thinking, provider=PROVIDER)
    if kind == "image_url":
        return _image_from_cohere(part, where)
    if kind == "document":
        return _document_from_cohere(part.get("document"), where)
    return RawBlock(provider=PROVIDER, data=part)


def _content_from_cohere(content: Any, where: str) -> list[Block]:
    return blocks_from_content(content, where, _part_from_cohere, "part")


def _image_from_cohere(part: dict[str, Any], where: str) -> ImageBlock:
    return image_url_block(as_dict(part.get("image_url")), where, PROVIDER, "image_url")


def _tool_call_from_cohere(call: Any, where: str) -> ToolCallBlock:
    data = as_dict(call)
    if not isinstance(data, dict):
        raise DecodeError(f"{where} is not a tool call object")
    function = as_dict(data.get("function"))
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise DecodeError(f"{where}: tool call has no function name")
    call_id = data.get("id")
    if not isinstance(call_id, str) or not call_id:
        raise DecodeError(f"{where}: tool call has no id")
    args, raw_args = tool_args(function.get("arguments"))
    return ToolCallBlock(id=call_id, name=function["name"], args=args, raw_args=raw_args)


def _tool_result_from_cohere(
    item: dict[str, Any], where: str, pending: list[tuple[str, str]]
) -> ToolResultBlock:
    call_id = item.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        call_id = pair_call(pending, None)
        if call_id is None:
            raise DecodeError(f"{where}: tool message has no tool_call_id and no call to answer")
    else:
        pending[:] = [entry for entry in pending if entry[0] != call_id]
    result = tool_result_content(
        item.get("content"), where, _part_from_cohere, "content", "part", kept_for=PROVIDER
    )
    return ToolResultBlock(tool_call_id=call_id, content=result)
