"""The block model: every piece of a message is one of these frozen, tagged pydantic models.

``Block`` is the discriminated union of all of them (tag ``type``), so a list of blocks round-trips
through JSON losslessly, media bytes included (as base64).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError, field_validator

from ._base import BlockBase
from .errors import DecodeError
from .media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock

__all__ = [
    "Block",
    "ContentBlock",
    "RawBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "parse_block",
    "parse_blocks",
    "summarize_validation_error",
]


class TextBlock(BlockBase):
    """Plain text. ``annotations`` keeps provider citations and similar notes verbatim."""

    type: Literal["text"] = "text"
    text: str
    annotations: list[dict[str, Any]] = []


class ThinkingBlock(BlockBase):
    """Model reasoning, with the opaque signature some providers need to continue a thread.

    ``redacted`` marks reasoning the provider encrypted: its payload is in ``redacted_data`` and
    ``thinking`` is empty. ``provider`` names who produced the signature, so translators can drop a
    foreign one (another provider would reject it) and keep their own.
    """

    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str | None = None
    redacted: bool = False
    redacted_data: str | None = None
    provider: str | None = None


class ToolCallBlock(BlockBase):
    """A call the model made to a tool.

    ``args`` is the parsed argument object. When the model sent arguments that are not valid JSON,
    ``args`` is empty and ``raw_args`` keeps the text verbatim, so nothing is lost or invented.
    """

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: dict[str, Any] = {}
    raw_args: str | None = None

    @property
    def args_valid(self) -> bool:
        """False when the model's argument text was not a JSON object."""
        return self.raw_args is None


class RawBlock(BlockBase):
    """Provider content mediablocks does not model, kept verbatim and sent back to that provider."""

    type: Literal["raw"] = "raw"
    provider: str
    data: dict[str, Any]


ContentBlock = Annotated[
    Union[TextBlock, ImageBlock, AudioBlock, VideoBlock, FileBlock, RawBlock],
    Field(discriminator="type"),
]
"""What a tool result may hold: text, media and raw provider blocks."""


class ToolResultBlock(BlockBase):
    """The result of a tool call: text, or a list of text and media blocks.

    ``name`` is the tool's name, which some providers (Gemini) require on the result. ``metadata``
    is for the application (timings, raw return values) and is never sent to a model.
    """

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    content: str | list[ContentBlock] = ""
    is_error: bool = False
    name: str | None = None
    metadata: dict[str, Any] = {}

    @field_validator("content", mode="before")
    @classmethod
    def _media_as_list(cls, value: Any) -> Any:
        if isinstance(value, (BlockBase, dict)):
            return [value]
        return value

    @property
    def text(self) -> str:
        """The text of the result: the string, or its text blocks joined by newlines."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def media(self) -> list[MediaBlock]:
        """The media blocks in the result."""
        if isinstance(self.content, str):
            return []
        return [b for b in self.content if isinstance(b, MediaBlock)]


Block = Annotated[
    Union[
        TextBlock,
        ThinkingBlock,
        ToolCallBlock,
        ToolResultBlock,
        ImageBlock,
        AudioBlock,
        VideoBlock,
        FileBlock,
        RawBlock,
    ],
    Field(discriminator="type"),
]
"""Any block, tagged by ``type``."""

_BLOCK_ADAPTER: TypeAdapter[Block] = TypeAdapter(Block)


def parse_block(data: Any) -> Block:
    """A block from a dict (or JSON text) in mediablocks' own format; `DecodeError` if invalid."""
    try:
        if isinstance(data, (str, bytes)):
            return _BLOCK_ADAPTER.validate_json(data)
        return _BLOCK_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise DecodeError(f"not a valid block: {summarize_validation_error(exc)}") from None


_KNOWN_TYPES = frozenset(
    {"text", "thinking", "tool_call", "tool_result", "image", "audio", "video", "file", "raw"}
)


def parse_blocks(data: Any, *, unknown: Literal["error", "raw"] = "error") -> list[Block]:
    """A list of blocks from dicts (or JSON text) in mediablocks' own format.

    Claude-native block JSON (``tool_use`` with ``input``, ``tool_result`` with ``tool_use_id``,
    ``image``/``document`` with an Anthropic ``source``, ``redacted_thinking``, server tool
    blocks...) is read as Anthropic's translator reads it. With ``unknown="raw"``, an item
    mediablocks cannot read (an unknown ``type``, or a known one that does not validate) is kept
    verbatim as ``RawBlock(provider="unknown", data=item)`` instead of failing the whole list.
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise DecodeError(f"block list is not valid JSON: {exc}") from None
    if not isinstance(data, list):
        raise DecodeError(f"a block list is a JSON list, not {type(data).__name__}")
    out: list[Block] = []
    for number, item in enumerate(data):
        native = _claude_native(item, number)
        if native is not None:
            out.append(native)
            continue
        if unknown == "raw" and isinstance(item, dict) and item.get("type") not in _KNOWN_TYPES:
            out.append(RawBlock(provider="unknown", data=item))
            continue
        try:
            out.append(_BLOCK_ADAPTER.validate_python(item))
        except ValidationError as exc:
            if unknown == "raw" and isinstance(item, dict):
                out.append(RawBlock(provider="unknown", data=item))
                continue
            raise DecodeError(
                f"not a valid block list: at {number}: {summarize_validation_error(exc)}"
            ) from None
    return out


_CLAUDE_TYPES = frozenset(
    {"tool_use", "server_tool_use", "redacted_thinking", "document", "search_result"}
)


def _is_claude_native(item: dict[str, Any]) -> bool:
    kind = item.get("type")
    source = item.get("source")
    return (
        kind in _CLAUDE_TYPES
        or (isinstance(kind, str) and kind.endswith("_tool_result"))
        or (kind == "tool_result" and "tool_use_id" in item)
        or (kind == "image" and isinstance(source, dict) and "type" in source)
        or (kind == "text" and "citations" in item)
        or (kind == "thinking" and "signature" in item and "provider" not in item)
    )


def _claude_native(item: Any, number: int) -> Block | None:
    """The block for a Claude-native block dict, None for anything else."""
    if not isinstance(item, dict) or not _is_claude_native(item):
        return None
    from .providers.anthropic.translate import (
        _part_from_anthropic,
    )

    block: Block = _part_from_anthropic(item, f"block {number} (Claude format)", {})
    return block


def summarize_validation_error(exc: ValidationError, limit: int = 3) -> str:
    """Pydantic's errors as one short line: ``at 0.text: Input should be a valid string``."""
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "top level"
        parts.append(f"at {where}: {error['msg']}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)
