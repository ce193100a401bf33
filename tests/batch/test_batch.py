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
from tests.conftest import check_typed_dict, make_pdf, make_png, make_wav


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
    requests = [*_requests(png)[:2], ([mb.UserMessage.text("Say hi")], {"stop": ["\n"]})]
    requests.append([mb.UserMessage(content=[mb.FileBlock.from_bytes(pdf)])])
    path = tmp_path / "batch.jsonl"
    mb.write_batch(requests, "anthropic", path, model="claude-sonnet-4-5", max_tokens=256)
    lines = _lines(path)
    assert len(lines) == 4
    assert lines[2]["params"]["stop_sequences"] == ["\n"]
    for line in lines:
        check_typed_dict(Request, line)  # {"custom_id", "params"} with params typed by the SDK
    assert lines[0]["params"]["system"] == "Be brief."
    source = lines[0]["params"]["messages"][0]["content"][1]["source"]
    assert base64.b64decode(source["data"]) == png
    assert (
        base64.b64decode(lines[3]["params"]["messages"][0]["content"][0]["source"]["data"]) == pdf
    )
    # the installed SDK's MessageCreateParams has no temperature: refused when writing
    with pytest.raises(mb.UnsupportedSettingError, match=r"batch request 2 .*temperature"):
        mb.write_batch(_requests(png), "anthropic", path, model="m", max_tokens=5)


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


