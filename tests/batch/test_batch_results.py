"""read_batch_results: ids to decoded replies, per-line errors reported and never raised.

Each fixture line is written in the provider's documented results format and first checked
against the SDK's own result type, so the lines are the shapes the providers send.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )
    return path


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4.1-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
    }


def test_openai_results(tmp_path: Path) -> None:
    from openai.types.chat import ChatCompletion

    ok = {
        "id": "batch_req_1",
        "custom_id": "request-0",
        "response": {"status_code": 200, "request_id": "r1", "body": _completion("Blue.")},
        "error": None,
    }
    ChatCompletion.model_validate(ok["response"]["body"])  # type: ignore[index]
    refused = {
        "id": "batch_req_2",
        "custom_id": "request-1",
        "response": {
            "status_code": 400,
            "request_id": "r2",
            "body": {"error": {"message": "Invalid image", "type": "invalid_request_error"}},
        },
        "error": None,
    }
    failed = {
        "id": "batch_req_3",
        "custom_id": "request-2",
        "response": None,
        "error": {"code": "batch_expired", "message": "This request could not be executed"},
    }
    path = _write(tmp_path / "out.jsonl", [ok, refused, "{not json", failed])
    results = mb.read_batch_results(path, "openai")
    assert [r.id for r in results] == ["request-0", "request-1", None, "request-2"]
    assert results[0].ok
    assert results[0].message is not None
    assert results[0].message.text == "Blue."
    assert "HTTP 400" in str(results[1].error)
    assert "Invalid image" in str(results[1].error)
    assert results[2].line == 3
    assert "not JSON" in str(results[2].error)
    assert results[3].error == "batch_expired: This request could not be executed"
    assert [r.id for r in mb.read_batch_results(path, "openai", on="ok")] == ["request-0"]
    assert len(mb.read_batch_results(path, "openai", on="errors")) == 3


def test_anthropic_results(tmp_path: Path) -> None:
    from anthropic.types.messages import MessageBatchIndividualResponse

    ok = {
        "custom_id": "a",
        "result": {
            "type": "succeeded",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Red."}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 2},
            },
        },
    }
    errored = {
        "custom_id": "b",
        "result": {
            "type": "errored",
            "error": {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "max_tokens: too large"},
            },
        },
    }
    expired = {"custom_id": "c", "result": {"type": "expired"}}
    for line in (ok, errored, expired):
        MessageBatchIndividualResponse.model_validate(line)
    path = _write(tmp_path / "results.jsonl", [ok, errored, expired, "[1]"])
    results = mb.read_batch_results(path, "anthropic")
    assert results[0].message is not None
    assert results[0].message.text == "Red."
    assert results[1].error == "invalid_request_error: max_tokens: too large"
    assert results[2].error == "expired"
    assert results[3].error == "line 4 is not a JSON object"


def test_gemini_results(tmp_path: Path) -> None:
    from google.genai import types

    response = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Green."}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
    }
    types.GenerateContentResponse.model_validate(response)
    failed = {"key": "y", "status": {"code": 3, "message": "Unsupported MIME type"}}
    path = _write(tmp_path / "out.jsonl", [{"key": "x", "response": response}, failed])
    results = mb.read_batch_results(path, "gemini")
    assert results[0].id == "x"
    assert results[0].message is not None
    assert results[0].message.text == "Green."
    assert results[1].id == "y"
    assert results[1].error == "3: Unsupported MIME type"


def test_bedrock_results_converse_and_claude_outputs(tmp_path: Path) -> None:
    nova = {
        "recordId": "CALL0000001",
        "modelInput": {"messages": []},
        "modelOutput": {
            "output": {"message": {"role": "assistant", "content": [{"text": "Teal."}]}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 5, "outputTokens": 1, "totalTokens": 6},
        },
    }
    claude = {
        "recordId": "CALL0000002",
        "modelInput": {},
        "modelOutput": {
            "id": "msg_bdrk_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Navy."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        },
    }
    error = {
        "recordId": "CALL0000003",
        "modelInput": {},
        "error": {"errorCode": 400, "errorMessage": "Malformed input request"},
    }
    path = _write(tmp_path / "in.jsonl.out", [nova, claude, error])
    results = mb.read_batch_results(path, "bedrock")
    assert [r.message.text if r.message else None for r in results] == ["Teal.", "Navy.", None]
    assert results[2].error == "400: Malformed input request"
    again = mb.read_batch_results(path, "anthropic-bedrock")
    assert [r.message.text if r.message else None for r in again] == ["Teal.", "Navy.", None]


def test_a_reply_that_cannot_be_decoded_is_a_line_error(tmp_path: Path) -> None:
    line = {"custom_id": "a", "result": {"type": "succeeded", "message": {"content": 7}}}
    results = mb.read_batch_results(_write(tmp_path / "r.jsonl", [line]), "anthropic")
    assert results[0].id == "a"
    assert results[0].message is None
    assert str(results[0].error).startswith("line 1: ")


def test_round_trip_with_write_batch_ids(tmp_path: Path) -> None:
    ids = mb.write_batch(
        [[mb.UserMessage.text("hi")], [mb.UserMessage.text("bye")]],
        "openai",
        tmp_path / "in.jsonl",
        model="m",
    )
    lines = [
        {"custom_id": i, "response": {"status_code": 200, "body": _completion(i)}, "error": None}
        for i in reversed(ids)  # results come back in any order
    ]
    results = mb.read_batch_results(_write(tmp_path / "out.jsonl", lines), "openai")
    by_id = {r.id: r.message.text for r in results if r.message}
    assert by_id == {i: i for i in ids}


def test_missing_file_and_unknown_format_raise(tmp_path: Path) -> None:
    with pytest.raises(mb.SourceError):
        mb.read_batch_results(tmp_path / "none.jsonl", "openai")
    with pytest.raises(mb.InvalidOptionError):
        mb.read_batch_results(tmp_path / "none.jsonl", "mistral")


def _good(rid: str) -> dict[str, Any]:
    return {"custom_id": rid, "response": {"status_code": 200, "body": _completion(rid)}}


def test_bad_lines_are_line_errors_and_the_rest_is_read(tmp_path: Path) -> None:
    deep = '{"custom_id": "d", "response": ' + "[" * 100_000 + "]" * 100_000 + "}"
    inner_deep = {"custom_id": "n", "response": {"status_code": 200, "body": _completion("x")}}
    nested: Any = "end"
    for _ in range(500):
        nested = {"k": nested}
    inner_deep["response"]["body"]["choices"][0]["message"]["tool_calls"] = [nested]
    lines = [
        _good("a"),
        deep,
        "x" * 400_000,  # longer than the limit below
        "{not json",
        inner_deep,
        '"just a string"',
        _good("b"),
    ]
    results = mb.read_batch_results(
        _write(tmp_path / "r.jsonl", lines), "openai", max_line_bytes=300_000
    )
    assert [r.line for r in results] == [1, 2, 3, 4, 5, 6, 7]
    assert [r.ok for r in results] == [True, False, False, False, False, False, True]
    assert [r.message.text for r in results if r.message] == ["a", "b"]
    assert "nested more than" in str(results[1].error)
    assert "longer than max_line_bytes" in str(results[2].error)
    assert "is not JSON" in str(results[3].error)
    assert "nested more than" in str(results[4].error)
    assert "not a JSON object" in str(results[5].error)


def test_a_decoder_failure_of_any_kind_is_a_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mediablocks.batch import results as batch_results

    def broken(payload: Any, provider: str) -> Any:
        raise KeyError("surprise")

    monkeypatch.setattr(batch_results, "decode_response", broken)
    results = mb.read_batch_results(_write(tmp_path / "r.jsonl", [_good("a")]), "openai")
    assert results[0].id == "a"
    assert "KeyError" in str(results[0].error)
    with pytest.raises(mb.InvalidOptionError, match="max_line_bytes"):
        mb.read_batch_results(tmp_path / "r.jsonl", "openai", max_line_bytes=0)


@settings(max_examples=60, deadline=None)
@given(junk=st.lists(st.binary(max_size=3000), max_size=5))
def test_no_junk_line_escapes_or_hides_a_good_line(junk: list[bytes]) -> None:
    """Whatever bytes surround it, the good line is read and nothing raises."""
    import tempfile

    body = b"".join(j.replace(b"\n", b" ") + b"\n" for j in junk)
    good = json.dumps(_good("g")).encode() + b"\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.jsonl"
        path.write_bytes(body + good + body)
        results = mb.read_batch_results(path, "openai", max_line_bytes=2000)
    assert [r.id for r in results if r.ok] == ["g"]
