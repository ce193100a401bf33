"""OpenAI Responses counts as OpenAI Chat does."""

from __future__ import annotations

from ..openai_chat.tokens import FORMULA as FORMULA
