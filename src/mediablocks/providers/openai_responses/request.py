"""OpenAI Responses request fields beside the input, and the response body.

- tools -> ``tools`` of ``{"type": "function", "name", "description", "parameters",
  "strict"}`` (strict tools get a strict-mode schema).
- tool choice -> ``tool_choice``: ``auto``, ``none``, ``required``, or
  ``{"type": "function", "name": ...}``.
- ``max_tokens`` -> ``max_output_tokens``; ``temperature``, ``top_p`` by name;
  ``reasoning_effort`` -> ``reasoning.effort``; ``response_schema`` -> ``text.format``
  (``json_schema``). The Responses API has no stop sequences: ``stop`` raises
  `UnsupportedSettingError` (or is dropped and reported).
"""

from __future__ import annotations

from typing import Any

from ...blocks import RawBlock, TextBlock
from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from .._fields import (
    add_request_fields as _add,
)
from .._fields import (
    decoded_settings,
    own_fields,
    request_fields,
    rest_of,
    strict_schema,
    tool_choice_name,
    tool_choice_names,
    tool_from,
    unsupported_setting,
    unsupported_settings,
    usage_numbers,
)
from .._options import EncodeOptions
from .translate import PROVIDER, to_openai_responses

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"input", "instructions"})
_FORMAT_NOTES = frozenset({"strict", "description"})
_TOOL_KEYS = frozenset({"type", "name", "description", "parameters", "strict"})


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and the settings as ``client.responses.create`` fields."""
    out: dict[str, Any] = {}
    if options.tools:
        out["tools"] = [_tool(tool, options) for tool in options.tools]
    name = tool_choice_name(options)
    names = tool_choice_names(options)
    if name is not None:
        out["tool_choice"] = {"type": "function", "name": name}
    elif names is not None:
        tools = [{"type": "function", "name": one} for one in names]
        out["tool_choice"] = {"type": "allowed_tools", "mode": "required", "tools": tools}
    elif options.tool_choice is not None:
        out["tool_choice"] = options.tool_choice
    settings = options.settings
    if settings is None:
        return out
    if settings.max_tokens is not None:
        out["max_output_tokens"] = settings.max_tokens
    for field in ("temperature", "top_p", "parallel_tool_calls"):
        if getattr(settings, field) is not None:
            out[field] = getattr(settings, field)
    unsupported_settings(
        options,
        PROVIDER,
        ("seed", "top_k", "frequency_penalty", "presence_penalty"),
        "the Responses API has no such field",
    )
    if settings.json_mode:
        out["text"] = {"format": {"type": "json_object"}}
    if settings.stop is not None:
        unsupported_setting(options, PROVIDER, "stop", "the Responses API has no stop sequences")
    if settings.reasoning_effort is not None:
        out["reasoning"] = {"effort": settings.reasoning_effort}
    if settings.response_schema is not None:
        fmt: dict[str, Any] = {"type": "json_schema", "name": settings.schema_name()}
        fmt.update(settings.for_provider(PROVIDER).get("format") or {})  # as decoded
        fmt["schema"] = settings.response_schema
        out["text"] = {"format": fmt}
    return out


def _tool(tool: Any, options: EncodeOptions) -> dict[str, Any]:
    part: dict[str, Any] = {
        **own_fields(tool, PROVIDER),
        "type": "function",
        "name": tool.name,
    }
    if tool.description:
        part["description"] = tool.description
    part["parameters"] = strict_schema(tool, PROVIDER, options)
    if tool.strict is not None:  # absent: the API default applies, as in the source
        part["strict"] = tool.strict
    return part


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Responses request body."""
    rest = rest_of(body, {"model", "tools", *MESSAGE_FIELDS})
    tools, others = [], []
    for item in body.get("tools") or []:
        if isinstance(item, dict) and item.get("type") == "function":
            tools.append(
                tool_from(
                    PROVIDER,
                    item.get("name"),
                    item.get("description"),
                    item.get("parameters"),
                    strict=item.get("strict"),
                    absent_strict=None,
                    rest={k: v for k, v in item.items() if k not in _TOOL_KEYS},
                )
            )
        else:
            others.append(item)
    if others:
        rest["tools"] = others
    choice = rest.get("tool_choice")
    tool_choice: str | list[str] | None = _allowed_tools(choice)
    if choice in ("auto", "none", "required"):
        tool_choice = str(choice)
    elif (
        isinstance(choice, dict)
        and set(choice) == {"type", "name"}
        and choice["type"] == "function"
    ):
        tool_choice = str(choice["name"])
    if tool_choice is not None:
        del rest["tool_choice"]
    given: dict[str, Any] = {"max_tokens": rest.pop("max_output_tokens", None)}
    for field in ("temperature", "top_p"):
        if isinstance(rest.get(field), (int, float)):
            given[field] = rest.pop(field)
    if isinstance(rest.get("parallel_tool_calls"), bool):
        given["parallel_tool_calls"] = rest.pop("parallel_tool_calls")
    reasoning = rest.get("reasoning")
    if isinstance(reasoning, dict) and reasoning.get("effort") in ("low", "medium", "high"):
        reasoning = dict(reasoning)
        given["reasoning_effort"] = reasoning.pop("effort")
        if reasoning:
            rest["reasoning"] = reasoning
        else:
            del rest["reasoning"]
    text = rest.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if (
        isinstance(text, dict)
        and isinstance(fmt, dict)
        and {"type", "name", "schema"} <= set(fmt) <= {"type", "name", "schema", *_FORMAT_NOTES}
        and fmt["type"] == "json_schema"
        and isinstance(fmt["schema"], dict)
        and isinstance(fmt["name"], str)
    ):
        given["response_schema"] = fmt["schema"]
        notes = {k: fmt[k] for k in ("strict", "description") if k in fmt}
        if decoded_settings(response_schema=fmt["schema"]).schema_name() != fmt["name"]:
            notes["name"] = fmt["name"]
        if notes:  # the format's own name, strict and description go back as they came
            given["provider_data"] = {PROVIDER: {"format": notes}}
    if isinstance(text, dict) and fmt == {"type": "json_object"}:
        given["json_mode"] = True
    if isinstance(text, dict) and (given.get("json_mode") or "response_schema" in given):
        remaining = {k: v for k, v in text.items() if k != "format"}
        if remaining:
            rest["text"] = remaining
        else:
            del rest["text"]
    return request_fields(tools, tool_choice, given, body.get("model")), rest


