"""Recorded traffic, mutated as a hostile client or server would: decoding a request or a reply
and writing it back (to its own provider and to another) raises nothing but a
`MediaBlocksError`, whatever the change; and the schema translation a decoded Gemini tool goes
through settles in one step."""

from __future__ import annotations

import random
import warnings
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.providers.kit import mutate_events, mutate_json, only_library_errors
from tests.providers.traffic.roundtrip import cases

import mediablocks as mb
from mediablocks.providers._report import DroppedWarning
from mediablocks.providers._schema import portable_schema

SEEDS = [case for case in cases() if case.expected is None]
OTHER = {"anthropic": "openai-chat", "gemini": "anthropic", "openai-chat": "gemini"}


def _request_trip(body: Any, provider: str) -> None:
    request = mb.decode_request(body, provider)
    mb.encode_request(request, provider, target="json")
    other = OTHER.get(provider, "openai-responses")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedWarning)  # drops are the point here
        mb.encode_request(request, other, target="json", unsupported="drop")


def _reply_trip(body: Any, provider: str) -> None:
    reply = mb.decode_response(body, provider)
    mb.encode_response(reply, provider)
    mb.encode_response(reply, OTHER.get(provider, "openai-chat"))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(SEEDS) - 1), st.integers(0, 2**32 - 1))
def test_mutated_recorded_traffic_raises_only_library_errors(index: int, seed: int) -> None:
    case = SEEDS[index]
    rng = random.Random(seed)
    if case.kind == "stream":
        events = mutate_events(case.body["events"], rng)
        only_library_errors(lambda: mb.from_stream(events, case.provider))
        return
    body = mutate_json(case.body, rng)
    trip = _request_trip if case.kind == "request" else _reply_trip
    only_library_errors(lambda: trip(body, case.provider))


_TYPES = ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "string", "object"]


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.fixed_dictionaries(
        {"type": st.sampled_from(_TYPES)},
        optional={"nullable": st.booleans(), "description": st.text(max_size=5)},
    )

    def extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["OBJECT", "object"])},
                optional={
                    "properties": st.dictionaries(st.sampled_from(["a", "b", "type"]), children),
                    "nullable": st.booleans(),
                },
            ),
            st.fixed_dictionaries({"type": st.just("ARRAY"), "items": children}),
            st.fixed_dictionaries({"anyOf": st.lists(children, max_size=3)}),
        )

    return st.recursive(leaf, extend, max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(_schemas())
def test_a_gemini_schema_becomes_json_schema_in_one_step(schema: dict[str, Any]) -> None:
    once = portable_schema(schema)
    assert portable_schema(once) == once
    text = str(once)
    assert "'nullable': True" not in text or "anyOf" not in text
    for name in ("'OBJECT'", "'STRING'", "'ARRAY'"):
        assert name not in text
