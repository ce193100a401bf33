"""Cohere v2: tools, tool choice and settings out and back, whole requests and responses,
checked against the installed ``cohere`` SDK's own types and sent through its real client."""

from __future__ import annotations

import json
import typing
from typing import Any

import cohere
import pytest
from cohere.v2.client import V2Client
from cohere.v2.types.v2chat_request_tool_choice import V2ChatRequestToolChoice
from cohere.v2.types.v2chat_response import V2ChatResponse
from tests.conftest import serve, type_adapter
from tests.providers.test_cohere import check_messages

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedSettingError

CHAT_PARAMETERS = {
    name: hint
    for name, hint in typing.get_type_hints(V2Client.chat).items()
    if name not in ("return", "request_options")
}
TOOL_CHOICES = typing.get_args(typing.get_args(V2ChatRequestToolChoice)[0])
TOOL = mb.Tool(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
OTHER = mb.Tool(name="get_time", parameters={"type": "object", "properties": {}})
HISTORY = [mb.SystemMessage.text("Be brief."), mb.UserMessage.text("Weather in Paris?")]


def checked(fields: dict[str, Any]) -> dict[str, Any]:
    """Each field against the type of the same-named parameter of ``ClientV2.chat``; a field
    the SDK call does not take fails."""
    unknown = set(fields) - set(CHAT_PARAMETERS)
    assert not unknown, f"ClientV2.chat takes no {unknown}"
    for name, value in fields.items():
        type_adapter(CHAT_PARAMETERS[name]).validate_python(value)
    if "tool_choice" in fields:
        assert fields["tool_choice"] in TOOL_CHOICES
    check_messages(fields["messages"])
    return fields


@pytest.mark.parametrize(("choice", "wire"), [("required", "REQUIRED"), ("none", "NONE")])
def test_tools_and_choice(choice: str, wire: str) -> None:
    fields = checked(mb.encode(HISTORY, "cohere", tools=[TOOL], tool_choice=choice))
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
    assert "strict_tools" not in fields


def test_auto_is_cohere_default_and_sends_nothing() -> None:
    fields = checked(mb.encode(HISTORY, "cohere", tools=[TOOL], tool_choice="auto"))
    assert "tool_choice" not in fields


def test_one_tool_by_name_raises_or_is_dropped_and_reported() -> None:
    with pytest.raises(UnsupportedSettingError, match="get_weather"):
        mb.encode(HISTORY, "cohere", tools=[TOOL, OTHER], tool_choice="get_weather")
    fields, report = mb.encode_with_report(
        HISTORY, "cohere", tools=[TOOL, OTHER], tool_choice="get_weather", unsupported="drop"
    )
    assert "tool_choice" not in checked(fields)
    [dropped] = report.dropped
    assert "tool_choice='get_weather'" in dropped.what
    assert "required" in dropped.reason


def test_strict_tools_all_or_none() -> None:
    strict = [tool.model_copy(update={"strict": True}) for tool in (TOOL, OTHER)]
    fields = checked(mb.encode(HISTORY, "cohere", tools=strict))
    assert fields["strict_tools"] is True
    assert fields["tools"][0]["function"]["parameters"] == TOOL.parameters  # sent as given
    mixed = [strict[0], OTHER]
    with pytest.raises(UnsupportedSettingError, match="strict mode of tool 'get_weather'"):
        mb.encode(HISTORY, "cohere", tools=mixed)
    fields, report = mb.encode_with_report(HISTORY, "cohere", tools=mixed, unsupported="drop")
    assert "strict_tools" not in checked(fields)
    assert [d.what for d in report.dropped] == ["strict mode of tool 'get_weather'"]


def test_settings_map_to_cohere_fields() -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    settings = mb.Settings(
        max_tokens=64,
        temperature=0.3,
        top_p=0.8,
        stop="END",
        reasoning_effort="medium",
        response_schema=schema,
    )
    fields = checked(mb.encode(HISTORY, "cohere", settings=settings))
    assert (fields["max_tokens"], fields["temperature"], fields["p"]) == (64, 0.3, 0.8)
    assert fields["stop_sequences"] == ["END"]
    assert fields["thinking"] == {"type": "enabled", "token_budget": 4096}
    assert fields["response_format"] == {"type": "json_object", "json_schema": schema}
    assert "top_p" not in fields
    assert "stop" not in fields


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_each_effort_is_a_larger_budget_that_reads_back(effort: str) -> None:
    request = mb.Request(
        messages=HISTORY, settings=mb.Settings(reasoning_effort=effort), model="command-a"
    )
    body = checked(mb.encode_request(request, "cohere"))
    assert body["thinking"]["type"] == "enabled"
    assert body["thinking"]["token_budget"] > 0
    assert mb.decode_request(body, "cohere") == request


def test_more_effort_is_a_larger_budget() -> None:
    budgets = [
        mb.encode(HISTORY, "cohere", settings=mb.Settings(reasoning_effort=e))["thinking"]
        for e in ("low", "medium", "high")
    ]
    sizes = [thinking["token_budget"] for thinking in budgets]
    assert sizes[0] < sizes[1] < sizes[2]


BODY: dict[str, Any] = {
    "model": "command-a-03-2025",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ],
    "documents": [{"id": "d1", "data": {"title": "notes.txt", "text": "Paris: rain."}}],
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
    "strict_tools": True,
    "tool_choice": "REQUIRED",
    "max_tokens": 200,
    "temperature": 0.1,
    "p": 0.5,
    "stop_sequences": ["END"],
    "thinking": {"type": "disabled"},
    "safety_mode": "STRICT",
    "seed": 7,
    "citation_options": {"mode": "FAST"},
}


