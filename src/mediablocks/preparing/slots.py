"""Where each media block sits in the messages (`_Slot`), what became of it, and the new messages
with every changed block put back in its place (`_rebuild`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..blocks import ContentBlock, ToolResultBlock
from ..changes import Change
from ..media import AudioBlock, ImageBlock, MediaBlock, VideoBlock
from ..messages import Message
from ..mime import mime_kind
from ..mime.names import OUTPUT_EXTENSIONS
from ..sources import BytesSource


@dataclass
class _Slot:
    """One media block found in the messages, and what became of it."""

    message_index: int
    block_index: int
    item_index: int | None
    block: MediaBlock
    result: MediaBlock = None  # type: ignore[assignment]
    changes: tuple[Change, ...] = ()
    size: int | None = None  # raw bytes after preparation (None: not read)
    size_before: int | None = None
    seconds: float | None = None
    pages: int | None = None
    problems: list[str] = field(default_factory=list)
    replacement: list[ContentBlock] | None = None
    """Blocks that take this block's place, in order (``None``: ``result`` alone does)."""
    parts: list[_Slot] = field(default_factory=list)
    """One slot per media block of ``replacement``, counted in the request totals."""
    checked: bool = False
    """Its new media was decode-checked by the job that made it (`walk` need not check it)."""

    def __post_init__(self) -> None:
        self.result = self.block

    def replace_with(self, blocks: Sequence[ContentBlock], changes: Sequence[Change]) -> None:
        """Put ``blocks`` (text and media, in order) where this one block was.

        The one way a media block becomes several (video frames with their timestamps, audio
        chunks with their offsets, PDF pages): `_rebuild` splices them into the message or tool
        result, and each media block among them counts in the request totals as a part.
        """
        self.replacement = list(blocks)
        self.changes = tuple(changes)
        self.parts = []
        for block in self.replacement:
            if isinstance(block, MediaBlock):
                part = _Slot(self.message_index, self.block_index, self.item_index, block)
                part.size = part.size_before = _local_size(block)
                self.parts.append(part)
        self.size = sum(part.size or 0 for part in self.parts)

    @property
    def where(self) -> str:
        text = f"message {self.message_index}, block {self.block_index}"
        if self.item_index is not None:
            text += f", item {self.item_index}"
        return f"{text}: {self.block.describe()}"


def _local_size(block: MediaBlock) -> int | None:
    return len(block.source.data) if isinstance(block.source, BytesSource) else None


def _counted(slots: list[_Slot]) -> list[_Slot]:
    """The slots the request totals count: a replaced block counts as its parts."""
    counted: list[_Slot] = []
    for slot in slots:
        counted.extend(slot.parts if slot.replacement is not None else [slot])
    return counted


def _kind(block: MediaBlock) -> str:
    if isinstance(block, ImageBlock):
        return "image"
    if isinstance(block, AudioBlock):
        return "audio"
    if isinstance(block, VideoBlock):
        return "video"
    return "document" if mime_kind(block.mime_type) == "file" else mime_kind(block.mime_type)


def _replaced(
    block: MediaBlock,
    data: bytes,
    mime: str,
    changes: tuple[Change, ...],
    provider: str,
) -> MediaBlock:
    """A block of the same class over new bytes, keeping the caller's fields and notes (and
    noting in its metadata that ``provider``'s preparation made these ``changes``)."""
    filename = block.filename
    if filename and mime != block.mime_type and mime in OUTPUT_EXTENSIONS:
        filename = os.path.splitext(filename)[0] + OUTPUT_EXTENSIONS[mime]
    fresh = type(block).from_source(BytesSource(data=data), mime, filename, block.strict)
    note = {
        "provider": provider,
        "changes": [str(change) for change in changes],
    }
    metadata = {**block.metadata, "prepared": note}
    keep = {
        name: getattr(block, name)
        for name in type(block).model_fields
        if name not in ("source", "declared_mime", "filename", "strict", "metadata")
    }
    return fresh.model_copy(update={**keep, "metadata": metadata})


def _find_media(messages: list[Message]) -> list[_Slot]:
    found: list[_Slot] = []
    for m, message in enumerate(messages):
        for b, block in enumerate(message.content):
            if isinstance(block, MediaBlock):
                found.append(_Slot(m, b, None, block))
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                for i, item in enumerate(block.content):
                    if isinstance(item, MediaBlock):
                        found.append(_Slot(m, b, i, item))
    return found


def _rebuild(messages: list[Message], slots: list[_Slot]) -> list[Message]:
    """New messages with each changed slot's block replaced: by ``result``, or spliced out into
    its ``replacement`` blocks (in a message's content or a tool result's content alike)."""
    changed = [s for s in slots if s.result is not s.block or s.replacement is not None]
    if not changed:
        return list(messages)
    by_message: dict[int, list[_Slot]] = {}
    for slot in changed:
        by_message.setdefault(slot.message_index, []).append(slot)
    result = list(messages)
    for m, message_slots in by_message.items():
        content: list[Any] = list(result[m].content)
        nested: dict[int, list[_Slot]] = {}
        for slot in message_slots:
            if slot.item_index is None:
                content[slot.block_index] = _blocks_of(slot)
            else:
                nested.setdefault(slot.block_index, []).append(slot)
        for b, item_slots in nested.items():
            tool_result = content[b]
            assert isinstance(tool_result, ToolResultBlock)
            items: list[Any] = list(tool_result.content)
            for slot in item_slots:
                items[slot.item_index or 0] = _blocks_of(slot)
            content[b] = tool_result.model_copy(update={"content": _flattened(items)})
        result[m] = result[m].model_copy(update={"content": _flattened(content)})
    return result


def _blocks_of(slot: _Slot) -> list[Any]:
    return [slot.result] if slot.replacement is None else list(slot.replacement)


def _flattened(content: list[Any]) -> list[Any]:
    """Content with each list of replacement blocks spliced in where its block was."""
    flat: list[Any] = []
    for entry in content:
        flat.extend(entry if isinstance(entry, list) else [entry])
    return flat
