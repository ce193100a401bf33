"""The Cohere v2 chat wire format: translation in `translate`, re-exported here."""

from __future__ import annotations

from .translate import PROVIDER, from_cohere, to_cohere

__all__ = ["PROVIDER", "from_cohere", "to_cohere"]
