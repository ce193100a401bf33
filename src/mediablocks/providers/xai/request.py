"""xAI chat request fields: OpenAI Chat's, minus what xAI's reasoning models refuse.

https://docs.x.ai/docs/guides/reasoning: reasoning models (Grok 4 and later, grok-3-mini,
grok-code) reject ``presence_penalty``, ``frequency_penalty`` and ``stop`` with an error, and
``reasoning_effort`` is taken by grok-3-mini (and grok-4.3, which documents effort levels)
only. `model_refuses` names them for a model, so `encode_request` raises or reports them
instead of sending a body the API refuses.
"""

from __future__ import annotations

from ..openai_chat.request import (
    MESSAGE_FIELDS,
    add_request_fields,
    decode_fields,
    encode_fields,
    response_body,
)

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "model_refuses",
    "response_body",
]

_REASONING = ("grok-4", "grok-3-mini", "grok-code", "grok-5")
_TAKES_EFFORT = ("grok-3-mini", "grok-4.3")
_REFUSED = ("stop", "presence_penalty", "frequency_penalty")


def model_refuses(model: str) -> dict[str, str]:
    """``{setting: why}`` for the settings ``model`` rejects."""
    name = model.lower().rsplit("/", 1)[-1]
    refused: dict[str, str] = {}
    if name.startswith(_REASONING) and "non-reasoning" not in name:
        refused = dict.fromkeys(_REFUSED, f"xAI reasoning model {model!r} rejects it")
    if not name.startswith(_TAKES_EFFORT):
        refused["reasoning_effort"] = f"xAI model {model!r} takes no reasoning effort"
    return refused
