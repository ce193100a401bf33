"""Recorded traffic round-trips with its own provider: every request and reply written back is
the recorded body (exactly, or in a form the provider documents as the same), and every stream
folds to its final message. See ``roundtrip.py`` for the round trips and the equivalences, and
``python -m tests.providers.traffic.rates`` for the rates per provider."""

from __future__ import annotations

import json

import pytest
from tests.providers.traffic.roundtrip import HERE, Case, cases, normalised, run

import mediablocks as mb
from mediablocks.providers.registry import PROVIDERS

CASES = list(cases())


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_recorded_traffic_round_trips(case: Case) -> None:
    outcome = run(case)
    if case.expected is None:
        assert outcome.status in ("exact", "equivalent"), outcome.detail
        return
    assert outcome.status == case.expected["outcome"], outcome.detail
    assert case.expected["detail"] in outcome.detail


def test_every_file_says_where_its_bodies_came_from() -> None:
    files = sorted(HERE.glob("*/*.json"))
    assert len(files) >= 40
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["provider"] in PROVIDERS, path
        source = data["source"]
        assert ("url" in source) or {"repository", "path", "commit"} <= set(source), path
        if "commit" in source:
            assert len(source["commit"]) == 40, path
        assert data["note"], path
        assert any(data.get(key) for key in ("requests", "replies", "streams")), path
        for key, expected in data.get("expected", {}).items():
            assert {"outcome", "detail", "why"} == set(expected), (path, key)


def test_the_set_is_large_enough_to_mean_something() -> None:
    counted: dict[str, int] = {}
    for case in CASES:
        counted[case.provider] = counted.get(case.provider, 0) + 1
    for provider in ("openai-chat", "openai-responses", "anthropic", "gemini", "mistral"):
        assert counted.get(provider, 0) >= 20, provider
    assert len(CASES) >= 380


def test_the_equivalences_are_not_blanket_equality() -> None:
    """A normalisation only rewrites documented forms: a real difference stays different."""
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    changed = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    assert normalised("openai-chat", "request", body) != normalised(
        "openai-chat", "request", changed
    )
    as_list = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert normalised("openai-chat", "request", body) == normalised(
        "openai-chat", "request", as_list
    )
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    camel = {"contents": {"role": "user", "parts": {"text": "hi"}}}
    assert normalised("gemini", "request", gemini) == normalised("gemini", "request", camel)
    assert normalised("gemini", "request", gemini) != normalised(
        "gemini", "request", {"contents": [{"role": "model", "parts": [{"text": "hi"}]}]}
    )
    # the round trip compares against the body as recorded: a lossy encoder is caught
    reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "c", "content": []}
    reply |= {"stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1}}
    back = mb.encode_response(mb.decode_response(reply, "anthropic"), "anthropic")
    assert back == reply
