"""Bedrock Converse: tools, tool choice and settings against botocore's service model, whole
requests and responses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.providers.test_bedrock import validate

import mediablocks as mb
from mediablocks.errors import UnsupportedSettingError

TOOL = mb.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
HISTORY = [mb.SystemMessage.text("Be brief."), mb.UserMessage.text("Weather in Paris?")]


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"auto": {}}),
        ("required", {"any": {}}),
        ("get_weather", {"tool": {"name": "get_weather"}}),
    ],
)
def test_tools_and_choice(choice: str, wire: dict[str, Any]) -> None:
    fields = mb.encode(HISTORY, "bedrock", tools=[TOOL], tool_choice=choice)
    validate(fields)
    assert fields["toolConfig"] == {
        "tools": [
            {
                "toolSpec": {
                    "name": "get_weather",
                    "description": "Weather for a city",
                    "inputSchema": {"json": TOOL.parameters},
                }
            }
        ],
        "toolChoice": wire,
    }


def test_no_tool_choice_none_in_converse() -> None:
    with pytest.raises(UnsupportedSettingError, match="none"):
        mb.encode(HISTORY, "bedrock", tools=[TOOL], tool_choice="none")


def test_settings_map_to_inference_and_output_config() -> None:
    schema = {"title": "Answer", "type": "object", "properties": {}}
    settings = mb.Settings(
        max_tokens=50,
        temperature=0.2,
        top_p=0.5,
        stop="END",
        reasoning_effort="medium",
        response_schema=schema,
    )
    fields = mb.encode(HISTORY, "bedrock", settings=settings)
    validate(fields)
    assert fields["inferenceConfig"] == {
        "maxTokens": 50,
        "temperature": 0.2,
        "topP": 0.5,
        "stopSequences": ["END"],
    }
    output = fields["outputConfig"]
    assert output["effort"] == "medium"
    assert json.loads(output["textFormat"]["structure"]["jsonSchema"]["schema"]) == schema


BODY: dict[str, Any] = {
    "modelId": "anthropic.claude-x",
    "messages": [{"role": "user", "content": [{"text": "Weather?"}]}],
    "system": [{"text": "Be brief."}],
    "toolConfig": {
        "tools": [
            {"toolSpec": {"name": "get_weather", "inputSchema": {"json": TOOL.parameters}}},
            {"cachePoint": {"type": "default"}},
        ],
        "toolChoice": {"any": {}},
    },
    "inferenceConfig": {"maxTokens": 10},
    "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1"},
    "requestMetadata": {"team": "a"},
}


def test_a_request_decodes_and_round_trips() -> None:
    request = mb.decode_request(BODY, "bedrock")
    assert (request.model, request.tool_choice) == ("anthropic.claude-x", "required")
    assert request.extra["toolConfig"] == {"tools": [{"cachePoint": {"type": "default"}}]}
    body = mb.encode_request(request, "bedrock")
    validate({k: v for k, v in body.items() if k != "modelId"})
    assert body == BODY
    assert mb.decode_request(body, "bedrock") == request


RESPONSE: dict[str, Any] = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Oslo"}}}
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 4, "totalTokens": 14},
    "metrics": {"latencyMs": 120},
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "bedrock")
    assert isinstance(reply, mb.AssistantMessage)
    body = mb.encode_response(reply, "bedrock")
    assert body == RESPONSE
    [again] = mb.decode(body, "bedrock")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )
