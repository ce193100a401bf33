"""Loading a stored message history from JSON text straight into models, with the depth limit.

`load_messages` on text validates it with pydantic-core from JSON directly (no ``json.loads``,
no walk over the parsed tree before or after validation). Free-form dicts and lists are made
read-only as they are validated (`mediablocks._frozen.FrozenJson`), which also measures how deep
the filled ones nest. The depth limit still holds: pydantic-core's own parser refuses nesting
past about 250 levels, models nest a fixed few (`MODEL_LEVELS`), and only a load whose free-form
values come close to `MAX_DEPTH` is walked (`check_loaded_depth`). Anything the fast path cannot
take, invalid input included, goes back to the checked path, which names the error.

The cyclic garbage collector is held off while a history is built (`collector_paused`): the
load allocates a few container objects per block, none of them garbage, and CPython would
otherwise run a collection every few hundred allocations, full ones walking every object alive,
so a large history cost more per megabyte than a small one.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from types import NoneType
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from ._base import summarize_validation_error
from ._depth import MAX_DEPTH, check_depth, loads
from ._frozen import BlockTuple, FrozenDict, FrozenList, measuring_depth
from .errors import DecodeError

__all__ = [
    "check_depth_near_limit",
    "check_loaded_depth",
    "collector_paused",
    "load_document",
    "load_json_messages",
]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the ``with`` block (reference counting still frees
    everything at once), back on after it unless it was already off.

    Building a history allocates millions of objects that all stay alive: each automatic
    collection would walk them again (loading 34 MB cost 5x ``json.loads`` against 3x at 2 MB).
    JSON cannot make reference cycles, so nothing the load builds waits for the collector. The
    switch is process-wide: another thread's cycles wait for this load to end too.

    On success the objects built go straight to the oldest generation (`_promote_young`): turned
    back on, the collector would otherwise first walk all of them, cold, as young objects (half
    the CPU time of loading 34 MB), only to find them alive and move them on.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
        _promote_young()
    finally:
        gc.enable()


def _promote_young() -> None:
    """Move every object the collector tracks into its oldest generation without walking them.

    ``gc.freeze`` then ``gc.unfreeze`` does it in constant time (two list splices); the objects
    are seen again by the next full collection, as any long-lived object is. Skipped when the
    program keeps objects frozen itself (a server before ``fork``): unfreezing would undo that.
    Young garbage cycles made before the load wait for that full collection too.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


MODEL_LEVELS = 16
"""At least how many levels of lists, models and tuples can hold a free-form field's value,
counted from the message list down (six today: the list, a message, its content tuple, a tool
result, its content list, a media block, whose ``metadata`` is then the value's first level),
with room to grow: a load whose free-form values all nest at most `MAX_DEPTH` minus these
levels cannot break the limit, and skips the walk that checks it (`check_depth_near_limit`)."""


@functools.cache
def _document_adapter(message: Any) -> TypeAdapter[Any]:
    """The validator for the envelope `dump_messages` writes, built on first use (other keys are
    ignored, as the checked path does)."""

    class Document(TypedDict):
        format: Any
        version: Any
        messages: list[message]

    return TypeAdapter(Document)


def load_json_messages(
    data: str | bytes,
    message_type: Any,
    messages_adapter: TypeAdapter[list[Any]],
    format_name: str,
    version: int,
) -> list[Any] | None:
    """The messages in a stored document or bare JSON list, or None to take the checked path
    (anything invalid, a foreign format or a newer version: the checked path names the error).

    ``messages_adapter`` validates a list of ``message_type``; the envelope is built around it
    (passed in, so this module does not import `mediablocks.messages` back).
    """
    start = data.lstrip()[:1]
    above = 0  # levels around the message list: the document object, for a document
    try:
        with measuring_depth() as deepest:
            if start in ("[", b"["):
                messages = messages_adapter.validate_json(data)
            elif start in ("{", b"{"):
                document = _document_adapter(message_type).validate_json(data)
                found = document["version"]
                if document["format"] != format_name or type(found) is not int or found > version:
                    return None
                messages = document["messages"]
                above = 1
            else:
                return None
    except ValidationError:
        return None
    check_depth_near_limit(messages, "message history", deepest[0], above)
    return messages


