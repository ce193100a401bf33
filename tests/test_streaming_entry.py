"""What `from_stream` checks on the way in: a stream folded under the wrong provider raises
naming the right one; Bedrock AgentCore Harness streams fold; wire indexes that are not
non-negative integers raise; and Gemini never gets an empty call id."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb

Event = dict[str, Any]

# One short reply ("Hello") per wire format, in the shapes each provider documents.
STREAMS: dict[str, list[Event]] = {
    "anthropic": [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ],
    "bedrock": [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hel"}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "lo"}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}}},
    ],
    "openai-chat": [
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}],
        },
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}],
        },
    ],
    "openai-responses": [
        {"type": "response.created", "response": {"id": "r1", "model": "gpt-4.1", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m1", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "m1",
            "delta": "Hello",
        },
        {"type": "response.completed", "response": {"id": "r1", "status": "completed"}},
    ],
    "gemini": [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}]},
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "lo"}]}, "finishReason": "STOP"}
            ],
            "modelVersion": "gemini-2.5-flash",
        },
    ],
    "ollama": [
        {
            "model": "llama3",
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "Hel"},
            "done": False,
        },
        {
            "model": "llama3",
            "created_at": "2025-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": "lo"},
            "done": True,
            "done_reason": "stop",
        },
    ],
    "cohere": [
        {"type": "message-start", "id": "m1", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text"}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "Hello"}}}},
        {"type": "content-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
    ],
}

# The provider names each stream may be folded under (profiles read their base's events).
SAME_FAMILY = {
    "anthropic": {"anthropic", "anthropic-bedrock", "anthropic-vertex"},
    "bedrock": {"bedrock", "bedrock-harness"},
    "openai-chat": {"openai-chat", "mistral", "azure-openai", "groq", "openrouter", "vllm"},
    "openai-responses": {"openai-responses"},
    "gemini": {"gemini"},
    "ollama": {"ollama"},
    "cohere": {"cohere"},
}
NAMES = sorted(set().union(*SAME_FAMILY.values()))


@pytest.mark.parametrize("family", sorted(STREAMS))
def test_each_stream_folds_under_its_own_names(family: str) -> None:
    for name in SAME_FAMILY[family]:
        reply = mb.from_stream(STREAMS[family], name)
        assert reply.text == "Hello", name


@pytest.mark.parametrize("family", sorted(STREAMS))
@pytest.mark.parametrize("name", NAMES)
def test_a_stream_folded_under_another_name_raises_naming_the_right_one(
    family: str, name: str
) -> None:
    if name in SAME_FAMILY[family]:
        return
    right = "anthropic-bedrock" if family == "anthropic" and name.startswith("bedrock") else family
    with pytest.raises(mb.DecodeError, match=rf"from_stream\(events, '{right}'\)") as caught:
        mb.from_stream(STREAMS[family], name)
    assert caught.value.code == "decode_error"


def test_claude_on_bedrock_converse_events_are_bedrocks() -> None:
    # The natural wrong guess: Claude on Bedrock through ConverseStream is "bedrock".
    with pytest.raises(mb.DecodeError, match=r"not anthropic-bedrock's.*'bedrock'"):
        mb.from_stream(STREAMS["bedrock"], "anthropic-bedrock")
    accumulator = mb.StreamAccumulator("anthropic-bedrock")
    with pytest.raises(mb.DecodeError, match="event #1"):
        accumulator.add(STREAMS["bedrock"][0])


def test_events_that_name_no_provider_fold_quietly() -> None:
    reply = mb.from_stream([{"type": "ping"}, {}], "anthropic")
    assert reply.content == []


# -- Bedrock AgentCore Harness --------------------------------------------------------------------


def harness_run() -> list[Event]:
    """A harness run: a server tool called and answered by the harness, then the final text."""
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Looking it up. "}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {
                    "toolUse": {"toolUseId": "t1", "name": "search", "type": "server_tool_use"}
                },
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"q": '}}}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"x"}'}}}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 4, "totalTokens": 14}}},
        {"hookEvent": {"name": "after-tool"}},
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "It is 12C."}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 30, "outputTokens": 5, "totalTokens": 35}}},
    ]


def test_a_harness_run_folds_into_one_reply_in_order() -> None:
    reply = mb.from_stream(harness_run(), "bedrock-harness")
    assert reply.provider == "bedrock-harness"
    assert [type(b).__name__ for b in reply.content] == ["TextBlock", "ToolCallBlock", "TextBlock"]
    assert reply.text == "Looking it up. \nIt is 12C."
    assert reply.tool_calls[0].args == {"q": "x"}
    assert reply.stop_reason == "end_turn"
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (40, 9)


def test_a_harness_error_is_kept_and_another_providers_events_are_refused() -> None:
    events = [*harness_run()[:3], {"runtimeClientError": {"message": "tool failed"}}]
    reply = mb.from_stream(events, "bedrock-harness")
    assert reply.metadata["stream_error"]["type"] == "runtimeClientError"
    with pytest.raises(mb.DecodeError, match=r"from_stream\(events, 'anthropic-bedrock'\)"):
        mb.from_stream(STREAMS["anthropic"], "bedrock-harness")


_harness_event = st.one_of(
    st.builds(
        lambda t: {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": t}}},
        st.text(max_size=5),
    ),
    st.just({"messageStart": {"role": "assistant"}}),
    st.just({"contentBlockStop": {"contentBlockIndex": 0}}),
    st.builds(
        lambda n: {"metadata": {"usage": {"inputTokens": n, "outputTokens": n}}},
        st.integers(0, 100),
    ),
    st.sampled_from(
        [
            {"messageStop": {"stopReason": "end_turn"}},
            {"hookEvent": {}},
            {"runtimeClientError": None},
            {"contentBlockStart": {"contentBlockIndex": "0", "start": {}}},
            {"contentBlockDelta": {"contentBlockIndex": -1, "delta": {"text": "x"}}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{"}}}},
            {"metadata": {"usage": "many"}},
            {"messageStop": 3},
        ]
    ),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_harness_event, max_size=12))
def test_any_harness_stream_folds_or_raises_a_decode_error(events: list[Event]) -> None:
    try:
        reply = mb.from_stream(events, "bedrock-harness")
    except mb.DecodeError:  # malformed events, named: never another exception
        return
    deltas = [e["contentBlockDelta"]["delta"] for e in events if "contentBlockDelta" in e]
    texts = [d["text"] for d in deltas if isinstance(d.get("text"), str)]
    # Text blocks are joined with newlines in .text: compare the characters the deltas sent.
    assert reply.text.replace("\n", "") == "".join(texts).replace("\n", "")


# -- indexes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", ["3", -1, 1e308, 3.0, None, [0], True])
def test_anthropic_indexes_that_are_not_whole_numbers_raise(index: Any) -> None:
    events = [
        STREAMS["anthropic"][0],
        {"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": "x"},
        },
    ]
    with pytest.raises(mb.DecodeError, match=r"event #3.*index"):
        mb.from_stream(events, "anthropic")
    accumulator = mb.StreamAccumulator("anthropic")
    accumulator.add(events[0])
    accumulator.add(events[1])
    with pytest.raises(mb.DecodeError, match="index"):
        accumulator.add(events[2])


def test_a_bedrock_string_index_never_routes_arguments_to_a_phantom_call() -> None:
    start = {"toolUse": {"toolUseId": "t1", "name": "zoom"}}
    events = [
        {"contentBlockStart": {"contentBlockIndex": 0, "start": start}},
        {"contentBlockDelta": {"contentBlockIndex": "0", "delta": {"toolUse": {"input": "{}"}}}},
    ]
    with pytest.raises(mb.DecodeError, match=r"event #2.*contentBlockIndex is '0'"):
        mb.from_stream(events, "bedrock")
    text = {"contentBlockDelta": {"contentBlockIndex": 0.0, "delta": {"text": "x"}}}
    with pytest.raises(mb.DecodeError, match="contentBlockIndex"):
        mb.from_stream([text], "bedrock")


def test_openai_chat_tool_call_indexes_are_checked() -> None:
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": "1", "id": "c", "function": {"name": "f"}}]},
            }
        ],
    }
    with pytest.raises(mb.DecodeError, match=r"tool_calls\[\]\.index"):
        mb.from_stream([chunk], "openai")


# -- Gemini ids -----------------------------------------------------------------------------------


def test_gemini_never_gets_an_empty_call_id() -> None:
    history = [
        mb.UserMessage.text("weather?"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="", name="weather", args={"c": "x"})]),
        mb.ToolMessage(content=[mb.ToolResultBlock(tool_call_id="", name="weather", content="12")]),
    ]
    for target in ("sdk", "json"):
        contents = mb.encode(history, "gemini", target=target)["contents"]  # type: ignore[call-overload]
        parts = [part for content in contents for part in content["parts"]]
        calls = [p.get("function_call") or p.get("functionCall") for p in parts]
        responses = [p.get("function_response") or p.get("functionResponse") for p in parts]
        call = next(c for c in calls if c)
        response = next(r for r in responses if r)
        assert "id" not in call
        assert "id" not in response
        assert call["name"] == response["name"] == "weather"
