"""OpenAI Responses: `to_openai_responses` builds ``client.responses.create`` fields,
`from_openai_responses` reads request bodies, input item lists and responses back.

The Responses API takes a flat list of *items*, not messages: a user message, an assistant
message, a reasoning item, a function call and its output are each one item. Encoding flattens our
messages into items in order; decoding groups consecutive items back into messages (assistant-side
items into one `AssistantMessage`, call outputs into one `ToolMessage`), so
``decode(encode(messages))`` gives the same messages back.

What maps to what (details and examples in ``docs/providers/openai-responses.md``):

- system messages -> ``system`` message items in ``input`` (``developer`` when the message's
  ``metadata["openai-responses"]["role"]`` says so); a request's ``instructions`` decodes to a
  `SystemMessage` marked to go back out as ``instructions``.
- text -> ``input_text`` parts (user, system) or ``output_text`` parts in the assistant message
  item they came from (its ``id``, ``status`` and annotations kept); assistant text with no item
  id goes out as ``{"role": "assistant", "content": "text"}``.
- images -> ``input_image``: a URL (OpenAI fetches images), a data URI, or an OpenAI file id.
- files -> ``input_file``: ``file_data`` (a data URI) with a filename, ``file_url``, or
  ``file_id``. Audio and video raise: the Responses API takes no audio or video input.
- tool calls -> ``function_call`` items; tool results -> ``function_call_output`` items whose
  output is text or a list of text, image and file parts (media in tool results go natively).
- reasoning items -> `ThinkingBlock` (summary text, ``encrypted_content`` as the signature, item
  id kept) replayed verbatim; other providers' thinking follows ``options.thinking``.
- every other item (web search, file search, computer, MCP, custom tool calls, item references...)
  -> `RawBlock`, sent back verbatim in its place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from typing_extensions import assert_never

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ...sources import URLSource
from .._args import dump_args
from .._common import (
    data_uri,
    default_filename,
    file_id_of,
    inline_mime,
    sendable,
    unsupported,
    use_url,
)
from .._options import EncodeOptions
from ..openai_chat.translate import OPENAI_STORES, check_inline_image
from ._wire import (
    _SUMMARY_JOIN,
    PROVIDER,
    _summary_text,
)
from .decode import from_openai_responses

__all__ = ["PROVIDER", "from_openai_responses", "to_openai_responses"]


_M = TypeVar("_M", bound=MediaBlock)


def to_openai_responses(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """The ``input`` (and ``instructions``) fields of ``client.responses.create(model=..., ...)``.

    System messages stay in ``input`` as ``system``/``developer`` items, in order; only system
    messages decoded from a request's ``instructions`` go back to ``instructions``. The JSON
    target is the same: the SDK and the HTTP API both take data URIs and base64 text.
    """
    encoder = _Encoder(options or EncodeOptions())
    items = encoder.run(messages)
    fields: dict[str, Any] = {"input": _as_string_input(items, messages)}
    if encoder.instructions:
        fields["instructions"] = _SUMMARY_JOIN.join(encoder.instructions)
    return fields


class _Encoder:
    """One encoding pass: the items so far and the text bound for ``instructions``."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.items: list[dict[str, Any]] = []
        self.instructions: list[str] = []

    def run(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        for index, message in sendable(messages):
            if isinstance(message, SystemMessage):
                self._system(message, index)
            elif isinstance(message, UserMessage):
                self._user(message, index)
            elif isinstance(message, AssistantMessage):
                self._assistant(message.content, index)
            elif isinstance(message, ToolMessage):
                self._tool(message.content, index)
            else:
                assert_never(message)
        return self.items

    # -- roles ------------------------------------------------------------------------------

    def _system(self, message: SystemMessage, index: int) -> None:
        notes = _notes(message.metadata)
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(message.content):
            if isinstance(block, (TextBlock, ThinkingBlock)) or (
                isinstance(block, RawBlock) and _is_part(block)
            ):
                part = self._part(block, index, position)
                if part is not None:
                    parts.append(part)
            elif isinstance(block, (ToolCallBlock, ToolResultBlock, RawBlock, MediaBlock)):
                raise unsupported(
                    PROVIDER, block, index, position, "OpenAI system messages take text only"
                )
            else:
                assert_never(block)
        if notes.get("instructions") is True:
            if any(part.get("type") != "input_text" for part in parts):
                raise UnsupportedBlockError(
                    f"{PROVIDER}: message {index} goes to 'instructions', which is text only"
                )
            self.instructions.append(_SUMMARY_JOIN.join(part["text"] for part in parts))
            return
        role = "developer" if notes.get("role") == "developer" else "system"
        self.items.append(_shaped({"type": "message", "role": role, "content": parts}, notes))

    def _user(self, message: UserMessage, index: int) -> None:
        """Tool results and verbatim items go out first, in order, then the message item."""
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(message.content):
            if isinstance(block, ToolResultBlock):
                self.items.append(self._tool_result(block, index, position))
            elif isinstance(block, RawBlock) and not _is_part(block):
                self.items.append(_raw_item(block, index, position))
            elif isinstance(block, ToolCallBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool calls belong in assistant messages"
                )
            else:
                part = self._part(block, index, position)
                if part is not None:
                    parts.append(part)
        if parts or not message.content:
            item = {"type": "message", "role": "user", "content": parts}
            self.items.append(_shaped(item, _notes(message.metadata)))

    def _assistant(self, blocks: Sequence[Block], index: int) -> None:
        """Output items in order; text of one decoded message item goes back into that item."""
        open_item: dict[str, Any] | None = None
        for position, block in enumerate(blocks):
            item_notes = _item_notes(block)
            if isinstance(block, (TextBlock, RawBlock)) and isinstance(item_notes.get("id"), str):
                part = _output_part(block, index, position)
                if open_item is not None and open_item.get("id") == item_notes["id"]:
                    open_item["content"].append(part)
                    continue
                open_item = {
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    **item_notes,
                    "content": [part],
                }
                self.items.append(open_item)
                continue
            open_item = None
            self._assistant_block(block, index, position)

    def _assistant_block(self, block: Block, index: int, position: int) -> None:
        if isinstance(block, TextBlock):
            self.items.append(_easy_assistant(block.text, _item_notes(block)))
        elif isinstance(block, ToolCallBlock):
            self.items.append(_tool_call_to_openai_responses(block))
        elif isinstance(block, ThinkingBlock):
            self._thinking_item(block)
        elif isinstance(block, RawBlock):
            if _is_part(block):
                raise unsupported(
                    PROVIDER, block, index, position, "a verbatim part outside its message item"
                )
            self.items.append(_raw_item(block, index, position))
        elif isinstance(block, (ToolResultBlock, MediaBlock)):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "OpenAI assistant items carry text, reasoning and tool calls; media go in "
                "user messages or tool results",
            )
        else:
            assert_never(block)

    def _thinking_item(self, block: ThinkingBlock) -> None:
        """Own reasoning (with its item id) is replayed verbatim; other thinking per option."""
        reasoning = _reasoning_to_openai_responses(block)
        if reasoning is not None:
            self.items.append(reasoning)
        elif self.options.thinking == "text" and block.thinking:
            self.items.append(_easy_assistant(block.thinking, {}))

    def _tool(self, blocks: Sequence[Block], index: int) -> None:
        for position, block in enumerate(blocks):
            if isinstance(block, ToolResultBlock):
                self.items.append(self._tool_result(block, index, position))
            elif isinstance(block, RawBlock) and not _is_part(block):
                self.items.append(_raw_item(block, index, position))
            elif isinstance(block, (TextBlock, ThinkingBlock, ToolCallBlock, RawBlock, MediaBlock)):
                raise unsupported(
                    PROVIDER, block, index, position, "a tool message holds tool results"
                )
            else:
                assert_never(block)

    # -- parts ------------------------------------------------------------------------------

    def _part(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        """One input content part (None when the block is dropped by a documented option)."""
        if isinstance(block, TextBlock):
            return {**_extra(block), "type": "input_text", "text": block.text}
        if isinstance(block, ThinkingBlock):
            if self.options.thinking == "text" and block.thinking:
                return {"type": "input_text", "text": block.thinking}
            return None
        if isinstance(block, RawBlock):
            return _raw_part(block, index, position)
        if isinstance(block, ImageBlock):
            return _image_to_openai_responses(block, index, position, self.options)
        if isinstance(block, FileBlock):
            return _file_to_openai_responses(block, index, position, self.options)
        if isinstance(block, AudioBlock):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "the Responses API takes no audio input (its content parts are input_text, "
                "input_image and input_file); use openai-chat with an audio model, or transcribe",
            )
        if isinstance(block, VideoBlock):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "the Responses API takes no video; send frames as images",
            )
        if isinstance(block, (ToolCallBlock, ToolResultBlock)):
            raise unsupported(PROVIDER, block, index, position, "not allowed here")
        assert_never(block)

    def _tool_result(self, result: ToolResultBlock, index: int, position: int) -> dict[str, Any]:
        """A ``function_call_output``: the text, or a list of text, image and file parts."""
        output: str | list[dict[str, Any]]
        if isinstance(result.content, str):
            output = result.content
        else:
            output = []
            for block in result.content:
                part = self._part(block, index, position)
                if part is not None:
                    output.append(part)
        return {
            **_item_notes(result),
            "type": "function_call_output",
            "call_id": result.tool_call_id,
            "output": output,
        }


