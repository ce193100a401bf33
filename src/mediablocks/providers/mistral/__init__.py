"""The mistral wire format: `translate` (encode, with decoding in `decode`), re-exported here."""

from __future__ import annotations

from .translate import (
    PROVIDER,
    from_mistral,
    mistral_tool_call_ids,
    to_mistral,
)

__all__ = [
    "PROVIDER",
    "from_mistral",
    "mistral_tool_call_ids",
    "to_mistral",
]
