"""Every media block of a history (tool results included), and the history with some replaced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..blocks import ToolResultBlock
from ..media import MediaBlock
from ..messages import Message

__all__ = ["map_media", "media_blocks"]


def media_blocks(messages: list[Message]) -> list[tuple[str, MediaBlock]]:
    """Every media block with where it sits (``message 2 block 0 item 1`` inside a tool result)."""
    found: list[tuple[str, MediaBlock]] = []
    for m, message in enumerate(messages):
        for b, block in enumerate(message.content):
            if isinstance(block, MediaBlock):
                found.append((f"message {m} block {b}", block))
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                found.extend(
                    (f"message {m} block {b} item {i}", item)
                    for i, item in enumerate(block.content)
                    if isinstance(item, MediaBlock)
                )
    return found


def map_media(messages: list[Message], change: Callable[[MediaBlock], MediaBlock]) -> list[Message]:
    """``messages`` with every media block (tool results included) passed through ``change``;
    messages with nothing changed are the same objects."""
    out: list[Message] = []
    for message in messages:
        content: list[Any] = []
        touched = False
        for block in message.content:
            new: Any = block
            if isinstance(block, MediaBlock):
                new = change(block)
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                items = [change(i) if isinstance(i, MediaBlock) else i for i in block.content]
                if any(a is not b for a, b in zip(items, block.content, strict=True)):
                    new = block.model_copy(update={"content": items})
            touched = touched or new is not block
            content.append(new)
        out.append(message.model_copy(update={"content": content}) if touched else message)
    return out
