"""Replies come back from `decode_response` then `encode_response` as the provider sent them,
with every field real responses carry; stop reasons and usage fields are read, not guessed."""

from __future__ import annotations

import copy
from typing import Any

from tests.conftest import make_pdf

import mediablocks as mb


def _round_trip(body: dict[str, Any], provider: str) -> dict[str, Any]:
    return mb.encode_response(mb.decode_response(copy.deepcopy(body), provider), provider)


# -- Gemini -----------------------------------------------------------------------------------


def _candidate(text: str, **fields: Any) -> dict[str, Any]:
    return {"content": {"role": "model", "parts": [{"text": text}]}, **fields}


def test_a_second_gemini_candidate_is_kept_not_dropped() -> None:
    body = {
        "candidates": [
            _candidate("one", finishReason="STOP", index=0),
            _candidate("two", finishReason="STOP", index=1),
        ],
        "modelVersion": "gemini-2.5-flash",
    }
    reply = mb.decode_response(body, "gemini")
    assert reply.text == "one"
    assert _round_trip(body, "gemini") == body


def test_gemini_envelopes_go_back_as_they_came() -> None:
    bodies = [
        {"candidates": [_candidate("x")], "createTime": "2025-09-03T14:12:08Z"},
        {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]},
        {"candidates": [{"finishReason": "SAFETY", "index": 0}], "promptFeedback": {}},
        {"promptFeedback": {"blockReason": "SAFETY"}},
        {"candidates": [], "promptFeedback": {"blockReason": "OTHER"}},
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f"}}]}}]},
    ]
    for body in bodies:
        assert _round_trip(body, "gemini") == body


def test_vertex_model_armor_and_blocked_prompts_are_filters_or_refusals() -> None:
    armored = {"candidates": [_candidate("", finishReason="MODEL_ARMOR")]}
    armor = mb.decode_response(armored, "gemini")
    assert (armor.stop_reason, armor.provider_stop_reason) == ("content_filter", "MODEL_ARMOR")
    jailbreak = mb.decode_response({"promptFeedback": {"blockReason": "JAILBREAK"}}, "gemini")
    assert (jailbreak.stop_reason, jailbreak.provider_stop_reason) == ("refusal", "JAILBREAK")
    blocked = mb.decode_response({"promptFeedback": {"blockReason": "MODEL_ARMOR"}}, "gemini")
    assert blocked.stop_reason == "content_filter"


def test_a_pdf_filename_goes_to_gemini_as_the_blobs_display_name() -> None:
    pdf = mb.FileBlock.from_bytes(make_pdf(), filename="report.pdf")
    messages = [mb.UserMessage(content=[mb.TextBlock(text="read"), pdf])]
    blob = mb.encode(messages, "gemini", target="json")["contents"][0]["parts"][1]["inlineData"]
    assert blob["displayName"] == "report.pdf"
    [back] = mb.decode(mb.encode(messages, "gemini"), "gemini")
    assert isinstance(back.content[1], mb.FileBlock)
    assert back.content[1].filename == "report.pdf"
