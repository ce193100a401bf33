"""OpenAI Chat: tools, tool choice and settings out and back, whole requests and responses."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.chat import ChatCompletion, completion_create_params
from tests.conftest import check_typed_dict

import mediablocks as mb
from mediablocks.errors import UnsupportedSettingError

PARAMS = completion_create_params.CompletionCreateParamsNonStreaming
TOOL = mb.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
HISTORY = [mb.SystemMessage.text("Be brief."), mb.UserMessage.text("Weather in Paris?")]


def checked(fields: dict[str, Any]) -> dict[str, Any]:
    check_typed_dict(PARAMS, {"model": "gpt-5", **fields})
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
    fields = checked(mb.encode(HISTORY, "openai", tools=[TOOL], tool_choice=choice))
    assert fields["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": TOOL.parameters,
            },
        }
    ]
    assert fields["tool_choice"] == wire


def test_settings_and_strict_tools() -> None:
    settings = mb.Settings(
        max_tokens=300,
        temperature=0.5,
        top_p=0.9,
        stop="END",
        reasoning_effort="low",
        response_schema={"title": "Answer", "type": "object", "properties": {}},
    )
    strict = TOOL.model_copy(update={"strict": True})
    fields = checked(mb.encode(HISTORY, "openai", tools=[strict], settings=settings))
    assert fields["max_completion_tokens"] == 300
    assert (fields["temperature"], fields["top_p"], fields["stop"]) == (0.5, 0.9, ["END"])
    assert fields["reasoning_effort"] == "low"
    assert fields["response_format"]["json_schema"]["name"] == "Answer"
    function = fields["tools"][0]["function"]
    assert function["strict"] is True
    assert function["parameters"]["additionalProperties"] is False


def test_a_strict_tool_with_an_open_object_raises() -> None:
    tool = mb.Tool(
        name="t",
        parameters={
            "type": "object",
            "properties": {"m": {"type": "object", "additionalProperties": True}},
        },
        strict=True,
    )
    with pytest.raises(UnsupportedSettingError, match="additionalProperties"):
        mb.encode(HISTORY, "openai", tools=[tool])


BODY: dict[str, Any] = {
    "model": "gpt-5",
    "messages": [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": TOOL.parameters,
            },
        }
    ],
    "tool_choice": "required",
    "max_completion_tokens": 200,
    "temperature": 0.1,
    "stop": ["END"],
    "response_format": {"type": "json_object"},
    "metadata": {"run": "7"},
    "service_tier": "flex",
    "parallel_tool_calls": False,
}


def test_a_request_decodes_and_round_trips() -> None:
    request = mb.decode_request(BODY, "openai")
    assert request.tool_choice == "required"
    assert request.settings == mb.Settings(
        max_tokens=200, temperature=0.1, stop=["END"], json_mode=True, parallel_tool_calls=False
    )
    assert request.extra == {
        "metadata": {"run": "7"},
        "service_tier": "flex",
    }
    body = mb.encode_request(request, "openai")
    check_typed_dict(PARAMS, body)
    assert mb.decode_request(body, "openai") == request


def test_a_legacy_max_tokens_is_read() -> None:
    body = {"model": "m", "messages": [], "max_tokens": 5}
    assert mb.decode_request(body, "openai").settings.max_tokens == 5


RESPONSE: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "gpt-5",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
            "logprobs": None,
        }
    ],
    "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29},
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "openai")
    assert isinstance(reply, mb.AssistantMessage)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("tool_use", "tool_calls")
    body = mb.encode_response(reply, "openai")
    ChatCompletion.model_validate(body)
    [again] = mb.decode(body, "openai")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )
    assert body["usage"] == RESPONSE["usage"]
    assert body["choices"][0]["finish_reason"] == "tool_calls"
