"""Helpers the per-provider ``request`` modules share: tools in and out, the rest of a request
body kept verbatim, usage numbers for a response written back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import DecodeError, InvalidOptionError
from ..messages import AssistantMessage, Usage
from ..settings import Settings
from ..tools import TOOL_CHOICES, Tool
from ._options import EncodeOptions
from ._report import drop_or_raise
from ._schema import portable_schema, to_strict_schema

__all__ = [
    "MARK",
    "add_model_fields",
    "add_request_fields",
    "chat_settings_fields",
    "chat_settings_from",
    "decoded_settings",
    "function_entry",
    "one_tool_choice",
    "own_fields",
    "request_fields",
    "rest_of",
    "strict_schema",
    "tool_choice_name",
    "tool_choice_names",
    "tool_from",
    "tool_note",
    "tool_schema",
    "unsupported_setting",
    "usage_numbers",
]


def unsupported_setting(options: EncodeOptions, provider: str, name: str, reason: str) -> None:
    """A setting the provider has no field for: raise, or drop it and report it."""
    drop_or_raise(options, provider, f"setting {name}", reason)


def unsupported_settings(
    options: EncodeOptions, provider: str, names: Iterable[str], reason: str
) -> None:
    """`unsupported_setting` for each of ``names`` that the request's settings give."""
    settings = options.settings
    for name in names:
        if settings is not None and getattr(settings, name) is not None:
            unsupported_setting(options, provider, name, reason)


def tool_schema(tool: Tool) -> dict[str, Any]:
    """The tool's parameters as JSON Schema for a provider other than Gemini: a schema Gemini
    sent in its OpenAPI subset (``OBJECT``, ``nullable``) is converted (`portable_schema`)."""
    return portable_schema(tool.parameters)


def strict_schema(tool: Tool, provider: str, options: EncodeOptions) -> dict[str, Any]:
    """The tool's parameters, made strict-mode compatible when the tool asks for strict; a
    strict schema the provider itself sent goes back to it as it was (it took it as strict)."""
    if not tool.strict or tool_note(tool, provider, "strict_as_sent"):
        return tool_schema(tool)
    return to_strict_schema(tool_schema(tool), f"{provider} tool {tool.name!r}")


def tool_choice_name(options: EncodeOptions) -> str | None:
    """The tool name when the choice is one tool, else None."""
    choice = options.tool_choice
    return choice if isinstance(choice, str) and choice not in TOOL_CHOICES else None


def tool_choice_names(options: EncodeOptions) -> tuple[str, ...] | None:
    """The tools' names when the choice is one of several tools, else None."""
    choice = options.tool_choice
    return choice if isinstance(choice, tuple) else None


def one_tool_choice(options: EncodeOptions, provider: str) -> EncodeOptions:
    """``options`` for a provider that cannot restrict the choice to a few tools: a choice of
    several raises `UnsupportedSettingError`, or with ``unsupported="drop"`` is reported and
    sent as ``required`` (some tool, from all of them)."""
    names = tool_choice_names(options)
    if names is None:
        return options
    drop_or_raise(
        options,
        provider,
        f"tool_choice restricted to {', '.join(names)} (sent as required)",
        f"{provider} cannot restrict the tool choice to some of the tools",
    )
    return options.replace(tool_choice="required")


MARK = "_"
"""``provider_data[provider]`` keys starting with this are mediablocks' own notes about a
decoded tool (where its schema came from, its place among the request's tools...), never sent."""


def own_fields(tool: Tool, provider: str) -> dict[str, Any]:
    """The unmodelled fields of ``tool``'s definition for ``provider``, as decoded, without
    mediablocks' notes: what goes back into that provider's definition."""
    stored = tool.provider_data.get(provider, {})
    return {key: value for key, value in stored.items() if not key.startswith(MARK)}


def tool_note(tool: Tool, provider: str, name: str) -> Any:
    """One of mediablocks' notes about a decoded tool (``_entry``, ``_index``...), or None."""
    return tool.provider_data.get(provider, {}).get(MARK + name)