def _shaped(item: dict[str, Any], notes: dict[str, Any]) -> dict[str, Any]:
    """A message item in the form its decoded original had: without ``type`` and with its text
    as a plain string (the API reference's "EasyInputMessage"), when it came so."""
    form = notes.get("form")
    if not isinstance(form, dict):
        return item
    shaped = dict(item)
    if form.get("untyped"):
        shaped.pop("type", None)
    parts = shaped["content"]
    one_text = len(parts) == 1 and set(parts[0]) == {"type", "text"}
    if form.get("content") == "string" and one_text and parts[0]["type"] == "input_text":
        shaped["content"] = parts[0]["text"]
    return shaped


def _as_string_input(items: list[dict[str, Any]], messages: Sequence[Message]) -> Any:
    """``input`` as the text it was, when a request's whole input was one string ("text input
    to the model, equivalent to a text input with the user role", API reference)."""
    sent = [m for m in messages if not _notes(m.metadata).get("instructions")]
    if len(items) != 1 or len(sent) != 1 or _notes(sent[0].metadata).get("input") != "string":
        return items
    content = items[0].get("content")
    if items[0].get("role") != "user" or not isinstance(content, list) or len(content) != 1:
        return items
    part = content[0]
    if part.get("type") == "input_text" and set(part) == {"type", "text"}:
        return part["text"]
    return items


