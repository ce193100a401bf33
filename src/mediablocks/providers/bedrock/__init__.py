"""The bedrock wire format: `translate` (encode, with decoding in `decode`), re-exported here."""

from __future__ import annotations

from ._wire import PROVIDER
from .translate import (
    BYTES_MARKER,
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
