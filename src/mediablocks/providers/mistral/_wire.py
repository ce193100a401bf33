"""What the Mistral encoder and decoder share: the provider name, the id alphabet, thinking text."""

from __future__ import annotations

import string
from typing import Any

PROVIDER = "mistral"
_ID_ALPHABET = string.ascii_letters + string.digits


def _joined_thinking(inner: list[Any]) -> str:
    """The text of a thinking chunk's nested list (its text chunks, in order)."""
    texts = []
    for part in inner:
        if isinstance(part, dict) and part.get("type", "text") == "text":
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)
