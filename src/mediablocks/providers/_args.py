"""Tool-call arguments as the JSON text a request carries, serialised once per `encode`.

`encode` checks every call's arguments by writing them (`ARGS_JSON`) and keeps the text
(`args_written`); the OpenAI-style translators then take it from there (`dump_args`) instead of
serialising the same arguments a second time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..blocks import ToolCallBlock
from ..errors import UnsupportedBlockError

__all__ = ["ARGS_JSON", "args_written", "dump_args"]


ARGS_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""Tool-call arguments as written into a request (compact, UTF-8 kept)."""

_ARGS_WRITTEN: ContextVar[dict[int, tuple[ToolCallBlock, str]] | None] = ContextVar(
    "mediablocks_args_written", default=None
)


@contextmanager
def args_written(texts: dict[int, tuple[ToolCallBlock, str]]) -> Iterator[None]:
    """Within the block, `dump_args` takes each call's text from ``texts`` (``id(block)`` ->
    the block and its `ARGS_JSON` text), written when `encode` checked the arguments, instead
    of serialising them a second time. The block is held with its text, so an id is never
    matched to another block."""
    token = _ARGS_WRITTEN.set(texts)
    try:
        yield
    finally:
        _ARGS_WRITTEN.reset(token)


def dump_args(block: ToolCallBlock) -> str:
    """Tool-call arguments as the JSON text OpenAI-style APIs want; invalid ones verbatim."""
    if block.raw_args is not None:
        return block.raw_args
    written = _ARGS_WRITTEN.get()
    if written is not None:
        found = written.get(id(block))
        if found is not None and found[0] is block:
            return found[1]
    try:
        return ARGS_JSON.encode(block.args)
    except (TypeError, ValueError) as exc:  # a set, bytes, an object, NaN-free circular data...
        raise UnsupportedBlockError(
            f"tool call {block.id!r} ({block.name}): its arguments cannot be written as JSON: {exc}"
        ) from None
