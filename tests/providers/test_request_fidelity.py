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
from mediablocks.providers._report import DroppedWarning

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
    own = mb.decode_request({**body, "reasoning_format": "parsed"}, "groq")
    with pytest.raises(UnsupportedSettingError, match="reasoning_format"):
        mb.encode_request(own, "mistral")


# -- Gemini -----------------------------------------------------------------------------------

FULL_SCHEMA = {
    "type": "object",
    "properties": {"tags": {"type": "object", "additionalProperties": {"type": "integer"}}},
    "required": ["tags"],
    "additionalProperties": False,
}
OPENAPI = {
    "type": "OBJECT",
    "properties": {
        "location": {"type": "STRING", "description": "City", "nullable": True},
        "days": {"type": "INTEGER", "format": "int32"},
    },
    "required": ["location"],
}


def _gemini_body(tools: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": tools}


def test_gemini_parameters_json_schema_stays_full_json_schema() -> None:
    declaration = {"name": "tag", "description": "Tags", "parametersJsonSchema": FULL_SCHEMA}
    body = _gemini_body([{"functionDeclarations": [declaration]}])
    assert _round_trip(body, "gemini") == body
    request = mb.decode_request(body, "gemini")
    assert request.tools[0].parameters == FULL_SCHEMA
    sdk = mb.encode_request(request, "gemini")
    assert sdk["config"]["tools"][0]["function_declarations"][0]["parameters_json_schema"] == (
        FULL_SCHEMA
    )
    openai = mb.encode_request(request, "openai-chat", target="json")
    assert openai["tools"][0]["function"]["parameters"] == FULL_SCHEMA


def test_gemini_upper_case_openapi_schema_is_read_kept_and_translated() -> None:
    body = _gemini_body({"functionDeclarations": [{"name": "w", "parameters": OPENAPI}]})
    assert _round_trip(body, "gemini")["tools"] == [body["tools"]]  # a lone object is a list
    request = mb.decode_request(body, "gemini")
    assert request.tools[0].parameters == OPENAPI
    anthropic = mb.encode_request(
        request.model_copy(update={"settings": mb.Settings(max_tokens=5)}), "anthropic"
    )
    assert anthropic["tools"][0]["input_schema"] == {
        "type": "object",
        "properties": {
            "location": {"type": ["string", "null"], "description": "City"},
            "days": {"type": "integer", "format": "int32"},
        },
        "required": ["location"],
    }


def test_gemini_tool_entries_keep_their_grouping_and_order() -> None:
    tools = [
        {"googleSearch": {}},
        {"functionDeclarations": [{"name": "a", "parameters": {"type": "OBJECT"}}]},
        {"codeExecution": {}},
        {"functionDeclarations": [{"name": "b"}, {"name": "c", "description": ""}]},
    ]
    body = _gemini_body(tools)
    assert _round_trip(body, "gemini")["tools"] == tools


def test_gemini_contents_keep_their_roles_and_their_cut() -> None:
    body = {
        "contents": [
            {"parts": [{"text": "no role"}]},
            {"role": "user", "parts": [{"text": "a"}]},
            {"role": "user", "parts": [{"fileData": {"fileUri": "gs://b/x.png"}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
            {"role": "function", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
        ],
        "systemInstruction": {"role": "user", "parts": [{"text": "Be brief."}]},
        "generationConfig": {},
    }
    assert _round_trip(body, "gemini") == body


# -- OpenAI Responses -------------------------------------------------------------------------


def test_responses_input_forms_come_back_as_sent() -> None:
    for body in (
        {"model": "gpt-5", "input": "Tell me a story."},
        {"model": "gpt-5", "input": [{"role": "user", "content": "hi"}]},
        {"model": "gpt-5", "previous_response_id": "resp_1"},
    ):
        assert _round_trip(body, "openai-responses") == body


def test_an_unknown_responses_item_with_a_role_is_kept_verbatim() -> None:
    extra_tools = {
        "type": "additional_tools",
        "role": "developer",
        "tools": [{"type": "function", "name": "f", "parameters": {}}],
    }
    body = {
        "model": "gpt-5",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}]}
        ],
    }
    body["input"].append(extra_tools)
    assert _round_trip(body, "openai-responses") == body
    request = mb.decode_request(body, "openai-responses")
    assert isinstance(request.messages[1].content[0], mb.RawBlock)


# -- Ollama -----------------------------------------------------------------------------------


def _ollama_history(call: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "qwen3",
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_name": "weather", "content": "12C", **result},
        ],
        "tools": [],
        "stream": False,
    }


