"""Streams folded into one message, with event sequences written from each provider's documented
stream format and validated against the official SDK's own event types before they are folded."""

from __future__ import annotations

import asyncio
import base64
import copy
import importlib.util
import json
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import botocore.session
import ollama
import pytest
from anthropic.types import RawMessageStreamEvent
from mistralai.client import models as mistral_models
from openai.types.chat import ChatCompletionChunk
from pydantic import TypeAdapter

import mediablocks as mb
from mediablocks.errors import ToolResultMismatchError
from mediablocks.streaming import StreamAccumulator, afrom_stream, from_stream, tool_result_turn
from tests.conftest import without_raw

Event = dict[str, Any]

# -- validators: every event below is checked against the SDK's own types ----------------------

_ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
_BEDROCK = botocore.session.get_session().get_service_model("bedrock-runtime")
_BEDROCK_STREAM = _BEDROCK.operation_model("ConverseStream").output_shape.members["stream"]
_SCALARS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "long": (int,),
    "boolean": (bool,),
    "blob": (bytes, bytearray),
    "double": (float, int),
    "float": (float, int),
    "timestamp": (str, int, float),
}


def check_shape(value: Any, shape: Any, where: str = "$") -> None:
    """A tiny botocore shape validator: known members only, required ones present, types right,
    unions set exactly one member."""
    kind = shape.type_name
    if kind == "structure":
        if shape.metadata.get("document"):
            return
        assert isinstance(value, dict), f"{where}: {value!r} is not a structure"
        unknown = set(value) - set(shape.members)
        assert not unknown, f"{where}: {sorted(unknown)} not in {shape.name}"
        missing = set(shape.required_members) - set(value)
        assert not missing, f"{where}: {shape.name} lacks {sorted(missing)}"
        if shape.metadata.get("union"):
            assert len(value) == 1, f"{where}: union {shape.name} sets {sorted(value)}"
        for name, item in value.items():
            check_shape(item, shape.members[name], f"{where}.{name}")
    elif kind == "list":
        assert isinstance(value, list), f"{where}: not a list"
        for number, item in enumerate(value):
            check_shape(item, shape.member, f"{where}[{number}]")
    elif kind == "map":
        assert isinstance(value, dict), f"{where}: not a map"
        for key, item in value.items():
            check_shape(key, shape.key, f"{where}.<key>")
            check_shape(item, shape.value, f"{where}.{key}")
    else:
        assert isinstance(value, _SCALARS[kind]), f"{where}: {value!r} is not a {kind}"
        if kind in ("integer", "long"):
            assert not isinstance(value, bool), f"{where}: a bool is not an integer"
        if getattr(shape, "enum", None):
            assert value in shape.enum, f"{where}: {value!r} not one of {shape.enum}"


def bedrock_events(events: list[Event]) -> list[Event]:
    for event in events:
        check_shape(event, _BEDROCK_STREAM)
    return events


def chat_chunks(events: list[Event]) -> list[ChatCompletionChunk]:
    return [ChatCompletionChunk.model_validate(event) for event in events]


def anthropic_events(events: list[Event]) -> list[Any]:
    return [_ANTHROPIC_EVENT.validate_python(event) for event in events]


def mistral_events(events: list[Event]) -> list[Any]:
    return [mistral_models.CompletionEvent.model_validate(event) for event in events]


def ollama_chunks(events: list[Event]) -> list[ollama.ChatResponse]:
    return [ollama.ChatResponse.model_validate(event) for event in events]


def _comparable(message: mb.AssistantMessage, made_up_ids: bool) -> Any:
    """The message's content, usage, stop reason and metadata; ids the folder had to make up
    (the provider sent none) are random, so they are compared by position only."""
    data = message.model_dump(include={"content", "usage", "stop_reason", "metadata"})
    if made_up_ids:
        ids = {call.id: f"call#{n}" for n, call in enumerate(message.tool_calls)}
        text = json.dumps(data, default=str)
        for real, placeholder in ids.items():
            text = text.replace(real, placeholder)
        data = json.loads(text)
    return data


def fold_both(
    events: list[Event],
    provider: str,
    to_objects: Callable[[list[Event]], list[Any]],
    made_up_ids: bool = False,
) -> mb.AssistantMessage:
    """Fold the dicts and the SDK objects made from them; both must give the same message."""
    objects = to_objects(copy.deepcopy(events))
    from_dicts = from_stream(copy.deepcopy(events), provider)
    from_objects = from_stream(objects, provider)
    assert _comparable(from_objects, made_up_ids) == _comparable(from_dicts, made_up_ids)
    return from_dicts


def calls_of(message: mb.AssistantMessage) -> list[tuple[str, str, dict[str, Any], str | None]]:
    return [(c.id, c.name, c.args, c.raw_args) for c in message.tool_calls]


# -- OpenAI Chat Completions ---------------------------------------------------------------------


def chat_chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> Event:
    chunk: Event = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }
    chunk.update(top)
    return chunk


def chat_call(index: int, arguments: str, call_id: str | None = None, name: str = "") -> Event:
    fragment: Event = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        fragment.update(id=call_id, type="function")
        fragment["function"]["name"] = name
    return chat_chunk({"tool_calls": [fragment]})


CHAT_STREAM: list[Event] = [
    chat_chunk({"role": "assistant", "content": ""}),
    chat_chunk({"content": "Let me "}),
    chat_chunk({"content": "check."}),
    chat_call(0, "", "call_weather", "get_weather"),
    chat_call(1, "", "call_time", "get_time"),
    chat_call(0, '{"city": '),
    chat_call(1, '{"tz": "UTC"}'),
    chat_call(0, '"Paris"}'),
    chat_chunk({}, "tool_calls"),
    {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [],
        "usage": {
            "prompt_tokens": 40,
            "completion_tokens": 25,
            "total_tokens": 65,
            "completion_tokens_details": {"reasoning_tokens": 7},
        },
    },
]


def test_openai_chat_interleaved_parallel_calls_stay_apart() -> None:
    message = fold_both(CHAT_STREAM, "openai", chat_chunks)
    assert message.text == "Let me check."
    assert calls_of(message) == [
        ("call_weather", "get_weather", {"city": "Paris"}, None),
        ("call_time", "get_time", {"tz": "UTC"}, None),
    ]
    assert message.provider_stop_reason == "tool_calls"
    assert without_raw(message.usage) == mb.Usage(
        input_tokens=40, output_tokens=25, reasoning_tokens=7
    )
    assert message.model == "gpt-4o-2024-08-06"
    assert message.provider == "openai-chat"
    assert "invalid_tool_args" not in message.metadata


