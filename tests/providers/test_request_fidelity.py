"""Fields real clients send come back from a same-provider round trip: tool entries' own fields,
empty descriptions, the order of tools, each endpoint's fields kept for that endpoint, and the
fields a provider requires are checked before a body goes out."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.errors import InvalidOptionError, UnsupportedSettingError

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["unit", "city"],
}


def _round_trip(body: dict[str, Any], provider: str) -> dict[str, Any]:
    request = mb.decode_request(copy.deepcopy(body), provider)
    return mb.encode_request(request, provider, target="json")


def test_openrouter_tool_entry_fields_go_back_to_openrouter_only() -> None:
    body = {
        "model": "anthropic/claude-sonnet-4.5",
        "messages": [{"role": "user", "content": "Weather in Oslo?"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "weather", "description": "", "parameters": WEATHER},
                "cache_control": {"type": "ephemeral"},
                "eager_input_streaming": True,
            }
        ],
    }
    assert _round_trip(body, "openrouter") == body
    request = mb.decode_request(body, "openrouter")
    assert set(request.tools[0].provider_data) == {"openrouter"}
    as_openai = mb.encode_request(request, "openai-chat", target="json")
    assert as_openai["tools"][0] == {
        "type": "function",
        "function": {"name": "weather", "parameters": WEATHER},
    }


@pytest.mark.parametrize("provider", ["openai-chat", "groq", "mistral", "ollama", "cohere"])
def test_an_empty_description_and_the_order_of_required_survive(provider: str) -> None:
    tool = {"type": "function", "function": {"name": "w", "description": "", "parameters": WEATHER}}
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [tool]}
    assert _round_trip(body, provider)["tools"] == [tool]


def test_a_chat_tool_without_type_and_with_strict_false_goes_back_so() -> None:
    tool = {"function": {"name": "w", "parameters": WEATHER, "strict": False}}
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [tool]}
    assert _round_trip(body, "openai-chat")["tools"] == [tool]


def test_responses_tools_keep_their_order_around_server_tools() -> None:
    strict = {**WEATHER, "additionalProperties": False}
    function = {"type": "function", "name": "w", "parameters": strict, "strict": True}
    tools = [{"type": "web_search"}, function, {"type": "file_search", "vector_store_ids": ["v"]}]
    body = {"model": "gpt-5", "input": "hi", "tools": tools}
    assert _round_trip(body, "openai-responses")["tools"] == tools


def test_anthropic_tools_keep_their_order_around_server_tools() -> None:
    tools = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
        {"name": "w", "description": "weather", "input_schema": WEATHER},
    ]
    body = {"model": "c", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}
    body["tools"] = tools
    assert _round_trip(body, "anthropic")["tools"] == tools


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=6))
def test_any_interleaving_of_function_and_server_tools_round_trips(kinds: list[bool]) -> None:
    tools: list[dict[str, Any]] = []
    for number, is_function in enumerate(kinds):
        if is_function:
            tools.append({"type": "function", "function": {"name": f"f{number}", "parameters": {}}})
        else:
            tools.append({"type": "custom", "custom": {"name": f"c{number}"}})
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    assert _round_trip(body, "openai-chat")["tools"] == tools


def test_an_anthropic_body_without_max_tokens_is_refused_naming_the_field() -> None:
    request = mb.Request(messages=[mb.UserMessage.text("hi")], model="claude-x")
    for provider in ("anthropic", "anthropic-bedrock", "anthropic-vertex"):
        with pytest.raises(InvalidOptionError, match="max_tokens"):
            mb.encode_request(request, provider, target="json")
    # SDK keyword arguments: the call takes max_tokens beside them, as documented
    assert "max_tokens" not in mb.encode_request(request, "anthropic")


def test_another_providers_tool_fields_never_leak() -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "w", "x_custom": 1}}],
    }
    request = mb.decode_request(body, "groq")
    assert mb.encode_request(request, "groq", target="json")["tools"][0]["function"]["x_custom"]
    for other in ("openai-chat", "mistral", "deepseek"):
        sent = mb.encode_request(request, other, target="json")
        assert "x_custom" not in sent["tools"][0]["function"]
    with pytest.raises(UnsupportedSettingError):
        mb.encode_request(mb.decode_request({**body, "user": "u"}, "groq"), "anthropic")
