"""The Cohere v2 chat wire format: translation in `translate`, stream fold in `stream`, limits
and token estimate beside them."""

from __future__ import annotations

from .translate import PROVIDER, from_cohere, to_cohere

__all__ = ["PROVIDER", "from_cohere", "to_cohere"]
