"""The openai_responses wire format: `translate` (encode; `decode`), re-exported here."""

from __future__ import annotations

from .translate import (
    PROVIDER,
    from_openai_responses,
    to_openai_responses,
)

__all__ = [
    "PROVIDER",
    "from_openai_responses",
    "to_openai_responses",
]
