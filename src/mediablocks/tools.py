"""Tools a model may call, defined once and translated for every provider.

A `Tool` is a name, a description and a JSON schema for its arguments. `Tool.from_model` reads
a pydantic model, `Tool.from_function` a typed Python function (its docstring is the
description, its signature the schema). The translators turn a tool into each provider's own
shape (``input_schema``, ``toolSpec``, function declarations...); see ``docs/tools.md``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from .blocks import summarize_validation_error
from .errors import InvalidOptionError

__all__ = ["TOOL_CHOICES", "Tool", "ToolChoice", "check_tool_choice"]

ToolChoice = Literal["auto", "none", "required"] | str | list[str]
"""``auto`` (the model decides), ``none`` (no tool), ``required`` (some tool), a tool's name
(that tool), or a list of tools' names (one of those: Gemini's ``ANY`` with several
``allowed_function_names``, OpenAI's ``allowed_tools`` in ``required`` mode)."""

TOOL_CHOICES = ("auto", "none", "required")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


class Tool(BaseModel):
    """A tool the model may call: ``parameters`` is the JSON schema of its argument object.

    ``strict`` asks providers that can enforce the schema exactly (OpenAI's strict mode) to do
    so; the schema is then made strict-compatible (every property required, no extra
    properties), and providers without such a mode raise unless the caller chose to drop it.
    ``False`` is sent as ``strict: false`` where a provider has the flag; ``None`` (what a
    decoded tool holds when its definition had no ``strict`` key) sends no flag, so the
    provider's own default applies and a round trip gives the definition back unchanged.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    strict: bool | None = False
    provider_data: dict[str, dict[str, Any]] = {}
    """Unmodelled fields of a provider's tool definition (``cache_control``...), by provider,
    sent back out to that provider only."""

    def __init__(self, **fields: Any) -> None:
        try:
            super().__init__(**fields)
        except ValidationError as exc:
            raise InvalidOptionError(
                f"not a valid tool: {summarize_validation_error(exc)}"
            ) from None

    def model_post_init(self, context: Any, /) -> None:
        if not _NAME.match(self.name):
            raise ValueError(
                f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-', "
                "starting with a letter or '_' (what every provider accepts)"
            )
        kind = self.parameters.get("type", "object")
        if not (isinstance(kind, str) and kind.lower() == "object"):  # Gemini writes OBJECT
            raise ValueError(
                f"tool {self.name!r}: parameters must be an object schema, "
                f"not type {self.parameters.get('type')!r}"
            )

    def to_harness(self) -> dict[str, Any]:
        """The tool as an Amazon Bedrock AgentCore Harness ``inline_function`` entry, for
        ``InvokeHarness(tools=[...])``: the harness pauses when the model calls it and hands the
        call to your code (https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/
        harness-tools.html; ``HarnessTool``, ``HarnessInlineFunctionConfig`` in the API
        reference). The harness requires a description (1 to 4096 characters)."""
        if not 1 <= len(self.description) <= 4096:
            raise InvalidOptionError(
                f"tool {self.name!r}: a Harness inline function needs a description of 1 to "
                f"4096 characters, not {len(self.description)}"
            )
        config = {"description": self.description, "inputSchema": self.parameters}
        return {"type": "inline_function", "name": self.name, "config": {"inlineFunction": config}}

    @classmethod
    def from_model(
        cls,
        model: type[BaseModel],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool = False,
    ) -> Tool:
        """A tool whose arguments are ``model``'s fields.

        The name is the model's class name and the description its docstring, unless given.
        """
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise InvalidOptionError(f"Tool.from_model takes a pydantic model class, not {model!r}")
        schema = model.model_json_schema()
        schema.pop("title", None)
        doc = schema.pop("description", None)
        return cls(
            name=name or model.__name__,
            description=description if description is not None else (doc or ""),
            parameters=schema,
            strict=strict,
        )

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool = False,
    ) -> Tool:
        """A tool from a typed function: its parameters (annotations and defaults) are the
        schema, its docstring's first paragraph the description, and an ``Args:`` section (Google
        style) describes each parameter."""
        if not callable(function):
            raise InvalidOptionError(f"Tool.from_function takes a function, not {function!r}")
        try:
            signature = inspect.signature(function)
            hints = _type_hints(function)
        except (TypeError, ValueError, NameError) as exc:
            raise InvalidOptionError(f"cannot read the signature of {function!r}: {exc}") from None
        summary, arg_docs = _parse_docstring(inspect.getdoc(function) or "")
        fields: dict[str, Any] = {}
        for param in signature.parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise InvalidOptionError(
                    f"{function.__name__}: *args and **kwargs cannot be tool parameters"
                )
            if param.name in ("self", "cls"):
                continue
            if param.name not in hints:
                raise InvalidOptionError(
                    f"{function.__name__}: parameter {param.name!r} has no type annotation"
                )
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (
                hints[param.name],
                Field(default, description=arg_docs.get(param.name)),
            )
        try:
            model = create_model(function.__name__, **fields)
            schema = model.model_json_schema()
        except (ValidationError, TypeError, ValueError) as exc:
            detail = (
                summarize_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
            )
            raise InvalidOptionError(
                f"{function.__name__}: its parameters have no JSON schema ({detail})"
            ) from None
        schema.pop("title", None)
        return cls(
            name=name or function.__name__,
            description=description if description is not None else summary,
            parameters=schema,
            strict=strict,
        )


def _type_hints(function: Callable[..., Any]) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(function, include_extras=True)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph, and each ``name: text`` entry of an ``Args:`` section."""
    summary = " ".join(doc.split("\n\n")[0].split())
    if summary.lower().startswith(_SECTIONS):
        summary = ""
    args: dict[str, str] = {}
    lines = doc.splitlines()
    heads = [i for i, line in enumerate(lines) if line.strip().lower() in _SECTIONS]
    if not heads:
        return summary, args
    entry_indent: int | None = None
    current: str | None = None
    for line in lines[heads[0] + 1 :]:
        if not line.strip():
            if current is not None:
                break
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            break
        entry = _ARG_LINE.match(line.strip())
        if entry and (entry_indent is None or indent == entry_indent):
            entry_indent, current = indent, entry.group(1)
            args[current] = entry.group(2)
        elif current is not None:
            args[current] = f"{args[current]} {line.strip()}".strip()
    return summary, args


_SECTIONS = ("args:", "arguments:", "parameters:")
_ARG_LINE = re.compile(r"^(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def check_tool_choice(choice: Any, tools: list[Tool]) -> Any:
    """``choice`` if it is ``auto``/``none``/``required``, the name of one of ``tools``, or a
    list of two or more of their names (given as a list or tuple; returned as it came)."""
    if isinstance(choice, (list, tuple)):
        names = [tool.name for tool in tools]
        unknown = [n for n in choice if not isinstance(n, str) or n not in names]
        if unknown or len(choice) < 2 or len(set(choice)) != len(choice):
            raise InvalidOptionError(
                f"tool_choice={list(choice)!r}: a list names two or more of the tools, once "
                f"each ({', '.join(names) or 'no tools given'})"
            )
        return choice
    if choice is None or choice in TOOL_CHOICES:
        return choice
    if not isinstance(choice, str):
        raise InvalidOptionError(f"tool_choice must be a string, not {type(choice).__name__}")
    names = [tool.name for tool in tools]
    if choice not in names:
        known = ", ".join(names) or "no tools given"
        raise InvalidOptionError(
            f"tool_choice={choice!r} is not auto, none, required or a tool's name ({known})"
        )
    return choice