def _notes(metadata: Mapping[str, Any]) -> dict[str, Any]:
    notes = metadata.get(PROVIDER)
    return notes if isinstance(notes, dict) else {}


def _item_notes(block: Block) -> dict[str, Any]:
    """The decoded item's unmodelled keys (``id``, ``status``, ``phase``...) kept on a block."""
    item = block.for_provider(PROVIDER).get("item")
    return dict(item) if isinstance(item, dict) else {}


def _extra(block: Block) -> dict[str, Any]:
    """The part's unmodelled keys, as decoded (``prompt_cache_breakpoint``, ``logprobs``...)."""
    extra = block.for_provider(PROVIDER).get("extra")
    return dict(extra) if isinstance(extra, dict) else {}


def _is_part(block: RawBlock) -> bool:
    """True for a verbatim content part; a `RawBlock` is a whole item unless marked a part."""
    return block.for_provider(PROVIDER).get("slot") == "part"


def _check_raw(block: RawBlock, index: int, position: int) -> None:
    if block.provider != PROVIDER:
        raise unsupported(
            PROVIDER, block, index, position, f"it holds {block.provider} content verbatim"
        )


def _raw_item(block: RawBlock, index: int, position: int) -> dict[str, Any]:
    _check_raw(block, index, position)
    return dict(block.data)