def _stray(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_full_disk_at_the_final_flush_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from mediablocks.batch import _output as _batch_output

    path = tmp_path / "b.jsonl"
    path.write_bytes(b"old batch\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_batch_output.os, "fsync", full)
    with pytest.raises(mb.SourceError, match="No space left"):
        mb.write_batch([[mb.UserMessage.text("hi")]], "openai", path, model="m")
    assert path.read_bytes() == b"old batch\n"
    assert _stray(tmp_path) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_device_that_is_full_gives_source_error_and_stays() -> None:
    big = [[mb.UserMessage.text("x" * 70_000)]]
    with pytest.raises(mb.SourceError, match="No space left"):
        mb.write_batch(big, "openai", "/dev/full", model="m")
    assert Path("/dev/full").is_char_device()


def test_a_failed_batch_never_removes_a_fifo_or_an_existing_file(tmp_path: Path) -> None:
    import os
    import stat
    import threading

    audio = mb.AudioBlock.from_bytes(make_wav())
    bad = [[mb.UserMessage.text("fine")], [mb.UserMessage(content=[audio])]]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    with pytest.raises(mb.UnsupportedBlockError):
        mb.write_batch(bad, "anthropic", fifo, model="m", max_tokens=5)
    reader.join(10)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got
    assert got[0].count(b"\n") == 1  # the first line went straight to the reader

    existing = tmp_path / "kept.jsonl"
    existing.write_bytes(b"previous\n")
    with pytest.raises(mb.UnsupportedBlockError):
        mb.write_batch(bad, "anthropic", existing, model="m", max_tokens=5)
    assert existing.read_bytes() == b"previous\n"
    assert _stray(tmp_path) == []


def test_a_symlinked_target_is_replaced_behind_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    mb.write_batch([[mb.UserMessage.text("hi")]], "openai", link, model="m")
    assert link.is_symlink()
    assert json.loads(real.read_bytes())["custom_id"] == "request-0"


def test_a_batch_rolls_over_to_numbered_files_at_the_limits(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    requests = [[mb.UserMessage.text(f"q{n}")] for n in range(5)]
    ids = mb.write_batch(requests, "openai", path, model="m", max_requests=2)
    assert ids == [f"request-{n}" for n in range(5)]
    names = ["b-001.jsonl", "b-002.jsonl", "b-003.jsonl"]
    assert [Path(p).name for p, _ in ids.files] == names
    assert [len(part) for _, part in ids.files] == [2, 2, 1]
    assert not path.exists()
    for (file, part), name in zip(ids.files, names, strict=True):
        assert [line["custom_id"] for line in _lines(tmp_path / name)] == part
        assert Path(file) == tmp_path / name

    one = (tmp_path / "b-003.jsonl").stat().st_size  # the size of one line
    by_bytes = mb.write_batch(requests, "openai", tmp_path / "s.jsonl", model="m", max_bytes=one)
    assert len(by_bytes.files) == 5
    assert mb.write_batch(requests, "openai", path, model="m").files == [(str(path), ids)]

    with pytest.raises(mb.TooLargeError, match="rolls over"):
        mb.write_batch(requests, "openai", io.BytesIO(), model="m", max_requests=2)
    with pytest.raises(mb.TooLargeError, match="request 0"):
        mb.write_batch(requests, "openai", path, model="m", max_bytes=10)
    with pytest.raises(mb.InvalidOptionError, match="max_requests"):
        mb.write_batch(requests, "openai", path, model="m", max_requests=0)
    assert _stray(tmp_path) == []


@pytest.mark.parametrize(
    ("provider", "fields", "missing"),
    [
        ("openai-chat", {}, "model"),
        ("openai-responses", {"max_tokens": 5}, "model"),
        ("anthropic", {"max_tokens": 5}, "model"),
        ("anthropic", {"model": "m"}, "max_tokens"),
        ("anthropic-bedrock", {}, "max_tokens"),
    ],
)
def test_a_line_missing_a_required_field_is_refused_when_writing(
    provider: str, fields: dict[str, Any], missing: str, tmp_path: Path
) -> None:
    path = tmp_path / "b.jsonl"
    with pytest.raises(mb.InvalidOptionError, match=rf"batch request 0 .*need {missing}\b"):
        mb.write_batch([[mb.UserMessage.text("hi")]], provider, path, **fields)
    assert not path.exists()
    # a per-request field fills it in
    pair = ([mb.UserMessage.text("hi")], {"model": "m", "max_tokens": 5})
    mb.write_batch([pair], provider, path)
    assert len(_lines(path)) == 1


def _converse_shape() -> Any:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").input_shape


def _check_bedrock(body: dict[str, Any]) -> None:
    from botocore.validate import ParamValidator

    report = ParamValidator().validate({"modelId": "m", **body}, _converse_shape())
    assert not report.has_errors(), report.generate_report()


_GEMINI_PARTS = {
    "contents": "Content",
    "systemInstruction": "Content",
    "tools": "Tool",
    "toolConfig": "ToolConfig",
    "generationConfig": "GenerationConfig",
}


def _check_gemini(request: dict[str, Any]) -> None:
    """Each field of a REST GenerateContentRequest against google-genai's own model for it
    (they forbid unknown keys), and no field the request does not have."""
    from google.genai import types

    assert set(request) <= set(_GEMINI_PARTS), set(request) - set(_GEMINI_PARTS)
    for key, value in request.items():
        model = getattr(types, _GEMINI_PARTS[key])
        for item in value if isinstance(value, list) else [value]:
            model.model_validate(item)


def _check_line(provider: str, line: dict[str, Any]) -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from anthropic.types.messages.batch_create_params import Request
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    if provider == "openai-chat":
        check_typed_dict(CompletionCreateParamsNonStreaming, line["body"])
    elif provider == "openai-responses":
        check_typed_dict(ResponseCreateParamsNonStreaming, line["body"])
    elif provider == "anthropic":
        check_typed_dict(Request, line)
    elif provider == "gemini":
        assert set(line) == {"key", "request"}
        _check_gemini(line["request"])
    elif provider == "bedrock":
        assert set(line) == {"recordId", "modelInput"}
        _check_bedrock(line["modelInput"])
    else:
        body = {k: v for k, v in line["modelInput"].items() if k != "anthropic_version"}
        assert line["modelInput"]["anthropic_version"] == "bedrock-2023-05-31"
        check_typed_dict(MessageCreateParamsNonStreaming, {"model": "m", **body})


@pytest.mark.parametrize("provider", mb.batch.BATCH_PROVIDERS)
def test_every_format_with_tools_and_settings_passes_the_sdk_types(
    provider: str, tmp_path: Path
) -> None:
    """A real mb.Request with tools, tool choice and settings, plus keyword settings: every
    line of every format passes its SDK's types, nested keys included."""
    tool = mb.Tool(
        name="lookup_city",
        description="Find a city",
        parameters={
            "type": "object",
            "properties": {
                "city_name": {"type": "string"},
                "filters": {"type": "object", "properties": {"min_pop": {"type": "integer"}}},
            },
            "required": ["city_name"],
        },
    )
    request = mb.Request(
        messages=[
            mb.SystemMessage.text("Be brief."),
            mb.UserMessage.with_images("Which city?", [mb.ImageBlock.from_bytes(make_png())]),
        ],
        tools=[tool],
        tool_choice="auto",
        settings=mb.Settings(max_tokens=64, stop=None if provider == "openai-responses" else ["E"]),
        model="model-in-request",
    )
    path = tmp_path / "b.jsonl"
    extra = {"top_p": 0.9} if provider.startswith(("openai", "gemini", "bedrock")) else {}
    in_line = provider in ("openai-chat", "openai-responses", "anthropic")
    plain = ([mb.UserMessage.text("plain")], {"model": "m"} if in_line else {})
    mb.write_batch([request, plain], provider, path, max_tokens=32, **extra)
    lines = _lines(path)
    assert len(lines) == 2
    for line in lines:
        _check_line(provider, line)
    if in_line:
        body = lines[0]["body" if provider.startswith("openai") else "params"]
        assert body["model"] == "model-in-request"
        assert body["tools"]


@pytest.mark.parametrize("provider", ["gemini", "bedrock"])
def test_temperature_goes_where_gemini_and_bedrock_take_it(provider: str, tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    requests = [[mb.UserMessage.text("hi")], ([mb.UserMessage.text("yo")], {"temperature": 0.2})]
    mb.write_batch(requests, provider, path, temperature=0.7, max_tokens=20)
    lines = _lines(path)
    for line in lines:
        _check_line(provider, line)
    if provider == "gemini":
        configs = [line["request"]["generationConfig"] for line in lines]
        assert configs[0] == {"temperature": 0.7, "maxOutputTokens": 20}
        assert configs[1]["temperature"] == 0.2
    else:
        configs = [line["modelInput"]["inferenceConfig"] for line in lines]
        assert configs[0] == {"temperature": 0.7, "maxTokens": 20}
        assert configs[1]["temperature"] == 0.2


def test_the_sdk_type_check_refuses_unknown_nested_keys() -> None:
    """tests/conftest.check_typed_dict looks at every depth, not only the top level."""
    from anthropic.types.messages.batch_create_params import Request

    good = {
        "custom_id": "a",
        "params": {
            "model": "m",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        },
    }
    check_typed_dict(Request, good)
    nested = json.loads(json.dumps(good))
    nested["params"]["messages"][0]["content"][0]["bogus"] = 1
    with pytest.raises(AssertionError, match=r"content\[0\]: TextBlockParam has no key"):
        check_typed_dict(Request, nested)
    message = json.loads(json.dumps(good))
    message["params"]["messages"][0]["name"] = "x"
    with pytest.raises(AssertionError, match=r"messages\[0\]: \w*MessageParam has no key"):
        check_typed_dict(Request, message)


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "openai-responses", "bedrock"])
def test_a_line_holds_only_what_encode_would_send(provider: str, tmp_path: Path) -> None:
    """A batch line goes through encode's checks: a history encode refuses is refused here too,
    naming the request; one it takes gives the same messages."""
    refused = [
        mb.UserMessage.text("hi"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="", name="f", args={})]),
        mb.ToolMessage(
            content=[mb.ToolResultBlock(tool_call_id="", content=[mb.TextBlock(text="r")])]
        ),
    ]
    with pytest.raises(mb.UnsupportedBlockError) as by_encode:
        mb.encode(refused, provider)
    path = tmp_path / "batch.jsonl"
    with pytest.raises(mb.UnsupportedBlockError, match=r"^batch request 0 \('r0'\)") as by_batch:
        mb.write_batch([(refused, {})], provider, path, model="m", max_tokens=5, ids=["r0"])
    assert by_batch.value.code == by_encode.value.code
    assert str(by_encode.value) in str(by_batch.value)
