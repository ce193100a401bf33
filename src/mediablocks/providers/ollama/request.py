"""Ollama chat request fields beside the messages, and the response body.

- tools -> ``tools`` of ``{"type": "function", "function": {...}}``; Ollama has no strict mode.
  Schemas go in the shape ollama-python models: no ``title``, a ``default`` said in the
  description (see `to_ollama_schema`).
- tool choice: Ollama has no such field. ``auto`` is its behaviour and sends nothing; ``none``,
  ``required`` and a tool name raise `UnsupportedSettingError` (or are dropped and reported).
- ``max_tokens`` -> ``options.num_predict``; ``temperature``, ``top_p``, ``stop`` ->
  ``options``; ``reasoning_effort`` -> ``think`` (``"low"``/``"medium"``/``"high"``);
  ``response_schema`` -> ``format``.
"""

from __future__ import annotations

from datetime import timezone
from typing import Any

from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from .._fields import (
    add_model_fields,
    function_tools,
    one_tool_choice,
    request_fields,
    rest_of,
    tools_from_functions,
    unsupported_setting,
    usage_numbers,
)
from .._options import EncodeOptions
from .._schema import to_ollama_schema
from .translate import ABSENT, PROVIDER, to_ollama

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages"})
_OPTIONS = {
    "max_tokens": "num_predict",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "frequency_penalty": "frequency_penalty",
    "presence_penalty": "presence_penalty",
}


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``options``, ``think`` and ``format`` for ``client.chat``."""
    options = one_tool_choice(options, PROVIDER)
    out: dict[str, Any] = {}
    if options.tools:
        out["tools"] = [
            {**tool, "function": {**tool["function"], "parameters": to_ollama_schema(params)}}
            if isinstance(params := tool["function"].get("parameters"), dict)
            else tool
            for tool in function_tools(options, PROVIDER, strict=False)
        ]
    if options.tool_choice not in (None, "auto"):
        unsupported_setting(
            options,
            PROVIDER,
            f"tool_choice={options.tool_choice!r}",
            "Ollama has no tool choice (the model always decides)",
        )
    settings = options.settings
    if settings is None:
        return out
    model_options = {
        wire: getattr(settings, name)
        for name, wire in _OPTIONS.items()
        if getattr(settings, name) is not None
    }
    if settings.stop is not None:
        model_options["stop"] = list(settings.stop)
    if model_options:
        out["options"] = model_options
    if settings.reasoning_effort is not None:
        out["think"] = settings.reasoning_effort
    if settings.response_schema is not None:
        out["format"] = settings.response_schema
    if settings.json_mode:
        out["format"] = "json"
    if settings.parallel_tool_calls is not None:
        unsupported_setting(options, PROVIDER, "parallel_tool_calls", "Ollama has no such field")
    return out


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of an Ollama chat request body."""
    rest = rest_of(body, {"model", "tools", *MESSAGE_FIELDS})
    tools, others = tools_from_functions(body.get("tools"), PROVIDER)
    if others or body.get("tools") == []:
        rest["tools"] = others  # ollama-python sends an empty list: it goes back as sent
    given: dict[str, Any] = {}
    model_options = rest.pop("options", None)
    if isinstance(model_options, dict):
        model_options = dict(model_options)
        for name, wire in _OPTIONS.items():
            if isinstance(model_options.get(wire), (int, float)) and not isinstance(
                model_options.get(wire), bool
            ):
                given[name] = model_options.pop(wire)
        stop = model_options.get("stop")
        if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
            given["stop"] = model_options.pop("stop")
        if model_options:
            rest["options"] = model_options
    elif model_options is not None:
        rest["options"] = model_options
    if rest.get("think") in ("low", "medium", "high"):
        given["reasoning_effort"] = rest.pop("think")
    if isinstance(rest.get("format"), dict):
        given["response_schema"] = rest.pop("format")
    elif rest.get("format") == "json":
        given["json_mode"] = rest.pop("format") == "json"
    return request_fields(tools, None, given, body.get("model")), rest


add_request_fields = add_model_fields


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as an Ollama ``/api/chat`` response (not streamed)."""
    encoded = to_ollama([message])["messages"]
    reply = encoded[0] if encoded else {"role": "assistant", "content": ""}
    own = message.provider == PROVIDER
    reason = message.provider_stop_reason if own else None
    created = message.timestamp.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    body: dict[str, Any] = {
        "model": message.model or "",
        "created_at": created,
        "message": reply,
        "done": True,
        "done_reason": reason or provider_stop_reason_for(message.stop_reason, PROVIDER),
    }
    notes = message.metadata.get(PROVIDER, {}) if own else {}
    for key, value in notes.items():  # the reply's own fields, as it had them
        if key == "message_nulls" and isinstance(value, list):
            reply.update({name: None for name in value if name not in reply})
        elif value == ABSENT:
            body.pop(key, None)
        else:
            body[key] = value
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        usage = {
            "prompt_eval_count": message.usage.input_tokens,
            "eval_count": message.usage.output_tokens,
        }
    body.update(usage or {})
    return body
