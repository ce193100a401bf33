"""What every provider's stream fold shares: streamed tool calls, text pieces, the folder base.

A provider's fold (``providers/<name>/stream.py``) subclasses `Folder`: ``add`` takes one event as
a dict, ``response`` gives the provider's own complete response for its decoder.
"""

from __future__ import annotations

import enum
import json
import uuid
from collections.abc import Iterator
from typing import Any

from ..errors import DecodeError
from ._common import parse_args

__all__ = ["END", "Folder", "Pieces", "ToolCall", "field", "plain", "text_piece", "wire_index"]

END: Any = object()
"""What `Folder.take` returns when the events ran out."""


def field(data: Any, *names: str, default: Any = None) -> Any:
    """The first present key among spellings (``thought_signature`` / ``thoughtSignature``)."""
    if not isinstance(data, dict):
        return default
    for name in names:
        if name in data and data[name] is not None:
            return data[name]
    return default


def wire_index(value: Any, name: str) -> int:
    """An index read from the wire (``content_index``, ``output_index``...) as an int.

    Indexes are data: folds key dicts by them and never size a list by them, so any non-negative
    integer is fine; anything else (a float, a string, a list) raises `DecodeError` naming it.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise DecodeError(f"{name} is {str(value)[:40]!r}, not a non-negative integer")


def text_piece(value: Any) -> str:
    """A streamed text fragment: a string as is, nothing (``""``) for a missing one."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise DecodeError(f"a text fragment is a {type(value).__name__}, not a string")


def plain(value: Any) -> Any:
    """An SDK enum (``FinishReason.STOP``) as its wire value (``"STOP"``)."""
    return value.value if isinstance(value, enum.Enum) else value


class Pieces:
    """Text deltas kept as pieces and joined when read, not once per delta: a long reply has tens
    of thousands of deltas, and joining each into a growing string would be quadratic."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, str], tuple[dict[str, Any], list[str]]] = {}

    def append(self, target: dict[str, Any], field: str, piece: Any) -> None:
        """Add ``piece`` to ``target[field]`` (a string), later."""
        if not isinstance(piece, str) or not piece:
            return
        key = (id(target), field)
        entry = self._entries.get(key)
        if entry is None:
            entry = (target, [target.get(field) or ""])  # the target is kept alive: ids stay valid
            self._entries[key] = entry
        entry[1].append(piece)

    def list_for(self, target: dict[str, Any], field: str) -> list[str]:
        """The piece list behind ``target[field]``, for a fold's fast path to append to directly
        (each piece a non-empty string, as `append` takes)."""
        key = (id(target), field)
        entry = self._entries.get(key)
        if entry is None:
            entry = (target, [target.get(field) or ""])
            self._entries[key] = entry
        return entry[1]

    def apply(self) -> None:
        """Write the joined text into every target (cheap when nothing new arrived)."""
        for (_, field), (target, pieces) in self._entries.items():
            if len(pieces) > 1:  # a list no piece was added to leaves its target as it was
                pieces[:] = ["".join(pieces)]
                target[field] = pieces[0]


class ToolCall:
    """A tool call being streamed: its id, name and argument text so far."""

    def __init__(self, call_id: str | None, name: str | None) -> None:
        self.id = call_id
        self.name = name
        self.fragments: list[str] = []
        self.whole: Any = None  # a complete argument object, when the provider sends one
        self.fallback = "call_" + uuid.uuid4().hex[:24]
        """The id for a provider that sends none (a folder may set the one its decoder gives)."""

    @property
    def final_id(self) -> str:
        """The provider's id, or (for providers that send none) one made up once, kept stable."""
        return self.id or self.fallback

    def arguments_text(self) -> str:
        """The argument text as the provider sent it (a whole object dumped as JSON)."""
        if self.whole is not None:
            return json.dumps(self.whole, ensure_ascii=False)
        return "".join(self.fragments)

    def arguments(self) -> tuple[dict[str, Any], str | None]:
        """``(args, raw_args)``: the parsed object, or ``({}, text)`` when not a JSON object."""
        if self.whole is not None:
            if isinstance(self.whole, dict):
                return self.whole, None
            return {}, self.arguments_text()
        return parse_args("".join(self.fragments))

    def wire_arguments(self) -> dict[str, Any] | str:
        """For formats whose arguments are an object: the object, or the raw text if invalid
        (every decoder turns a string argument into ``raw_args``)."""
        args, raw = self.arguments()
        return args if raw is None else raw


class Folder:
    """The state every provider folder shares: tool calls, usage, stop reason, errors."""

    provider = ""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCall] = {}
        self.call_order: list[str] = []
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] = {}
        self.model: str | None = None
        self.response_id: str | None = None
        self.error: dict[str, Any] | None = None
        self.pieces = Pieces()

    def call(self, key: str, call_id: str | None = None, name: str | None = None) -> ToolCall:
        """The call under ``key``, made on first sight (first-seen order is kept)."""
        existing = self.calls.get(key)
        if existing is None:
            existing = ToolCall(call_id, name)
            self.calls[key] = existing
            self.call_order.append(key)
        else:
            existing.id = existing.id or call_id
            existing.name = existing.name or name
        return existing

    def add(self, event: dict[str, Any]) -> None:  # pragma: no cover - each folder overrides
        raise NotImplementedError

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """Fold the plain text deltas at the head of ``events`` on a fast path.

        Returns how many events were folded and the first event that needs `add` (with the
        accumulator's checks), or `END` when the events ran out. A fast path takes only events
        whose kept part is a string (a text delta into a known block) and never raises: what it
        ignores of an event is not kept, so its nesting cannot matter; every other event goes to
        `add`, after the depth check. This default has no fast path.
        """
        return 0, next(events, END)

    def response(self) -> dict[str, Any]:  # pragma: no cover - each folder overrides
        raise NotImplementedError

    def invalid_call_ids(self) -> dict[str, str]:
        """Ids of calls whose arguments were not a JSON object, with their raw text."""
        invalid: dict[str, str] = {}
        for key in self.call_order:
            call = self.calls[key]
            raw = call.arguments()[1]
            if raw is not None:
                invalid[call.final_id] = raw
        return invalid
