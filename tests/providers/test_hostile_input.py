"""Hostile input to decoders and stream folds: only library errors, bounded memory, nothing lost.

One regression test per example of issue 10 sections 1-2 that concerns decoding and folding, and
property tests over mutated real payloads and streams from the shared kit (bounded example counts;
``fuzz/fuzz_providers.py`` runs the same mutations by the thousand).
"""

from __future__ import annotations

import base64
import json
import random
import time
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.providers.kit import (
    STREAMS,
    decode_target,
    fold_target,
    mutate_events,
    mutate_json,
    only_library_errors,
    payload_seeds,
    sample_history,
)

import mediablocks as mb
from mediablocks._depth import MAX_DEPTH
from mediablocks.history import normalize_messages, parse_message
from mediablocks.providers import PROVIDERS

PROPERTY = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _responses_events(*events: dict[str, Any]) -> list[dict[str, Any]]:
    head = {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}
    return [head, *events]


def _peak(call: Any) -> int:
    tracemalloc.start()
    try:
        call()
    except mb.MediaBlocksError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


# -- stream folds: indexes are data ------------------------------------------------------------


@pytest.mark.parametrize("index_name", ["content_index", "output_index"])
def test_a_huge_responses_index_is_a_key_not_a_list_size(index_name: str) -> None:
    delta = {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "delta": "far away",
    }
    delta[index_name] = 10**9
    events = _responses_events(delta)
    assert _peak(lambda: mb.from_stream(events, "openai-responses")) < 5_000_000
    message = mb.from_stream(events, "openai-responses")
    assert message.text == "far away"  # kept, at its place in index order


@pytest.mark.parametrize("value", [1e308, -1, "3", [0], True])
def test_a_summary_index_that_is_not_an_index_is_named(value: Any) -> None:
    event = {
        "type": "response.reasoning_summary_text.delta",
        "output_index": 0,
        "summary_index": value,
        "delta": "x",
    }
    with pytest.raises(mb.DecodeError, match=r"event #2: summary_index is .*not a non-negative"):
        mb.from_stream(_responses_events(event), "openai-responses")


def test_a_gemini_partial_arg_path_cannot_size_a_list() -> None:
    call = {
        "name": "f",
        "partialArgs": [{"jsonPath": "$.a[999999999]", "stringValue": "x"}],
    }
    event = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}
    assert _peak(lambda: mb.from_stream([event], "gemini")) < 5_000_000
    with pytest.raises(mb.DecodeError, match=r"skips past the 0 element"):
        mb.from_stream([event], "gemini")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("bad", [[1, 2], {"x": 1}, 5, None, "text"])
def test_every_event_field_of_the_wrong_type_raises_decode_error(provider: str, bad: Any) -> None:
    events = STREAMS[provider]
    for number in range(len(events)):
        for key in list(events[number]):
            mutated = [dict(event) for event in events]
            mutated[number][key] = bad
            only_library_errors(fold_target(provider, mutated))  # fails on any other exception


def test_a_malformed_event_is_named_with_its_number() -> None:
    events = [
        *_responses_events(),
        {"type": "response.output_item.added", "output_index": 0, "item": ["not", "an", "item"]},
    ]
    with pytest.raises(mb.DecodeError, match=r"openai-responses stream event #2.*item is a list"):
        mb.from_stream(events, "openai-responses")


def test_sdk_event_objects_still_fold() -> None:
    from openai.types.responses import ResponseTextDeltaEvent

    event = ResponseTextDeltaEvent(
        type="response.output_text.delta",
        item_id="msg_1",
        output_index=0,
        content_index=0,
        delta="hello",
        sequence_number=1,
        logprobs=[],
    )
    assert mb.from_stream([event], "openai-responses").text == "hello"


# -- OpenAI Responses: streamed pieces and final items merge --------------------------------


def test_output_item_done_with_empty_content_keeps_the_streamed_text() -> None:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}
    events = _responses_events(
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "Hello ",
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "world",
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "status": "completed", "content": []},
        },
    )
    message = mb.from_stream(events, "openai-responses")
    assert message.text == "Hello world"
    assert not [b for b in message.content if isinstance(b, mb.RawBlock)]


