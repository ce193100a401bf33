"""Read-only containers for frozen models, all the way down.

Pydantic's ``frozen=True`` stops ``msg.content = ...`` but not ``msg.content.append(...)``,
``msg.metadata[k] = v`` or ``call.args["x"] = 1``; a change made so would reach `encode`'s output.
Messages store their blocks as a `BlockTuple`; every free-form container inside a block or message
(tool-call ``args``, ``provider_data``, ``annotations``, ``RawBlock.data``, ``metadata``,
``Usage.raw``, ``CustomMessage.data``) is frozen deeply by `freeze_json`: dicts become `FrozenDict`,
lists `FrozenList` (each a subclass of the builtin, so ``==``, ``isinstance``, ``json.dumps`` and
pydantic serialisation work as before), sets frozensets. JSON is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NoReturn, SupportsIndex, overload

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from ._depth import MAX_DEPTH

__all__ = [
    "EMPTY_LIST",
    "FROZEN",
    "BlockTuple",
    "FrozenDict",
    "FrozenJson",
    "FrozenList",
    "freeze_blocks",
    "freeze_json",
    "freeze_mapping",
    "refreeze",
]

_HINT = (
    "blocks and messages are frozen all the way down; build a changed copy with "
    "model_copy(update={...}) (copy a container first: {**block.args, key: value})"
)


class FrozenDict(dict[str, Any]):
    """A ``dict`` whose methods that change it raise `TypeError`.

    A ``dict`` subclass, so ``json.dumps``, pydantic serialisation, ``isinstance(x, dict)`` and
    ``{**m}`` keep working; copying it (``dict(m)``, ``{**m, k: v}``) gives an ordinary dict.
    """

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"this mapping is read-only: {_HINT}")

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        # pickle would rebuild a dict subclass item by item through __setitem__.
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        # A deep copy is made to be changed: an ordinary dict (models re-freeze theirs).
        from copy import deepcopy

        return {key: deepcopy(value, memo) for key, value in self.items()}


EMPTY = FrozenDict()


class FrozenList(list[Any]):
    """A ``list`` whose methods that change it raise `TypeError` (the list twin of `FrozenDict`);
    copying it (``list(x)``, ``[*x]``, ``x + [...]``) gives an ordinary list."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"this list is read-only: {_HINT}")

    __setitem__ = _refuse
    __delitem__ = _refuse
    __iadd__ = _refuse
    __imul__ = _refuse
    append = _refuse
    extend = _refuse
    insert = _refuse
    remove = _refuse
    pop = _refuse
    clear = _refuse
    sort = _refuse
    reverse = _refuse

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return (FrozenList, (list(self),))

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        # A deep copy is made to be changed: an ordinary list (models re-freeze theirs).
        from copy import deepcopy

        return [deepcopy(item, memo) for item in self]


EMPTY_LIST = FrozenList()


def freeze_json(value: Any) -> Any:
    """``value`` with every dict, list and set in it (at any depth) made read-only: dicts as
    `FrozenDict`, lists as `FrozenList`, sets as frozensets, tuples keeping their frozen items.
    Already frozen containers are returned as they are; anything else is kept as it is."""
    kind = type(value)
    if kind in _LEAVES or kind is FrozenDict or kind is FrozenList:
        return value
    if isinstance(value, dict):
        if not value:
            return EMPTY
        return FrozenDict({key: freeze_json(item) for key, item in value.items()})
    if isinstance(value, list):
        if not value:
            return EMPTY_LIST
        return FrozenList(freeze_json(item) for item in value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        frozen = tuple(freeze_json(item) for item in value)
        return value if all(a is b for a, b in zip(frozen, value, strict=True)) else frozen
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze_json(item) for item in value)
    return value


_LEAVES = frozenset({str, int, float, bool, type(None), bytes})