def _raw_part(block: RawBlock, index: int, position: int) -> dict[str, Any]:
    _check_raw(block, index, position)
    if not _is_part(block):
        raise unsupported(PROVIDER, block, index, position, "a verbatim item is not a content part")
    return dict(block.data)


def _easy_assistant(text: str, notes: dict[str, Any]) -> dict[str, Any]:
    """Assistant text with no item id: the plain-string form every OpenAI server takes.

    Of the item's kept keys only ``phase`` has a place in that form (``status`` needs an id).
    """
    kept = {key: notes[key] for key in ("phase",) if key in notes}
    return {**kept, "type": "message", "role": "assistant", "content": text}


def _output_part(block: TextBlock | RawBlock, index: int, position: int) -> dict[str, Any]:
    if isinstance(block, RawBlock):
        return _raw_part(block, index, position)
    if block.for_provider(PROVIDER).get("refusal") is True:
        return {**_extra(block), "type": "refusal", "refusal": block.text}
    return {
        **_extra(block),
        "type": "output_text",
        "text": block.text,
        "annotations": [dict(note) for note in block.annotations],
    }


def _reasoning_to_openai_responses(block: ThinkingBlock) -> dict[str, Any] | None:
    """A ``reasoning`` item for OpenAI's own reasoning that has its item id, else None."""
    if block.provider != PROVIDER:
        return None
    notes = block.for_provider(PROVIDER)
    item = _item_notes(block)
    if not isinstance(item.get("id"), str):
        return None
    stored = notes.get("summary")
    summary: list[dict[str, Any]]
    from_content = notes.get("text_from") == "content" and isinstance(item.get("content"), list)
    if from_content and _summary_text(item["content"]) == block.thinking:
        summary = [dict(part) for part in stored] if isinstance(stored, list) else []
    elif isinstance(stored, list) and _summary_text(stored) == block.thinking:
        summary = [dict(part) for part in stored]
    elif block.thinking:
        summary = [{"type": "summary_text", "text": block.thinking}]
    else:
        summary = []
    out: dict[str, Any] = {**item, "type": "reasoning", "summary": summary}
    if block.signature is not None:
        out["encrypted_content"] = block.signature
    return out


def _openai_file_id(block: ImageBlock | FileBlock, index: int, position: int) -> str | None:
    source = file_id_of(block)
    if source is None:
        return None
    if source.provider is not None and source.provider not in OPENAI_STORES:
        raise unsupported(PROVIDER, block, index, position, f"it is a {source.provider} file")
    return source.file_id


def _image_to_openai_responses(
    block: ImageBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    detail = block.detail or block.for_provider(PROVIDER).get("detail") or "auto"
    part: dict[str, Any] = {**_extra(block), "type": "input_image", "detail": detail}
    file_id = _openai_file_id(block, index, position)
    if file_id is not None:
        part["file_id"] = file_id
    elif use_url(block, True, options):
        assert isinstance(block.source, URLSource)
        part["image_url"] = block.source.url
    else:
        check_inline_image(PROVIDER, block, index, position, options)
        part["image_url"] = data_uri(block, options)
    return part


def _file_to_openai_responses(
    block: FileBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    part: dict[str, Any] = {**_extra(block), "type": "input_file"}
    file_id = _openai_file_id(block, index, position)
    if file_id is not None:
        part["file_id"] = file_id
        if block.filename:
            part["filename"] = block.filename
    elif use_url(block, True, options):
        assert isinstance(block.source, URLSource)
        part["file_url"] = block.source.url
    else:
        mime = inline_mime(block, options)
        part["file_data"] = data_uri(block, options)
        part["filename"] = block.filename or default_filename(mime)
    return part


def _tool_call_to_openai_responses(block: ToolCallBlock) -> dict[str, Any]:
    return {
        **_item_notes(block),
        "type": "function_call",
        "call_id": block.id,
        "name": block.name,
        "arguments": dump_args(block),
    }