def test_openai_chat_malformed_arguments_are_kept_verbatim_and_flagged() -> None:
    events = [
        chat_call(0, "", "call_a", "search"),
        chat_call(0, '{"q": "cats", '),
        chat_call(0, "oops}"),
        chat_call(1, "", "call_b", "search"),
        chat_call(1, "[1, 2]"),  # valid JSON, but not an object
        chat_chunk({}, "tool_calls"),
    ]
    message = fold_both(events, "openai-chat", chat_chunks)
    assert calls_of(message) == [
        ("call_a", "search", {}, '{"q": "cats", oops}'),
        ("call_b", "search", {}, "[1, 2]"),
    ]
    assert message.metadata["invalid_tool_args"] == ["call_a", "call_b"]
    assert not message.tool_calls[0].args_valid


def test_openai_chat_reasoning_and_refusal_deltas_are_joined() -> None:
    events = [
        chat_chunk({"role": "assistant", "reasoning_content": "First, "}),
        chat_chunk({"reasoning_content": "think."}),
        chat_chunk({"refusal": "I can't "}),
        chat_chunk({"refusal": "help with that."}),
        chat_chunk({}, "stop"),
    ]
    message = fold_both(events, "openai-chat", chat_chunks)
    assert [t.thinking for t in message.thinking] == ["First, think."]
    assert message.text == "I can't help with that."
    assert message.provider_stop_reason == "stop"


def test_openai_chat_stream_cut_in_the_middle_yields_what_arrived() -> None:
    message = fold_both(CHAT_STREAM[:6], "openai-chat", chat_chunks)
    assert message.text == "Let me check."
    assert message.stop_reason is None  # the stream never said why it ended
    assert message.usage is None
    assert calls_of(message) == [
        ("call_weather", "get_weather", {}, '{"city": '),  # the partial text, never invented
        ("call_time", "get_time", {}, None),
    ]
    assert message.metadata["invalid_tool_args"] == ["call_weather"]


def test_accumulator_message_is_usable_mid_stream() -> None:
    accumulator = StreamAccumulator("openai")
    seen = []
    for chunk in chat_chunks(CHAT_STREAM):
        accumulator.add(chunk)
        seen.append(accumulator.message().text)
    assert seen[:4] == ["", "Let me ", "Let me check.", "Let me check."]
    assert accumulator.events == len(CHAT_STREAM)
    final = accumulator.message()
    assert [c.args for c in final.tool_calls] == [{"city": "Paris"}, {"tz": "UTC"}]
    assert accumulator.message().content == final.content  # message() does not consume state


def test_openai_chat_id_reused_index_and_late_id() -> None:
    # Some compatible servers number every call 0 and tell them apart by id only.
    events = [
        chat_call(0, '{"a": 1}', "call_1", "f"),
        chat_call(0, '{"b": 2}', "call_2", "g"),
        chat_chunk({}, "tool_calls"),
    ]
    message = fold_both(events, "openai-chat", chat_chunks)
    assert calls_of(message) == [("call_1", "f", {"a": 1}, None), ("call_2", "g", {"b": 2}, None)]


def test_openai_chat_folded_message_equals_the_decoded_whole_response() -> None:
    whole = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "Let me check.",
                    "tool_calls": [
                        {
                            "id": "call_weather",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        },
                        {
                            "id": "call_time",
                            "type": "function",
                            "function": {"name": "get_time", "arguments": '{"tz":"UTC"}'},
                        },
                    ],
                },
            }
        ],
        "usage": CHAT_STREAM[-1]["usage"],
    }
    (decoded,) = mb.decode(whole, "openai")
    folded = from_stream(CHAT_STREAM, "openai")
    assert folded.content == decoded.content
    assert folded.usage == decoded.usage  # type: ignore[union-attr]


def test_sdk_stream_helper_events_are_read_without_double_counting() -> None:
    # client.chat.completions.stream() yields ``chunk`` events holding each chunk, plus derived
    # events repeating what the chunks say; client.messages.stream() adds derived events too.
    from anthropic.lib.streaming import InputJsonEvent, TextEvent
    from openai.lib.streaming.chat import ChunkEvent, ContentDeltaEvent

    chat: list[Any] = []
    for chunk in chat_chunks(CHAT_STREAM):
        chat.append(ChunkEvent.model_construct(type="chunk", chunk=chunk, snapshot=None))
        content = chunk.choices[0].delta.content if chunk.choices else None
        if content:
            chat.append(ContentDeltaEvent(type="content.delta", delta=content, snapshot=""))
    message = from_stream(chat, "openai")
    assert message.text == "Let me check."
    assert [c.args for c in message.tool_calls] == [{"city": "Paris"}, {"tz": "UTC"}]
    anthropic: list[Any] = []
    for event in anthropic_events(ANTHROPIC_STREAM):
        anthropic.append(event)
        delta = getattr(event, "delta", None)
        if getattr(delta, "type", None) == "text_delta":
            anthropic.append(TextEvent(type="text", text=delta.text, snapshot=""))
        if getattr(delta, "type", None) == "input_json_delta":
            anthropic.append(
                InputJsonEvent(type="input_json", partial_json=delta.partial_json, snapshot={})
            )
    message = from_stream(anthropic, "anthropic")
    assert message.text == "Checking both."
    assert message.tool_calls[0].args == {"city": "Paris"}


# -- Mistral (chat completion chunks wrapped in CompletionEvent) -------------------------------


def mistral_event(delta: dict[str, Any], finish: str | None = None, **top: Any) -> Event:
    data: Event = {
        "id": "cmpl-m1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "magistral-medium-latest",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    data.update(top)
    return {"data": data}


MISTRAL_STREAM: list[Event] = [
    mistral_event({"role": "assistant", "content": ""}),
    mistral_event(
        {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Hmm, "}]}]}
    ),
    mistral_event(
        {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "ok."}]}]}
    ),
    mistral_event({"content": "Checking "}),
    mistral_event({"content": [{"type": "text", "text": "both."}]}),
    mistral_event(
        {
            "tool_calls": [
                {
                    "id": "D681PevKs",
                    "index": 0,
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "Xk29fLq0P",
                    "index": 1,
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"'},
                },
            ]
        }
    ),
    mistral_event(
        {"content": ""},
        "tool_calls",
        usage={"prompt_tokens": 30, "completion_tokens": 40, "total_tokens": 70},
    ),
]


