"""The openai_responses wire format: translation in `translate`, re-exported here."""

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
