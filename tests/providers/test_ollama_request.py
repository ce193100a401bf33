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