def tool_from(
    provider: str,
    name: Any,
    description: Any,
    parameters: Any,
    *,
    strict: Any = False,
    rest: dict[str, Any] | None = None,
    absent_strict: bool | None = False,
    notes: dict[str, Any] | None = None,
) -> Tool:
    """A `Tool` from a provider's tool definition; its unmodelled keys go to ``provider_data``.

    ``absent_strict`` is what a definition without a ``strict`` value holds: False where the
    provider reads absent as not strict, None where absent means the provider's own default
    (OpenAI Responses), so the tool goes back out without the flag. An empty ``description``
    is kept as the definition's own field, so it goes back out empty rather than absent.
    ``notes`` are mediablocks' own notes (``MARK`` is added to their names)."""
    if not isinstance(name, str):
        raise DecodeError(f"{provider} tool without a name string")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, dict):
        raise DecodeError(f"{provider} tool {name!r}: parameters are not a JSON schema object")
    rest = dict(rest or {})
    if description == "":
        rest["description"] = ""
    if strict is True:
        rest[MARK + "strict_as_sent"] = True
    for key, value in (notes or {}).items():
        if value is not None:
            rest[MARK + key] = value
    try:
        return Tool(
            name=name,
            description=description if isinstance(description, str) else "",
            parameters=parameters,
            strict=strict if isinstance(strict, bool) else absent_strict,
            provider_data={provider: rest} if rest else {},
        )
    except InvalidOptionError as exc:
        raise DecodeError(f"{provider} tool {name!r}: {exc}") from None


def request_fields(
    tools: Any, tool_choice: Any, given: dict[str, Any], model: Any
) -> dict[str, Any]:
    """A decoded request's `Request` fields: its tools, tool choice, model, and the settings
    ``given`` (as `decoded_settings`)."""
    return {
        "tools": tools,
        "tool_choice": tool_choice,
        "settings": decoded_settings(**given),
        "model": model,
    }


def decoded_settings(**given: Any) -> Settings:
    """`Settings` from the values found in a request (``None`` for those absent)."""
    try:
        return Settings(**{k: v for k, v in given.items() if v is not None})
    except InvalidOptionError as exc:
        raise DecodeError(str(exc)) from None


def _count(value: Any) -> bool:
    """True for a whole number of at least 1 (what ``max_tokens`` and ``top_k`` hold)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


_COUNTS = frozenset({"max_tokens", "top_k"})


def pop_settings(
    data: dict[str, Any], names: dict[str, str], *, numbers: bool = False, counts: bool = False
) -> dict[str, Any]:
    """``{setting: value}`` popped from ``data`` for each ``{wire name: setting}`` present (only
    numbers when ``numbers``, and only whole numbers of at least 1 for ``max_tokens`` and
    ``top_k`` when ``counts``: anything else stays where it is, verbatim, for the provider to
    judge)."""
    out: dict[str, Any] = {}
    for wire, name in names.items():
        value = data.get(wire)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if value is None or ((numbers or counts) and not number):
            continue
        if counts and name in _COUNTS and not _count(value):
            continue
        out[name] = data.pop(wire)
    return out


def rest_of(body: dict[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The body's fields that are not in ``known``, verbatim."""
    skip = set(known)
    return {key: value for key, value in body.items() if key not in skip}


def add_model_fields(
    out: dict[str, Any], model: str | None, extra: dict[str, Any], target: str
) -> dict[str, Any]:
    """A request module's ``add_request_fields`` where the body names the model in ``model``
    (every API but Bedrock's ``modelId``): the encoded fields plus the model and the unmodelled
    fields."""
    return add_request_fields(out, "model", model, extra)