def test_mistral_thinking_text_parallel_calls_usage_and_malformed_arguments() -> None:
    message = fold_both(MISTRAL_STREAM, "mistral", mistral_events)
    assert [t.thinking for t in message.thinking] == ["Hmm, ok."]
    assert message.text == "Checking both."
    assert calls_of(message) == [
        ("D681PevKs", "get_weather", {"city": "Paris"}, None),
        ("Xk29fLq0P", "get_weather", {}, '{"city": "Rome"'),
    ]
    assert message.metadata["invalid_tool_args"] == ["Xk29fLq0P"]
    assert message.provider_stop_reason == "tool_calls"
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (30, 40)


def test_mistral_calls_without_an_id_are_kept_apart_by_index() -> None:
    # The SDK fills a missing id with the string "null": that is no id at all.
    events = [
        mistral_event({"tool_calls": [{"index": 0, "function": {"name": "a", "arguments": "{}"}}]}),
        mistral_event({"tool_calls": [{"index": 1, "function": {"name": "b", "arguments": "{}"}}]}),
    ]
    message = fold_both(events, "mistral", mistral_events, made_up_ids=True)
    assert [c.name for c in message.tool_calls] == ["a", "b"]
    assert len({c.id for c in message.tool_calls}) == 2
    assert "null" not in {c.id for c in message.tool_calls}


def test_mistral_whole_calls_without_ids_at_one_index_stay_apart() -> None:
    both = [
        {"index": 0, "function": {"name": "a", "arguments": '{"x": 1}'}},
        {"index": 0, "function": {"name": "b", "arguments": "{}"}},
    ]
    pieces = [  # and a call streamed in pieces at one index is still one call
        {"index": 0, "function": {"name": "c", "arguments": '{"y": '}},
        {"index": 0, "function": {"name": "", "arguments": "2}"}},
    ]
    message = fold_both(
        [mistral_event({"tool_calls": both})], "mistral", mistral_events, made_up_ids=True
    )
    assert [(c.name, c.args) for c in message.tool_calls] == [("a", {"x": 1}), ("b", {})]
    events = [mistral_event({"tool_calls": [piece]}) for piece in pieces]
    message = fold_both(events, "mistral", mistral_events, made_up_ids=True)
    assert [(c.name, c.args) for c in message.tool_calls] == [("c", {"y": 2})]


def test_mistral_stream_cut_in_the_middle() -> None:
    message = fold_both(MISTRAL_STREAM[:4], "mistral", mistral_events)
    assert message.text == "Checking "
    assert [t.thinking for t in message.thinking] == ["Hmm, ok."]
    assert message.stop_reason is None
    assert message.tool_calls == []


# -- Anthropic Messages SSE ------------------------------------------------------------------


def ant_start(index: int, block: Event) -> Event:
    return {"type": "content_block_start", "index": index, "content_block": block}


def ant_delta(index: int, delta: Event) -> Event:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def ant_stop(index: int) -> Event:
    return {"type": "content_block_stop", "index": index}


ANTHROPIC_STREAM: list[Event] = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-sonnet-4-5",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 472, "output_tokens": 2, "cache_read_input_tokens": 100},
        },
    },
    ant_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
    ant_delta(0, {"type": "thinking_delta", "thinking": "The user wants "}),
    ant_delta(0, {"type": "thinking_delta", "thinking": "two cities."}),
    ant_delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
    ant_delta(0, {"type": "signature_delta", "signature": "1gbcDa9GJwZA"}),
    ant_stop(0),
    ant_start(1, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}),
    ant_stop(1),
    ant_start(2, {"type": "text", "text": ""}),
    ant_delta(2, {"type": "text_delta", "text": "Checking "}),
    ant_delta(2, {"type": "text_delta", "text": "both."}),
    ant_stop(2),
    ant_start(3, {"type": "tool_use", "id": "toolu_paris", "name": "get_weather", "input": {}}),
    ant_delta(3, {"type": "input_json_delta", "partial_json": ""}),
    ant_delta(3, {"type": "input_json_delta", "partial_json": '{"city": "Pa'}),
    ant_delta(3, {"type": "input_json_delta", "partial_json": 'ris"}'}),
    ant_stop(3),
    ant_start(4, {"type": "tool_use", "id": "toolu_rome", "name": "get_weather", "input": {}}),
    ant_delta(4, {"type": "input_json_delta", "partial_json": '{"city": "Rome",'}),
    ant_stop(4),
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 89},
    },
    {"type": "message_stop"},
]


def test_anthropic_thinking_signature_redacted_text_calls_and_usage() -> None:
    message = fold_both(ANTHROPIC_STREAM, "anthropic", anthropic_events)
    thinking, redacted = message.thinking
    assert thinking.thinking == "The user wants two cities."
    assert thinking.signature == "EqQBCgIYAhIM1gbcDa9GJwZA"
    assert thinking.provider == "anthropic"
    assert redacted.redacted
    assert redacted.redacted_data == "EmwKAhgBEgy3va3pzix/LafPsn4a"
    assert message.text == "Checking both."
    assert calls_of(message) == [
        ("toolu_paris", "get_weather", {"city": "Paris"}, None),
        ("toolu_rome", "get_weather", {}, '{"city": "Rome",'),
    ]
    assert message.metadata["invalid_tool_args"] == ["toolu_rome"]
    assert message.stop_reason == "tool_use"
    assert message.usage is not None
    assert message.usage.output_tokens == 89
    assert message.usage.cache_read_tokens == 100
    assert message.response_id == "msg_01"
    assert message.model == "claude-sonnet-4-5"


def test_anthropic_interleaved_blocks_stay_apart() -> None:
    events = [
        ANTHROPIC_STREAM[0],
        ant_start(0, {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}}),
        ant_start(1, {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {}}),
        ant_delta(1, {"type": "input_json_delta", "partial_json": '{"y":'}),
        ant_delta(0, {"type": "input_json_delta", "partial_json": '{"x":'}),
        ant_delta(0, {"type": "input_json_delta", "partial_json": " 1}"}),
        ant_delta(1, {"type": "input_json_delta", "partial_json": " 2}"}),
        ant_stop(0),
        ant_stop(1),
    ]
    message = fold_both(events, "anthropic", anthropic_events)
    assert calls_of(message) == [("toolu_a", "f", {"x": 1}, None), ("toolu_b", "g", {"y": 2}, None)]


