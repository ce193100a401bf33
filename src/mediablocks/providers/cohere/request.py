"""Cohere v2 chat request fields beside the messages, and the response body.

- tools -> ``tools`` of ``{"type": "function", "function": {...}}``; strict tools ->
  ``strict_tools: true``, which Cohere applies to every tool of a request (a mix of strict and
  non-strict tools raises).
- tool choice -> ``tool_choice``: ``REQUIRED`` or ``NONE``; ``auto`` is Cohere's default and
  sends nothing; one tool by name cannot be forced and raises.
- ``max_tokens``, ``temperature`` by name; ``top_p`` -> ``p``; ``stop`` -> ``stop_sequences``;
  ``reasoning_effort`` -> ``thinking`` with a token budget (`THINKING_BUDGETS`);
  ``response_schema`` -> ``response_format`` (``json_object`` with ``json_schema``).
"""

from __future__ import annotations

from typing import Any

from ...errors import DecodeError
from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from ...tools import Tool
from .._fields import (
    add_model_fields,
    function_entry,
    one_tool_choice,
    own_fields,
    pop_settings,
    request_fields,
    rest_of,
    tool_choice_name,
    tool_from,
    tool_schema,
    unsupported_setting,
    usage_numbers,
)
from .._options import EncodeOptions
from .._report import drop_or_raise
from .translate import PROVIDER, to_cohere

__all__ = [
    "MESSAGE_FIELDS",
    "THINKING_BUDGETS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages", "documents"})
THINKING_BUDGETS: dict[str, int] = {"low": 1024, "medium": 4096, "high": 16384}
"""The thinking token budget sent for each reasoning effort (Cohere takes a budget, no level)."""