def add_request_fields(
    out: dict[str, Any], model_key: str, model: str | None, extra: dict[str, Any]
) -> dict[str, Any]:
    """The encoded fields with the model name and the request's unmodelled fields added.

    A field present on both sides is merged when both are objects (key by key) or lists
    (``extra``'s items after), so a server tool kept verbatim joins the translated tools; any
    other clash raises `InvalidOptionError`.
    """
    body: dict[str, Any] = {model_key: model} if model is not None else {}
    body.update(out)
    for key, value in extra.items():
        before = body.get(key)
        if key not in body:
            body[key] = value
        elif isinstance(before, dict) and isinstance(value, dict):
            body[key] = _merged(before, value, key)
        elif isinstance(before, list) and isinstance(value, list):
            body[key] = [*before, *value]
        else:
            raise InvalidOptionError(
                f"extra field {key!r} is also produced from the request's messages or settings"
            )
    return body


def _merged(first: dict[str, Any], second: dict[str, Any], where: str) -> dict[str, Any]:
    out = dict(first)
    for key, value in second.items():
        if key not in out:
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = _merged(out[key], value, f"{where}.{key}")
        elif isinstance(out[key], list) and isinstance(value, list):
            out[key] = [*out[key], *value]
        else:
            raise InvalidOptionError(f"extra field {where}.{key} is also produced by the encoding")
    return out


def usage_numbers(message: AssistantMessage, provider: str) -> dict[str, Any] | None:
    """The provider's own usage record when the reply came from it, else None (the caller then
    writes the normalised numbers in the provider's names)."""
    usage: Usage | None = message.usage
    if usage is None:
        return None
    if message.provider == provider and usage.raw:
        return dict(usage.raw)
    return None


# -- OpenAI-style function tools (OpenAI Chat, Mistral, Ollama) -------------------------------

_FUNCTION_KEYS = frozenset({"name", "description", "parameters", "strict"})
_ENTRY_KEYS = frozenset({"type", "function"})


def function_entry(tool: Tool, provider: str, function: dict[str, Any]) -> dict[str, Any]:
    """``{"type": "function", "function": ...}`` with the entry's own fields beside them as
    decoded (OpenRouter's ``cache_control``...), and without ``type`` where it had none."""
    entry: dict[str, Any] = dict(tool_note(tool, provider, "entry") or {})
    if not tool_note(tool, provider, "untyped"):
        entry["type"] = "function"
    entry["function"] = function
    return entry


def function_tools(options: EncodeOptions, provider: str, *, strict: bool) -> list[dict[str, Any]]:
    """``[{"type": "function", "function": {...}}]`` for the tools; ``strict`` says whether the
    provider takes a ``strict`` flag (a strict tool raises where it does not)."""
    out: list[dict[str, Any]] = []
    for tool in options.tools:
        function: dict[str, Any] = {**own_fields(tool, provider), "name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = (
            strict_schema(tool, provider, options) if strict else tool_schema(tool)
        )
        if tool.strict and strict:
            function["strict"] = True
        elif tool.strict is False and strict and tool_note(tool, provider, "strict_false"):
            function["strict"] = False
        elif tool.strict:
            drop_or_raise(options, provider, f"strict mode of tool {tool.name!r}", "no strict mode")
        out.append(function_entry(tool, provider, function))
    return out


def tools_from_functions(items: Any, provider: str) -> tuple[list[Tool], list[Any]]:
    """``(tools, other entries verbatim)`` from a list of function tool definitions."""
    tools: list[Tool] = []
    others: list[Any] = []
    for item in items or []:
        function = item.get("function") if isinstance(item, dict) else None
        if item.get("type", "function") == "function" and isinstance(function, dict):
            entry = {k: v for k, v in item.items() if k not in _ENTRY_KEYS}
            tools.append(
                tool_from(
                    provider,
                    function.get("name"),
                    function.get("description"),
                    function.get("parameters"),
                    strict=function.get("strict"),
                    rest={k: v for k, v in function.items() if k not in _FUNCTION_KEYS},
                    notes={
                        "entry": entry or None,
                        "untyped": True if "type" not in item else None,
                        "strict_false": True if function.get("strict") is False else None,
                    },
                )
            )
        else:
            others.append(item)
    return tools, others