def test_a_function_call_named_only_when_added_keeps_its_name() -> None:
    added = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": "",
    }
    done = {**added, "name": "", "arguments": '{"city": "Paris"}'}
    events = _responses_events(
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 0,
            "delta": '{"city": "Paris"}',
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
    )
    (call,) = mb.from_stream(events, "openai-responses").tool_calls
    assert (call.id, call.name, call.args) == ("call_1", "get_weather", {"city": "Paris"})


def test_the_final_item_wins_where_it_says_something() -> None:
    item = {"type": "message", "id": "msg_1", "role": "assistant"}
    final = {**item, "content": [{"type": "output_text", "text": "Final.", "annotations": []}]}
    events = _responses_events(
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "delta": "Draf",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": final},
    )
    assert mb.from_stream(events, "openai-responses").text == "Final."


# -- decode: wrong JSON types are named by path ----------------------------------------------


@pytest.mark.parametrize("bad", [["user"], {"a": 1}, 7])
def test_a_responses_role_or_type_of_the_wrong_type_names_its_path(bad: Any) -> None:
    payload = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"role": "user", "content": [{"type": bad, "text": "hi"}]},
    ]
    with pytest.raises(mb.DecodeError, match=r"\[1\]\.content\[0\]\.type is a"):
        mb.decode(payload, "openai-responses")
    payload[1] = {"role": bad, "content": "hi"}
    with pytest.raises(mb.DecodeError, match=r"\[1\]\.role is a"):
        mb.decode(payload, "openai-responses")


@pytest.mark.parametrize("bad", [["user"], {"a": 1}])
def test_an_ollama_role_of_the_wrong_type_names_its_path(bad: Any) -> None:
    payload = {"messages": [{"role": "user", "content": "hi"}, {"role": bad, "content": "x"}]}
    with pytest.raises(mb.DecodeError, match=r"messages\[1\]\.role is a"):
        mb.decode(payload, "ollama")


# -- deep nesting --------------------------------------------------------------------------


def _nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("levels", [1_000, 100_000])
def test_deep_nesting_is_refused_quickly_everywhere(levels: int) -> None:
    deep = _nested(levels)
    text = "[" * levels + "]" * levels
    started = time.perf_counter()
    for provider in ("openai-chat", "gemini", "anthropic"):
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.decode({"messages": [{"role": "user", "content": deep}]}, provider)
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.decode(text, provider)
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        mb.load_messages(text)
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        mb.load_messages([{"role": "user", "content": deep}])
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        parse_message({"role": "user", "content": deep})
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        normalize_messages([{"role": "user", "content": deep}])
    event = {"type": "content_block_delta", "index": 0, "delta": deep}
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        mb.from_stream([event], "anthropic")
    assert time.perf_counter() - started < 5


def test_nesting_within_the_limit_still_decodes() -> None:
    args = _nested(MAX_DEPTH - 10)
    payload = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "f", "arguments": json.dumps({"a": args})},
            }
        ],
    }
    (message,) = mb.decode([payload], "openai-chat")
    assert message.tool_calls[0].args == {"a": args}


# -- Bedrock redacted reasoning ------------------------------------------------------------


@pytest.mark.parametrize("data", ["not base64!", "QUJD", "QUJDRA", "QUJD\nRA==", "-_-_"])
def test_bedrock_redacted_data_must_be_canonical_base64(data: str) -> None:
    payload = [{"role": "assistant", "content": [{"reasoningContent": {"redactedContent": data}}]}]
    if data == "QUJD":  # canonical: kept exactly as sent
        (message,) = mb.decode(payload, "bedrock")
        assert message.thinking[0].redacted_data == "QUJD"
        fields = mb.encode([message], "bedrock")
        block = fields["messages"][0]["content"][0]
        assert block["reasoningContent"]["redactedContent"] == b"ABC"
        return
    with pytest.raises(mb.DecodeError, match=r"redactedContent"):
        mb.decode(payload, "bedrock")
    delta = {"reasoningContent": {"redactedContent": data}}
    event = {"contentBlockDelta": {"contentBlockIndex": 0, "delta": delta}}
    with pytest.raises(mb.DecodeError, match=r"redactedContent"):
        mb.from_stream([event], "bedrock")


