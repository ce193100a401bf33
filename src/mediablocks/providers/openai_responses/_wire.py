"""What the OpenAI Responses encoder and decoder share: the provider name, the summary join."""

from __future__ import annotations

from typing import Any

PROVIDER = "openai-responses"
_SUMMARY_JOIN = "\n\n"


def _summary_text(parts: list[Any]) -> str:
    return _SUMMARY_JOIN.join(
        part["text"]
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )
