"""Gemini request fields beside the contents, and the response body.

The SDK takes tools, tool config, sampling settings and the system instruction in ONE
``config``: `encode` merges them there (``target="sdk"``). The REST body has them at the top
level (``tools``, ``toolConfig``) and in ``generationConfig`` (``target="json"``).

- tools -> ``function_declarations``; each schema is cut to Gemini's subset (references inlined,
  ``nullable`` for null types...). A keyword Gemini has no place for raises
  `UnsupportedSettingError` naming it (``unsupported="drop"`` drops and reports it). Gemini has
  no strict mode.
- tool choice -> ``function_calling_config.mode``: ``AUTO``, ``NONE``, ``ANY`` (``required``),
  ``ANY`` with ``allowed_function_names`` for one tool.
- ``max_tokens`` -> ``max_output_tokens``; ``temperature``, ``top_p``; ``stop`` ->
  ``stop_sequences``; ``reasoning_effort`` -> ``thinking_config.thinking_level``;
  ``response_schema`` -> ``response_json_schema`` with ``response_mime_type`` JSON.
"""

from __future__ import annotations

from typing import Any

from ...errors import DecodeError
from ...messages import AssistantMessage
from ...stop_reasons import provider_stop_reason_for
from .._fields import (
    MARK,
    add_model_fields,
    own_fields,
    request_fields,
    tool_choice_name,
    tool_choice_names,
    tool_from,
    tool_note,
    usage_numbers,
)
from .._options import EncodeOptions
from .._report import drop_or_raise
from .._schema import to_gemini_schema
from ._wire import PROVIDER, _camel_key, _json_safe, _respell
from .decode import _CANDIDATE_NOTES
from .translate import to_gemini

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
    "restore_tool_order",
]

MESSAGE_FIELDS = frozenset({"contents", "config", "system_instruction", "systemInstruction"})
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
_GENERATION = {
    "max_tokens": "max_output_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "frequency_penalty": "frequency_penalty",
    "presence_penalty": "presence_penalty",
}
_JSON = "application/json"
_EMPTY = {"type": "object", "properties": {}}
# mediablocks' notes on a decoded tool (see `tool_note`): never sent
_GROUP = "group"  # the index of the ``tools`` entry its declaration came in
_SCHEMA_FIELD = "schema_field"  # "parameters_json_schema" when the schema came in that field
_NO_SCHEMA = "no_schema"  # the declaration had no schema at all


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``config`` (SDK) or the REST fields for the tools, tool choice and settings."""
    sdk = options.target == "sdk"
    config: dict[str, Any] = {}
    if options.tools:
        config["tools"] = _tool_entries(options)
    if options.tool_choice is not None:
        name = tool_choice_name(options)
        names = tool_choice_names(options)
        allowed = [name] if name else list(names) if names else None
        mode = "ANY" if allowed else _MODES[str(options.tool_choice)]
        calling: dict[str, Any] = {"mode": mode}
        if allowed:
            calling["allowed_function_names"] = allowed
        config["tool_config"] = {"function_calling_config": calling}
    generation = _generation(options)
    if sdk:
        return {"config": {**config, **generation}} if config or generation else {}
    out: dict[str, Any] = _respell_keys(config)
    if generation:
        out["generationConfig"] = _respell_keys(generation)
    return out


_SCHEMAS = frozenset(
    {"parameters", "parameters_json_schema", "response_json_schema", "response_schema"}
)
"""Fields holding a schema: their property names are the caller's data."""


def _respell_keys(value: Any) -> Any:
    """camelCase keys for the REST body, leaving JSON schemas alone: their property names and
    ``required`` entries are the caller's data, never respelled."""
    if isinstance(value, list):
        return [_respell_keys(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        out[_camel_key(key)] = item if key in _SCHEMAS else _respell_keys(item)
    return out


def _tool_entries(options: EncodeOptions) -> list[dict[str, Any]]:
    """The ``tools`` entries: one ``function_declarations`` entry, or the entries the decoded
    declarations came in (`_GROUP` notes), in their order."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for tool in options.tools:
        group = tool_note(tool, PROVIDER, _GROUP)
        groups.setdefault(group if isinstance(group, int) else -1, []).append(
            _declaration(tool, options)
        )
    return [{"function_declarations": groups[key]} for key in sorted(groups)]


def _declaration(tool: Any, options: EncodeOptions) -> dict[str, Any]:
    """A function declaration. A tool decoded from Gemini goes back with its schema in the field
    it came in: ``parameters_json_schema`` (full JSON Schema, sent as it is) or ``parameters``
    (the OpenAPI subset, as written, upper-case types included); any other schema is cut to
    Gemini's subset, naming what it cannot keep."""
    where = f"tool {tool.name!r}"
    if tool.strict:
        drop_or_raise(options, PROVIDER, f"strict mode of {where}", "Gemini has no strict mode")
    out: dict[str, Any] = {**own_fields(tool, PROVIDER), "name": tool.name}
    if tool.description:
        out["description"] = tool.description
    if tool_note(tool, PROVIDER, _SCHEMA_FIELD) == "parameters_json_schema":
        out["parameters_json_schema"] = tool.parameters
    elif not (tool_note(tool, PROVIDER, _NO_SCHEMA) and tool.parameters == _EMPTY):
        schema, lost = to_gemini_schema(tool.parameters, where)
        for line in lost:
            drop_or_raise(options, PROVIDER, f"schema keyword {line}", "Gemini's schema subset")
        out["parameters"] = schema
    return out


def _generation(options: EncodeOptions) -> dict[str, Any]:
    settings = options.settings
    if settings is None:
        return {}
    out = {
        wire: getattr(settings, name)
        for name, wire in _GENERATION.items()
        if getattr(settings, name) is not None
    }
    if settings.stop is not None:
        out["stop_sequences"] = list(settings.stop)
    if settings.reasoning_effort is not None:
        out["thinking_config"] = {"thinking_level": settings.reasoning_effort.upper()}
    if settings.response_schema is not None:
        out["response_mime_type"] = _JSON
        # a schema Gemini sent in the OpenAPI-subset field goes back there, as written
        field = settings.for_provider(PROVIDER).get("schema_field", "response_json_schema")
        out[field] = settings.response_schema
    if settings.json_mode:
        out["response_mime_type"] = _JSON
    if settings.parallel_tool_calls is not None:
        drop_or_raise(
            options,
            PROVIDER,
            "setting parallel_tool_calls",
            "Gemini's GenerateContentConfig has no such field",
        )
    return out


def _get(data: Any, name: str) -> Any:
    if not isinstance(data, dict):
        return None
    return data.get(name, data.get(_camel_key(name)))


def _pop(data: dict[str, Any], name: str) -> Any:
    value = data.pop(name, None)
    camel = data.pop(_camel_key(name), None)
    return value if value is not None else camel


def _spelling(data: Any, name: str) -> str:
    """The spelling of ``name`` that ``data`` uses (snake_case or camelCase), so a field kept
    verbatim goes back under the name it came in."""
    camel = _camel_key(name)
    return camel if isinstance(data, dict) and camel in data and name not in data else name


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of SDK kwargs (``config``) or a REST body."""
    sdk = "config" in body
    rest = {k: v for k, v in body.items() if k not in ("model", "contents")}
    if sdk:
        sent = rest.pop("config")
        if sent is not None and not isinstance(sent, dict):
            raise DecodeError(f"Gemini 'config' is a {type(sent).__name__}, not an object")
        config = dict(sent or {})
        config.pop("system_instruction", None)
        generation = config
    else:
        rest.pop("systemInstruction", None)
        rest.pop("system_instruction", None)
        config = rest
        generation_key = _spelling(rest, "generation_config")
        sent = _pop(rest, "generation_config")
        if sent is not None and not isinstance(sent, dict):
            raise DecodeError(
                f"Gemini 'generationConfig' is a {type(sent).__name__}, not an object"
            )
        generation = dict(sent or {})
    tools, others = _tools(_pop(config, "tools"))
    if others:
        config["tools"] = others
    choice_key = _spelling(config, "tool_config")
    tool_choice = _choice(_pop(config, "tool_config"), config, choice_key)
    given: dict[str, Any] = {
        name: _pop(generation, wire)
        for name, wire in _GENERATION.items()
        if isinstance(_get(generation, wire), (int, float))
        and not isinstance(_get(generation, wire), bool)
    }
    given["stop"] = _pop(generation, "stop_sequences")
    thinking = _get(generation, "thinking_config")
    level = _get(thinking, "thinking_level")
    if (
        isinstance(thinking, dict)
        and len(thinking) == 1
        and str(level).lower()
        in (
            "low",
            "medium",
            "high",
        )
    ):
        _pop(generation, "thinking_config")
        given["reasoning_effort"] = str(level).lower()
    schema = _get(generation, "response_json_schema")
    openapi = _get(generation, "response_schema")
    if isinstance(schema, dict) and _get(generation, "response_mime_type") == _JSON:
        _pop(generation, "response_json_schema")
        _pop(generation, "response_mime_type")
        given["response_schema"] = schema
    elif isinstance(openapi, dict) and _get(generation, "response_mime_type") == _JSON:
        # the OpenAPI subset (upper-case types): kept as written, other providers get it as
        # JSON Schema (`portable_schema`)
        _pop(generation, "response_schema")
        _pop(generation, "response_mime_type")
        given["response_schema"] = openapi
        given["provider_data"] = {PROVIDER: {"schema_field": "response_schema"}}
    elif _get(generation, "response_mime_type") == _JSON:
        given["json_mode"] = _pop(generation, "response_mime_type") == _JSON
    if sdk:
        if config:
            rest["config"] = config
    elif generation or sent == {}:
        rest[generation_key] = generation  # one sent empty goes back empty
    return request_fields(tools, tool_choice, given, body.get("model")), rest


_KNOWN = ("name", "description", "parameters", "parameters_json_schema")
_KNOWN_SPELLINGS = frozenset({*_KNOWN, *(_camel_key(name) for name in _KNOWN)})


def _tools(value: Any) -> tuple[list[Any], list[Any]]:
    """``(tools, other entries verbatim)``: ``tools`` is a list of ``Tool`` objects, or one
    (the API reads a lone object as a list of it)."""
    entries = [value] if isinstance(value, dict) else value
    if entries is not None and not isinstance(entries, list):
        raise DecodeError(f"Gemini 'tools' is a {type(value).__name__}, not a list")
    tools: list[Any] = []
    others: list[Any] = []
    groups: list[int] = []
    for index, entry in enumerate(entries or []):
        declarations = _get(entry, "function_declarations")
        if isinstance(entry, dict) and len(entry) == 1 and isinstance(declarations, list):
            groups.append(index)
            tools.extend(_tool(item, index) for item in declarations)
        else:
            others.append(entry)
    if groups == [0] or not groups:  # the layout encoding writes: no notes needed
        tools = [_without_group(tool) for tool in tools]
    return tools, others


def _tool(item: Any, group: int) -> Any:
    """A declaration as a `Tool`, its schema as written: a full JSON Schema from
    ``parameters_json_schema`` (noted, so it goes back in that field), or the OpenAPI subset of
    ``parameters`` (upper-case type names and ``nullable`` included: other providers get it as
    JSON Schema, see `portable_schema`)."""
    if not isinstance(item, dict):
        raise DecodeError(f"Gemini function declaration is a {type(item).__name__}")
    json_schema = _get(item, "parameters_json_schema")
    openapi = _get(item, "parameters")
    notes: dict[str, Any] = {_GROUP: group}
    if json_schema is not None:
        params, notes[_SCHEMA_FIELD] = json_schema, "parameters_json_schema"
    else:
        params, notes[_NO_SCHEMA] = openapi, True if openapi is None else None
    return tool_from(
        PROVIDER,
        _get(item, "name"),
        _get(item, "description"),
        params,
        rest={k: v for k, v in item.items() if k not in _KNOWN_SPELLINGS},
        notes=notes,
    )


def _without_group(tool: Any) -> Any:
    stored = {k: v for k, v in tool.provider_data.get(PROVIDER, {}).items() if k != MARK + _GROUP}
    data = {**tool.provider_data, PROVIDER: stored} if stored else {}
    return tool.model_copy(update={"provider_data": data})


def restore_tool_order(body: dict[str, Any], tools: list[Any]) -> None:
    """The ``function_declarations`` entries back at the places in ``tools`` they came from
    (`_GROUP` notes), the verbatim entries (Google Search...) filling the others in order."""
    groups = sorted({g for t in tools if isinstance(g := tool_note(t, PROVIDER, _GROUP), int)})
    config = body.get("config") if isinstance(body.get("config"), dict) else body
    items = config.get("tools") if isinstance(config, dict) else None
    if not groups or not isinstance(items, list) or len(items) < len(groups):
        return
    if max(groups) >= len(items):
        return
    built, verbatim = items[: len(groups)], iter(items[len(groups) :])
    order: list[Any] = [None] * len(items)
    for place, entry in zip(groups, built, strict=True):
        order[place] = entry
    items[:] = [entry if entry is not None else next(verbatim) for entry in order]


def _choice(value: Any, config: dict[str, Any], key: str = "tool_config") -> str | list[str] | None:
    calling = _get(value, "function_calling_config")
    if not isinstance(value, dict) or len(value) != 1 or not isinstance(calling, dict):
        if value is not None:
            config[key] = value
        return None
    mode = str(_get(calling, "mode") or "")
    names = _get(calling, "allowed_function_names")
    if set(calling) <= {"mode"} and mode in ("AUTO", "NONE", "ANY"):
        return {"AUTO": "auto", "NONE": "none", "ANY": "required"}[mode]
    if mode == "ANY" and isinstance(names, list) and len(calling) == 2 and names:
        if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
            config[key] = value
            return None
        # one allowed function is that tool; several, one of them
        return str(names[0]) if len(names) == 1 else [str(n) for n in names]
    config[key] = value
    return None


add_request_fields = add_model_fields


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a REST ``GenerateContentResponse``."""
    encoded = to_gemini([message], EncodeOptions(target="json"))["contents"]
    content = encoded[0] if encoded else {"role": "model", "parts": []}
    reason = message.provider_stop_reason if message.provider == PROVIDER else None
    notes = message.metadata.get(PROVIDER, {}) if message.provider == PROVIDER else {}
    if notes.get("content_role", "model") is None:
        content.pop("role", None)
    if notes.get("content_parts", []) is None and not content.get("parts"):
        content.pop("parts", None)
    content.update(notes.get("content_fields") or {})
    candidate: dict[str, Any] = {} if "content" in notes else {"content": content}
    if "index" in notes:
        candidate["index"] = notes["index"]
    finish = reason or provider_stop_reason_for(message.stop_reason, PROVIDER)
    if finish:
        candidate["finishReason"] = finish
    for key in _CANDIDATE_NOTES:  # citations, grounding... as the reply carried them
        if key in notes:
            candidate[_camel_key(key)] = _respell(notes[key], _camel_key)
    body: dict[str, Any] = {}
    if "candidates" not in notes:
        body["candidates"] = [candidate, *(notes.get("other_candidates") or [])]
    elif notes["candidates"] == []:
        body["candidates"] = []
    if "prompt_feedback" in notes:
        body["promptFeedback"] = _respell(notes["prompt_feedback"], _camel_key)
    body.update(notes.get("response_fields") or {})
    usage = usage_numbers(message, PROVIDER)
    if usage is None and message.usage is not None:
        numbers = message.usage
        usage = {
            "promptTokenCount": numbers.input_tokens,
            "candidatesTokenCount": numbers.output_tokens - numbers.reasoning_tokens,
            "thoughtsTokenCount": numbers.reasoning_tokens,
            "cachedContentTokenCount": numbers.cache_read_tokens,
            "totalTokenCount": numbers.total_tokens,
        }
    if usage is not None:
        body["usageMetadata"] = _respell(_json_safe(usage), _camel_key)
    if message.model:
        body["modelVersion"] = message.model
    if message.response_id:
        body["responseId"] = message.response_id
    return body