def test_bedrock_encode_refuses_redacted_data_it_would_change() -> None:
    block = mb.ThinkingBlock(redacted=True, redacted_data="QUJD\nRA", provider="bedrock")
    with pytest.raises(mb.DecodeError, match=r"not canonical base64"):
        mb.encode([mb.AssistantMessage(content=[block])], "bedrock")
    raw = base64.b64encode(b"secret").decode()
    ok = mb.ThinkingBlock(redacted=True, redacted_data=raw, provider="bedrock")
    fields = mb.encode([mb.AssistantMessage(content=[ok])], "bedrock")
    assert fields["messages"][0]["content"][0]["reasoningContent"]["redactedContent"] == b"secret"


# -- the wrong provider name ---------------------------------------------------------------


def test_an_openai_chat_payload_decoded_as_anthropic_says_what_it_looks_like() -> None:
    payload = mb.encode(sample_history(), "openai-chat", target="json")
    with pytest.raises(
        mb.DecodeError, match=r"does not look like anthropic.*looks like openai-chat"
    ):
        mb.decode(payload, "anthropic")


@pytest.mark.parametrize("named", ["anthropic", "gemini", "bedrock", "openai-responses"])
@pytest.mark.parametrize("real", ["openai-chat", "anthropic", "gemini", "bedrock"])
def test_payloads_under_another_format_name_raise_or_decode_the_same(named: str, real: str) -> None:
    payload = mb.encode(sample_history(), real, target="json")
    if named == real:
        assert mb.decode(payload, named)
        return
    error = only_library_errors(decode_target(named, payload))
    if error is not None:
        assert isinstance(error, mb.DecodeError)
        return
    # decoded: then it must have read real content, not only raw blocks
    blocks = [b for m in mb.decode(payload, named) for b in m.content]
    assert any(not isinstance(b, mb.RawBlock) for b in blocks)


def test_plain_text_messages_shared_by_formats_still_decode() -> None:
    payload = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for provider in ("openai-chat", "anthropic", "mistral", "ollama"):
        assert [m.text for m in mb.decode(payload, provider)] == ["hi", "hello"]


# -- encode ------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_call_args_that_are_not_json_name_the_call(provider: str) -> None:
    call = mb.ToolCallBlock(id="call_9", name="save", args={"when": object()})
    history = [mb.UserMessage.text("save it"), mb.AssistantMessage(content=[call])]
    with pytest.raises(mb.UnsupportedBlockError, match=r"message 1, block 0: tool call 'save'"):
        mb.encode(history, provider)
    with pytest.raises(mb.UnsupportedBlockError, match=r"call_9"):
        mb.encode_json(history, provider, model="m")


# -- properties --------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
@PROPERTY
@given(seed=st.integers(0, 2**32 - 1))
def test_decode_of_mutated_real_payloads_raises_only_library_errors(
    provider: str, seed: int
) -> None:
    rng = random.Random(seed)
    payload = mutate_json(rng.choice(payload_seeds(provider)), rng)
    only_library_errors(decode_target(provider, payload))


@pytest.mark.parametrize("provider", PROVIDERS)
@PROPERTY
@given(seed=st.integers(0, 2**32 - 1))
def test_folding_mutated_real_streams_raises_only_library_errors(provider: str, seed: int) -> None:
    rng = random.Random(seed)
    only_library_errors(fold_target(provider, mutate_events(STREAMS[provider], rng)))


@PROPERTY
@given(seed=st.integers(0, 2**32 - 1))
def test_load_messages_of_mutated_documents_raises_only_library_errors(seed: int) -> None:
    rng = random.Random(seed)
    document = json.loads(mb.dump_messages(sample_history()))
    mutated = mutate_json(document, rng)
    only_library_errors(lambda: mb.load_messages(mutated))
    only_library_errors(lambda: mb.load_messages(json.dumps(mutated)))