def test_ollama_ids_go_back_exactly_where_ollama_sent_them() -> None:
    function = {"index": 0, "name": "weather", "arguments": {"city": "Oslo"}}
    with_ids = _ollama_history({"id": "call_7", "function": function}, {"tool_call_id": "call_7"})
    assert _round_trip(with_ids, "ollama") == with_ids
    call_only = _ollama_history({"id": "call_7", "function": function}, {})
    assert _round_trip(call_only, "ollama") == call_only
    neither = _ollama_history({"function": function}, {})
    assert _round_trip(neither, "ollama") == neither
    # a call from elsewhere goes without an id, and so does its result (matched by tool_name)
    request = mb.decode_request(with_ids, "ollama")
    moved = mb.decode_request(mb.encode_request(request, "openai-chat", target="json"), "openai")
    sent = mb.encode_request(moved, "ollama", target="json")["messages"]
    assert "id" not in sent[1]["tool_calls"][0]
    assert "tool_call_id" not in sent[2]
    assert sent[2]["tool_name"] == "weather"


def test_an_ollama_stream_and_its_whole_response_give_the_same_call_id() -> None:
    chunk = {
        "model": "m",
        "created_at": "2025-07-07T20:22:19.184789Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Tokyo"}}}],
        },
        "done": False,
    }
    final = {**chunk, "message": {"role": "assistant", "content": ""}, "done": True}
    folded = mb.from_stream([chunk, final], "ollama")
    whole = mb.decode_response({**final, "message": chunk["message"]}, "ollama")
    assert folded.tool_calls[0].id == whole.tool_calls[0].id


# -- fields most providers share --------------------------------------------------------------


def _chat_request(**fields: Any) -> mb.Request:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], **fields}
    return mb.decode_request(body, "openai-chat")


def test_shared_fields_move_to_each_providers_own_spelling() -> None:
    request = _chat_request(stream=True, user="u-9", logprobs=True, top_logprobs=2, n=2)
    gemini = mb.encode_request(request, "gemini", target="json", unsupported="drop")
    assert gemini["generationConfig"] == {
        "responseLogprobs": True,
        "logprobs": 2,
        "candidateCount": 2,
    }
    sdk = mb.encode_request(request, "gemini", unsupported="drop")
    assert sdk["config"]["candidate_count"] == 2
    ollama = mb.encode_request(_chat_request(stream=True, logprobs=True), "ollama")
    assert (ollama["stream"], ollama["logprobs"]) == (True, True)
    anthropic = mb.encode_request(
        _chat_request(stream=True, user="u-9", max_tokens=5), "anthropic", target="json"
    )
    assert anthropic["stream"] is True
    assert anthropic["metadata"] == {"user_id": "u-9"}


def test_a_field_with_no_place_is_reported_or_raised_by_what_it_changes() -> None:
    streamed = _chat_request(stream=True, stream_options={"include_usage": True}, store=True)
    body, report = mb.encode_request_with_report(streamed, "bedrock", target="json")
    assert "stream" not in body
    assert [d.what.split("=")[0] for d in report.dropped] == [
        "openai-chat request field stream",
        "openai-chat request field stream_options.include_usage",
        "openai-chat request field store",
    ]
    with pytest.warns(DroppedWarning, match="streaming is another call"):
        mb.encode_request(_chat_request(stream=True), "gemini")
    assert "stream" not in mb.encode_request(_chat_request(stream=False), "gemini")
    several = _chat_request(n=3, max_tokens=9)
    with pytest.raises(UnsupportedSettingError, match="one reply per request"):
        mb.encode_request(several, "anthropic")
    one = _chat_request(n=1, max_tokens=9)
    assert "n" not in mb.encode_request(one, "anthropic")
    tier = _chat_request(service_tier="flex", max_tokens=9)
    _, report = mb.encode_request_with_report(tier, "anthropic")
    assert "service_tier" in report.dropped[0].what


# -- reasoning OpenAI-compatible servers want back --------------------------------------------


def _chat_loop(provider: str, reply: dict[str, Any]) -> dict[str, Any]:
    """A tool loop's next request: the user, the server's reply as it came, the result."""
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            reply,
            {"role": "tool", "tool_call_id": "call_1", "content": "12C"},
        ],
    }


CALL = {"id": "call_1", "type": "function", "function": {"name": "w", "arguments": "{}"}}


