"""Gemini: tools, tool choice and settings in ONE config (SDK) or the REST fields, whole
requests and responses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import types as gt
from pydantic import BaseModel

import mediablocks as mb
from mediablocks.errors import UnsupportedSettingError


class Address(BaseModel):
    street: str
    note: str | None = None


class Args(BaseModel):
    """Find a place."""

    city: str
    address: Address | None = None


TOOL = mb.Tool.from_model(Args, name="find_place")
HISTORY = [mb.SystemMessage.text("Be brief."), mb.UserMessage.text("Where?")]
SETTINGS = mb.Settings(
    max_tokens=100,
    temperature=0.4,
    top_p=0.9,
    stop=["END"],
    reasoning_effort="low",
    response_schema={"type": "object", "properties": {"a": {"type": "string"}}},
)


def test_the_sdk_config_holds_system_tools_choice_and_settings_together() -> None:
    fields = mb.encode(HISTORY, "gemini", tools=[TOOL], tool_choice="find_place", settings=SETTINGS)
    assert set(fields) == {"contents", "config"}
    config = gt.GenerateContentConfig.model_validate(fields["config"])
    assert config.system_instruction is not None
    [declaration] = fields["config"]["tools"][0]["function_declarations"]
    params = declaration["parameters"]
    assert "$defs" not in json.dumps(params)
    assert params["properties"]["address"]["nullable"] is True
    assert params["properties"]["address"]["properties"]["street"]["type"] == "string"
    assert fields["config"]["tool_config"] == {
        "function_calling_config": {"mode": "ANY", "allowed_function_names": ["find_place"]}
    }
    assert fields["config"]["max_output_tokens"] == 100
    assert fields["config"]["thinking_config"] == {"thinking_level": "LOW"}
    assert fields["config"]["response_mime_type"] == "application/json"


def test_rest_json_puts_them_where_the_http_api_wants_them() -> None:
    body = mb.encode(
        HISTORY, "gemini", target="json", tools=[TOOL], tool_choice="required", settings=SETTINGS
    )
    assert set(body) == {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}
    gt.Tool.model_validate_json(json.dumps(body["tools"][0]))
    gt.ToolConfig.model_validate_json(json.dumps(body["toolConfig"]))
    generation = gt.GenerationConfig.model_validate_json(json.dumps(body["generationConfig"]))
    assert generation.stop_sequences == ["END"]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert "functionDeclarations" in body["tools"][0]


def test_a_keyword_outside_geminis_subset_raises_or_is_reported() -> None:
    tool = mb.Tool(
        name="tag",
        parameters={
            "type": "object",
            "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}},
        },
    )
    with pytest.raises(UnsupportedSettingError, match="additionalProperties"):
        mb.encode(HISTORY, "gemini", tools=[tool])
    fields, report = mb.encode_with_report(HISTORY, "gemini", tools=[tool], unsupported="drop")
    gt.GenerateContentConfig.model_validate(fields["config"])
    assert [d.what for d in report.dropped] == [
        "schema keyword tool 'tag'.m.additionalProperties: {'type': 'integer'} "
        "(Gemini's schema has no 'additionalProperties')"
    ]


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_a_request_round_trips(target: str) -> None:
    request = mb.Request(
        messages=[mb.UserMessage.text("Where?")],
        tools=[
            mb.Tool(
                name="f",
                description="d",
                parameters={
                    "type": "object",
                    "properties": {"x": {"type": "string", "nullable": True}},
                },
            )
        ],
        tool_choice="auto",
        settings=SETTINGS,
        model="gemini-3-pro",
        extra={"config": {"safety_settings": []}}
        if target == "sdk"
        else {"safetySettings": [], "generationConfig": {"candidateCount": 1}},
    )
    body = mb.encode_request(request, "gemini", target=target)  # type: ignore[arg-type]
    if target == "sdk":
        gt.GenerateContentConfig.model_validate(body["config"])
        assert body["config"]["safety_settings"] == []
    else:
        assert body["generationConfig"]["candidateCount"] == 1
    assert mb.decode_request(body, "gemini") == request


RESPONSE: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [{"functionCall": {"name": "f", "args": {"x": "1"}}}],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8},
    "modelVersion": "gemini-3-pro",
    "responseId": "r1",
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "gemini")
    assert isinstance(reply, mb.AssistantMessage)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("tool_use", "STOP")
    body = mb.encode_response(reply, "gemini")
    gt.GenerateContentResponse.model_validate_json(json.dumps(body))
    [again] = mb.decode(body, "gemini")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )


def test_calls_without_ids_get_the_same_ids_on_every_decode() -> None:
    first = mb.decode(RESPONSE, "gemini")[0]
    second = mb.decode(RESPONSE, "gemini")[0]
    assert isinstance(first, mb.AssistantMessage)
    assert isinstance(second, mb.AssistantMessage)
    assert first.tool_calls[0].id == second.tool_calls[0].id


SNAKE_SCHEMA = {
    "type": "object",
    "properties": {
        "high_c": {"type": "number"},
        "day_info": {
            "type": "object",
            "properties": {"week_day": {"type": "string"}},
            "required": ["week_day"],
        },
    },
    "required": ["high_c", "day_info"],
}


def test_json_target_keeps_user_schemas_and_args_as_written() -> None:
    # Only envelope fields are camelCased on the REST body; property names and `required`
    # inside a tool schema or response schema are the caller's data.
    tool = mb.Tool(name="forecast", description="Forecast.", parameters=SNAKE_SCHEMA)
    request = mb.Request(
        messages=[
            mb.UserMessage.text("Hot?"),
            mb.AssistantMessage(
                content=[mb.ToolCallBlock(id="c1", name="forecast", args={"high_c": 30})]
            ),
        ],
        tools=[tool],
        settings=mb.Settings(response_schema=SNAKE_SCHEMA),
    )
    body = mb.encode_request(request, "gemini", target="json")
    declared = body["tools"][0]["functionDeclarations"][0]["parameters"]
    assert set(declared["properties"]) == {"high_c", "day_info"}
    assert declared["required"] == ["high_c", "day_info"]
    schema = body["generationConfig"]["responseJsonSchema"]
    assert schema == SNAKE_SCHEMA
    assert body["contents"][1]["parts"][0]["functionCall"]["args"] == {"high_c": 30}
    gt.GenerateContentConfig.model_validate({"response_json_schema": schema})
    decoded = mb.decode_request(body, "gemini")
    assert decoded.tools == [tool]
    assert decoded.settings.response_schema == SNAKE_SCHEMA
