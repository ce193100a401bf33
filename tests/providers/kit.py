"""The shared provider test kit: seed payloads and streams, mutations, and the checks every
provider's tests (and ``fuzz/fuzz_providers.py``) make.

A new provider's tests declare its seed stream in ``STREAMS`` and get, from here: a rich history
encoded for it (`request_seed`), the round trip (`assert_round_trip`), the fold-equals-decode check
(`assert_fold_equals_whole`), and the hostile-input properties (`only_library_errors` on
`mutate_json` / `mutate_events` of its seeds).
"""

from __future__ import annotations

import copy
import json
import random
import tracemalloc
from collections.abc import Callable
from typing import Any

from tests.conftest import make_png
from tests.providers.test_cohere import COHERE_STREAM
from tests.test_streaming import (
    ANTHROPIC_STREAM,
    BEDROCK_REUSED_INDEX,
    CHAT_STREAM,
    GEMINI_STREAM,
    MISTRAL_STREAM,
    OLLAMA_STREAM,
    RESPONSES_STREAM,
)

import mediablocks as mb
from mediablocks.providers import PROVIDERS
from mediablocks.providers.registry import REGISTRY, provider_entry

Event = dict[str, Any]

STREAMS: dict[str, list[Event]] = {
    "openai-chat": CHAT_STREAM,
    "openai-responses": RESPONSES_STREAM,
    "anthropic": ANTHROPIC_STREAM,
    "gemini": GEMINI_STREAM,
    "bedrock": BEDROCK_REUSED_INDEX,
    "mistral": MISTRAL_STREAM,
    "ollama": OLLAMA_STREAM,
    "cohere": COHERE_STREAM,
}
"""A real event sequence per provider (the shapes its SDK and HTTP API stream)."""

# A profile streams what its base streams (OpenAI-compatible servers, Claude on other platforms).
for _entry in REGISTRY:
    if _entry.profile is not None:
        STREAMS[_entry.name] = STREAMS[_entry.profile.base]


def _base(provider: str) -> str:
    """The wire format whose SDK types check ``provider``'s payloads."""
    entry = provider_entry(provider)
    return entry.profile.base if entry.profile is not None else entry.name


MEMORY_BOUND = 48 * 1024 * 1024
"""Peak bytes a decode or fold of a small seed may allocate, however it is mutated."""


def sample_history(provider: str | None = None) -> list[mb.Message]:
    """Text, an image, a tool call and its result: what every provider carries (the image only
    where ``provider`` takes images; DeepSeek takes text only)."""
    image = mb.ImageBlock.from_bytes(make_png((8, 6), color="teal"))
    takes_images = provider is None or bool(mb.limits_for(provider).image_types)
    question = (
        mb.UserMessage.with_images("What colour is this?", [image])
        if takes_images
        else mb.UserMessage.text("What colour is this?")
    )
    return [
        mb.SystemMessage.text("Be brief."),
        question,
        mb.AssistantMessage(
            content=[
                mb.TextBlock(text="Let me check."),
                mb.ToolCallBlock(id="call_1", name="colour_of", args={"pixel": [0, 0]}),
            ]
        ),
        mb.ToolMessage.from_result("call_1", "teal", name="colour_of"),
        mb.AssistantMessage.text("It is teal."),
    ]


def request_seed(provider: str) -> dict[str, Any]:
    """`sample_history` as ``provider``'s JSON request fields (made by its real encoder)."""
    return mb.encode(sample_history(provider), provider, target="json")


def response_seed(provider: str) -> dict[str, Any]:
    """``provider``'s whole response for its seed stream (what a non-streamed call returns)."""
    accumulator = mb.StreamAccumulator(provider)
    for event in copy.deepcopy(STREAMS[provider]):
        accumulator.add(event)
    return accumulator.response()


def payload_seeds(provider: str) -> list[Any]:
    """Real payloads of ``provider``: a request body and a response."""
    return [request_seed(provider), response_seed(provider)]


def _sdk_check(provider: str) -> Callable[[dict[str, Any]], None]:
    """The provider test module's own validation against the official SDK's types."""
    provider = _base(provider)
    if provider == "cohere":
        from tests.providers.test_cohere import check_messages as check_cohere

        return lambda fields: check_cohere(fields["messages"])
    if provider == "anthropic":
        from tests.providers.test_anthropic import check_request

        return check_request
    if provider == "bedrock":
        from tests.providers.test_bedrock import check_request as check_bedrock

        return check_bedrock
    if provider == "gemini":
        from tests.providers.test_gemini import check_sdk

        return check_sdk
    if provider == "openai-responses":
        from tests.providers.test_openai_responses import check_items

        return lambda fields: check_items(fields["input"])
    if provider == "openai-chat":
        from tests.providers.test_openai_chat import check_messages as check_chat

        return lambda fields: check_chat(fields["messages"])
    if provider == "mistral":
        from tests.providers.test_mistral import check_messages as check_mistral

        return lambda fields: check_mistral(fields["messages"])
    from tests.providers.test_ollama import check_messages as check_ollama

    return lambda fields: check_ollama(fields["messages"])


def assert_sdk_types(provider: str, history: list[mb.Message]) -> dict[str, Any]:
    """``encode(history)`` validates against ``provider``'s official SDK types; returns it."""
    fields = mb.encode(history, provider)
    _sdk_check(provider)(fields)
    return fields


