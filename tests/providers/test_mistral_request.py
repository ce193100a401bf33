"""Mistral: tools, tool choice and settings out and back, whole requests and responses."""

from __future__ import annotations

from typing import Any

import pytest
from mistralai.client import models as mm

import mediablocks as mb

TOOL = mb.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
HISTORY = [mb.SystemMessage.text("Be brief."), mb.UserMessage.text("Weather in Paris?")]


def checked(fields: dict[str, Any]) -> dict[str, Any]:
    request = mm.ChatCompletionRequest.model_validate({"model": "mistral-large", **fields})
    dumped = request.model_dump(by_alias=True, exclude_unset=True)
    assert set(fields) <= set(dumped), "the SDK keeps every field we send"
    return fields


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("get_weather", {"type": "function", "function": {"name": "get_weather"}}),
    ],
)
def test_tools_and_choice(choice: str, wire: Any) -> None:
    fields = checked(mb.encode(HISTORY, "mistral", tools=[TOOL], tool_choice=choice))
    assert fields["tools"][0]["function"]["parameters"] == TOOL.parameters
    assert fields["tool_choice"] == wire


def test_settings_map_by_name() -> None:
    settings = mb.Settings(
        max_tokens=64,
        temperature=0.3,
        top_p=0.8,
        stop=["END"],
        reasoning_effort="medium",
        response_schema={"type": "object", "properties": {}},
    )
    fields = checked(mb.encode(HISTORY, "mistral", settings=settings))
    assert (fields["max_tokens"], fields["temperature"], fields["top_p"]) == (64, 0.3, 0.8)
    assert (fields["stop"], fields["reasoning_effort"]) == (["END"], "medium")
    assert fields["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": {"type": "object", "properties": {}}},
    }


BODY: dict[str, Any] = {
    "model": "mistral-large-latest",
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
    "tool_choice": "any",
    "max_tokens": 50,
    "safe_prompt": True,
    "random_seed": 3,
}


def test_a_request_decodes_and_round_trips() -> None:
    request = mb.decode_request(BODY, "mistral")
    assert request.tool_choice == "required"
    assert request.tools[0].parameters == {}  # kept as sent
    assert request.extra == {"safe_prompt": True}
    assert request.settings.seed == 3
    body = mb.encode_request(request, "mistral")
    checked(body)
    assert mb.decode_request(body, "mistral") == request


RESPONSE: dict[str, Any] = {
    "id": "cmpl-1",
    "object": "chat.completion",
    "model": "mistral-large-latest",
    "created": 1700000000,
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Sunny.", "tool_calls": None},
            "finish_reason": "length",
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "mistral")
    assert isinstance(reply, mb.AssistantMessage)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("max_tokens", "length")
    body = mb.encode_response(reply, "mistral")
    mm.ChatCompletionResponse.model_validate(body)
    [again] = mb.decode(body, "mistral")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )
