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
from typing import Any, Union

from typing_extensions import assert_never

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import MediaBlocksError, UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    Message,
)
from ...mime.encodings import text_encoding, utf8_text
from ...sources import URLSource
from .._common import (
    SystemBlock,
    base64_data,
    file_id_of,
    group_turns,
    is_own_thinking,
    object_args,
    results_first,
    system_parts,
    tool_results,
    unsupported,
    use_url,
)
from .._options import EncodeOptions
from ._wire import (
    _PDF,
    _PLAIN_TEXT,
    _UNTITLED,
)
from ._wire import PROVIDER as PROVIDER
from .decode import _part_from_anthropic as _part_from_anthropic
from .decode import from_anthropic

__all__ = ["from_anthropic", "to_anthropic"]


_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]


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
    def encode(block: SystemBlock, index: int, position: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return _text_to_anthropic(block)
        if isinstance(block, ThinkingBlock):
            return _thinking_to_anthropic(block, options, replay=False)
        return _raw_to_anthropic(block, index, position)

    why = "Anthropic system prompts take text only"
    return system_parts(PROVIDER, blocks, index, encode, why)


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
        elif isinstance(block, MediaBlock):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "Anthropic assistant turns hold text, thinking and tool calls; media goes in "
                "user turns",
            )
        else:
            assert_never(block)
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
    if isinstance(block, (ThinkingBlock, ToolCallBlock, ToolResultBlock)):
        raise unsupported(PROVIDER, block, index, position, "not allowed here")
    assert_never(block)


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
        data = block.read(options.policy)
        text = utf8_text(data)
        if text is None:  # UTF-16 without a BOM decodes as UTF-8 full of NULs: never sent
            found = text_encoding(data) or "not text"
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                f"the text is not UTF-8 ({found}); mb.prepare converts it",
            )
        return {"type": "text", "media_type": _PLAIN_TEXT, "data": text}
    raise unsupported(
        PROVIDER,
        block,
        index,
        position,
        f"Anthropic reads PDF and plain-text documents, this is {mime}; convert it, or send "
        "its text as a TextBlock",
    )


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


def _raw_to_anthropic(block: RawBlock, index: int, position: int) -> dict[str, Any]:
    if block.provider != PROVIDER:
        raise unsupported(
            PROVIDER, block, index, position, f"it holds {block.provider} content, not Anthropic's"
        )
    return dict(block.data)
