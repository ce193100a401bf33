"""Mistral chat request fields beside the messages, and the response body.

- tools -> ``tools`` of ``{"type": "function", "function": {...}}`` (``strict`` where asked).
- tool choice -> ``tool_choice``: ``auto``, ``none``, ``required`` (``any`` reads the same), or
  ``{"type": "function", "function": {"name": ...}}``.
- ``max_tokens``, ``temperature``, ``top_p``, ``stop``, ``reasoning_effort`` by name;
  ``response_schema`` -> ``response_format`` (``json_schema``).
"""

from __future__ import annotations

import time
from typing import Any

from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from .._chat_envelope import write_envelope
from .._fields import (
    add_model_fields,
    chat_settings_fields,
    chat_settings_from,
    usage_numbers,
)
from .._options import EncodeOptions
from ..openai_chat.translate import with_message_fields
from .translate import PROVIDER, to_mistral

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages"})


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and the settings as ``client.chat.complete`` fields."""
    return chat_settings_fields(
        options, PROVIDER, max_tokens="max_tokens", seed="random_seed", top_k=True
    )


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Mistral chat request body."""
    return chat_settings_from(
        body,
        PROVIDER,
        MESSAGE_FIELDS,
        max_tokens=("max_tokens",),
        required=("required", "any"),
        seed="random_seed",
    )


add_request_fields = add_model_fields


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a Mistral chat completion response."""
    encoded = to_mistral([message])["messages"]
    reply = encoded[0] if encoded else {"role": "assistant", "content": None}
    reply.setdefault("content", None)
    own = message.provider == PROVIDER
    reply = with_message_fields(reply, message, PROVIDER) if own else reply
    reason = message.provider_stop_reason if own else None
    body: dict[str, Any] = {
        "id": message.response_id or "",
        "object": "chat.completion",
        "created": int(message.timestamp.timestamp()) if message.timestamp else int(time.time()),
        "model": message.model or "",
        "choices": [
            {
                "index": 0,
                "message": reply,
                "finish_reason": reason
                or provider_stop_reason_for(message.stop_reason or "end_turn", PROVIDER),
            }
        ],
    }
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        numbers = message.usage
        usage = {
            "prompt_tokens": numbers.input_tokens,
            "completion_tokens": numbers.output_tokens,
            "total_tokens": numbers.total_tokens,
            "prompt_tokens_details": {"cached_tokens": numbers.cache_read_tokens},
        }
    if usage is not None:
        body["usage"] = usage
    if own:
        notes = message.metadata.get(PROVIDER, {})
        write_envelope(body, notes, {})
        if notes.get("usage") == {}:
            body["usage"] = {}
    return body
