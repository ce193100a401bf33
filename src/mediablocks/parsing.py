"""Block lists from JSON: mediablocks' own format, and Claude-native block JSON as Anthropic's
translator reads it.

Kept apart from `mediablocks.blocks` (the core models), which imports no provider: reading
Claude-native blocks needs the Anthropic translator.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ValidationError

from ._depth import loads
from .blocks import Block, RawBlock, _block_adapter, summarize_validation_error
from .errors import DecodeError, MediaBlocksError
from .sources._trust import loading

__all__ = ["parse_blocks"]


_KNOWN_TYPES = frozenset(
    {"text", "thinking", "tool_call", "tool_result", "image", "audio", "video", "file", "raw"}
)


def parse_blocks(data: Any, *, unknown: Literal["error", "raw"] = "error") -> list[Block]:
    """A list of blocks from dicts (or JSON text) in mediablocks' own format.

    Claude-native block JSON (``tool_use`` with ``input``, ``tool_result`` with ``tool_use_id``,
    ``image``/``document`` with an Anthropic ``source``, ``redacted_thinking``, server tool
    blocks...) is read as Anthropic's translator reads it. With ``unknown="raw"``, an item
    mediablocks cannot read (an unknown ``type``, or a known one that does not validate) is kept
    verbatim as ``RawBlock(provider="unknown", data=item)`` instead of failing the whole list;
    so is a Claude-native block that does not decode (a ``tool_use`` without an ``id``, an
    ``image`` whose source is broken).

    Given JSON text, the list is loaded input: its path and URL media are read only where a
    read's policy allows, as for `load_messages` (docs/history.md). Dicts are yours.
    """
    if isinstance(data, (str, bytes)):
        parsed = loads(data, "block list", "is not valid JSON")
        with loading("a loaded block list", None):
            return _parse_blocks(parsed, unknown)
    return _parse_blocks(data, unknown)


def _parse_blocks(data: Any, unknown: Literal["error", "raw"]) -> list[Block]:
    if not isinstance(data, list):
        raise DecodeError(f"a block list is a JSON list, not {type(data).__name__}")
    out: list[Block] = []
    for number, item in enumerate(data):
        try:
            native = _claude_native(item, number)
        except MediaBlocksError:
            if unknown != "raw":
                raise
            # A malformed Claude block (a tool_use without an id, an image with a bad source)
            # is kept verbatim like any block that does not validate: the list still loads.
            native = RawBlock(provider="unknown", data=item)
        if native is not None:
            out.append(native)
            continue
        if unknown == "raw" and isinstance(item, dict) and not _known_type(item.get("type")):
            out.append(RawBlock(provider="unknown", data=item))
            continue
        try:
            out.append(_block_adapter().validate_python(item))
        except ValidationError as exc:
            if unknown == "raw" and isinstance(item, dict):
                out.append(RawBlock(provider="unknown", data=item))
                continue
            raise DecodeError(
                f"not a valid block list: at {number}: {summarize_validation_error(exc)}"
            ) from None
    return out


def _known_type(kind: Any) -> bool:
    return isinstance(kind, str) and kind in _KNOWN_TYPES


_CLAUDE_TYPES = frozenset(
    {"tool_use", "server_tool_use", "redacted_thinking", "document", "search_result"}
)


def _is_claude_native(item: dict[str, Any]) -> bool:
    kind = item.get("type")
    if not isinstance(kind, str):  # a list or a dict is no type at all (and not hashable)
        return False
    source = item.get("source")
    return (
        kind in _CLAUDE_TYPES
        or kind.endswith("_tool_result")
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