def test_anthropic_server_tools_results_and_citations_are_kept() -> None:
    citation = {
        "type": "web_search_result_location",
        "cited_text": "Paris is sunny",
        "url": "https://example.com/paris",
        "title": "Paris weather",
        "encrypted_index": "EoYBCg==",
    }
    search_result = {
        "type": "web_search_result",
        "url": "https://example.com/paris",
        "title": "Paris weather",
        "encrypted_content": "EqgfCioIARgBIiQ=",
        "page_age": "1 day",
    }
    events = [
        ANTHROPIC_STREAM[0],
        ant_start(
            0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        ),
        ant_delta(0, {"type": "input_json_delta", "partial_json": '{"query": "paris"}'}),
        ant_stop(0),
        ant_start(
            1,
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [search_result],
            },
        ),
        ant_stop(1),
        ant_start(2, {"type": "text", "text": ""}),
        ant_delta(2, {"type": "citations_delta", "citation": citation}),
        ant_delta(2, {"type": "text_delta", "text": "It is sunny."}),
        ant_stop(2),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
    ]
    message = fold_both(events, "anthropic", anthropic_events)
    dumped = json.dumps(message.model_dump(mode="json"))
    assert '"query": "paris"' in dumped  # the server tool's input, parsed once
    assert "EqgfCioIARgBIiQ=" in dumped  # the encrypted search result, verbatim
    assert "EoYBCg==" in dumped  # the citation streamed into the text block
    assert message.text == "It is sunny."
    assert message.stop_reason == "end_turn"


def test_anthropic_stream_cut_in_the_middle_of_a_tool_call() -> None:
    message = fold_both(ANTHROPIC_STREAM[:16], "anthropic", anthropic_events)
    assert message.text == "Checking both."
    assert message.thinking[0].signature == "EqQBCgIYAhIM1gbcDa9GJwZA"
    assert calls_of(message) == [("toolu_paris", "get_weather", {}, '{"city": "Pa')]
    assert message.stop_reason is None
    assert message.usage is not None
    assert message.usage.input_tokens >= 472


