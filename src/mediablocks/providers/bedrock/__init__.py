"""The bedrock wire format: translation in `translate`, re-exported here."""

from __future__ import annotations

from .translate import (
    BYTES_MARKER,
    PROVIDER,
    bedrock_document_name,
    from_bedrock,
    to_bedrock,
)

__all__ = [
    "BYTES_MARKER",
    "PROVIDER",
    "bedrock_document_name",
    "from_bedrock",
    "to_bedrock",
]
