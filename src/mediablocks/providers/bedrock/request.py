"""Bedrock Converse request fields beside the messages, and the response body.

- tools -> ``toolConfig.tools`` of ``{"toolSpec": {"name", "description", "inputSchema":
  {"json": ...}, "strict"}}``.
- tool choice -> ``toolConfig.toolChoice``: ``{"auto": {}}``, ``{"any": {}}`` (``required``),
  ``{"tool": {"name": ...}}``. Converse has no ``none``: it raises `UnsupportedSettingError`
  (or is dropped and reported).
- ``max_tokens``, ``temperature``, ``top_p``, ``stop`` -> ``inferenceConfig`` (``maxTokens``,
  ``temperature``, ``topP``, ``stopSequences``); ``reasoning_effort`` -> ``outputConfig.effort``;
  ``response_schema`` -> ``outputConfig.textFormat`` (the schema as JSON text).
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import DecodeError
from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from .._fields import (
    add_request_fields as _add,
)
from .._fields import (
    decoded_settings,
    one_tool_choice,
    own_fields,
    request_fields,
    strict_schema,
    tool_choice_name,
    tool_from,
    unsupported_setting,
    unsupported_settings,
    usage_numbers,
)
from .._options import EncodeOptions
from ._wire import PROVIDER
from .translate import to_bedrock

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

MESSAGE_FIELDS = frozenset({"messages", "system"})
_INFERENCE = {
    "max_tokens": "maxTokens",
    "temperature": "temperature",
    "top_p": "topP",
    "stop": "stopSequences",
}
_SPEC_KEYS = frozenset({"name", "description", "inputSchema", "strict"})


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``toolConfig``, ``inferenceConfig`` and ``outputConfig`` for ``converse``."""
    options = one_tool_choice(options, PROVIDER)
    out: dict[str, Any] = {}
    tool_config: dict[str, Any] = {}
    if options.tools:
        tool_config["tools"] = [{"toolSpec": _spec(tool, options)} for tool in options.tools]
    name = tool_choice_name(options)
    if name is not None:
        tool_config["toolChoice"] = {"tool": {"name": name}}
    elif options.tool_choice == "auto":
        tool_config["toolChoice"] = {"auto": {}}
    elif options.tool_choice == "required":
        tool_config["toolChoice"] = {"any": {}}
    elif options.tool_choice == "none":
        unsupported_setting(
            options, PROVIDER, "tool_choice='none'", "Converse's toolChoice has no 'none'"
        )
    if tool_config:
        out["toolConfig"] = tool_config
    settings = options.settings
    if settings is None:
        return out
    inference = {
        wire: getattr(settings, name)
        for name, wire in _INFERENCE.items()
        if getattr(settings, name) is not None
    }
    if inference:
        out["inferenceConfig"] = inference
    # Converse's InferenceConfiguration has maxTokens, temperature, topP and stopSequences only.
    unsupported_settings(
        options,
        PROVIDER,
        ("top_k", "seed", "frequency_penalty", "presence_penalty", "parallel_tool_calls"),
        "Converse has no such field (a model's own fields go in additionalModelRequestFields)",
    )
    if settings.json_mode:
        unsupported_setting(
            options, PROVIDER, "json_mode", "Converse structured output needs a JSON schema"
        )
    output: dict[str, Any] = {}
    if settings.reasoning_effort is not None:
        output["effort"] = settings.reasoning_effort
    if settings.response_schema is not None:
        output["textFormat"] = {
            "type": "json_schema",
            "structure": {
                "jsonSchema": {
                    "schema": json.dumps(settings.response_schema),
                    "name": settings.schema_name(),
                }
            },
        }
    if output:
        out["outputConfig"] = output
    return out