def test_anthropic_error_event_is_kept() -> None:
    events = [
        *ANTHROPIC_STREAM[:13],
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    accumulator = StreamAccumulator("anthropic")
    for event in events:
        accumulator.add(event)
    message = accumulator.message()
    assert message.text == "Checking both."
    assert message.metadata["stream_error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert message.provider_stop_reason == "error: overloaded_error"


# -- Bedrock ConverseStream -------------------------------------------------------------------


def br_start_tool(index: int, call_id: str, name: str) -> Event:
    start = {"toolUse": {"toolUseId": call_id, "name": name}}
    return {"contentBlockStart": {"start": start, "contentBlockIndex": index}}


def br_delta(index: int, delta: Event) -> Event:
    return {"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}}


def br_stop(index: int) -> Event:
    return {"contentBlockStop": {"contentBlockIndex": index}}


BEDROCK_METADATA: Event = {
    "metadata": {
        "usage": {"inputTokens": 120, "outputTokens": 60, "totalTokens": 180},
        "metrics": {"latencyMs": 812},
    }
}

BEDROCK_REUSED_INDEX: list[Event] = [
    {"messageStart": {"role": "assistant"}},
    br_start_tool(0, "tooluse_A", "get_weather"),
    br_delta(0, {"toolUse": {"input": '{"city": '}}),
    br_delta(0, {"toolUse": {"input": '"Paris"}'}}),
    br_stop(0),
    br_start_tool(0, "tooluse_B", "get_weather"),  # the same index, another call
    br_delta(0, {"toolUse": {"input": '{"city": "Rome"}'}}),
    br_stop(0),
    br_start_tool(1, "tooluse_C", "get_time"),
    br_delta(1, {"toolUse": {"input": '{"tz": "CET"}'}}),
    br_stop(1),
    {"messageStop": {"stopReason": "tool_use"}},
    BEDROCK_METADATA,
]


def test_bedrock_reused_block_index_keeps_every_call_once() -> None:
    message = from_stream(bedrock_events(BEDROCK_REUSED_INDEX), "bedrock")
    assert calls_of(message) == [
        ("tooluse_A", "get_weather", {"city": "Paris"}, None),
        ("tooluse_B", "get_weather", {"city": "Rome"}, None),
        ("tooluse_C", "get_time", {"tz": "CET"}, None),
    ]
    assert message.stop_reason == "tool_use"
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (120, 60)
    assert message.metadata["bedrock"]["metrics"] == {"latencyMs": 812}


def test_bedrock_reasoning_signature_text_and_interleaved_calls() -> None:
    events = bedrock_events(
        [
            {"messageStart": {"role": "assistant"}},
            br_delta(0, {"reasoningContent": {"text": "Two cities, "}}),
            br_delta(0, {"reasoningContent": {"text": "two calls."}}),
            br_delta(0, {"reasoningContent": {"signature": "ErcBCkgIBx"}}),
            br_delta(0, {"reasoningContent": {"signature": "ABCD=="}}),
            br_stop(0),
            br_delta(1, {"text": "Looking "}),
            br_delta(1, {"text": "up."}),
            br_stop(1),
            br_start_tool(2, "tooluse_A", "f"),
            br_start_tool(3, "tooluse_B", "g"),
            br_delta(3, {"toolUse": {"input": '{"b":'}}),
            br_delta(2, {"toolUse": {"input": '{"a":'}}),
            br_delta(2, {"toolUse": {"input": " 1}"}}),
            br_delta(3, {"toolUse": {"input": " 2"}}),  # never closed: malformed
            br_stop(2),
            br_stop(3),
            {"messageStop": {"stopReason": "tool_use"}},
            BEDROCK_METADATA,
        ]
    )
    message = from_stream(events, "bedrock")
    assert [(t.thinking, t.signature) for t in message.thinking] == [
        ("Two cities, two calls.", "ErcBCkgIBxABCD==")
    ]
    assert message.text == "Looking up."
    assert calls_of(message) == [
        ("tooluse_A", "f", {"a": 1}, None),
        ("tooluse_B", "g", {}, '{"b": 2'),
    ]
    assert message.metadata["invalid_tool_args"] == ["tooluse_B"]


def test_bedrock_redacted_reasoning_is_kept() -> None:
    secret = b"\x8a\x01opaque-redacted-reasoning"
    events = bedrock_events(
        [
            {"messageStart": {"role": "assistant"}},
            br_delta(0, {"reasoningContent": {"redactedContent": secret[:5]}}),
            br_delta(0, {"reasoningContent": {"redactedContent": secret[5:]}}),
            br_stop(0),
            br_delta(1, {"text": "Done."}),
            {"messageStop": {"stopReason": "end_turn"}},
        ]
    )
    message = from_stream(events, "bedrock")
    (thinking,) = message.thinking
    assert thinking.redacted
    assert base64.b64decode(thinking.redacted_data or "") == secret
    assert message.text == "Done."
    assert message.stop_reason == "end_turn"


def test_bedrock_stream_cut_in_the_middle() -> None:
    message = from_stream(bedrock_events(BEDROCK_REUSED_INDEX[:7]), "bedrock")
    assert calls_of(message) == [
        ("tooluse_A", "get_weather", {"city": "Paris"}, None),
        ("tooluse_B", "get_weather", {"city": "Rome"}, None),
    ]
    assert message.stop_reason is None
    assert message.usage is None


def test_bedrock_stream_error_event_is_kept() -> None:
    events = bedrock_events(
        [
            {"messageStart": {"role": "assistant"}},
            br_delta(0, {"text": "Partial"}),
            {"modelStreamErrorException": {"message": "boom", "originalStatusCode": 500}},
        ]
    )
    message = from_stream(events, "bedrock")
    assert message.text == "Partial"
    assert message.metadata["stream_error"]["type"] == "modelStreamErrorException"
    assert message.metadata["stream_error"]["message"] == "boom"


def test_bedrock_citations_streamed_with_text_are_not_lost() -> None:
    citation = {
        "title": "Doc",
        "sourceContent": [{"text": "Paris is in France."}],
        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 19}},
    }
    events = bedrock_events(
        [
            br_delta(0, {"text": "Paris is French."}),
            br_delta(0, {"citation": citation}),
            br_stop(0),
            {"messageStop": {"stopReason": "end_turn"}},
        ]
    )
    message = from_stream(events, "bedrock")
    assert "Paris is French." in json.dumps(message.model_dump(mode="json"))
    assert "Paris is in France." in json.dumps(message.model_dump(mode="json"))


def test_bedrock_streamed_image_block_becomes_an_image(png_bytes: bytes) -> None:
    events = bedrock_events(
        [
            br_delta(0, {"text": "Drawn:"}),
            br_stop(0),
            {"contentBlockStart": {"start": {"image": {"format": "png"}}, "contentBlockIndex": 1}},
            br_delta(1, {"image": {"source": {"bytes": png_bytes}}}),
            br_stop(1),
            {"messageStop": {"stopReason": "end_turn"}},
        ]
    )
    message = from_stream(events, "bedrock")
    assert message.text == "Drawn:"
    assert [m.read() for m in message.media] == [png_bytes]


def test_bedrock_server_tool_use_and_its_streamed_result_are_kept() -> None:
    start_use = {"toolUse": {"toolUseId": "srv_1", "name": "web_search", "type": "server_tool_use"}}
    start_result = {
        "toolResult": {"toolUseId": "srv_1", "type": "web_search_result", "status": "success"}
    }
    events = bedrock_events(
        [
            {"contentBlockStart": {"start": start_use, "contentBlockIndex": 0}},
            br_delta(0, {"toolUse": {"input": '{"q": "paris"}'}}),
            br_stop(0),
            {"contentBlockStart": {"start": start_result, "contentBlockIndex": 1}},
            br_delta(1, {"toolResult": [{"text": "Paris is "}]}),
            br_delta(1, {"toolResult": [{"text": "sunny."}]}),
            br_stop(1),
            br_delta(2, {"text": "Sunny."}),
            {"messageStop": {"stopReason": "end_turn"}},
        ]
    )
    message = from_stream(events, "bedrock")
    call, result, text = message.content
    assert isinstance(call, mb.ToolCallBlock)
    assert (call.id, call.name, call.args) == ("srv_1", "web_search", {"q": "paris"})
    assert call.provider_data["bedrock"]["type"] == "server_tool_use"
    assert isinstance(result, mb.ToolResultBlock)
    assert (result.tool_call_id, result.text) == ("srv_1", "Paris is sunny.")
    assert text == mb.TextBlock(text="Sunny.")


def test_the_bedrock_shape_checker_catches_bad_events() -> None:
    with pytest.raises(AssertionError, match="is not a string"):
        check_shape(br_delta(0, {"text": 1}), _BEDROCK_STREAM)
    with pytest.raises(AssertionError, match="not in ContentBlockDelta"):
        check_shape(br_delta(0, {"txt": "a"}), _BEDROCK_STREAM)
    with pytest.raises(AssertionError, match="union ContentBlockDelta sets"):
        check_shape(br_delta(0, {"text": "a", "toolUse": {"input": ""}}), _BEDROCK_STREAM)
    with pytest.raises(AssertionError, match="lacks"):
        check_shape({"contentBlockStop": {}}, _BEDROCK_STREAM)
    with pytest.raises(AssertionError, match="not one of"):
        check_shape({"messageStop": {"stopReason": "because"}}, _BEDROCK_STREAM)


# -- Bedrock resume: the next turn's two messages ---------------------------------------------

_CONVERSE_INPUT = _BEDROCK.operation_model("Converse").input_shape


def test_tool_result_turn_builds_a_resume_bedrock_accepts() -> None:
    message = from_stream(BEDROCK_REUSED_INDEX, "bedrock")
    assistant, results = tool_result_turn(
        message,
        {"tooluse_B": "14 C", "tooluse_A": [mb.TextBlock(text="18 C")], "tooluse_C": "10:00"},
    )
    assert [r.tool_call_id for r in results.results] == ["tooluse_A", "tooluse_B", "tooluse_C"]
    assert [r.name for r in results.results] == ["get_weather", "get_weather", "get_time"]
    request = mb.encode([mb.UserMessage.text("Weather and time?"), assistant, results], "bedrock")
    check_shape({"modelId": "m", **request}, _CONVERSE_INPUT)
    _, echoed, answered = request["messages"]
    uses = [block["toolUse"]["toolUseId"] for block in echoed["content"]]
    answers = [block["toolResult"]["toolUseId"] for block in answered["content"]]
    assert echoed["role"] == "assistant"
    assert answered["role"] == "user"
    assert uses == answers == ["tooluse_A", "tooluse_B", "tooluse_C"]


def test_tool_result_turn_refuses_mismatches_clearly() -> None:
    message = from_stream(BEDROCK_REUSED_INDEX, "bedrock")
    with pytest.raises(ToolResultMismatchError, match=r"no result for \['tooluse_C'\]"):
        tool_result_turn(message, {"tooluse_A": "x", "tooluse_B": "y"})
    with pytest.raises(ToolResultMismatchError, match="did not make: \\['tooluse_Z'\\]"):
        tool_result_turn(
            message, {"tooluse_A": "", "tooluse_B": "", "tooluse_C": "", "tooluse_Z": ""}
        )
    twice = [
        mb.ToolResultBlock(tool_call_id="tooluse_A"),
        mb.ToolResultBlock(tool_call_id="tooluse_A"),
    ]
    with pytest.raises(ToolResultMismatchError, match="two results for tool call 'tooluse_A'"):
        tool_result_turn(message, twice)
    wrong = mb.ToolResultBlock(tool_call_id="tooluse_B")
    with pytest.raises(ToolResultMismatchError, match="answers 'tooluse_B'"):
        tool_result_turn(message, {"tooluse_A": wrong, "tooluse_B": "", "tooluse_C": ""})
    repeated = message.model_copy(update={"content": [*message.content, message.tool_calls[0]]})
    with pytest.raises(ToolResultMismatchError, match="repeats tool call ids"):
        tool_result_turn(repeated, {})
    with pytest.raises(ToolResultMismatchError, match="no tool calls"):
        tool_result_turn(mb.AssistantMessage(content=["hi"]), {})
    assert issubclass(ToolResultMismatchError, mb.MediaBlocksError)


def test_tool_result_turn_accepts_result_blocks_in_any_order() -> None:
    message = from_stream(BEDROCK_REUSED_INDEX, "bedrock")
    given = [
        mb.ToolResultBlock(tool_call_id="tooluse_C", content="10:00", name="clock"),
        mb.ToolResultBlock(tool_call_id="tooluse_A", content="18 C", is_error=True),
        mb.ToolResultBlock(tool_call_id="tooluse_B", content="14 C"),
    ]
    _, results = tool_result_turn(message, given)
    assert [(r.tool_call_id, r.name, r.is_error) for r in results.results] == [
        ("tooluse_A", "get_weather", True),
        ("tooluse_B", "get_weather", False),
        ("tooluse_C", "clock", False),  # a name the caller gave is kept
    ]


# -- Ollama chat chunks ------------------------------------------------------------------------


def ollama_chunk(message: Event, done: bool = False, **final: Any) -> Event:
    chunk: Event = {
        "model": "qwen3:8b",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": done,
    }
    chunk.update(final)
    return chunk


OLLAMA_STREAM: list[Event] = [
    ollama_chunk({"thinking": "Need "}),
    ollama_chunk({"thinking": "weather."}),
    ollama_chunk({"content": "Checking"}),
    ollama_chunk({"content": " now."}),
    ollama_chunk(
        {
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}},
            ]
        }
    ),
    ollama_chunk({}, True, done_reason="stop", prompt_eval_count=26, eval_count=31),
]


