"""What the Anthropic encoder and decoder share: the provider name, two types, the untitled mark."""

from __future__ import annotations

PROVIDER = "anthropic"
_PDF = "application/pdf"
_PLAIN_TEXT = "text/plain"
_UNTITLED = "untitled"
"""Marks a document Anthropic sent without a title, so encoding adds none."""
