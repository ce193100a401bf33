"""The folds' fast path for text deltas gives what the checked path gives, event for event.

`from_stream` sends runs of plain text deltas through each fold's ``take`` (no per-event depth
walk); every other event goes through ``StreamAccumulator.add``'s checks. These tests fold the
same streams both ways, hostile variants included, and require the same message or the same
kind of error.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks._depth import MAX_DEPTH, check_depth
from mediablocks.streaming import StreamAccumulator, afrom_stream, from_stream

Event = dict[str, Any]


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def _anthropic(words: list[str]) -> list[Event]:
    start = {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 3}}
    block = {"type": "text", "text": ""}
    return [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}
            for w in words
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"x": 1}},
    ]


def _openai_chat(words: list[str]) -> list[Event]:
    def chunk(delta: Event, finish: str | None = None) -> Event:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c1", "model": "gpt", "choices": [choice]}

    first = chunk({"role": "assistant", "content": "", "refusal": None})
    return [first, *(chunk({"content": w}) for w in words), chunk({}, "stop")]


def _responses(words: list[str]) -> list[Event]:
    item = {"id": "m1", "type": "message", "role": "assistant", "content": []}
    part = {"type": "output_text", "text": "", "annotations": []}
    added = {"type": "response.content_part.added", "output_index": 0, "content_index": 0}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {**added, "part": part},
        *(
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "delta": w,
            }
            for w in words
        ),
    ]


def _gemini(words: list[str]) -> list[Event]:
    def chunk(text: str) -> Event:
        candidate = {"content": {"role": "model", "parts": [{"text": text}]}}
        usage = {"promptTokenCount": 3, "promptTokensDetails": [{"modality": "TEXT"}]}
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "g",
            "responseId": "r",
        }

    return [chunk("") for _ in range(1)] + [chunk(w) for w in words]


def _bedrock(words: list[str]) -> list[Event]:
    return [
        {"messageStart": {"role": "assistant"}},
        *({"contentBlockDelta": {"delta": {"text": w}, "contentBlockIndex": 0}} for w in words),
        {"messageStop": {"stopReason": "end_turn"}},
    ]


def _ollama(words: list[str]) -> list[Event]:
    def chunk(text: str) -> Event:
        return {"model": "llama", "message": {"role": "assistant", "content": text}, "done": False}

    return [chunk(w) for w in words] + [{**chunk(""), "done": True, "done_reason": "stop"}]


STREAMS: dict[str, Callable[[list[str]], list[Event]]] = {
    "anthropic": _anthropic,
    "openai-chat": _openai_chat,
    "openai-responses": _responses,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "ollama": _ollama,
}

# Values put in place of one field of one event: wrong types, hostile nesting, odd indexes.
ODD_VALUES = [None, True, 1, -1, 2.5, "", "x", [], {}, ["x"], {"text": "x"}, _deep(MAX_DEPTH + 5)]


def _checked(events: list[Any], provider: str) -> Any:
    """Each event through the checked path only (the reference)."""
    accumulator = StreamAccumulator(provider)
    try:
        for event in events:
            accumulator._add_checked(event)
        return accumulator.message()
    except mb.DecodeError as exc:
        return ("DecodeError", "levels deep" in str(exc))


def _fast(events: list[Any], provider: str) -> Any:
    try:
        return from_stream(events, provider)
    except mb.DecodeError as exc:
        return ("DecodeError", "levels deep" in str(exc))


def _comparable(result: Any) -> Any:
    if isinstance(result, mb.AssistantMessage):  # id and timestamp are made up per message
        return result.model_dump(mode="json", exclude={"id", "timestamp"})
    return result


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path to every value inside ``value`` (keys and list indexes)."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    out = []
    for key, child in items:
        out.append((*prefix, key))
        if isinstance(child, (dict, list)):
            out += _paths(child, (*prefix, key))
    return out


def _mutate(event: Any, pick: int, value: Any) -> Any:
    """``event`` with one of its values (chosen by ``pick``) replaced by ``value``."""
    event = copy.deepcopy(event)
    paths = _paths(event)
    if not paths:
        return event
    *parents, last = paths[pick % len(paths)]
    target = event
    for step in parents:
        target = target[step]
    target[last] = value
    return event


@pytest.mark.parametrize("provider", sorted(STREAMS))
def test_the_fast_path_folds_a_plain_stream_like_the_checked_path(provider: str) -> None:
    events = STREAMS[provider](["Hello", ", ", "", "world", "!"])
    fast = from_stream(copy.deepcopy(events), provider)
    assert fast.text == "Hello, world!"
    assert _comparable(fast) == _comparable(_checked(events, provider))


@settings(max_examples=300, deadline=None)
@given(
    provider=st.sampled_from(sorted(STREAMS)),
    words=st.lists(st.text(max_size=5), max_size=6),
    mutations=st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 30), st.sampled_from(range(len(ODD_VALUES)))),
        max_size=3,
    ),
)
def test_the_fast_path_matches_the_checked_path_on_odd_events(
    provider: str, words: list[str], mutations: list[tuple[int, int, int]]
) -> None:
    events: list[Any] = STREAMS[provider](words)
    for position, pick, value in mutations:
        index = position % len(events)
        events[index] = _mutate(events[index], pick, ODD_VALUES[value])
    fast = _fast(copy.deepcopy(events), provider)
    checked = _checked(copy.deepcopy(events), provider)
    if isinstance(checked, tuple) and checked[1]:
        # Nested too deep: refused, or (a deep field the fast path ignores, so never kept)
        # folded into a message that holds nothing deep.
        if isinstance(fast, tuple):
            # Refused: for the depth, or for a malformed later event that the checked path,
            # stopped by the depth first, never reached (the fast path ignored the deep part).
            assert fast[0] == "DecodeError"
        else:
            check_depth(fast.model_dump(mode="json"), "the folded message")
    elif isinstance(checked, tuple):
        assert isinstance(fast, tuple)
    else:
        assert _comparable(fast) == _comparable(checked)


@pytest.mark.parametrize(
    "event",
    [
        {"type": "content_block_delta", "index": 0, "delta": _deep(1000)},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}
        | {"index": _deep(1000)},
    ],
)
def test_a_deep_event_after_fast_deltas_is_refused_by_depth(event: Event) -> None:
    events = _anthropic(["a", "b"])
    events.insert(3, event)
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        from_stream(events, "anthropic")


def test_gemini_usage_kept_from_the_fast_path_is_checked_for_depth() -> None:
    events = _gemini(["a", "b"])
    events[-1]["usageMetadata"] = {"deep": _deep(1000)}
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        from_stream(events, "gemini")


@pytest.mark.parametrize("events", [1, None, 2.5, object()])
def test_events_that_are_not_iterable_raise_decode_error(events: Any) -> None:
    with pytest.raises(mb.DecodeError, match="not an iterable of events"):
        from_stream(events, "anthropic")
    with pytest.raises(mb.DecodeError, match="not an async iterable of events"):
        asyncio.run(afrom_stream(events, "openai-chat"))


def test_add_takes_text_deltas_one_at_a_time_like_from_stream() -> None:
    events = _openai_chat(["one ", "two"])
    accumulator = StreamAccumulator("openai-chat")
    for event in events:
        accumulator.add(event)
    assert accumulator.events == len(events)
    assert _comparable(accumulator.message()) == _comparable(from_stream(events, "openai-chat"))


def test_gemini_fast_chunks_keep_the_last_usage_id_and_model_each_was_given() -> None:
    events = _gemini(["a", "b", "c", "d"])
    events[1]["usageMetadata"] = {"promptTokenCount": 5, "candidatesTokenCount": 1}
    events[1]["modelVersion"] = "g-2"
    events[2]["usageMetadata"] = {}  # empty: the earlier usage stays
    del events[2]["responseId"], events[2]["modelVersion"], events[3]["modelVersion"]
    events[3]["responseId"] = "r-3"
    events[4]["usageMetadata"] = {"promptTokenCount": 7, "candidatesTokenCount": 4}
    del events[4]["responseId"], events[4]["modelVersion"]
    fast = from_stream(copy.deepcopy(events), "gemini")
    assert (fast.model, fast.response_id) == ("g-2", "r-3")
    assert (fast.usage_or_zero.input_tokens, fast.usage_or_zero.output_tokens) == (7, 4)
    assert _comparable(fast) == _comparable(_checked(events, "gemini"))