def test_ollama_thinking_text_calls_and_counts() -> None:
    message = fold_both(OLLAMA_STREAM, "ollama", ollama_chunks, made_up_ids=True)
    assert [t.thinking for t in message.thinking] == ["Need weather."]
    assert message.text == "Checking now."
    assert [(c.name, c.args) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert len({c.id for c in message.tool_calls}) == 2
    assert message.provider_stop_reason == "stop"
    assert without_raw(message.usage) == mb.Usage(input_tokens=26, output_tokens=31)
    assert message.model == "qwen3:8b"


def test_ollama_string_arguments_that_are_not_json_are_kept() -> None:
    # Ollama-compatible servers may send the argument text; the SDK type wants a mapping, so
    # this one is checked as a dict only.
    events = [
        ollama_chunk({"tool_calls": [{"function": {"name": "f", "arguments": "{not json"}}]}),
        ollama_chunk({}, True, done_reason="stop"),
    ]
    message = from_stream(events, "ollama")
    (call,) = message.tool_calls
    assert (call.args, call.raw_args) == ({}, "{not json")
    assert message.metadata["invalid_tool_args"] == [call.id]


def test_ollama_stream_cut_in_the_middle() -> None:
    message = fold_both(OLLAMA_STREAM[:3], "ollama", ollama_chunks)
    assert message.text == "Checking"
    assert message.stop_reason is None
    assert message.usage is None


# -- async, errors ----------------------------------------------------------------------------


async def _aiter(events: Iterable[Any]) -> AsyncIterator[Any]:
    for event in events:
        await asyncio.sleep(0)
        yield event


def test_afrom_stream_folds_an_async_stream_like_from_stream() -> None:
    for events, provider in (
        (chat_chunks(CHAT_STREAM), "openai"),
        (anthropic_events(ANTHROPIC_STREAM), "anthropic"),
        (BEDROCK_REUSED_INDEX, "bedrock"),
    ):
        folded = asyncio.run(afrom_stream(_aiter(events), provider))
        assert folded.content == from_stream(events, provider).content
        assert folded.tool_calls


def test_events_that_are_not_objects_and_unknown_providers_are_refused() -> None:
    accumulator = StreamAccumulator("bedrock")
    accumulator.add({"messageStart": {"role": "assistant"}})
    with pytest.raises(mb.DecodeError, match="bedrock stream event #2 is a str"):
        accumulator.add("data: {}")
    with pytest.raises(mb.UnknownProviderError):
        StreamAccumulator("skynet")


# -- Gemini streamed GenerateContentResponse chunks ---------------------------------------------


def _translator_present(module: str) -> bool:
    return importlib.util.find_spec(f"mediablocks.providers.{module}") is not None


needs_gemini = pytest.mark.skipif(
    not _translator_present("gemini"), reason="the Gemini translator is not in this tree"
)
needs_responses = pytest.mark.skipif(
    not _translator_present("openai_responses"),
    reason="the OpenAI Responses translator is not in this tree",
)


def gemini_chunk(parts: list[Event] | None = None, **fields: Any) -> Event:
    candidate: Event = {"index": 0}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    if "finishReason" in fields:
        candidate["finishReason"] = fields.pop("finishReason")
    return {
        "candidates": [candidate],
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp-g1",
        **fields,
    }


def gemini_chunks(events: list[Event]) -> list[Any]:
    from google.genai import types as genai_types

    # JSON validation: the SDK reads ``thoughtSignature`` as base64, as the REST API sends it.
    response = genai_types.GenerateContentResponse
    return [response.model_validate_json(json.dumps(event)) for event in events]


SIGNATURE_TEXT = base64.b64encode(b"signature-of-the-text").decode()
SIGNATURE_CALL = base64.b64encode(b"signature-of-the-call").decode()

GEMINI_STREAM: list[Event] = [
    gemini_chunk([{"text": "Planning ", "thought": True}]),
    gemini_chunk([{"text": "two calls.", "thought": True}]),
    gemini_chunk([{"text": "Checking "}]),
    gemini_chunk([{"text": "both.", "thoughtSignature": SIGNATURE_TEXT}]),
    gemini_chunk(
        [
            {
                "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                "thoughtSignature": SIGNATURE_CALL,
            },
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
        ]
    ),
    gemini_chunk(
        [],
        finishReason="STOP",
        usageMetadata={
            "promptTokenCount": 31,
            "candidatesTokenCount": 20,
            "thoughtsTokenCount": 12,
            "totalTokenCount": 63,
        },
    ),
]


@needs_gemini
def test_gemini_thoughts_signatures_parallel_calls_and_usage() -> None:
    message = fold_both(GEMINI_STREAM, "gemini", gemini_chunks, made_up_ids=True)
    assert [t.thinking for t in message.thinking] == ["Planning two calls."]
    assert message.text == "Checking both."
    assert [(c.name, c.args) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert len({c.id for c in message.tool_calls}) == 2
    dumped = json.dumps(message.model_dump(mode="json"))
    assert SIGNATURE_TEXT in dumped  # opaque signatures survive, on the part that carried them
    assert SIGNATURE_CALL in json.dumps(message.tool_calls[0].model_dump(mode="json"))
    assert SIGNATURE_CALL not in json.dumps(message.tool_calls[1].model_dump(mode="json"))
    assert message.provider_stop_reason == "STOP"  # the wire value, not the SDK enum's repr
    assert message.usage is not None
    assert message.usage.input_tokens == 31
    assert message.usage.reasoning_tokens == 12
    assert message.response_id == "resp-g1"


@needs_gemini
def test_gemini_folded_message_equals_the_decoded_whole_response() -> None:
    whole = gemini_chunk(
        [
            {"text": "Planning two calls.", "thought": True},
            {"text": "Checking both.", "thoughtSignature": SIGNATURE_TEXT},
            {
                "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                "thoughtSignature": SIGNATURE_CALL,
            },
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
        ],
        finishReason="STOP",
        usageMetadata=GEMINI_STREAM[-1]["usageMetadata"],
    )
    gemini_chunks([whole])  # the whole response is valid too
    (decoded,) = mb.decode(whole, "gemini")
    folded = from_stream(GEMINI_STREAM, "gemini")
    assert isinstance(decoded, mb.AssistantMessage)
    strip = {"id"}
    assert [b.model_dump(exclude=strip) for b in folded.content] == [
        b.model_dump(exclude=strip) for b in decoded.content
    ]
    assert folded.usage == decoded.usage


@needs_gemini
def test_gemini_stream_cut_in_the_middle() -> None:
    message = fold_both(GEMINI_STREAM[:3], "gemini", gemini_chunks)
    assert [t.thinking for t in message.thinking] == ["Planning two calls."]
    assert message.text == "Checking "
    assert message.stop_reason is None
    assert message.tool_calls == []


@needs_gemini
def test_gemini_vertex_streamed_function_arguments_are_assembled() -> None:
    def call(**fields: Any) -> Event:
        return gemini_chunk([{"functionCall": fields}])

    events = [
        call(name="book", willContinue=True),
        call(
            partialArgs=[{"jsonPath": "$.city", "stringValue": "Bos", "willContinue": True}],
            willContinue=True,
        ),
        call(partialArgs=[{"jsonPath": "$.city", "stringValue": "ton"}], willContinue=True),
        call(
            partialArgs=[
                {"jsonPath": "$.nights", "numberValue": 3},
                {"jsonPath": "$.guests[0].name", "stringValue": "Ada"},
                {"jsonPath": "$.breakfast", "boolValue": True},
            ]
        ),
        call(name="confirm", args={"ok": True}),
        gemini_chunk([], finishReason="STOP"),
    ]
    message = fold_both(events, "gemini", gemini_chunks, made_up_ids=True)
    assert [(c.name, c.args) for c in message.tool_calls] == [
        (
            "book",
            {"city": "Boston", "nights": 3, "guests": [{"name": "Ada"}], "breakfast": True},
        ),
        ("confirm", {"ok": True}),
    ]


# -- OpenAI Responses stream events -----------------------------------------------------------

_RESPONSES_EVENT: Any = None


def responses_events(events: list[Event]) -> list[Any]:
    global _RESPONSES_EVENT
    if _RESPONSES_EVENT is None:
        from openai.types.responses import ResponseStreamEvent

        _RESPONSES_EVENT = TypeAdapter(ResponseStreamEvent)
    return [_RESPONSES_EVENT.validate_python(event) for event in events]


def response_body(status: str, output: list[Event], usage: Event | None = None) -> Event:
    body: Event = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "model": "gpt-5-2025-08-07",
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    if usage is not None:
        body["usage"] = usage
    return body


REASONING_DONE: Event = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Two cities, two calls."}],
    "encrypted_content": "gAAAAABencrypted",
}
MESSAGE_DONE: Event = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Checking both.", "annotations": []}],
}


