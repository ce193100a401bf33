"""write_batch: every line valid for its provider's batch format (SDK types where they exist)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb

from .conftest import check_typed_dict, make_pdf, make_png, make_wav


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _requests(png: bytes) -> list[Any]:
    return [
        [
            mb.SystemMessage.text("Be brief."),
            mb.UserMessage.with_images("What colour?", [mb.ImageBlock.from_bytes(png)]),
        ],
        mb.UserMessage.text("Hello"),
        ([mb.UserMessage.text("Say hi in French")], {"temperature": 0.5}),
    ]


def test_openai_chat_lines_are_batch_requests_with_sdk_bodies(tmp_path: Path) -> None:
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    png = make_png()
    path = tmp_path / "batch.jsonl"
    ids = mb.write_batch(_requests(png), "openai", path, model="gpt-4.1-mini", max_tokens=50)
    assert ids == ["request-0", "request-1", "request-2"]
    lines = _lines(path)
    assert [line["custom_id"] for line in lines] == ids
    for line in lines:
        assert set(line) == {"custom_id", "method", "url", "body"}
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        check_typed_dict(CompletionCreateParamsNonStreaming, line["body"])
        assert line["body"]["model"] == "gpt-4.1-mini"
    url = lines[0]["body"]["messages"][1]["content"][1]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == png
    assert lines[2]["body"]["temperature"] == 0.5


def test_openai_responses_lines(tmp_path: Path) -> None:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    path = tmp_path / "batch.jsonl"
    mb.write_batch(_requests(make_png()), "openai-responses", path, ids=["a", "b", "c"], model="m")
    for line in _lines(path):
        assert line["url"] == "/v1/responses"
        check_typed_dict(ResponseCreateParamsNonStreaming, line["body"])


def test_anthropic_lines_are_message_batch_requests(tmp_path: Path) -> None:
    from anthropic.types.messages.batch_create_params import Request

    png, pdf = make_png(), make_pdf()
    requests = [*_requests(png), [mb.UserMessage(content=[mb.FileBlock.from_bytes(pdf)])]]
    path = tmp_path / "batch.jsonl"
    mb.write_batch(requests, "anthropic", path, model="claude-sonnet-4-5", max_tokens=256)
    lines = _lines(path)
    assert len(lines) == 4
    for line in lines:
        check_typed_dict(Request, line)  # {"custom_id", "params"} with params typed by the SDK
    assert lines[0]["params"]["system"] == "Be brief."
    source = lines[0]["params"]["messages"][0]["content"][1]["source"]
    assert base64.b64decode(source["data"]) == png
    assert (
        base64.b64decode(lines[3]["params"]["messages"][0]["content"][0]["source"]["data"]) == pdf
    )


def test_gemini_lines_hold_rest_requests(tmp_path: Path) -> None:
    from google.genai import types

    png = make_png()
    path = tmp_path / "batch.jsonl"
    requests = _requests(png)
    requests[2] = (requests[2][0], {"generationConfig": {"temperature": 0.5}})
    mb.write_batch(requests, "gemini", path, ids=iter(["x", "y", "z"]))
    lines = _lines(path)
    assert [line["key"] for line in lines] == ["x", "y", "z"]
    for line in lines:
        assert set(line) == {"key", "request"}
        for content in line["request"]["contents"]:
            types.Content.model_validate(content)
    part = lines[0]["request"]["contents"][0]["parts"][1]
    assert base64.b64decode(part["inlineData"]["data"]) == png
    assert lines[0]["request"]["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert lines[2]["request"]["generationConfig"] == {"temperature": 0.5}


def test_bedrock_lines_in_converse_and_anthropic_form(tmp_path: Path) -> None:
    import botocore.session
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from botocore.validate import ParamValidator

    converse = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = converse.operation_model("Converse").input_shape
    png = make_png()
    path = tmp_path / "batch.jsonl"
    requests = _requests(png)[:2]
    mb.write_batch(requests, "bedrock", path, ids=["CALL0000001", "CALL0000002"])
    lines = _lines(path)
    for line in lines:
        assert set(line) == {"recordId", "modelInput"}
        report = ParamValidator().validate({"modelId": "m", **line["modelInput"]}, shape)
        assert not report.has_errors(), report.generate_report()
    image = lines[0]["modelInput"]["messages"][0]["content"][1]["image"]
    assert base64.b64decode(image["source"]["bytes"]) == png

    mb.write_batch(requests, "bedrock", path, bedrock_format="anthropic", max_tokens=100)
    same = tmp_path / "same.jsonl"
    mb.write_batch(requests, "anthropic-bedrock", same, max_tokens=100)
    assert _lines(same) == _lines(path)
    for line in _lines(path):
        body = line["modelInput"]
        assert body["anthropic_version"] == "bedrock-2023-05-31"
        assert body["max_tokens"] == 100
        params = {k: v for k, v in body.items() if k != "anthropic_version"}
        check_typed_dict(MessageCreateParamsNonStreaming, {"model": "m", **params})


def test_a_generator_is_streamed_to_a_file_object() -> None:
    png = make_png()
    seen: list[int] = []

    def requests() -> Iterator[list[mb.Message]]:
        for number in range(5):
            seen.append(number)
            yield [mb.UserMessage.with_images(f"image {number}", [mb.ImageBlock.from_bytes(png)])]

    out = io.BytesIO()
    ids = mb.write_batch(requests(), "anthropic", out, model="m", max_tokens=5)
    assert seen == [0, 1, 2, 3, 4]
    assert len(ids) == 5
    assert out.getvalue().count(b"\n") == 5


def test_request_like_objects_slot_in(tmp_path: Path) -> None:
    from pydantic import BaseModel

    class Request(BaseModel):
        messages: list[Any]
        extra: dict[str, Any] = {}

    path = tmp_path / "b.jsonl"
    mb.write_batch(
        [Request(messages=[mb.UserMessage.text("hi")], extra={"temperature": 0.1})],
        "openai",
        path,
        model="m",
    )
    body = _lines(path)[0]["body"]
    assert body["temperature"] == 0.1
    assert body["messages"][0]["role"] == "user"
    assert body["model"] == "m"


def test_bad_input_raises_before_anything_silent(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    one = [mb.UserMessage.text("hi")]
    with pytest.raises(mb.InvalidOptionError, match="not unique"):
        mb.write_batch([one, one], "openai", path, ids=["a", "a"], model="m")
    with pytest.raises(mb.InvalidOptionError, match="ran out"):
        mb.write_batch([one, one], "openai", path, ids=["a"], model="m")
    with pytest.raises(mb.InvalidOptionError, match="batch providers"):
        mb.write_batch([one], "ollama", path)
    with pytest.raises(mb.InvalidOptionError, match="messages"):
        mb.write_batch([one], "openai", path, messages=[])
    with pytest.raises(mb.DecodeError, match="batch request 0"):
        mb.write_batch([42], "openai", path)
    with pytest.raises(mb.SourceError, match="cannot write"):
        mb.write_batch([one], "openai", tmp_path / "missing" / "b.jsonl")
    with pytest.raises(mb.UnknownProviderError):
        mb.write_batch([one], "nope", path)


def test_a_request_that_cannot_be_carried_raises_and_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    audio = mb.AudioBlock.from_bytes(make_wav())
    requests = [[mb.UserMessage.text("fine")], [mb.UserMessage(content=[audio])]]
    with pytest.raises(mb.UnsupportedBlockError, match="audio"):
        mb.write_batch(requests, "anthropic", path, model="m", max_tokens=5)
    assert not path.exists()


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=4),
    provider=st.sampled_from(["openai", "anthropic", "gemini", "bedrock"]),
    images=st.integers(min_value=0, max_value=2),
)
def test_every_line_decodes_back_to_its_request(
    texts: list[str], provider: str, images: int
) -> None:
    """Each line's request body, read back with mb.decode, holds the same texts and image bytes."""
    pngs = [make_png((4 + n, 3), color=(n * 60, 10, 10)) for n in range(images)]
    requests = [
        [
            mb.UserMessage(
                content=[mb.TextBlock(text=text), *(mb.ImageBlock.from_bytes(p) for p in pngs)]
            )
        ]
        for text in texts
    ]
    out = io.BytesIO()
    fields = {"model": "m", "max_tokens": 5} if provider in ("openai", "anthropic") else {}
    mb.write_batch(requests, provider, out, **fields)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == len(texts)
    body_key = {
        "openai": "body",
        "anthropic": "params",
        "gemini": "request",
        "bedrock": "modelInput",
    }
    for text, line in zip(texts, lines, strict=True):
        (message,) = mb.decode(line[body_key[provider]], provider)
        assert message.text == text
        got = [b.read() for b in message.content if isinstance(b, mb.ImageBlock)]
        assert got == pngs
