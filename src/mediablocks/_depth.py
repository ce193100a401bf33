"""The one nesting limit for data read from outside: payloads, stream events, stored histories.

Real messages nest a few levels (a request, its messages, their parts, a tool's arguments); a
payload nested thousands of levels deep is an attack or a bug, and would otherwise end in
`RecursionError` somewhere inside a decoder, a validator or `json`. `check_depth` walks a value
without recursion and raises `DecodeError` past `MAX_DEPTH`, so every entry point (`mb.decode`,
`from_stream` / `StreamAccumulator.add`, `mb.load_messages`, `parse_message`,
`normalize_messages`) refuses such input before anything recursive sees it.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import DecodeError

__all__ = ["MAX_DEPTH", "check_depth", "loads"]

MAX_DEPTH = 100
"""How many levels of lists and objects a value read from outside may nest (documented in
``docs/errors.md``)."""


_CONTAINERS = (dict, list, tuple)

_TREE_BUDGET = 100_000
"""How many containers the fast walk visits before it assumes shared objects and starts over
with the walk that remembers what it saw (a few shared lists can make a DAG whose paths are
exponentially many)."""


def check_depth(value: Any, what: str) -> None:
    """Raise `DecodeError` when ``value`` nests lists/dicts/tuples deeper than `MAX_DEPTH`.

    Iterative, and stops at the first branch too deep: a value 100,000 levels deep costs no more
    than one `MAX_DEPTH` levels deep. A tree (what parsed JSON is) is walked without bookkeeping;
    past `_TREE_BUDGET` containers the walk starts over visiting shared objects once.
    """
    if not isinstance(value, _CONTAINERS):
        return
    if not _walk_tree(value, what):
        _walk_shared(value, what)


def _walk_tree(value: Any, what: str) -> bool:
    """The depth check without a seen-set; False when the budget ran out first."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    budget = _TREE_BUDGET
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        budget -= 1
        if budget < 0:
            return False
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, _CONTAINERS):
                stack.append((child, depth + 1))
    return True


def _walk_shared(value: Any, what: str) -> None:
    """The depth check visiting each shared object once (any graph of containers)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        if id(node) in seen:
            continue
        seen.add(id(node))
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, _CONTAINERS):
                stack.append((child, depth + 1))


def loads(text: str | bytes | bytearray, what: str, invalid: str = "is not valid JSON") -> Any:
    """JSON text as Python values, or `DecodeError` (``what`` ``invalid``, or nested too deep)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise DecodeError(f"{what} {invalid}: {exc}") from None
    check_depth(value, what)
    return value
