"""A decoded request's tools go back in the order they came, under the endpoint they came from.

A request's function tools become `Tool`s and its other tools (server tools, cache points) stay
verbatim in ``Request.extra``; encoding writes the translated tools first and the verbatim ones
after. When they came interleaved (a web search tool before a function), `mark_tool_order` notes
each function tool's place and `restore_tool_order` puts it back there, so a same-provider round
trip keeps the order the caller chose (tool order can change which tool a model picks first and
where a cache point falls).

A profile (OpenRouter, Groq...) decodes with its base format's request module, which keeps a
tool's unmodelled fields under the base's name; `rekeyed` moves them under the profile's name on
the way in and back on the way out, so OpenRouter's ``cache_control`` goes back to OpenRouter
and never to OpenAI.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..settings import Settings
from ..tools import Tool
from ._fields import MARK, tool_note

__all__ = ["mark_tool_order", "rekeyed", "restore_tool_order"]

_INDEX = "index"


def _tool_list(body: Any) -> list[Any] | None:
    """The list a body keeps its tools in: ``tools``, or Bedrock's ``toolConfig.tools``."""
    if not isinstance(body, dict):
        return None
    tools = body.get("tools")
    if isinstance(tools, list):
        return tools
    config = body.get("toolConfig")
    if isinstance(config, dict) and isinstance(config.get("tools"), list):
        found: list[Any] = config["tools"]
        return found
    return None


def mark_tool_order(
    tools: list[Tool], body: dict[str, Any], rest: dict[str, Any], provider: str
) -> list[Tool]:
    """``tools`` with their places in the body's tool list noted, when the translated tools did
    not all come before the verbatim ones (the order encoding writes)."""
    original = _tool_list(body)
    if not tools or original is None or provider == "gemini":
        return tools
    others = _tool_list(rest) or []
    places: list[int] = []
    kept = 0
    for place, item in enumerate(original):
        if kept < len(others) and item == others[kept]:
            kept += 1
        else:
            places.append(place)
    if len(places) != len(tools) or places == list(range(len(tools))):
        return tools
    return [_noted(tool, provider, place) for tool, place in zip(tools, places, strict=True)]


def _noted(tool: Tool, provider: str, place: int) -> Tool:
    stored = {**tool.provider_data.get(provider, {}), MARK + _INDEX: place}
    return tool.model_copy(update={"provider_data": {**tool.provider_data, provider: stored}})


def restore_tool_order(body: dict[str, Any], tools: list[Tool], provider: str) -> None:
    """Put the translated tools (the first ``len(tools)`` of the body's tool list) back at the
    places `mark_tool_order` noted, the verbatim tools filling the others in order."""
    items = _tool_list(body)
    places = [tool_note(tool, provider, _INDEX) for tool in tools]
    if items is None or not places or any(not isinstance(p, int) for p in places):
        return
    if len(set(places)) != len(places) or max(places) >= len(items) or len(items) < len(tools):
        return
    translated, verbatim = items[: len(tools)], iter(items[len(tools) :])
    order: list[Any] = [None] * len(items)
    for place, item in zip(places, translated, strict=True):
        order[place] = item
    items[:] = [item if item is not None else next(verbatim) for item in order]


_Noted = TypeVar("_Noted", Tool, Settings)


def rekeyed(item: _Noted, source: str, target: str) -> _Noted:
    """``item`` (a tool or the settings) with its ``source`` provider data under ``target`` (a
    profile and its base)."""
    if source == target or source not in item.provider_data:
        return item
    data = {k: v for k, v in item.provider_data.items() if k not in (source, target)}
    data[target] = item.provider_data[source]
    return item.model_copy(update={"provider_data": data})
