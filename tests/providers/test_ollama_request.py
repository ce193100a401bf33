"""Ollama: tools and settings out and back, whole requests and responses."""

from __future__ import annotations

from typing import Any

import ollama
import pytest
from ollama._types import ChatRequest

import mediablocks as mb
from mediablocks.errors import UnsupportedSettingError

TOOL = mb.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
HISTORY = [mb.UserMessage.text("Weather in Paris?")]


def checked(fields: dict[str, Any]) -> dict[str, Any]:
    ChatRequest.model_validate({"model": "qwen3", **fields})
    return fields


def test_tools_and_settings() -> None:
    settings = mb.Settings(
        max_tokens=64,
        temperature=0.3,
        top_p=0.8,
        stop="END",
        reasoning_effort="high",
        response_schema={"type": "object", "properties": {}},
    )
    fields = checked(
        mb.encode(HISTORY, "ollama", tools=[TOOL], tool_choice="auto", settings=settings)
    )
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
    assert fields["options"] == {
        "num_predict": 64,
        "temperature": 0.3,
        "top_p": 0.8,
        "stop": ["END"],
    }
    assert (fields["think"], fields["format"]) == ("high", {"type": "object", "properties": {}})
    assert "tool_choice" not in fields


@pytest.mark.parametrize("choice", ["none", "required", "get_weather"])
def test_a_tool_choice_ollama_cannot_honour_raises_or_is_reported(choice: str) -> None:
    with pytest.raises(UnsupportedSettingError, match="tool choice"):
        mb.encode(HISTORY, "ollama", tools=[TOOL], tool_choice=choice)
    fields, report = mb.encode_with_report(
        HISTORY, "ollama", tools=[TOOL], tool_choice=choice, unsupported="drop"
    )
    assert "tool_choice" not in fields
    assert len(report.dropped) == 1


def test_a_strict_tool_raises_where_there_is_no_strict_mode() -> None:
    with pytest.raises(UnsupportedSettingError, match="strict"):
        mb.encode(HISTORY, "ollama", tools=[TOOL.model_copy(update={"strict": True})])


def test_messages_options_and_settings_options_merge() -> None:
    request = mb.decode_request(
        {
            "model": "qwen3",
            "messages": [{"role": "user", "content": "hi"}],
            "options": {"num_ctx": 8192, "temperature": 0.2},
            "keep_alive": "5m",
        },
        "ollama",
    )
    assert request.settings == mb.Settings(temperature=0.2)
    assert request.extra == {"options": {"num_ctx": 8192}, "keep_alive": "5m"}
    body = mb.encode_request(request, "ollama")
    assert body["options"] == {"temperature": 0.2, "num_ctx": 8192}
    checked(body)
    assert mb.decode_request(body, "ollama") == request


RESPONSE: dict[str, Any] = {
    "model": "qwen3:8b",
    "created_at": "2025-01-01T00:00:00.000000Z",
    "message": {"role": "assistant", "content": "Sunny."},
    "done": True,
    "done_reason": "stop",
    "total_duration": 1000,
    "prompt_eval_count": 11,
    "eval_count": 3,
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "ollama")
    assert isinstance(reply, mb.AssistantMessage)
    body = mb.encode_response(reply, "ollama")
    ollama.ChatResponse.model_validate(body)
    assert body["total_duration"] == 1000
    [again] = mb.decode(body, "ollama")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )


HISTORY_BODY: dict[str, Any] = {
    "model": "qwen3",
    "messages": [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
        },
        {"role": "tool", "tool_name": "get_weather", "content": "cold"},
        {"role": "tool", "tool_name": "get_weather", "tool_call_id": "c9", "content": "x"},
    ],
}


def test_decoding_twice_gives_the_same_ids_and_given_result_ids_round_trip() -> None:
    first = mb.decode(HISTORY_BODY, "ollama")
    second = mb.decode(HISTORY_BODY, "ollama")
    assert [m.model_dump(exclude={"id", "timestamp"}) for m in first] == [
        m.model_dump(exclude={"id", "timestamp"}) for m in second
    ]
    call = first[1].content[0]
    assert isinstance(call, mb.ToolCallBlock)
    results = [b for m in first[2:] for b in m.content if isinstance(b, mb.ToolResultBlock)]
    assert results[0].tool_call_id == call.id  # paired with the call by name
    assert results[1].tool_call_id == "c9"
    messages = mb.encode(first, "ollama")["messages"]
    assert "tool_call_id" not in messages[2]  # Ollama did not send one there
    assert messages[3]["tool_call_id"] == "c9"


def test_tool_schemas_hold_only_what_the_sdk_models() -> None:
    from ollama._types import Tool

    def forecast(city_name: str, days: int = 1) -> str:
        """Forecast.

        Args:
            city_name: The city.
            days: How many days.
        """
        return city_name

    tool = mb.Tool.from_function(forecast)
    assert "title" in str(tool.parameters)
    [sent] = mb.encode([mb.UserMessage.text("hi")], "ollama", tools=[tool])["tools"]
    # the SDK drops what it does not model: what we send must survive it unchanged
    assert Tool.model_validate(sent).model_dump(exclude_none=True, by_alias=True) == sent
    days = sent["function"]["parameters"]["properties"]["days"]
    assert days == {"type": "integer", "description": "How many days. (default: 1)"}
    assert set(sent["function"]["parameters"]["properties"]) == {"city_name", "days"}
