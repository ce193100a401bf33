"""OpenAI Responses: tools, tool choice and settings out and back, whole requests and
responses."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses import Response, response_create_params
from tests.conftest import check_typed_dict

import mediablocks as mb
from mediablocks.errors import UnsupportedSettingError

PARAMS = response_create_params.ResponseCreateParamsNonStreaming
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
        ("get_weather", {"type": "function", "name": "get_weather"}),
    ],
)
def test_tools_and_choice(choice: str, wire: Any) -> None:
    fields = checked(mb.encode(HISTORY, "openai-responses", tools=[TOOL], tool_choice=choice))
    assert fields["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": TOOL.parameters,
            "strict": False,
        }
    ]
    assert fields["tool_choice"] == wire


def test_settings_and_what_responses_cannot_take() -> None:
    settings = mb.Settings(
        max_tokens=90,
        temperature=1.0,
        reasoning_effort="high",
        response_schema={"type": "object", "properties": {}},
    )
    fields = checked(mb.encode(HISTORY, "openai-responses", settings=settings))
    assert fields["max_output_tokens"] == 90
    assert fields["reasoning"] == {"effort": "high"}
    assert fields["text"]["format"]["type"] == "json_schema"
    with pytest.raises(UnsupportedSettingError, match="stop"):
        mb.encode(HISTORY, "openai-responses", settings=mb.Settings(stop="END"))


BODY: dict[str, Any] = {
    "model": "gpt-5",
    "instructions": "Be brief.",
    "input": [{"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]}],
    "tools": [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": {**TOOL.parameters, "additionalProperties": False},
            "strict": True,
        },
        {"type": "web_search"},
    ],
    "tool_choice": {"type": "function", "name": "get_weather"},
    "reasoning": {"effort": "low", "summary": "auto"},
    "store": False,
    "include": ["reasoning.encrypted_content"],
}


def test_a_request_decodes_and_round_trips() -> None:
    request = mb.decode_request(BODY, "openai-responses")
    assert request.tool_choice == "get_weather"
    assert request.tools[0].strict is True
    assert request.settings.reasoning_effort == "low"
    assert request.extra["reasoning"] == {"summary": "auto"}
    assert request.extra["tools"] == [{"type": "web_search"}]
    body = mb.encode_request(request, "openai-responses")
    check_typed_dict(PARAMS, body)
    assert mb.decode_request(body, "openai-responses") == request


RESPONSE: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1700000000.0,
    "model": "gpt-5",
    "status": "completed",
    "output": [
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Oslo"}',
            "status": "completed",
        }
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    },
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "openai-responses")
    assert isinstance(reply, mb.AssistantMessage)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("tool_use", "completed")
    body = mb.encode_response(reply, "openai-responses")
    Response.model_validate(body)
    [again] = mb.decode(body, "openai-responses")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )


def test_a_text_reply_from_elsewhere_is_a_valid_response() -> None:
    reply = mb.AssistantMessage(
        content="Hi",
        stop_reason="max_tokens",
        provider="anthropic",
        usage=mb.Usage(input_tokens=3, output_tokens=1),
    )
    body = mb.encode_response(reply, "openai-responses")
    parsed = Response.model_validate(body)
    assert parsed.status == "incomplete"
    assert parsed.output_text == "Hi"
    [again] = mb.decode(body, "openai-responses")
    assert isinstance(again, mb.AssistantMessage)
    assert (again.text, again.stop_reason) == ("Hi", "max_tokens")


@pytest.mark.parametrize("given", [{}, {"strict": False}, {"strict": True}])
def test_a_tool_keeps_its_strict_flag_or_its_absence(given: dict[str, Any]) -> None:
    # The Responses API defaults `strict` to true: a tool sent without the flag must not come
    # back as `strict: false` (its mode would flip on a same-provider round trip).
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    tool = {"type": "function", "name": "find", "parameters": schema, **given}
    body = {"model": "gpt-5", "input": "Where?", "tools": [tool]}
    again = mb.encode_request(mb.decode_request(body, "openai-responses"), "openai-responses")
    assert again["tools"] == [tool]