def test_deepseek_reasoning_content_goes_back_after_tool_calls() -> None:
    reply = {
        "role": "assistant",
        "content": "",
        "reasoning_content": "I should look it up.",
        "tool_calls": [CALL],
    }
    body = _chat_loop("deepseek", reply)
    assert _round_trip(body, "deepseek") == body
    # not to OpenAI itself, whose messages have no such field
    request = mb.decode_request(body, "deepseek")
    assert "reasoning_content" not in mb.encode_request(request, "openai-chat")["messages"][1]


def test_openrouter_reasoning_details_and_gemini_thought_signatures_go_back() -> None:
    details = [{"type": "reasoning.encrypted", "data": "ZW5j", "format": "anthropic-claude-v1"}]
    reply = {
        "role": "assistant",
        "content": None,
        "reasoning": "Look it up.",
        "reasoning_details": details,
        "tool_calls": [CALL],
    }
    body = _chat_loop("openrouter", reply)
    assert _round_trip(body, "openrouter") == body
    signed = {**CALL, "extra_content": {"google": {"thought_signature": "c2ln"}}}
    reply = {"role": "assistant", "content": None, "tool_calls": [signed]}
    body = _chat_loop("openai-chat", reply)
    assert _round_trip(body, "openai-chat") == body
    request = mb.decode_request(body, "openai-chat")
    assert "extra_content" not in mb.encode_request(request, "groq")["messages"][1]["tool_calls"][0]


# -- structured output and choices real requests use ------------------------------------------


def test_gemini_response_schema_is_modelled_kept_and_translated() -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "List cookies"}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseSchema": OPENAPI},
    }
    assert _round_trip(body, "gemini") == body
    request = mb.decode_request(body, "gemini")
    assert request.settings.response_schema == OPENAPI
    chat = mb.encode_request(request, "openai-chat", target="json")
    schema = chat["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["location"]["type"] == ["string", "null"]
    as_json_schema = {
        **body,
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": FULL_SCHEMA,
        },
    }
    assert _round_trip(as_json_schema, "gemini") == as_json_schema


def test_named_and_strict_json_schemas_are_modelled() -> None:
    chat_format = {
        "type": "json_schema",
        "json_schema": {"name": "Location", "schema": FULL_SCHEMA, "strict": True},
    }
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    chat = {**body, "response_format": chat_format}
    assert _round_trip(chat, "openai-chat") == chat
    request = mb.decode_request(chat, "openai-chat")
    assert request.settings.response_schema == FULL_SCHEMA
    assert not request.extra
    gemini = mb.encode_request(request, "gemini", target="json")
    assert gemini["generationConfig"]["responseJsonSchema"] == FULL_SCHEMA
    text = {"format": {"type": "json_schema", "name": "Loc", "schema": FULL_SCHEMA, "strict": True}}
    responses = {"model": "m", "input": "hi", "text": text}
    assert _round_trip(responses, "openai-responses") == responses


def test_a_choice_among_several_tools_is_modelled() -> None:
    tools = [
        {"name": "a", "parameters": {"type": "OBJECT"}},
        {"name": "b", "parameters": {"type": "OBJECT"}},
        {"name": "c", "parameters": {"type": "OBJECT"}},
    ]
    body = _gemini_body([{"functionDeclarations": tools}])
    body["toolConfig"] = {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["a", "c"]}
    }
    assert _round_trip(body, "gemini") == body
    request = mb.decode_request(body, "gemini")
    assert request.tool_choice == ["a", "c"]
    chat = mb.encode_request(request, "openai-chat", target="json")
    assert chat["tool_choice"] == {
        "type": "allowed_tools",
        "allowed_tools": {
            "mode": "required",
            "tools": [
                {"type": "function", "function": {"name": "a"}},
                {"type": "function", "function": {"name": "c"}},
            ],
        },
    }
    assert mb.decode_request(chat, "openai-chat").tool_choice == ["a", "c"]
    responses = mb.encode_request(request, "openai-responses", target="json")
    assert mb.decode_request(responses, "openai-responses").tool_choice == ["a", "c"]
    narrowed = request.model_copy(update={"settings": mb.Settings(max_tokens=9)})
    with pytest.raises(UnsupportedSettingError, match="restrict the tool choice"):
        mb.encode_request(narrowed, "anthropic")
    sent, report = mb.encode_request_with_report(narrowed, "anthropic", unsupported="drop")
    assert sent["tool_choice"] == {"type": "any"}
    assert "sent as required" in report.dropped[0].what
    with pytest.raises(InvalidOptionError):
        mb.Request(tools=request.tools, tool_choice=["a", "zz"])