@collector_paused()  # cyclic GC held off while the history is built (see its docstring)
def load_document(
    data: str | bytes | bytearray | dict[str, Any] | list[Any],
    message_type: Any,
    stored_adapter: TypeAdapter[list[Any]],
    messages_adapter: TypeAdapter[list[Any]],
    format_name: str,
    version: int,
) -> list[Any]:
    """The messages of a stored document (text, or JSON already parsed): the fast path from
    text first (`load_json_messages`), else the checked path, which names what is wrong.

    ``stored_adapter`` validates canonical stored messages, ``messages_adapter`` any messages.
    """
    if isinstance(data, bytearray):
        data = bytes(data)
    document: Any = data
    if isinstance(data, (str, bytes)):
        loaded = load_json_messages(data, message_type, stored_adapter, format_name, version)
        if loaded is not None:
            return loaded
        document = loads(data, "message history")  # the checked path names what is wrong
    else:
        check_depth(document, "message history")
    if isinstance(document, dict) and "format" not in document and "role" in document:
        document = [document]  # one message in mediablocks' JSON form
    elif isinstance(document, dict):
        if document.get("format") != format_name:
            raise DecodeError(
                f"not a mediablocks message document (format {document.get('format')!r})"
            )
        found = document.get("version")
        if not isinstance(found, int) or found > version:
            raise DecodeError(
                f"message document version {found!r} is not supported "
                f"(this mediablocks reads up to {version})"
            )
        document = document.get("messages")
    if not isinstance(document, list):
        raise DecodeError("a message history must be a JSON list of messages")
    try:
        return messages_adapter.validate_python(document)
    except ValidationError as exc:
        place = exc.errors()[0]["loc"][:1]
        where = f"message {place[0]} is not a valid message: " if place else ""
        raise DecodeError(
            f"invalid message history: {where}{summarize_validation_error(exc)}"
        ) from None


def check_depth_near_limit(value: Any, what: str, deepest: int, above: int = 0) -> None:
    """`check_loaded_depth` of models just validated from JSON text, walked only when their
    free-form values nest ``deepest`` levels (`mediablocks._frozen.measuring_depth`), close
    enough to `MAX_DEPTH` to break it below the `MODEL_LEVELS` that can hold them."""
    if above + MODEL_LEVELS + deepest > MAX_DEPTH:
        check_loaded_depth(value, what, above)


def check_loaded_depth(value: Any, what: str, above: int = 0) -> None:
    """Raise `DecodeError` when validated models nest (models, dicts, lists) past `MAX_DEPTH`.

    A model counts one level, as the JSON object it came from; ``above`` levels held ``value``
    in the JSON it came from. Iterative: strings and numbers
    are skipped at once, so a text-heavy history costs a few steps per block.
    """
    stack: list[tuple[Any, int]] = [(value, 1 + above)]
    leaves = _LEAVES
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        kind = type(node)
        if kind in _MAPPINGS:
            children: Any = node.values()
        elif kind in _SEQUENCES:
            children = node
        elif isinstance(node, BaseModel):
            children = node.__dict__.values()
        else:
            continue
        below = depth + 1
        for child in children:
            # Strings and other leaves are skipped at once; an empty dict or list adds a level
            # too, but can only break the limit itself.
            if type(child) not in leaves and (child or depth >= MAX_DEPTH):
                stack.append((child, below))


_MAPPINGS: frozenset[type[Any]] = frozenset((dict, FrozenDict))
_SEQUENCES: frozenset[type[Any]] = frozenset((list, tuple, BlockTuple, FrozenList))
_LEAVES: frozenset[Any] = frozenset({str, int, float, bool, NoneType, bytes, datetime})
