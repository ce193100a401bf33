"""Lone surrogates: text Python holds but UTF-8 (and so JSON on the wire) cannot carry.

A bad ``\\ud83d`` escape in decoded JSON, or a string cut through a surrogate pair, leaves a
lone surrogate in a ``str``. Pydantic builds such blocks without complaint; writing them as UTF-8
fails later, deep inside a dump or an SDK. These helpers find the first one in a history, by
message and block, so the failure is an `InvalidTextError` that says where.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from .errors import InvalidTextError

__all__ = [
    "check_text",
    "describe",
    "first_surrogate",
    "has_surrogate",
    "surrogate_in",
    "surrogate_note",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_WALK = 100  # nesting levels walked; deeper values are refused elsewhere (_depth)


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (ASCII text is answered without a search)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def surrogate_in(value: Any, depth: int = 0) -> str | None:
    """The first string in ``value`` (a block, dict, list or string) holding a lone surrogate."""
    if isinstance(value, str):
        return value if has_surrogate(value) else None
    if depth > _MAX_WALK:
        return None
    if isinstance(value, BaseModel):
        value = value.__dict__
    if isinstance(value, dict):
        for key, item in value.items():
            found = surrogate_in(key, depth + 1) or surrogate_in(item, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for item in value:
            found = surrogate_in(item, depth + 1)
            if found is not None:
                return found
    return None


def first_surrogate(messages: Iterable[Any]) -> tuple[int, int, str] | None:
    """``(message index, block index, the text)`` of the first lone surrogate in a history;
    block index -1 for a message's own fields (metadata, a summary...)."""
    for index, message in enumerate(messages):
        if not isinstance(message, BaseModel):
            continue
        for position, block in enumerate(getattr(message, "content", ())):
            found = surrogate_in(block)
            if found is not None:
                return index, position, found
        fields = {k: v for k, v in message.__dict__.items() if k != "content"}
        found = surrogate_in(fields)
        if found is not None:
            return index, -1, found
    return None


def surrogate_note(text: str) -> str:
    """``text '…\\ud800…' holds a lone surrogate (...)``: what is wrong, with an excerpt."""
    at = _SURROGATE.search(text)
    start = max(0, at.start() - 15) if at else 0
    excerpt = text[start : start + 30]
    return (
        f"text {excerpt!r} holds a lone surrogate, which UTF-8 cannot encode (a broken "
        "\\ud800-\\udfff escape?); fix or drop it before sending or saving"
    )


def describe(where: tuple[int, int, str]) -> str:
    """``message 0, block 2: text ... holds a lone surrogate (...)``."""
    index, position, text = where
    place = f"message {index}" + (f", block {position}" if position >= 0 else "")
    return f"{place}: {surrogate_note(text)}"


def check_text(messages: Iterable[Any]) -> None:
    """Raise `InvalidTextError` naming the first lone surrogate in ``messages``, if any."""
    where = first_surrogate(messages)
    if where is not None:
        raise InvalidTextError(describe(where))
