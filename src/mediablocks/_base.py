"""The base every block model shares: frozen, tagged, lossless in JSON, with provider data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

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

    provider_data: dict[str, dict[str, Any]] = {}

    def __eq__(self, other: object) -> bool:
        # Compare fields only: private caches (read bytes, base64, resolved MIME) are not identity.
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def model_copy(self: _B, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> _B:
        """A copy with ``update`` applied; ``metadata`` stays read-only (``model_copy`` does not
        validate, so it is frozen here)."""
        if update and "metadata" in update and "metadata" in type(self).model_fields:
            from ._frozen import freeze_mapping

            update = {**update, "metadata": freeze_mapping(update["metadata"])}
        return super().model_copy(update=update, deep=deep)

    def for_provider(self, provider: str) -> dict[str, Any]:
        """This block's opaque data for one provider (empty when there is none)."""
        return self.provider_data.get(provider, {})
