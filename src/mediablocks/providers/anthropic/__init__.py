"""The anthropic wire format: `translate` (encode, with decoding in `decode`), re-exported here."""

from __future__ import annotations

from .translate import (
    PROVIDER,
    from_anthropic,
    to_anthropic,
)

__all__ = [
    "PROVIDER",
    "from_anthropic",
    "to_anthropic",
]