def function_choice(options: EncodeOptions, required: str = "required") -> Any:
    """OpenAI-style ``tool_choice``: a string, ``{"type": "function", ...}`` for one tool, or
    ``{"type": "allowed_tools", ...}`` (``required`` mode) for one of several."""
    names = tool_choice_names(options)
    if names is not None:
        tools = [{"type": "function", "function": {"name": name}} for name in names]
        return {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": tools}}
    name = tool_choice_name(options)
    if name is not None:
        return {"type": "function", "function": {"name": name}}
    if options.tool_choice == "required":
        return required
    return options.tool_choice


def choice_from_function(
    value: Any, required: tuple[str, ...] = ("required",)
) -> str | list[str] | None:
    """The tool choice in an OpenAI-style ``tool_choice`` (None when absent or not one of ours)."""
    names = _allowed_tools(value)
    if names is not None:
        return names
    if value in ("auto", "none"):
        return str(value)
    if value in required:
        return "required"
    if isinstance(value, dict) and value.get("type") == "function":
        function = value.get("function")
        if isinstance(function, dict) and set(value) == {"type", "function"}:
            name = function.get("name")
            return name if isinstance(name, str) and set(function) == {"name"} else None
    return None


_FORMAT_NOTES = frozenset({"name", "strict", "description"})


def _allowed_tools(value: Any) -> list[str] | None:
    """The names of a ``required`` ``allowed_tools`` choice of two or more functions."""
    if not isinstance(value, dict) or set(value) != {"type", "allowed_tools"}:
        return None
    inner = value.get("allowed_tools")
    if value["type"] != "allowed_tools" or not isinstance(inner, dict):
        return None
    tools = inner.get("tools")
    if set(inner) != {"mode", "tools"} or inner["mode"] != "required":
        return None
    if not isinstance(tools, list) or len(tools) < 2:
        return None
    names: list[str] = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if set(tool) != {"type", "function"} or tool["type"] != "function":
            return None
        if not isinstance(function, dict) or set(function) != {"name"}:
            return None
        names.append(function["name"])
    return names if len(set(names)) == len(names) else None


def json_schema_format(
    settings: Settings, provider: str = "", *, schema_key: str = "schema"
) -> dict[str, Any]:
    """OpenAI-style ``response_format`` for ``settings.response_schema``: named by the schema's
    title unless the request it was decoded from named it (with ``strict``, ``description``)."""
    inner: dict[str, Any] = {"name": settings.schema_name()}
    noted = settings.for_provider(provider).get("json_schema") if provider else None
    if isinstance(noted, dict):
        inner.update(noted)
    inner[schema_key] = settings.response_schema
    return {"type": "json_schema", "json_schema": inner}


def schema_from_format(
    value: Any, *, schema_key: str = "schema"
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(schema, notes)`` of a ``json_schema`` ``response_format`` (None for anything else,
    which then stays in ``extra``): its ``name``, ``strict`` and ``description`` go in the
    notes when `json_schema_format` would not write them alike by default."""
    if not isinstance(value, dict) or value.get("type") != "json_schema" or len(value) != 2:
        return None
    inner = value.get("json_schema")
    if not isinstance(inner, dict) or not set(inner) <= {schema_key, *_FORMAT_NOTES}:
        return None
    schema = inner.get(schema_key)
    name = inner.get("name")
    if not isinstance(schema, dict) or not isinstance(name, str):
        return None
    if not isinstance(inner.get("strict", False), bool):
        return None
    if not isinstance(inner.get("description", ""), str):
        return None
    notes = {key: inner[key] for key in ("strict", "description") if key in inner}
    if Settings(response_schema=schema).schema_name() != name:
        notes["name"] = name
    return schema, ({"json_schema": notes} if notes else {})


_CHAT_SETTINGS = (
    "temperature",
    "top_p",
    "reasoning_effort",
    "frequency_penalty",
    "presence_penalty",
    "parallel_tool_calls",
)
JSON_OBJECT = {"type": "json_object"}


def chat_settings_fields(
    options: EncodeOptions,
    provider: str,
    *,
    max_tokens: str,
    seed: str = "seed",
    top_k: bool = False,
    allowed_tools: bool = False,
) -> dict[str, Any]:
    """Tools, tool choice and settings as Chat Completions-shaped fields (OpenAI Chat, Mistral):
    they differ only in the names of the output-token limit (``max_tokens``) and the seed
    (``seed``), whether ``top_k`` has a field (Mistral) or not (OpenAI), and whether the choice
    can be narrowed to some of the tools (OpenAI's ``allowed_tools``)."""
    if not allowed_tools:
        options = one_tool_choice(options, provider)
    out: dict[str, Any] = {}
    if options.tools:
        out["tools"] = function_tools(options, provider, strict=True)
    if options.tool_choice is not None:
        out["tool_choice"] = function_choice(options)
    settings = options.settings
    if settings is None:
        return out
    if settings.max_tokens is not None:
        spelled = settings.for_provider(provider).get("max_tokens_field")
        out[spelled if isinstance(spelled, str) else max_tokens] = settings.max_tokens
    for name in _CHAT_SETTINGS:
        if getattr(settings, name) is not None:
            out[name] = getattr(settings, name)
    if settings.stop is not None:
        one = len(settings.stop) == 1 and settings.for_provider(provider).get("stop") == "string"
        out["stop"] = settings.stop[0] if one else list(settings.stop)
    if settings.seed is not None:
        out[seed] = settings.seed
    if settings.response_schema is not None:
        out["response_format"] = json_schema_format(settings, provider)
    if settings.json_mode:
        out["response_format"] = dict(JSON_OBJECT)
    if settings.top_k is not None and top_k:
        out["top_k"] = settings.top_k
    elif settings.top_k is not None:
        unsupported_setting(options, provider, "top_k", "Chat Completions has no top_k")
    return out


def chat_settings_from(
    body: dict[str, Any],
    provider: str,
    message_fields: Iterable[str],
    *,
    max_tokens: tuple[str, ...],
    required: tuple[str, ...] = ("required",),
    seed: str = "seed",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a Chat Completions-shaped request body.

    ``max_tokens`` lists the spellings of the output-token limit in order of preference (the first
    present one is read, the others stay in the rest); ``required`` the spellings of a required
    tool choice.
    """
    rest = rest_of(body, {"model", "tools", *message_fields})
    tools, others = tools_from_functions(body.get("tools"), provider)
    if others or ("tools" in body and body["tools"] in (None, [])):
        rest["tools"] = others if others else body["tools"]  # null or [] goes back so
    choice = choice_from_function(rest.get("tool_choice"), required)
    if choice is not None:
        del rest["tool_choice"]
    notes: dict[str, Any] = {}
    found = schema_from_format(rest.get("response_format"))
    given: dict[str, Any] = {"response_schema": found[0] if found else None}
    if found:
        notes.update(found[1])
    if rest.get("response_format") == JSON_OBJECT:
        given["json_mode"] = True
    if found is not None or given.get("json_mode"):
        del rest["response_format"]
    given.update(pop_settings(rest, {seed: "seed", "top_k": "top_k"}, counts=True))
    for name in max_tokens:
        if _count(rest.get(name)):
            given["max_tokens"] = rest.pop(name)
            if name != max_tokens[0]:
                notes["max_tokens_field"] = name  # the legacy spelling, sent back as it came
            break

    given.update(
        pop_settings(
            rest,
            {n: n for n in ("temperature", "top_p", "frequency_penalty", "presence_penalty")},
            numbers=True,
        )
    )
    if isinstance(rest.get("parallel_tool_calls"), bool):
        given["parallel_tool_calls"] = rest.pop("parallel_tool_calls")
    if rest.get("reasoning_effort") in ("low", "medium", "high"):
        given["reasoning_effort"] = rest.pop("reasoning_effort")
    stop = rest.get("stop")
    if isinstance(stop, str) or (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        given["stop"] = rest.pop("stop")
        if isinstance(stop, str):
            notes["stop"] = "string"  # one sequence sent as a string goes back as one
    if notes:
        given["provider_data"] = {provider: notes}
    return request_fields(tools, choice, given, body.get("model")), rest