_CHOICES = {"required": "REQUIRED", "none": "NONE"}
_FUNCTION_KEYS = frozenset({"name", "description", "parameters"})
_NAMED = {
    "top_p": "p",
    "top_k": "k",
    "seed": "seed",
    "frequency_penalty": "frequency_penalty",
    "presence_penalty": "presence_penalty",
}


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``strict_tools``, ``tool_choice`` and the settings as ``client.v2.chat``
    fields."""
    options = one_tool_choice(options, PROVIDER)
    out: dict[str, Any] = {}
    if options.tools:
        out.update(_tools(options))
    name = tool_choice_name(options)
    if name is not None:
        unsupported_setting(
            options,
            PROVIDER,
            f"tool_choice={name!r}",
            "Cohere cannot force one tool by name, only some tool (tool_choice='required')",
        )
    elif options.tool_choice in _CHOICES:
        out["tool_choice"] = _CHOICES[options.tool_choice]
    settings = options.settings
    if settings is None:
        return out
    if settings.max_tokens is not None:
        out["max_tokens"] = settings.max_tokens
    if settings.temperature is not None:
        out["temperature"] = settings.temperature
    for name, wire in _NAMED.items():
        if getattr(settings, name) is not None:
            out[wire] = getattr(settings, name)
    if settings.json_mode:
        out["response_format"] = {"type": "json_object"}
    if settings.parallel_tool_calls is not None:
        unsupported_setting(options, PROVIDER, "parallel_tool_calls", "Cohere has no such field")
    if settings.stop is not None:
        out["stop_sequences"] = list(settings.stop)
    if settings.reasoning_effort is not None:
        budget = THINKING_BUDGETS[settings.reasoning_effort]
        out["thinking"] = {"type": "enabled", "token_budget": budget}
    if settings.response_schema is not None:
        out["response_format"] = {"type": "json_object", "json_schema": settings.response_schema}
    return out


def _tools(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, and ``strict_tools`` when every tool is strict."""
    tools: list[dict[str, Any]] = []
    strict = all(tool.strict for tool in options.tools)
    for tool in options.tools:
        function: dict[str, Any] = {**own_fields(tool, PROVIDER), "name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = tool_schema(tool)
        if tool.strict and not strict:
            drop_or_raise(
                options,
                PROVIDER,
                f"strict mode of tool {tool.name!r}",
                "Cohere's strict_tools applies to all the tools of a request or none",
            )
        tools.append(function_entry(tool, PROVIDER, function))
    out: dict[str, Any] = {"tools": tools}
    if strict:
        out["strict_tools"] = True
    return out


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Cohere v2 chat request body."""
    rest = rest_of(body, {"model", "tools", *MESSAGE_FIELDS})
    strict = rest.get("strict_tools") is True and bool(body.get("tools"))
    if strict:
        del rest["strict_tools"]
    items = body.get("tools") or []
    if not isinstance(items, list):
        raise DecodeError(f"Cohere 'tools' is a {type(items).__name__}, not a list")
    tools: list[Tool] = []
    others: list[Any] = []
    for item in items:
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or item.get("type", "function") != "function":
            others.append(item)
            continue
        tools.append(
            tool_from(
                PROVIDER,
                function.get("name"),
                function.get("description"),
                function.get("parameters"),
                strict=strict,
                rest={k: v for k, v in function.items() if k not in _FUNCTION_KEYS},
                notes={
                    "entry": {k: v for k, v in item.items() if k not in ("type", "function")}
                    or None,
                    "untyped": True if "type" not in item else None,
                },
            )
        )
    if others:
        rest["tools"] = others
    choice = {"REQUIRED": "required", "NONE": "none"}.get(str(rest.get("tool_choice")))
    if choice is not None:
        del rest["tool_choice"]
    given: dict[str, Any] = {
        "max_tokens": rest.pop("max_tokens", None),
        "response_schema": _schema_from_format(rest),
        "reasoning_effort": _effort_from_thinking(rest),
    }
    if rest.get("response_format") == {"type": "json_object"}:
        given["json_mode"] = rest.pop("response_format") is not None
    names = {"temperature": "temperature", **{wire: name for name, wire in _NAMED.items()}}
    given.update(pop_settings(rest, names, numbers=True, counts=True))
    stop = rest.get("stop_sequences")
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        given["stop"] = rest.pop("stop_sequences")
    return request_fields(tools, choice, given, body.get("model")), rest


def _schema_from_format(rest: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of a ``json_object`` response format with one, taken out of ``rest``."""
    value = rest.get("response_format")
    if not isinstance(value, dict) or set(value) != {"type", "json_schema"}:
        return None
    schema = value["json_schema"]
    if value["type"] != "json_object" or not isinstance(schema, dict):
        return None
    del rest["response_format"]
    return schema


def _effort_from_thinking(rest: dict[str, Any]) -> str | None:
    """The effort whose budget ``thinking`` holds, taken out of ``rest`` (any other thinking
    configuration stays there, verbatim)."""
    value = rest.get("thinking")
    if not isinstance(value, dict) or set(value) != {"type", "token_budget"}:
        return None
    if value["type"] != "enabled":
        return None
    for effort, budget in THINKING_BUDGETS.items():
        if value["token_budget"] == budget:
            del rest["thinking"]
            return effort
    return None


add_request_fields = add_model_fields


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a Cohere ``V2ChatResponse`` body. Cohere's response names no model, so
    ``message.model`` is not written."""
    encoded = to_cohere([message])["messages"]
    reply = encoded[0] if encoded else {"role": "assistant", "content": []}
    reason = message.provider_stop_reason if message.provider == PROVIDER else None
    body: dict[str, Any] = {
        "id": message.response_id or "",
        "finish_reason": reason
        or provider_stop_reason_for(message.stop_reason or "end_turn", PROVIDER),
        "message": reply,
    }
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        numbers = message.usage
        usage = {
            "tokens": {
                "input_tokens": numbers.input_tokens,
                "output_tokens": numbers.output_tokens,
            }
        }
        if numbers.cache_read_tokens:
            usage["cached_tokens"] = numbers.cache_read_tokens
    if usage is not None:
        body["usage"] = usage
    return body