class BlockTuple(tuple[Any, ...]):
    """A message's blocks: a tuple that also equals a list holding the same blocks.

    The design contract has long shown ``message.content == [block, ...]``; a plain tuple would
    make such comparisons quietly false. Everything else is a tuple's: no ``append``, no item
    assignment, hashing as a tuple.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            return tuple.__eq__(self, tuple(other))
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> BlockTuple: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        item = tuple.__getitem__(self, index)
        return BlockTuple(item) if isinstance(index, slice) else item

    def __repr__(self) -> str:
        return tuple.__repr__(self)


EMPTY_BLOCKS = BlockTuple()


def freeze_mapping(value: Any) -> Any:
    """``value`` frozen all the way down when it is a dict (pydantic has checked the type)."""
    if not isinstance(value, dict):
        return value
    return freeze_json(value)


class FrozenJson:
    """On a free-form field (``Annotated[dict[str, Any], FROZEN]``): the value made read-only as
    it is validated. From Python, `freeze_json`; from JSON text, `frozen_from_json`, which gives
    the usual empty container the shared read-only empty in one step and measures how deep a
    filled one nests (for the depth limit of a load: see `measuring_depth`)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        schema = handler(source)
        frozen = core_schema.no_info_after_validator_function(freeze_json, schema)
        loaded = core_schema.no_info_after_validator_function(frozen_from_json, schema)
        return core_schema.json_or_python_schema(json_schema=loaded, python_schema=frozen)


FROZEN = FrozenJson()


_deepest: ContextVar[list[int] | None] = ContextVar("mediablocks_deepest_free_form", default=None)
"""While `measuring_depth` runs: the deepest nesting `frozen_from_json` has met so far."""


@contextmanager
def measuring_depth() -> Iterator[list[int]]:
    """Inside the ``with`` block, every free-form value validated from JSON text records how
    many levels it nests (an empty dict or list counts one) in the one-item list yielded: the
    deepest met. A load then walks its models for the depth limit only when that is close to it
    (`mediablocks._loading.load_json_messages`)."""
    deepest = [0]
    token = _deepest.set(deepest)
    try:
        yield deepest
    finally:
        _deepest.reset(token)


def frozen_from_json(value: Any) -> Any:
    """A free-form value just validated from JSON made read-only: an empty dict or list becomes
    the shared `EMPTY` / `EMPTY_LIST` at once (what most blocks and messages hold), anything else
    is frozen all the way down by `_frozen_measured`, which records its depth."""
    if not value:
        kind = type(value)
        if kind is dict:
            return EMPTY
        if kind is list:
            return EMPTY_LIST
        return value
    deepest = _deepest.get()
    if deepest is None:
        deepest = [0]
    return _frozen_measured(value, 1, deepest)


def _frozen_measured(value: Any, depth: int, deepest: list[int]) -> Any:
    """``value`` (parsed JSON at ``depth`` levels, counting from the field) frozen, the deepest
    level met recorded in ``deepest``. Past `MAX_DEPTH` levels nothing is frozen further: the
    load that measured it refuses it anyway (JSON text nests at most about 250 levels)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return value  # a leaf, or a block in a tool result's content (frozen itself)
    if depth > deepest[0]:
        deepest[0] = depth
    if not value:
        return EMPTY if kind is dict else EMPTY_LIST
    if depth > MAX_DEPTH:
        return value
    below = depth + 1
    leaves = _LEAVES
    if kind is dict:
        return FrozenDict(
            {
                key: item if type(item) in leaves else _frozen_measured(item, below, deepest)
                for key, item in value.items()
            }
        )
    return FrozenList(
        [item if type(item) in leaves else _frozen_measured(item, below, deepest) for item in value]
    )


def refreeze(model: Any) -> Any:
    """``model`` (a fresh deep copy of a frozen model) with its containers frozen again."""
    fields = model.__dict__
    for name, value in fields.items():
        if isinstance(value, (dict, list, set)) and type(value) not in (FrozenDict, FrozenList):
            fields[name] = freeze_json(value)
    return model


def freeze_blocks(value: Any) -> Any:
    """``value`` (a tuple or list pydantic has checked) as a `BlockTuple`."""
    if isinstance(value, BlockTuple):
        return value
    return BlockTuple(value)
