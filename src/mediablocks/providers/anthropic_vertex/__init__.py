"""Anthropic Messages on Google Vertex AI (rawPredict):
the envelope in `translate`, the rest is ``anthropic``'s."""

from __future__ import annotations

from .translate import from_anthropic_vertex, to_anthropic_vertex

__all__ = ["from_anthropic_vertex", "to_anthropic_vertex"]