def fc_item(item_id: str, call_id: str, arguments: str, status: str) -> Event:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


def _numbered(events: list[Event]) -> list[Event]:
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


RESPONSES_USAGE: Event = {
    "input_tokens": 50,
    "input_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 0},
    "output_tokens": 70,
    "output_tokens_details": {"reasoning_tokens": 30},
    "total_tokens": 120,
}

RESPONSES_STREAM: list[Event] = _numbered(
    [
        {"type": "response.created", "response": response_body("in_progress", [])},
        {"type": "response.in_progress", "response": response_body("in_progress", [])},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "Two cities, ",
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "two calls.",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": REASONING_DONE},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**MESSAGE_DONE, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "Checking ",
            "logprobs": [],
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "both.",
            "logprobs": [],
        },
        {"type": "response.output_item.done", "output_index": 1, "item": MESSAGE_DONE},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": fc_item("fc_1", "call_paris", "", "in_progress"),
        },
        {
            "type": "response.output_item.added",
            "output_index": 3,
            "item": fc_item("fc_2", "call_rome", "", "in_progress"),
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 2,
            "delta": '{"city":',
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_2",
            "output_index": 3,
            "delta": '{"city":"Rome"}',
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 2,
            "delta": '"Paris"}',
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 2,
            "arguments": '{"city":"Paris"}',
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_2",
            "output_index": 3,
            "arguments": '{"city":"Rome"}',
        },
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": fc_item("fc_1", "call_paris", '{"city":"Paris"}', "completed"),
        },
        {
            "type": "response.output_item.done",
            "output_index": 3,
            "item": fc_item("fc_2", "call_rome", '{"city":"Rome"}', "completed"),
        },
        {
            "type": "response.completed",
            "response": response_body(
                "completed",
                [
                    REASONING_DONE,
                    MESSAGE_DONE,
                    fc_item("fc_1", "call_paris", '{"city":"Paris"}', "completed"),
                    fc_item("fc_2", "call_rome", '{"city":"Rome"}', "completed"),
                ],
                RESPONSES_USAGE,
            ),
        },
    ]
)


