"""Whole requests for every provider: one tool defined once, and
``decode_request(encode_request(r, p), p) == r``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.providers._schema import to_ollama_schema

PROVIDERS = [
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
    "cohere",
]
# What each provider cannot honour (it raises for these unless unsupported="drop").
_PENALTIES = {"frequency_penalty", "presence_penalty"}
CANNOT: dict[str, set[str]] = {
    "anthropic": {"temperature", "top_p", "top_k", "seed", "json_mode", *_PENALTIES},
    "openai-chat": {"top_k"},
    "openai-responses": {"stop", "seed", "top_k", *_PENALTIES},
    "gemini": {"parallel_tool_calls"},
    "bedrock": {"tool_choice:none", "top_k", "seed", "json_mode", "parallel_tool_calls"}
    | _PENALTIES,
    "ollama": {"tool_choice:none", "tool_choice:required", "tool_choice:name"}
    | {"parallel_tool_calls"},
    "cohere": {"tool_choice:name", "parallel_tool_calls"},
}
# Where auto is the only default and has no field to come back from.
AUTO_UNSENT = ("ollama", "cohere")


def get_weather(city: str, days: int = 1) -> str:
    """Weather for a city.

    Args:
        city: The city.
        days: How many days ahead.
    """
    return city


TOOL = mb.Tool.from_function(get_weather)


def _choice_key(choice: str | None) -> str | None:
    if choice in (None, "auto"):
        return None
    return f"tool_choice:{'name' if choice == 'get_weather' else choice}"


def _as_sent(request: mb.Request, provider: str) -> mb.Request:
    """``request`` as ``provider`` carries it: Ollama's tool schemas have no titles and say
    defaults in the description (ollama-python's types model nothing else)."""
    if provider != "ollama":
        return request
    tools = [
        tool.model_copy(update={"parameters": to_ollama_schema(tool.parameters)})
        for tool in request.tools
    ]
    return request.model_copy(update={"tools": tools})


@st.composite
def requests(draw: st.DrawFn, provider: str) -> mb.Request:
    cannot = CANNOT.get(provider, set())
    choice = draw(st.sampled_from([None, "auto", "none", "required", "get_weather"]))
    if _choice_key(choice) in cannot or (provider in AUTO_UNSENT and choice == "auto"):
        choice = None  # auto is not sent there: no field carries it back
    values: dict[str, Any] = {
        "max_tokens": draw(st.none() | st.integers(1, 10_000)),
        "temperature": draw(st.none() | st.floats(0, 2)),
        "top_p": draw(st.none() | st.floats(0, 1)),
        "stop": draw(
            st.none() | st.lists(st.text("abcXYZ", min_size=1, max_size=5), min_size=1, max_size=3)
        ),
        "reasoning_effort": draw(st.none() | st.sampled_from(["low", "medium", "high"])),
        "response_schema": draw(
            st.none() | st.just({"type": "object", "properties": {"a": {"type": "string"}}})
        ),
        "seed": draw(st.none() | st.integers(0, 2**31)),
        "top_k": draw(st.none() | st.integers(1, 100)),
        "frequency_penalty": draw(st.none() | st.floats(-2, 2)),
        "presence_penalty": draw(st.none() | st.floats(-2, 2)),
        "parallel_tool_calls": draw(st.none() | st.booleans()),
    }
    if values["response_schema"] is None:
        values["json_mode"] = draw(st.none() | st.just(True))
    if provider == "anthropic" and values["parallel_tool_calls"] is not None:
        # Anthropic carries it inside tool_choice: an unset choice is sent as auto.
        choice = choice if choice not in (None, "none") else "auto"
    for name in cannot:
        values.pop(name, None)
    text = draw(st.text(min_size=1, max_size=20).filter(str.strip))
    messages: list[Any] = [mb.UserMessage.text(text)]
    if draw(st.booleans()):
        messages.insert(0, mb.SystemMessage.text("Be brief."))
    return mb.Request(
        messages=messages,
        tools=[TOOL] if draw(st.booleans()) or choice is not None else [],
        tool_choice=choice,
        settings=mb.Settings(**values),
        model=draw(st.none() | st.sampled_from(["m-1", "model-2"])),
    )


@pytest.mark.parametrize("provider", PROVIDERS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_request_survives_its_own_provider(provider: str, data: st.DataObject) -> None:
    request = data.draw(requests(provider))
    for target in ("sdk", "json"):
        body = mb.encode_request(request, provider, target=target)  # type: ignore[arg-type]
        decoded = mb.decode_request(body, provider)
        assert [m.text for m in decoded.messages] == [m.text for m in request.messages]
        assert decoded == _as_sent(request, provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_request_read_from_one_provider_goes_to_every_other(provider: str) -> None:
    body = {
        "model": "claude-x",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather for a city",
                "input_schema": TOOL.parameters,
            }
        ],
        "tool_choice": {"type": "auto"},
    }
    request = mb.decode_request(body, "anthropic")
    moved = mb.decode_request(mb.encode_request(request, provider), provider)
    assert moved.tools == _as_sent(request, provider).tools
    assert moved.settings.max_tokens == 100
    assert moved.tool_choice == (None if provider in AUTO_UNSENT else "auto")
