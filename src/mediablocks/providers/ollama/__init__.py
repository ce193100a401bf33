"""The ollama wire format: translation in `translate`, re-exported here."""

from __future__ import annotations

from .translate import (
    PROVIDER,
    from_ollama,
    to_ollama,
)

__all__ = [
    "PROVIDER",
    "from_ollama",
    "to_ollama",
]
