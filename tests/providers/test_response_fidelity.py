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


# -- OpenAI Chat and Responses ----------------------------------------------------------------


def test_openai_chat_replies_keep_their_envelope() -> None:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1727346158,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi", "refusal": None, "audio": None},
                "logprobs": {"content": []},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        "system_fingerprint": "fp_1",
        "service_tier": "default",
    }
    assert _round_trip(body, "openai-chat") == body
    reply = mb.decode_response(body, "openrouter")
    assert int(reply.timestamp.timestamp()) == 1727346158
    assert mb.encode_response(reply, "openrouter") == body


def test_a_chat_refusal_is_a_refusal() -> None:
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": "I can't."},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
    }
    reply = mb.decode_response(body, "openai-chat")
    assert (reply.stop_reason, reply.provider_stop_reason) == ("refusal", "stop")
    assert _round_trip(body, "openai-chat") == body


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1741476542,
        "status": "completed",
        "model": "gpt-5",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "reasoning": {"effort": None, "summary": None},
        "store": True,
    }


def test_a_responses_refusal_is_written_as_refusal_content() -> None:
    refusal = {"type": "refusal", "refusal": "I can't help with that."}
    body = _response([{"type": "message", "role": "assistant", "content": [refusal]}])
    reply = mb.decode_response(body, "openai-responses")
    assert reply.stop_reason == "refusal"
    [item] = mb.encode_response(reply, "openai-responses")["output"]
    assert item["content"] == [refusal]


def test_responses_annotations_survive_an_item_without_id() -> None:
    note = {"type": "url_citation", "url": "https://x.org", "start_index": 0, "end_index": 3}
    text = {"type": "output_text", "text": "See", "annotations": [note]}
    body = _response([{"type": "message", "role": "assistant", "content": [text]}])
    [item] = mb.encode_response(mb.decode_response(body, "openai-responses"), "openai-responses")[
        "output"
    ]
    assert item["content"] == [text]


def test_responses_replies_keep_every_echoed_field() -> None:
    item = {
        "type": "message",
        "id": "msg_1",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}],
    }
    body = _response([item, {"type": "file_search_call", "id": "fs_1", "results": None}])
    assert _round_trip(body, "openai-responses") == body


def test_cache_writes_groq_stream_usage_and_deepseek_cache_fields_are_read_and_written() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "total_tokens": 105,
        "prompt_tokens_details": {"cached_tokens": 40, "cache_write_tokens": 30},
    }
    body = {
        "id": "gen-1",
        "object": "chat.completion",
        "created": 1,
        "model": "anthropic/claude",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi"},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }
    reply = mb.decode_response(body, "openrouter")
    assert reply.usage is not None
    assert (reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (40, 30)
    plain = reply.model_copy(update={"provider": "anthropic"})
    written = mb.encode_response(plain, "openai-chat")["usage"]["prompt_tokens_details"]
    assert written == {"cached_tokens": 40, "cache_write_tokens": 30}
    deepseek = mb.encode_response(plain, "deepseek")["usage"]
    assert (deepseek["prompt_cache_hit_tokens"], deepseek["prompt_cache_miss_tokens"]) == (40, 30)
    chunks = [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "model": "llama",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}],
            "x_groq": {"id": "req_1"},
        },
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "model": "llama",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "x_groq": {"id": "req_1", "usage": {"prompt_tokens": 7, "completion_tokens": 1}},
        },
    ]
    folded = mb.from_stream(chunks, "groq")
    assert folded.usage is not None
    assert (folded.usage.input_tokens, folded.usage.output_tokens) == (7, 1)
