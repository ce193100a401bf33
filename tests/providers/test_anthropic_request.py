"""Anthropic: tools, tool choice and settings out and back, whole requests and responses."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic import types as at
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from tests.conftest import check_typed_dict

import mediablocks as mb
from mediablocks.errors import UnsupportedSettingError

TOOL = mb.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
HISTORY = [mb.SystemMessage.text("Be brief."), mb.UserMessage.text("Weather in Paris?")]


def checked(fields: dict[str, Any]) -> dict[str, Any]:
    check_typed_dict(
        MessageCreateParamsNonStreaming, {"model": "claude-x", "max_tokens": 9, **fields}
    )
    return fields


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ("get_weather", {"type": "tool", "name": "get_weather"}),
    ],
)
def test_tools_and_choice(choice: str, wire: dict[str, Any]) -> None:
    fields = checked(mb.encode(HISTORY, "anthropic", tools=[TOOL], tool_choice=choice))
    assert fields["tools"] == [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "input_schema": TOOL.parameters,
        }
    ]
    assert fields["tool_choice"] == wire
    assert fields["system"] == "Be brief."


def test_settings_map_to_their_fields() -> None:
    settings = mb.Settings(
        max_tokens=300, stop=["END"], reasoning_effort="high", response_schema={"type": "object"}
    )
    fields = checked(mb.encode(HISTORY, "anthropic", settings=settings))
    assert fields["max_tokens"] == 300
    assert fields["stop_sequences"] == ["END"]
    assert fields["output_config"] == {
        "effort": "high",
        "format": {"type": "json_schema", "schema": {"type": "object"}},
    }


def test_a_setting_anthropic_has_no_field_for_raises_or_is_reported() -> None:
    settings = mb.Settings(temperature=0.2, max_tokens=10)
    with pytest.raises(UnsupportedSettingError, match="temperature"):
        mb.encode(HISTORY, "anthropic", settings=settings)
    fields, report = mb.encode_with_report(
        HISTORY, "anthropic", settings=settings, unsupported="drop"
    )
    assert "temperature" not in fields
    assert fields["max_tokens"] == 10
    assert [d.what for d in report.dropped] == ["setting temperature"]


def test_strict_tools_send_a_strict_schema() -> None:
    strict = TOOL.model_copy(update={"strict": True})
    [tool] = checked(mb.encode(HISTORY, "anthropic", tools=[strict]))["tools"]
    assert tool["strict"] is True
    assert tool["input_schema"]["additionalProperties"] is False


BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": "Be brief.",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}],
    "tools": [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "input_schema": TOOL.parameters,
            "cache_control": {"type": "ephemeral"},
        },
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
    ],
    "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    "stop_sequences": ["END"],
    "output_config": {"effort": "low"},
    "metadata": {"user_id": "u-1"},
    "service_tier": "auto",
}


def test_a_request_decodes_with_unmodelled_fields_in_extra() -> None:
    request = mb.decode_request(BODY, "anthropic")
    assert request.model == "claude-sonnet-4-5"
    assert [t.name for t in request.tools] == ["get_weather"]
    assert request.tools[0].provider_data == {"anthropic": {"cache_control": {"type": "ephemeral"}}}
    assert request.tool_choice == "required"
    assert request.settings == mb.Settings(
        max_tokens=1024, stop=["END"], reasoning_effort="low", parallel_tool_calls=False
    )
    assert request.extra == {
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2}],
        "metadata": {"user_id": "u-1"},
        "service_tier": "auto",
    }
    assert [m.role for m in request.messages] == ["system", "user"]


def test_a_request_round_trips() -> None:
    request = mb.decode_request(BODY, "anthropic")
    body = mb.encode_request(request, "anthropic")
    check_typed_dict(MessageCreateParamsNonStreaming, body)
    assert body == BODY
    assert mb.decode_request(body, "anthropic") == request


RESPONSE: dict[str, Any] = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 12,
        "output_tokens": 7,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 0,
        "service_tier": "standard",
    },
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "anthropic")
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.usage is not None
    assert reply.usage.raw == RESPONSE["usage"]
    assert (reply.usage.input_tokens, reply.usage.uncached_input_tokens) == (112, 12)
    body = mb.encode_response(reply, "anthropic")
    at.Message.model_validate(body)
    assert body == RESPONSE
    [again] = mb.decode(body, "anthropic")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )


def test_a_response_from_elsewhere_gets_anthropic_names() -> None:
    reply = mb.AssistantMessage(
        content="Hi",
        usage=mb.Usage(input_tokens=10, output_tokens=2, cache_read_tokens=4),
        stop_reason="max_tokens",
        provider="openai-chat",
    )
    body = mb.encode_response(reply, "anthropic")
    at.Message.model_validate(body)
    assert body["stop_reason"] == "max_tokens"
    assert body["usage"]["input_tokens"] == 6
    assert body["usage"]["cache_read_input_tokens"] == 4


@pytest.mark.parametrize(
    ("provider", "version"),
    [("anthropic-bedrock", "bedrock-2023-05-31"), ("anthropic-vertex", "vertex-2023-10-16")],
)
def test_a_platform_json_body_round_trips_without_model(provider: str, version: str) -> None:
    # Bedrock InvokeModel and Vertex rawPredict take the model in the URL, not the body.
    request = mb.Request(
        messages=[mb.UserMessage.text("Hi")],
        tools=[TOOL],
        settings=mb.Settings(max_tokens=10),
        model="claude-x",
    )
    body = mb.encode_request(request, provider, target="json")
    assert "model" not in body
    assert body["anthropic_version"] == version
    decoded = mb.decode_request(body, provider)
    assert decoded.extra == {}
    assert decoded == request.model_copy(update={"model": None})
    assert mb.encode_request(decoded, provider, target="json") == body
    sdk = mb.encode_request(request, provider)
    assert sdk["model"] == "claude-x"
    assert "anthropic_version" not in sdk
