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
from ._schema import to_strict_schema

__all__ = [
    "add_request_fields",
    "decoded_settings",
    "rest_of",
    "strict_schema",
    "tool_choice_name",
    "tool_from",
    "unsupported_setting",
    "usage_numbers",
]


def unsupported_setting(options: EncodeOptions, provider: str, name: str, reason: str) -> None:
    """A setting the provider has no field for: raise, or drop it and report it."""
    drop_or_raise(options, provider, f"setting {name}", reason)


def strict_schema(tool: Tool, provider: str, options: EncodeOptions) -> dict[str, Any]:
    """The tool's parameters, made strict-mode compatible when the tool asks for strict."""
    if not tool.strict:
        return tool.parameters
    return to_strict_schema(tool.parameters, f"{provider} tool {tool.name!r}")


def tool_choice_name(options: EncodeOptions) -> str | None:
    """The tool name when the choice is one tool, else None."""
    choice = options.tool_choice
    return choice if choice is not None and choice not in TOOL_CHOICES else None


def tool_from(
    provider: str,
    name: Any,
    description: Any,
    parameters: Any,
    *,
    strict: Any = False,
    rest: dict[str, Any] | None = None,
) -> Tool:
    """A `Tool` from a provider's tool definition; its unmodelled keys go to ``provider_data``."""
    if not isinstance(name, str):
        raise DecodeError(f"{provider} tool without a name string")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, dict):
        raise DecodeError(f"{provider} tool {name!r}: parameters are not a JSON schema object")
    try:
        return Tool(
            name=name,
            description=description if isinstance(description, str) else "",
            parameters=parameters,
            strict=strict is True,
            provider_data={provider: rest} if rest else {},
        )
    except InvalidOptionError as exc:
        raise DecodeError(f"{provider} tool {name!r}: {exc}") from None


def decoded_settings(**given: Any) -> Settings:
    """`Settings` from the values found in a request (``None`` for those absent)."""
    try:
        return Settings(**{k: v for k, v in given.items() if v is not None})
    except InvalidOptionError as exc:
        raise DecodeError(str(exc)) from None


def rest_of(body: dict[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The body's fields that are not in ``known``, verbatim."""
    skip = set(known)
    return {key: value for key, value in body.items() if key not in skip}


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