def _allowed_tools(value: Any) -> list[str] | None:
    """The names of a ``required`` ``allowed_tools`` choice of two or more functions."""
    if not isinstance(value, dict) or set(value) != {"type", "mode", "tools"}:
        return None
    tools = value["tools"]
    if value["type"] != "allowed_tools" or value["mode"] != "required":
        return None
    if not isinstance(tools, list) or len(tools) < 2:
        return None
    names = [t.get("name") for t in tools if isinstance(t, dict) and set(t) == {"type", "name"}]
    if len(names) != len(tools) or any(t.get("type") != "function" for t in tools):
        return None
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        return None
    return [str(n) for n in names]


def add_request_fields(
    out: dict[str, Any], model: str | None, extra: dict[str, Any], target: str
) -> dict[str, Any]:
    """The encoded fields plus the model and the unmodelled fields. A request with no input
    items (one that continues a stored response or conversation) sends no ``input``."""
    if out.get("input") == []:
        out = {key: value for key, value in out.items() if key != "input"}
    return _add(out, "model", model, extra)


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a Responses ``response`` object."""
    items = to_openai_responses([_as_output_texts(message)])["input"]
    own = message.provider == PROVIDER
    notes = dict(message.metadata.get(PROVIDER, {})) if own else {}
    if "status" not in notes:
        raw = provider_stop_reason_for(message.stop_reason, PROVIDER)
        if raw in ("max_output_tokens", "content_filter"):
            notes["status"] = "incomplete"
            notes["incomplete_details"] = {"reason": raw}
        elif raw == "failed":
            notes["status"] = "failed"
        else:
            notes["status"] = "completed"
    stamp = message.timestamp.timestamp()
    body: dict[str, Any] = {
        "id": message.response_id or "",
        "object": "response",
        "created_at": int(stamp) if stamp == int(stamp) else stamp,
        "model": message.model or "",
        "output": [_with_nulls(_as_output(item), message) for item in items],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        **notes,
    }
    if "created_at" in notes and notes["created_at"] is None:
        del body["created_at"]  # the response had none
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        numbers = message.usage
        usage = {
            "input_tokens": numbers.input_tokens,
            "input_tokens_details": {
                "cached_tokens": numbers.cache_read_tokens,
                "cache_write_tokens": numbers.cache_write_tokens,
            },
            "output_tokens": numbers.output_tokens,
            "output_tokens_details": {"reasoning_tokens": numbers.reasoning_tokens},
            "total_tokens": numbers.total_tokens,
        }
    if usage is not None:
        body["usage"] = usage
    return body


def _as_output_texts(message: AssistantMessage) -> AssistantMessage:
    """``message`` with each text block bound to an output message item (an empty id where it
    had none), so it is written as an ``output_text`` part with its annotations, or as a
    ``refusal`` part, never as the plain string replayed input uses."""
    blocks: list[Any] = []
    for block in message.content:
        stored = block.for_provider(PROVIDER)
        found = stored.get("item")
        item: dict[str, Any] = found if isinstance(found, dict) else {}
        if isinstance(block, TextBlock) and not isinstance(item.get("id"), str):
            bound = {**stored, "item": {**item, "id": ""}}
            block = block.model_copy(
                update={"provider_data": {**block.provider_data, PROVIDER: bound}}
            )
        blocks.append(block)
    return message.model_copy(update={"content": blocks})


def _with_nulls(item: dict[str, Any], message: AssistantMessage) -> dict[str, Any]:
    """A verbatim output item with the ``null`` fields the response had for it (dropped from
    the item so it can be sent back as input, where the API refuses many nulls)."""
    for block in message.content:
        if isinstance(block, RawBlock) and block.data == item:
            nulls = block.for_provider(PROVIDER).get("nulls")
            if isinstance(nulls, list):
                return {**item, **dict.fromkeys(nulls)}
    return item


def _as_output(item: dict[str, Any]) -> dict[str, Any]:
    """An input item of the assistant's as the output item a response holds."""
    if item.get("role") == "assistant" and item.get("type", "message") == "message":
        content = item.get("content")
        if isinstance(content, str):
            content = [{"type": "output_text", "text": content}]
        parts = [
            {"annotations": [], **part} if part.get("type") == "output_text" else part
            for part in content or []
        ]
        return {
            "type": "message",
            "id": item.get("id", ""),
            "status": "completed",
            **item,
            "content": parts,
        }
    return item
