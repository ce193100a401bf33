"""Anthropic Messages request fields beside the messages (tools, tool choice, settings) and the
response body: both directions.

- tools -> ``tools`` (``name``, ``description``, ``input_schema``, ``strict``).
- tool choice -> ``tool_choice``: ``auto``, ``none``, ``required`` is ``any``, a name is
  ``{"type": "tool", "name": ...}``.
- ``max_tokens`` -> ``max_tokens``; ``stop`` -> ``stop_sequences``; ``reasoning_effort`` ->
  ``output_config.effort``; ``response_schema`` -> ``output_config.format``. The SDK's request
  type has no ``temperature`` or ``top_p``: they raise `UnsupportedSettingError` (or are dropped
  and reported with ``unsupported="drop"``).
"""

from __future__ import annotations

from typing import Any

from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from .._fields import (
    add_model_fields,
    decoded_settings,
    one_tool_choice,
    own_fields,
    rest_of,
    strict_schema,
    tool_choice_name,
    tool_from,
    unsupported_setting,
    unsupported_settings,
    usage_numbers,
)
from .._options import EncodeOptions
from .translate import PROVIDER, to_anthropic

__all__ = [
    "MESSAGE_FIELDS",
    "REQUIRED_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages", "system"})
REQUIRED_FIELDS = ("max_tokens",)
"""What the Messages API refuses a request without besides the messages and the model (the API
reference and the SDK's ``MessageCreateParams`` mark ``max_tokens`` required)."""
_TOOL_KEYS = frozenset({"name", "description", "input_schema", "strict", "type"})
_CHOICES = {"auto": "auto", "none": "none", "required": "any"}


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and the settings as ``client.messages.create`` fields."""
    options = one_tool_choice(options, PROVIDER)
    out: dict[str, Any] = {}
    if options.tools:
        out["tools"] = [_tool(tool, options) for tool in options.tools]
    name = tool_choice_name(options)
    if name is not None:
        out["tool_choice"] = {"type": "tool", "name": name}
    elif options.tool_choice is not None:
        out["tool_choice"] = {"type": _CHOICES[str(options.tool_choice)]}
    settings = options.settings
    if settings is None:
        return out
    if settings.parallel_tool_calls is not None:
        choice = out.setdefault("tool_choice", {"type": "auto"})
        if choice["type"] == "none":
            unsupported_setting(
                options, PROVIDER, "parallel_tool_calls", "no tool may be called (tool choice none)"
            )
        else:
            choice["disable_parallel_tool_use"] = not settings.parallel_tool_calls
    if settings.max_tokens is not None:
        out["max_tokens"] = settings.max_tokens
    # The SDK's MessageCreateParams has no top_k, seed, penalties or JSON-object mode.
    unsupported_settings(
        options,
        PROVIDER,
        ("top_k", "seed", "frequency_penalty", "presence_penalty", "json_mode"),
        "Anthropic's Messages API has no such field",
    )
    if settings.stop is not None:
        out["stop_sequences"] = list(settings.stop)
    for field in ("temperature", "top_p"):
        if getattr(settings, field) is not None:
            unsupported_setting(
                options, PROVIDER, field, "Anthropic's Messages API has no such field"
            )
    config: dict[str, Any] = {}
    if settings.reasoning_effort is not None:
        config["effort"] = settings.reasoning_effort
    if settings.response_schema is not None:
        config["format"] = {"type": "json_schema", "schema": settings.response_schema}
    if config:
        out["output_config"] = config
    return out


def _tool(tool: Any, options: EncodeOptions) -> dict[str, Any]:
    part: dict[str, Any] = {**own_fields(tool, PROVIDER), "name": tool.name}
    if tool.description:
        part["description"] = tool.description
    part["input_schema"] = strict_schema(tool, PROVIDER, options)
    if tool.strict:
        part["strict"] = True
    return part


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of an Anthropic request body."""
    known = {"model", "tools", "tool_choice", "max_tokens", "stop_sequences", *MESSAGE_FIELDS}
    rest = rest_of(body, known)
    tools, server_tools = [], []
    for item in body.get("tools") or []:
        if (
            isinstance(item, dict)
            and "input_schema" in item
            and item.get("type")
            in (
                None,
                "custom",
            )
        ):
            tools.append(
                tool_from(
                    PROVIDER,
                    item.get("name"),
                    item.get("description"),
                    item.get("input_schema"),
                    strict=item.get("strict"),
                    # "type": "custom" is kept as sent (absent means the same)
                    rest={k: v for k, v in item.items() if k not in _TOOL_KEYS or k == "type"},
                )
            )
        else:
            server_tools.append(item)
    if server_tools:
        rest["tools"] = server_tools
    choice = body.get("tool_choice")
    tool_choice = parallel = None
    if isinstance(choice, dict):
        kind = choice.get("type")
        tool_choice = {"auto": "auto", "none": "none", "any": "required"}.get(str(kind))
        if kind == "tool":
            tool_choice = choice.get("name")
        extras = {k: v for k, v in choice.items() if k not in ("type", "name")}
        if tool_choice is not None and isinstance(extras.get("disable_parallel_tool_use"), bool):
            parallel = not extras.pop("disable_parallel_tool_use")
        if tool_choice is None:
            rest["tool_choice"] = choice
        elif extras:
            rest["tool_choice"] = extras
    config = rest.pop("output_config", None)
    effort = fmt = None
    if isinstance(config, dict):
        config = dict(config)
        if config.get("effort") in ("low", "medium", "high"):
            effort = config.pop("effort")
        if isinstance(config.get("format"), dict) and set(config["format"]) == {"type", "schema"}:
            fmt = config.pop("format")["schema"]
        if config:
            rest["output_config"] = config
    elif config is not None:
        rest["output_config"] = config
    settings = decoded_settings(
        max_tokens=body.get("max_tokens"),
        stop=body.get("stop_sequences"),
        reasoning_effort=effort,
        response_schema=fmt,
        parallel_tool_calls=parallel,
    )
    fields = {
        "tools": tools,
        "tool_choice": tool_choice,
        "settings": settings,
        "model": body.get("model"),
    }
    return fields, rest


add_request_fields = add_model_fields


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as an Anthropic Messages response."""
    encoded = to_anthropic([message.model_copy(update={"metadata": {}})])
    content = encoded["messages"][0]["content"] if encoded["messages"] else []
    notes = message.metadata.get(PROVIDER, {}) if message.provider == PROVIDER else {}
    reason = message.provider_stop_reason if message.provider == PROVIDER else None
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        numbers = message.usage
        usage = {
            "input_tokens": numbers.uncached_input_tokens,
            "output_tokens": numbers.output_tokens,
            "cache_read_input_tokens": numbers.cache_read_tokens,
            "cache_creation_input_tokens": numbers.cache_write_tokens,
        }
    body: dict[str, Any] = {
        "id": message.response_id or "",
        "type": "message",
        "role": "assistant",
        "model": message.model or "",
        "content": content,
        "stop_reason": reason or provider_stop_reason_for(message.stop_reason, PROVIDER),
        "stop_sequence": notes.get("stop_sequence"),
    }
    if usage is not None:
        body["usage"] = usage
    body.update({k: v for k, v in notes.items() if k != "stop_sequence"})
    return body
