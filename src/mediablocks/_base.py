"""The base every block model shares: frozen, tagged, lossless in JSON, with provider data."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._frozen import EMPTY, FROZEN, freeze_json, refreeze

_B = TypeVar("_B", bound="BlockBase")
_T = TypeVar("_T", bound=BaseModel)


class BlockBase(BaseModel):
    """Frozen pydantic model with a ``type`` tag (set by each subclass).

    ``provider_data`` keeps opaque per-provider fields a translator must send back unchanged, keyed
    by provider name, e.g. ``{"gemini": {"thought_signature": "..."}}``.
    A translator reads only its own provider's entry, so a history moved to another provider drops
    foreign opaque data by construction.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        ser_json_bytes="base64",
        val_json_bytes="base64",
        defer_build=True,  # the schema is built on first use, not by `import mediablocks`
    )

    provider_data: Annotated[dict[str, dict[str, Any]], FROZEN] = Field(
        default_factory=lambda: EMPTY
    )
    """Read-only, all the way down (as every container in a block: see `mediablocks._frozen`)."""

    def __eq__(self, other: object) -> bool:
        # Compare fields only: private caches (read bytes, base64, resolved MIME) are not identity.
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def model_copy(self: _B, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> _B:
        """A copy with ``update`` applied; containers given stay read-only (``model_copy`` does
        not validate, so they are frozen here)."""
        if update:
            update = {key: freeze_json(value) for key, value in update.items()}
        return super().model_copy(update=update, deep=deep)

    def __deepcopy__(self: _B, memo: dict[int, Any] | None = None) -> _B:
        return refreeze(super().__deepcopy__(memo))  # type: ignore[no-any-return]

    def for_provider(self, provider: str) -> dict[str, Any]:
        """This block's opaque data for one provider (empty when there is none)."""
        return self.provider_data.get(provider, {})


def summarize_validation_error(exc: ValidationError, limit: int = 3) -> str:
    """Pydantic's errors as one short line: ``at 0.text: Input should be a valid string``."""
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "top level"
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "union_tag_not_found" or message.startswith("Unable to extract tag"):
            message = "no known role or type (a 'role' or 'type' field is missing or misnamed)"
        parts.append(f"at {where}: {message}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


@functools.cache
def _field_defaults(
    cls: type[BaseModel],
) -> tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...]]:
    """``cls``'s fields in order, with their defaults (None where a factory makes one), and the
    factories. Only for models validation sets up through ``__dict__`` alone, with defaults it
    stores as they are (immutable ones)."""
    if cls.__private_attributes__ or cls.model_post_init is not BaseModel.model_post_init:
        raise TypeError(f"{cls.__name__} needs its validation to be set up")
    static: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    for name, info in cls.model_fields.items():
        if info.default_factory is not None:
            static[name] = None
            factories.append((name, info.default_factory))  # type: ignore[arg-type]
            continue
        if getattr(info.default, "__hash__", None) is None:  # pydantic copies a mutable default
            raise TypeError(f"{cls.__name__}.{name} has a mutable default: validate it")
        static[name] = info.default
    return static, tuple(factories)


_set = object.__setattr__


def assembled(cls: type[_T], given: dict[str, Any]) -> _T:
    """The model ``cls(**given)`` would build, without validating ``given`` again.

    Only for values this package's own code has just made and checked, each already exactly what
    validation would store (an exact ``str``, a frozen container, a block instance) and for
    models with no model validator that would change them: a decoder's text and messages, which
    number in the thousands in a long history. Never for input from outside. The fields given
    are the model's set fields, as with validation; the others take their defaults.
    """
    static, factories = _field_defaults(cls)
    values = static.copy()
    for name, make in factories:
        if name not in given:
            values[name] = make()
    values.update(given)
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(given))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
