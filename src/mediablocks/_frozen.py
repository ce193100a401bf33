"""Read-only containers for frozen models: a message's ``content`` tuple and ``metadata`` mapping.

Pydantic's ``frozen=True`` stops ``msg.content = ...`` but not ``msg.content.append(...)`` or
``msg.metadata[k] = v``. Messages store their blocks as a tuple and their metadata as a
`FrozenDict`, so a frozen message cannot change in place; JSON is unchanged (a list, an object).
"""

from __future__ import annotations

from typing import Any, NoReturn, SupportsIndex, overload

__all__ = ["BlockTuple", "FrozenDict", "freeze_blocks", "freeze_mapping"]


class FrozenDict(dict[str, Any]):
    """A ``dict`` whose methods that change it raise `TypeError`.

    A ``dict`` subclass, so ``json.dumps``, pydantic serialisation, ``isinstance(x, dict)`` and
    ``{**m}`` keep working; copying it (``dict(m)``, ``{**m, k: v}``) gives an ordinary dict.
    """

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "message metadata is read-only (messages are frozen); build a new message with "
            "msg.model_copy(update={'metadata': {**msg.metadata, key: value}})"
        )

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

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        from copy import deepcopy

        return FrozenDict({key: deepcopy(value, memo) for key, value in self.items()})


EMPTY = FrozenDict()


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
    """``value`` as a `FrozenDict` when it is a dict (pydantic has checked the type)."""
    if isinstance(value, FrozenDict) or not isinstance(value, dict):
        return value
    return FrozenDict(value)


def freeze_blocks(value: Any) -> Any:
    """``value`` (a tuple or list pydantic has checked) as a `BlockTuple`."""
    if isinstance(value, BlockTuple):
        return value
    return BlockTuple(value)