def test_a_request_decodes_and_round_trips() -> None:
    request = mb.decode_request(BODY, "cohere")
    assert request.model == "command-a-03-2025"
    assert request.tool_choice == "required"
    assert [(t.name, t.strict, t.parameters) for t in request.tools] == [
        ("get_weather", True, TOOL.parameters)
    ]
    assert request.settings == mb.Settings(
        max_tokens=200, temperature=0.1, top_p=0.5, stop="END", seed=7
    )
    assert request.extra == {
        "thinking": {"type": "disabled"},
        "safety_mode": "STRICT",
        "citation_options": {"mode": "FAST"},
    }
    documents = request.messages[-1]
    assert isinstance(documents, mb.UserMessage)
    assert isinstance(documents.content[0], mb.FileBlock)
    body = checked(mb.encode_request(request, "cohere"))
    assert body == BODY
    assert mb.decode_request(body, "cohere") == request


def test_a_request_with_every_setting_round_trips() -> None:
    request = mb.Request(
        messages=HISTORY,
        tools=[TOOL, OTHER],
        tool_choice="none",
        settings=mb.Settings(
            max_tokens=9,
            temperature=1.0,
            top_p=0.9,
            stop=["a", "b"],
            reasoning_effort="high",
            response_schema={"title": "Out", "type": "object", "properties": {}},
            top_k=20,
        ),
        model="command-a",
    )
    body = checked(mb.encode_request(request, "cohere"))
    assert (body["tool_choice"], body["k"], body["p"]) == ("NONE", 20, 0.9)
    assert mb.decode_request(body, "cohere") == request


def test_unmodelled_shapes_stay_verbatim_in_extra() -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tool_choice": "SOMETHING_NEW",
        "response_format": {"type": "json_object", "schema_version": "x"},
        "thinking": {"type": "enabled", "token_budget": 1234},
        "strict_tools": False,
    }
    request = mb.decode_request(body, "cohere")
    assert request.tool_choice is None
    assert request.settings == mb.Settings()
    assert request.extra == {k: v for k, v in body.items() if k not in ("model", "messages")}
    assert mb.encode_request(request, "cohere") == body


