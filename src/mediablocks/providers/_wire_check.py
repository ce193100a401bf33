"""What `mb.decode` checks on a payload before a decoder reads it, in one walk: no nesting past
`MAX_DEPTH` (`check_depth`'s rule and error) and no ``type`` or ``role`` field that is not a
string (`wrong_typed_field`, which names the first such field by its path)."""

from __future__ import annotations

from typing import Any

from .._depth import MAX_DEPTH, check_depth
from ..errors import DecodeError
from ._common import as_dict

__all__ = ["check_payload", "malformed_field", "wrong_typed_field"]

_CONTAINERS = (dict, list, tuple)
_ONE_WALK_BUDGET = 100_000
"""How many containers `check_payload` visits in its one walk before it leaves the checks to
`check_depth` and `wrong_typed_field` (which know shared objects and bound their own work)."""


def check_payload(payload: Any, what: str) -> None:
    """Raise `DecodeError` for a payload nested more than `MAX_DEPTH` levels deep (as
    `check_depth`, ``what`` naming it) or holding a ``type``/``role`` that is not a string
    (``what: <wrong_typed_field's answer>``): the same errors, in the same order, as calling the
    two, for one walk over the payload instead of two.

    The walk visits what `check_depth` does; containers `wrong_typed_field` reads (dicts and lists
    outside the caller's own JSON, `_FREE_FORM`) are marked, and a marked dict with a wrongly
    typed field makes `wrong_typed_field` run to name it. Only a dict or list is checked for
    types, as by `mb.decode`.
    """
    if not isinstance(payload, (dict, list)):
        check_depth(payload, what)
        return
    stack: list[tuple[Any, int, bool]] = [(payload, 1, True)]
    budget = _ONE_WALK_BUDGET
    suspect = False
    while stack:
        node, depth, typed = stack.pop()
        if depth > MAX_DEPTH:
            raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        budget -= 1
        if budget < 0:
            check_depth(payload, what)
            suspect = True
            break
        if isinstance(node, dict):
            if typed and not suspect:
                for key in _TYPED_KEYS:
                    value = node.get(key)
                    if value is not None and not isinstance(value, str):
                        suspect = True
            for key, child in node.items():
                if isinstance(child, _CONTAINERS):
                    stack.append((child, depth + 1, typed and key not in _FREE_FORM))
        else:
            inner = typed and isinstance(node, list)
            for child in node:
                if isinstance(child, _CONTAINERS):
                    stack.append((child, depth + 1, inner))
    if suspect:
        wrong = wrong_typed_field(payload)
        if wrong is not None:
            raise DecodeError(f"{what}: {wrong}")


_FREE_FORM = frozenset(
    {
        "input",
        "args",
        "arguments",
        "parameters",
        "input_schema",
        "schema",
        "provider_data",
        "json",
        "tools",
        "tool_choice",
        "toolConfig",
        "tool_config",
        "response_format",
        "text",
        "format",
        "generationConfig",
        "generation_config",
        "config",
        "metadata",
        "structuredContent",
        "structured_content",
    }
)
"""Keys whose values are the caller's own JSON or request settings (tool arguments, schemas,
response formats): any shape is valid there, so the type check does not look inside."""
_TYPED_KEYS = ("type", "role")
_DIAGNOSIS_BUDGET = 100_000


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a {type(value).__name__}"


def malformed_field(payload: Any) -> str:
    """`wrong_typed_field`, or a general sentence when it finds none."""
    return wrong_typed_field(payload) or "a field has a JSON type the format does not allow"


def wrong_typed_field(payload: Any) -> str | None:
    """Where a payload has a ``type`` or ``role`` that is not a string (a list, an object...).

    Breadth-first, over at most a bounded number of values, skipping the caller's own JSON (tool
    arguments, schemas); the answer reads ``messages[3].content[0].type is a list, not a string``,
    or None when every one is a string.
    """
    # Each entry: a value, the entry it sits in, and its key or index there. Paths are spelled
    # only for the one field reported, not for every value visited.
    queue: list[tuple[Any, int, str | int]] = [(as_dict(payload), -1, "")]
    for at, (node, _, _) in enumerate(queue):
        if len(queue) > _DIAGNOSIS_BUDGET:
            break
        if isinstance(node, dict):
            for key in _TYPED_KEYS:
                value = node.get(key)
                if key in node and value is not None and not isinstance(value, str):
                    return f"{_path(queue, at, key)} is {_json_type(value)}, not a string"
            for key, value in node.items():
                if key not in _FREE_FORM and isinstance(value, (dict, list)):
                    queue.append((value, at, str(key)))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    queue.append((value, at, index))
    return None


def _path(queue: list[tuple[Any, int, str | int]], at: int, key: str) -> str:
    """``messages[3].content[0].type``: the path of ``key`` in the entry at ``at``."""
    steps: list[str | int] = [key]
    while at > 0:
        _, parent, step = queue[at]
        steps.append(step)
        at = parent
    path = ""
    for step in reversed(steps):
        path += f"[{step}]" if isinstance(step, int) else (f".{step}" if path else step)
    return path
