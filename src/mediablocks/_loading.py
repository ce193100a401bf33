"""Loading a stored message history from JSON text straight into models, with the depth limit.

`load_messages` on text validates it with pydantic-core from JSON directly (no ``json.loads``,
no walk over the parsed tree before validation). The depth limit still holds: pydantic-core's
own parser refuses nesting past about 200 levels, and the validated messages are then walked
once (models, and the free-form dicts and lists they hold) for `MAX_DEPTH`; the same walk makes
the free-form containers read-only (`mediablocks._frozen.FrozenJson`: fields validated from JSON
are left to this walk). Anything the fast path cannot take, invalid input included, goes back to the
checked path, which names the error.

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
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from ._base import summarize_validation_error
from ._depth import MAX_DEPTH, check_depth, loads
from ._frozen import EMPTY, EMPTY_LIST, BlockTuple, FrozenDict, FrozenList
from .errors import DecodeError

__all__ = [
    "check_loaded_depth",
    "collector_paused",
    "freeze_loaded",
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
    freeze_loaded(messages, "message history", above)
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


def freeze_loaded(value: Any, what: str, above: int = 0) -> None:
    """`check_loaded_depth`, and every free-form dict and list a model holds made read-only in
    the same walk (the models were validated with freezing deferred).

    Of each model only the fields that can hold a container are looked at (`_container_fields`);
    the usual empty ``provider_data``, ``metadata`` and ``annotations`` become the shared
    read-only empties. A model met in a list (a message) and a message's blocks are handled at
    once (`_freeze_fields`), without a step on the stack; anything deeper goes on the stack.
    """
    stack: list[tuple[Any, int]] = [(value, 1 + above)]
    leaves = _LEAVES
    plans = _PLANS
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        kind = type(node)
        plan = plans.get(kind)
        if plan is not None:
            _freeze_fields(node, plan, depth, stack, what)
            continue
        if kind in _SEQUENCES:
            children: Any = node
        elif kind in _MAPPINGS:
            children = node.values()
        elif isinstance(node, BaseModel):
            _freeze_fields(node, _container_fields(kind), depth, stack, what)
            continue
        else:
            continue
        below = depth + 1
        for child in children:
            kind = type(child)
            if kind in leaves:
                continue
            plan = plans.get(kind)
            if plan is not None and below <= MAX_DEPTH:  # a known model: handled here
                _freeze_fields(child, plan, below, stack, what)
            elif child or depth >= MAX_DEPTH:
                stack.append((child, below))


def _freeze_fields(
    model: Any, plan: tuple[str, ...], depth: int, stack: list[tuple[Any, int]], what: str
) -> None:
    """The fields ``plan`` names of ``model`` (at ``depth``, at most `MAX_DEPTH`) frozen and
    their depth checked; a message's blocks are handled here too (two levels down: the tuple,
    then the block), models and containers further inside go on ``stack``."""
    leaves = _LEAVES
    plans = _PLANS
    fields = model.__dict__
    below = depth + 1
    for name in plan:
        child = fields[name]
        kind = type(child)
        if kind in leaves:
            continue
        if kind is dict or kind is list:
            if child or below > MAX_DEPTH:
                fields[name] = _frozen_checked(child, below, stack, what)
            else:  # the usual empty provider_data, metadata, annotations
                fields[name] = EMPTY if kind is dict else EMPTY_LIST
        elif kind is BlockTuple and below < MAX_DEPTH:  # a message's blocks, a level down
            inner = below + 1
            for block in child:
                known = plans.get(type(block))
                if known is None:
                    stack.append((block, inner))
                elif known:
                    _freeze_fields(block, known, inner, stack, what)
        elif child or depth >= MAX_DEPTH:
            known = plans.get(kind)
            if known is None or known or below > MAX_DEPTH:  # not a source: nothing inside
                stack.append((child, below))


_PLANS: dict[type[Any], tuple[str, ...]] = {}
"""`_container_fields` of each model class met so far."""


def _container_fields(kind: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a model class that can hold a dict, a list, a tuple or a model: all but
    those typed as plain values (strings, numbers, booleans, bytes, times, literals, and optional
    ones of these), which pydantic has checked hold nothing else."""
    plan = _PLANS.get(kind)
    if plan is None:
        fields = kind.model_fields.items()
        plan = tuple(name for name, field in fields if not _plain_value(field.annotation))
        _PLANS[kind] = plan
    return plan


def _plain_value(annotation: Any) -> bool:
    """Whether a field typed ``annotation`` only ever holds a leaf value (see `_LEAVES`)."""
    if annotation in _LEAVES:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return all(type(choice) in _LEAVES for choice in get_args(annotation))
    if origin is Union or origin is UnionType:
        return all(_plain_value(choice) for choice in get_args(annotation))
    return False


def _frozen_checked(value: Any, depth: int, models: list[tuple[Any, int]], what: str) -> Any:
    """``value`` (a dict or list at ``depth``) frozen, its depth checked on the way down; models
    inside are left to the caller's walk (``models``). Recursion stops at `MAX_DEPTH`."""
    if depth > MAX_DEPTH:
        raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep")
    below = depth + 1
    leaves = _LEAVES
    if type(value) is dict:
        if not value:
            return EMPTY
        for item in value.values():
            if type(item) not in leaves:
                break
        else:
            return FrozenDict(value)  # leaves only: one C-level copy
        out = {}
        for key, item in value.items():
            kind = type(item)
            if kind in leaves:
                out[key] = item
            elif kind is dict or kind is list:
                out[key] = _frozen_checked(item, below, models, what)
            else:
                models.append((item, below))
                out[key] = item
        return FrozenDict(out)
    if not value:
        return EMPTY_LIST
    for item in value:
        if type(item) not in leaves:
            break
    else:
        return FrozenList(value)
    items = []
    for item in value:
        kind = type(item)
        if kind in leaves:
            items.append(item)
        elif kind is dict or kind is list:
            items.append(_frozen_checked(item, below, models, what))
        else:
            models.append((item, below))
            items.append(item)
    return FrozenList(items)


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