def assert_round_trip(provider: str, history: list[mb.Message], target: str = "json") -> None:
    """Encoding then decoding gives the same texts and tool calls back."""
    encoded = mb.encode(history, provider, target=target)  # type: ignore[arg-type]
    if target == "json":
        encoded = json.loads(json.dumps(encoded))
    decoded = mb.decode(encoded, provider)
    assert [m.text for m in decoded if m.text] == [m.text for m in history if m.text]
    calls = [(c.id, c.name, c.args) for m in decoded for c in getattr(m, "tool_calls", [])]
    sent = [(c.id, c.name, c.args) for m in history for c in getattr(m, "tool_calls", [])]
    assert [call[1:] for call in calls] == [call[1:] for call in sent]


def assert_fold_equals_whole(provider: str, events: list[Event]) -> mb.AssistantMessage:
    """The folded message is what decoding the folded whole response gives."""
    folded = mb.from_stream(copy.deepcopy(events), provider)
    accumulator = mb.StreamAccumulator(provider)
    for event in copy.deepcopy(events):
        accumulator.add(event)
    whole = [m for m in mb.decode(accumulator.response(), provider) if m.role == "assistant"]
    assert [b.type for b in folded.content] == [b.type for m in whole for b in m.content]
    return folded


# -- mutations ---------------------------------------------------------------------------------

_NASTY: list[Any] = [
    None,
    True,
    0,
    -1,
    10**9,
    10**30,
    1e308,
    float("inf"),
    "",
    "x" * 70,
    "not-base64-!!",
    [],
    {},
    [None],
    {"type": []},
    {"role": {}},
    {"type": "text", "text": 5},
    "\udcff",
]


def _nasty(rng: random.Random, deep_allowed: bool = False) -> Any:
    if deep_allowed and rng.random() < 0.05:
        deep: Any = []
        for _ in range(rng.choice((150, 1_000, 20_000))):
            deep = [deep] if rng.random() < 0.5 else {"a": deep}
        return deep
    return copy.deepcopy(rng.choice(_NASTY))


def _containers(value: Any) -> list[Any]:
    found: list[Any] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            found.append(node)
            stack.extend(node.values() if isinstance(node, dict) else node)
    return found


def mutate_json(value: Any, rng: random.Random, steps: int = 3, deep: bool = True) -> Any:
    """A copy of a JSON value with a few random changes: a field replaced by a value of another
    JSON type (huge numbers, deep nesting, wrong types), removed, duplicated, or a list cut."""
    value = copy.deepcopy(value)
    count = rng.randint(1, steps)
    for step in range(count):
        last = deep and step == count - 1  # deep nesting goes in last: nothing copies it later
        containers = _containers(value)
        if not containers:
            return _nasty(rng, last)
        node = rng.choice(containers)
        if isinstance(node, dict) and node:
            key = rng.choice(list(node))
            action = rng.random()
            if action < 0.6:
                node[key] = _nasty(rng, last)
            elif action < 0.8:
                del node[key]
            else:
                node[key] = copy.deepcopy(rng.choice(containers))
        elif isinstance(node, list) and node:
            index = rng.randrange(len(node))
            action = rng.random()
            if action < 0.5:
                node[index] = _nasty(rng, last)
            elif action < 0.75:
                del node[index:]
            else:
                node.insert(index, copy.deepcopy(node[index]))
    return value


def mutate_events(events: list[Event], rng: random.Random) -> list[Any]:
    """A copy of an event sequence mutated as a broken network or a hostile server would:
    events changed, dropped, duplicated, swapped, or the stream cut short."""
    out: list[Any] = copy.deepcopy(events)  # before any mutation: nothing deep to copy yet
    count = rng.randint(1, 3)
    for step in range(count):
        if not out:
            break
        action = rng.random()
        index = rng.randrange(len(out))
        if action < 0.55:
            out[index] = mutate_json(out[index], rng, deep=step == count - 1)
        elif action < 0.65:
            del out[index]
        elif action < 0.75:
            out.insert(index, out[index])  # the same event twice (never deep-copied)
        elif action < 0.9:
            other = rng.randrange(len(out))
            out[index], out[other] = out[other], out[index]
        else:
            del out[index:]
    return out


# -- the property ------------------------------------------------------------------------------


def only_library_errors(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call``; return the `MediaBlocksError` it raised (or None).

    Any other exception is re-raised (the test fails on it), and so is a run whose peak memory
    passes `MEMORY_BOUND` (an index read from the input sized something).
    """
    tracemalloc.start()
    try:
        call()
    except mb.MediaBlocksError as exc:
        return exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        if peak > MEMORY_BOUND:
            raise AssertionError(f"peak memory {peak} bytes")
    return None


def decode_target(provider: str, payload: Any) -> Callable[[], Any]:
    """``mb.decode`` of a payload, as a call."""
    return lambda: mb.decode(payload, provider)


def fold_target(provider: str, events: list[Any]) -> Callable[[], Any]:
    """Folding events (then reading the message), as a call."""

    def run() -> Any:
        accumulator = mb.StreamAccumulator(provider)
        for event in events:
            accumulator.add(event)
        return accumulator.message()

    return run


__all__ = [
    "MEMORY_BOUND",
    "PROVIDERS",
    "STREAMS",
    "assert_fold_equals_whole",
    "assert_round_trip",
    "assert_sdk_types",
    "decode_target",
    "fold_target",
    "mutate_events",
    "mutate_json",
    "only_library_errors",
    "payload_seeds",
    "request_seed",
    "response_seed",
    "sample_history",
]
