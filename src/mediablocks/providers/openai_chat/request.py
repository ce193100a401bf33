"""OpenAI Chat Completions request fields beside the messages, and the response body.

- tools -> ``tools`` of ``{"type": "function", "function": {...}}``; a strict tool sends
  ``strict: true`` with a strict-mode schema.
- tool choice -> ``tool_choice``: ``auto``, ``none``, ``required``, or
  ``{"type": "function", "function": {"name": ...}}``.
- ``max_tokens`` -> ``max_completion_tokens``; ``temperature``, ``top_p``, ``stop``,
  ``reasoning_effort`` by name; ``response_schema`` -> ``response_format`` (``json_schema``).
"""

from __future__ import annotations

import time
from typing import Any

from ...blocks import TextBlock, ThinkingBlock
from ...errors import UnknownProviderError
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
from .decode import _REASONING_FIELDS, DEFAULT_CHOICE
from .translate import PROVIDER, to_openai_chat, with_message_fields

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages"})


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and the settings as ``chat.completions.create`` fields."""
    return chat_settings_fields(
        options, PROVIDER, max_tokens="max_completion_tokens", allowed_tools=True
    )


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Chat Completions request body."""
    return chat_settings_from(
        body, PROVIDER, MESSAGE_FIELDS, max_tokens=("max_completion_tokens", "max_tokens")
    )


add_request_fields = add_model_fields


def _reply_notes(message: AssistantMessage) -> dict[str, Any]:
    """What a reply holds beside its content and a request does not replay: the reasoning text
    an OpenAI-compatible server returned (DeepSeek's ``reasoning_content``, ``reasoning``) and
    the message's citations (``annotations``), each under the field it came in."""
    notes: dict[str, Any] = {}
    for block in message.content:
        own = block.for_provider(PROVIDER)
        if isinstance(block, ThinkingBlock) and own.get("reasoning_field") in _REASONING_FIELDS:
            notes.setdefault(own["reasoning_field"], block.thinking)
        elif isinstance(block, TextBlock) and isinstance(own.get("annotations"), list):
            notes.setdefault("annotations", own["annotations"])
    return notes


def _own(message: AssistantMessage) -> bool:
    """True for a reply from OpenAI Chat or an endpoint speaking it (OpenRouter, Groq...)."""
    from ..registry import provider_entry

    if message.provider is None:
        return False
    try:
        entry = provider_entry(message.provider)
    except UnknownProviderError:
        return False
    return (entry.profile.base if entry.profile is not None else entry.name) == PROVIDER


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a ``chat.completion`` object; a reply that came from OpenAI Chat (or an
    endpoint speaking it) gets back the fields its response had (``system_fingerprint``,
    ``service_tier``, a choice's ``logprobs``...)."""
    encoded = to_openai_chat([message])["messages"]
    reply = encoded[0] if encoded else {"role": "assistant", "content": None}
    reply.setdefault("content", None)
    reply.update(_reply_notes(message))
    own = _own(message)
    notes = message.metadata.get(PROVIDER, {}) if own else {}
    reply = with_message_fields(reply, message) if own else reply
    reason = message.provider_stop_reason if own else None
    choice: dict[str, Any] = {
        "index": 0,
        "message": reply,
        "finish_reason": reason
        or provider_stop_reason_for(message.stop_reason or "end_turn", PROVIDER),
    }
    body: dict[str, Any] = {
        "id": message.response_id or "",
        "object": "chat.completion",
        "created": int(message.timestamp.timestamp()) if message.timestamp else int(time.time()),
        "model": message.model or "",
        "choices": [choice],
    }
    write_envelope(body, notes, DEFAULT_CHOICE)
    usage = usage_numbers(message, PROVIDER) if not own else _raw_usage(message)
    if usage is None and message.usage is not None:
        usage = chat_usage(message)
    if usage is not None:
        body["usage"] = usage
    return body


def chat_usage(message: AssistantMessage) -> dict[str, Any]:
    """The reply's normalised usage in Chat Completions' names (cache writes where there are
    any, as OpenRouter reports them)."""
    assert message.usage is not None
    numbers = message.usage
    prompt: dict[str, Any] = {"cached_tokens": numbers.cache_read_tokens}
    if numbers.cache_write_tokens:
        prompt["cache_write_tokens"] = numbers.cache_write_tokens
    return {
        "prompt_tokens": numbers.input_tokens,
        "completion_tokens": numbers.output_tokens,
        "total_tokens": numbers.total_tokens,
        "prompt_tokens_details": prompt,
        "completion_tokens_details": {"reasoning_tokens": numbers.reasoning_tokens},
    }


def _raw_usage(message: AssistantMessage) -> dict[str, Any] | None:
    """The usage record the reply came with, as the endpoint wrote it."""
    if message.usage is None or not message.usage.raw:
        return None
    return dict(message.usage.raw)
