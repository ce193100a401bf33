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
from .._fields import (
    add_request_fields as _add,
)
from .._fields import (
    choice_from_function,
    decoded_settings,
    function_choice,
    function_tools,
    json_schema_format,
    rest_of,
    schema_from_format,
    tools_from_functions,
    usage_numbers,
)
from .._options import EncodeOptions
from .translate import PROVIDER, to_mistral

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages"})
_SETTINGS = ("temperature", "top_p", "reasoning_effort")


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and the settings as ``client.chat.complete`` fields."""
    out: dict[str, Any] = {}
    if options.tools:
        out["tools"] = function_tools(options, PROVIDER, strict=True)
    if options.tool_choice is not None:
        out["tool_choice"] = function_choice(options)
    settings = options.settings
    if settings is None:
        return out
    if settings.max_tokens is not None:
        out["max_tokens"] = settings.max_tokens
    for name in _SETTINGS:
        if getattr(settings, name) is not None:
            out[name] = getattr(settings, name)
    if settings.stop is not None:
        out["stop"] = list(settings.stop)
    if settings.response_schema is not None:
        out["response_format"] = json_schema_format(settings)
    return out


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Mistral chat request body."""
    rest = rest_of(body, {"model", "tools", *MESSAGE_FIELDS})
    tools, others = tools_from_functions(body.get("tools"), PROVIDER)
    if others:
        rest["tools"] = others
    choice = choice_from_function(rest.get("tool_choice"), ("required", "any"))
    if choice is not None:
        del rest["tool_choice"]
    schema = schema_from_format(rest.get("response_format"))
    if schema is not None:
        del rest["response_format"]
    given: dict[str, Any] = {"response_schema": schema}
    given["max_tokens"] = rest.pop("max_tokens", None)
    for name in ("temperature", "top_p"):
        if isinstance(rest.get(name), (int, float)):
            given[name] = rest.pop(name)
    if rest.get("reasoning_effort") in ("low", "medium", "high"):
        given["reasoning_effort"] = rest.pop("reasoning_effort")
    stop = rest.get("stop")
    if isinstance(stop, str) or (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        given["stop"] = rest.pop("stop")
    fields = {
        "tools": tools,
        "tool_choice": choice,
        "settings": decoded_settings(**given),
        "model": body.get("model"),
    }
    return fields, rest


def add_request_fields(
    out: dict[str, Any], model: str | None, extra: dict[str, Any], target: str
) -> dict[str, Any]:
    """The encoded fields plus the model and the unmodelled fields."""
    return _add(out, "model", model, extra)


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a Mistral chat completion response."""
    encoded = to_mistral([message])["messages"]
    reply = encoded[0] if encoded else {"role": "assistant", "content": None}
    reply.setdefault("content", None)
    reason = message.provider_stop_reason if message.provider == PROVIDER else None
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
    return body