def _spec(tool: Any, options: EncodeOptions) -> dict[str, Any]:
    spec: dict[str, Any] = {**own_fields(tool, PROVIDER), "name": tool.name}
    if tool.description:
        spec["description"] = tool.description
    spec["inputSchema"] = {"json": strict_schema(tool, PROVIDER, options)}
    if tool.strict:
        spec["strict"] = True
    return spec


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Converse request."""
    rest = {k: v for k, v in body.items() if k not in ("modelId", *MESSAGE_FIELDS)}
    tools: list[Any] = []
    tool_choice = None
    config = rest.pop("toolConfig", None)
    if isinstance(config, dict):
        config = dict(config)
        others = []
        for item in config.pop("tools", None) or []:
            spec = item.get("toolSpec") if isinstance(item, dict) and len(item) == 1 else None
            schema = spec.get("inputSchema") if isinstance(spec, dict) else None
            if isinstance(spec, dict) and isinstance(schema, dict) and set(schema) == {"json"}:
                tools.append(
                    tool_from(
                        PROVIDER,
                        spec.get("name"),
                        spec.get("description"),
                        schema["json"],
                        strict=spec.get("strict"),
                        rest={k: v for k, v in spec.items() if k not in _SPEC_KEYS},
                    )
                )
            else:
                others.append(item)
        if others:
            config["tools"] = others
        tool_choice = _choice(config)
        if config:
            rest["toolConfig"] = config
    given: dict[str, Any] = {}
    inference = rest.pop("inferenceConfig", None)
    if isinstance(inference, dict):
        inference = dict(inference)
        for name, wire in _INFERENCE.items():
            if wire in inference:
                given[name] = inference.pop(wire)
        if inference:
            rest["inferenceConfig"] = inference
    output = rest.pop("outputConfig", None)
    if isinstance(output, dict):
        output = dict(output)
        if output.get("effort") in ("low", "medium", "high"):
            given["reasoning_effort"] = output.pop("effort")
        schema = _text_format_schema(output.get("textFormat"))
        if schema is not None:
            del output["textFormat"]
            given["response_schema"] = schema
        if output:
            rest["outputConfig"] = output
    return request_fields(tools, tool_choice, given, body.get("modelId")), rest


def _choice(config: dict[str, Any]) -> str | None:
    choice = config.get("toolChoice")
    if choice == {"auto": {}}:
        result: str | None = "auto"
    elif choice == {"any": {}}:
        result = "required"
    elif isinstance(choice, dict) and set(choice) == {"tool"} and set(choice["tool"]) == {"name"}:
        result = str(choice["tool"]["name"])
    else:
        return None
    del config["toolChoice"]
    return result


def _text_format_schema(value: Any) -> dict[str, Any] | None:
    """The schema of a ``textFormat`` that `encode_fields` would write back exactly."""
    try:
        inner = value["structure"]["jsonSchema"]
        if value["type"] != "json_schema" or set(value) != {"type", "structure"}:
            return None
        if set(value["structure"]) != {"jsonSchema"} or set(inner) != {"schema", "name"}:
            return None
        schema = json.loads(inner["schema"])
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(schema, dict):
        raise DecodeError("Bedrock outputConfig: the JSON schema is not an object")
    if decoded_settings(response_schema=schema).schema_name() != inner["name"]:
        return None
    return schema


def add_request_fields(
    out: dict[str, Any], model: str | None, extra: dict[str, Any], target: str
) -> dict[str, Any]:
    """The encoded fields plus ``modelId`` and the unmodelled fields."""
    return _add(out, "modelId", model, extra)


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a Converse response (the JSON the HTTP API returns)."""
    encoded = to_bedrock([message], EncodeOptions(target="json"))["messages"]
    reply = encoded[0] if encoded else {"role": "assistant", "content": []}
    own = message.provider == PROVIDER
    reason = message.provider_stop_reason if own else None
    body: dict[str, Any] = {
        "output": {"message": reply},
        "stopReason": reason
        or provider_stop_reason_for(message.stop_reason or "end_turn", PROVIDER),
    }
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        numbers = message.usage
        usage = {
            "inputTokens": numbers.uncached_input_tokens,
            "outputTokens": numbers.output_tokens,
            "totalTokens": numbers.total_tokens,
            "cacheReadInputTokens": numbers.cache_read_tokens,
            "cacheWriteInputTokens": numbers.cache_write_tokens,
        }
    if usage is not None:
        body["usage"] = usage
    if own:
        body.update(message.metadata.get(PROVIDER, {}))
    if message.response_id:
        body["ResponseMetadata"] = {"RequestId": message.response_id}
    return body