def test_the_sdk_sends_a_function_tool_to_a_local_server() -> None:
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather for a city.

        Args:
            city: The city name.
            unit: celsius or fahrenheit.
        """
        return "sunny"

    tool = mb.Tool.from_function(get_weather)
    settings = mb.Settings(max_tokens=100, top_p=0.7, reasoning_effort="low")
    fields = mb.encode(HISTORY, "cohere", tools=[tool], tool_choice="required", settings=settings)
    reply = {
        "id": "r1",
        "finish_reason": "TOOL_CALL",
        "message": {
            "role": "assistant",
            "tool_plan": "Look it up.",
            "tool_calls": [
                {
                    "id": "tc_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        "usage": {"tokens": {"input_tokens": 40.0, "output_tokens": 12.0}},
    }
    with serve(match_prefix=True) as (base, handler):
        handler.routes["/v2/chat"] = ("application/json", json.dumps(reply).encode())
        client = cohere.ClientV2(api_key="test", base_url=base)
        response = client.chat(model="command-a-03-2025", **fields)
        [(method, path, body)] = handler.seen
    sent = json.loads(body)
    assert (method, path) == ("POST", "/v2/chat")
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": tool.parameters,
            },
        }
    ]
    assert sent["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert sent["tool_choice"] == "REQUIRED"
    assert (sent["max_tokens"], sent["p"]) == (100, 0.7)
    assert sent["thinking"] == {"type": "enabled", "token_budget": 1024}
    [decoded] = mb.decode(response, "cohere")
    assert isinstance(decoded, mb.AssistantMessage)
    assert decoded.stop_reason == "tool_use"
    assert [(c.name, c.args) for c in decoded.tool_calls] == [("get_weather", {"city": "Paris"})]


RESPONSE: dict[str, Any] = {
    "id": "r2",
    "finish_reason": "MAX_TOKENS",
    "message": {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "They want weather."},
            {"type": "text", "text": "Sunny"},
        ],
    },
    "usage": {
        "billed_units": {"input_tokens": 10.0, "output_tokens": 2.0},
        "tokens": {"input_tokens": 15.0, "output_tokens": 2.0},
        "cached_tokens": 4.0,
    },
}


def test_a_response_round_trips() -> None:
    [reply] = mb.decode(RESPONSE, "cohere")
    assert isinstance(reply, mb.AssistantMessage)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("max_tokens", "MAX_TOKENS")
    assert reply.usage is not None
    assert reply.usage.raw == RESPONSE["usage"]
    body = mb.encode_response(reply, "cohere")
    V2ChatResponse.model_validate(body)
    assert body == RESPONSE
    [again] = mb.decode(body, "cohere")
    assert again.model_dump(exclude={"id", "timestamp"}) == reply.model_dump(
        exclude={"id", "timestamp"}
    )


@pytest.mark.parametrize(
    ("reason", "wire"),
    [
        ("end_turn", "COMPLETE"),
        ("tool_use", "TOOL_CALL"),
        ("max_tokens", "MAX_TOKENS"),
        ("stop_sequence", "STOP_SEQUENCE"),
        ("error", "ERROR"),
        ("content_filter", "ERROR"),
        ("refusal", "COMPLETE"),
    ],
)
def test_another_providers_reply_gets_cohere_names(reason: str, wire: str) -> None:
    message = mb.AssistantMessage(
        content=[mb.TextBlock(text="ok")],
        provider="openai-chat",
        stop_reason=reason,
        usage=mb.Usage(input_tokens=7, output_tokens=3, cache_read_tokens=2, raw={"x": 1}),
        response_id="chatcmpl-9",
    )
    body = mb.encode_response(message, "cohere")
    V2ChatResponse.model_validate(body)
    assert body["finish_reason"] == wire
    assert body["id"] == "chatcmpl-9"
    assert body["usage"] == {
        "tokens": {"input_tokens": 7, "output_tokens": 3},
        "cached_tokens": 2,
    }
    [again] = mb.decode(body, "cohere")
    assert isinstance(again, mb.AssistantMessage)
    assert again.text == "ok"
    assert again.usage is not None
    assert (again.usage.input_tokens, again.usage.cache_read_tokens) == (7, 2)


@pytest.mark.parametrize(("profile", "key"), [("groq", "tools"), ("anthropic-bedrock", "tools")])
def test_profiles_take_tools_through_their_base(profile: str, key: str) -> None:
    fields = mb.encode(HISTORY, profile, tools=[TOOL], tool_choice="required")
    assert len(fields[key]) == 1
    if profile == "groq":  # OpenAI-compatible: OpenAI Chat's function tools
        assert fields["tools"][0]["function"]["name"] == "get_weather"
        assert fields["tool_choice"] == "required"
    else:  # Claude on Bedrock: the Anthropic Messages shape
        assert fields["tools"][0]["input_schema"] == TOOL.parameters
        assert fields["tool_choice"] == {"type": "any"}
    request = mb.Request(messages=HISTORY, tools=[TOOL], tool_choice="required", model="m")
    assert mb.decode_request(mb.encode_request(request, profile), profile) == request


def test_tools_that_are_not_functions_stay_verbatim_and_a_bad_list_raises() -> None:
    body = {"messages": [], "tools": ["x", {"type": "web"}]}
    request = mb.decode_request(body, "cohere")
    assert request.tools == []
    assert request.extra == {"tools": ["x", {"type": "web"}]}
    with pytest.raises(DecodeError, match="tools"):
        mb.decode_request({"messages": [], "tools": 5}, "cohere")


def test_a_message_of_documents_only_leaves_no_empty_user_turn() -> None:
    notes = mb.FileBlock.from_bytes(b"Paris: rain.", "text/plain", filename="notes.txt")
    fields = checked(mb.encode([*HISTORY, mb.UserMessage(content=[notes])], "cohere"))
    assert [m["role"] for m in fields["messages"]] == ["system", "user"]
    assert fields["documents"][0]["data"] == {"title": "notes.txt", "text": "Paris: rain."}
