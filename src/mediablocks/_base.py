"""The base every block model shares: frozen, tagged, lossless in JSON, with provider data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._frozen import EMPTY, FROZEN, freeze_json, refreeze

_B = TypeVar("_B", bound="BlockBase")


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
