"""The openai_chat wire format: `translate` (encode; decoding in `decode`), re-exported here."""

from __future__ import annotations

from .translate import (
    FILE_STORE,
    PROVIDER,
    from_openai_chat,
    to_openai_chat,
)

__all__ = [
    "FILE_STORE",
    "PROVIDER",
    "from_openai_chat",
    "to_openai_chat",
]