@needs_responses
def test_openai_responses_reasoning_text_interleaved_calls_and_usage() -> None:
    message = fold_both(RESPONSES_STREAM, "openai-responses", responses_events)
    (thinking,) = message.thinking
    assert thinking.thinking == "Two cities, two calls."
    assert thinking.signature == "gAAAAABencrypted"  # the encrypted reasoning survives
    assert message.text == "Checking both."
    assert calls_of(message) == [
        ("call_paris", "get_weather", {"city": "Paris"}, None),
        ("call_rome", "get_weather", {"city": "Rome"}, None),
    ]
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (50, 70)
    assert message.usage.reasoning_tokens == 30
    assert message.response_id == "resp_1"
    completed = RESPONSES_STREAM[-1]["response"]
    (decoded,) = mb.decode(completed, "openai-responses")
    assert message.content == decoded.content


@needs_responses
def test_openai_responses_folded_from_deltas_alone() -> None:
    # Cut before response.completed: the message comes from the deltas and item events.
    message = fold_both(RESPONSES_STREAM[:-1], "openai-responses", responses_events)
    assert message.text == "Checking both."
    assert [t.thinking for t in message.thinking] == ["Two cities, two calls."]
    assert calls_of(message) == [
        ("call_paris", "get_weather", {"city": "Paris"}, None),
        ("call_rome", "get_weather", {"city": "Rome"}, None),
    ]
    assert message.usage is None


@needs_responses
def test_openai_responses_stream_cut_in_the_middle_of_a_call() -> None:
    cut = RESPONSES_STREAM[:16]  # fc_1 has only '{"city":' so far, fc_2 is whole
    message = fold_both(cut, "openai-responses", responses_events)
    assert message.text == "Checking both."
    assert calls_of(message) == [
        ("call_paris", "get_weather", {}, '{"city":'),
        ("call_rome", "get_weather", {"city": "Rome"}, None),
    ]
    assert message.metadata["invalid_tool_args"] == ["call_paris"]
    accumulator = StreamAccumulator("openai-responses")
    for event in RESPONSES_STREAM[:10]:
        accumulator.add(event)
    assert accumulator.message().text == "Checking "


@needs_responses
def test_openai_responses_malformed_final_arguments_are_kept() -> None:
    broken = fc_item("fc_1", "call_paris", '{"city": Paris}', "completed")
    events = _numbered(
        [
            {"type": "response.created", "response": response_body("in_progress", [])},
            {"type": "response.output_item.added", "output_index": 0, "item": broken},
            {"type": "response.output_item.done", "output_index": 0, "item": broken},
            {
                "type": "response.completed",
                "response": response_body("completed", [broken], RESPONSES_USAGE),
            },
        ]
    )
    message = fold_both(events, "openai-responses", responses_events)
    assert calls_of(message) == [("call_paris", "get_weather", {}, '{"city": Paris}')]
    assert message.metadata["invalid_tool_args"] == ["call_paris"]


@needs_gemini
def test_gemini_generated_images_and_unmodelled_parts_are_kept(png_bytes: bytes) -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    events = [
        gemini_chunk([{"text": "Here:"}]),
        gemini_chunk(
            [
                {
                    "inlineData": {
                        "mimeType": "image/png",
                        "data": base64.b64encode(png_bytes).decode(),
                    }
                }
            ]
        ),
        gemini_chunk([code], finishReason="STOP"),
    ]
    message = fold_both(events, "gemini", gemini_chunks)
    assert message.text == "Here:"
    assert [m.read() for m in message.media] == [png_bytes]
    raw = message.content[-1]
    assert isinstance(raw, mb.RawBlock)
    assert json.loads(json.dumps(raw.data, default=str)) == code


@needs_responses
def test_openai_responses_refusal_and_error_events() -> None:
    events = _numbered(
        [
            {"type": "response.created", "response": response_body("in_progress", [])},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**MESSAGE_DONE, "status": "in_progress", "content": []},
            },
            {
                "type": "response.refusal.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "I can't ",
            },
            {
                "type": "response.refusal.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "help.",
            },
            {"type": "error", "code": "server_error", "message": "boom", "param": None},
        ]
    )
    message = fold_both(events, "openai-responses", responses_events)
    assert "I can't help." in json.dumps(message.model_dump(mode="json"))
    assert message.metadata["stream_error"]["message"] == "boom"
