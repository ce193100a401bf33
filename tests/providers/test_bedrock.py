"""The Bedrock Converse translator, checked against botocore's bedrock-runtime service model."""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import botocore.session
import pytest
from botocore.config import Config
from botocore.model import Shape
from botocore.validate import ParamValidator
from tests.conftest import (
    PUBLIC_TESTDATA,
    RouteHandler,
    image_bytes,
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
    serve,
    without_raw,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.bedrock import (
    BYTES_MARKER,
    bedrock_document_name,
    from_bedrock,
    to_bedrock,
)
from mediablocks.sources import Base64Source, BytesSource, FileIdSource

SERVICE = botocore.session.get_session().get_service_model("bedrock-runtime")
CONVERSE = SERVICE.operation_model("Converse")
# Bedrock's own rule for document names (the service model only bounds their length).
DOCUMENT_NAME = re.compile(r"(?:[A-Za-z0-9\-()\[\]]|\s(?!\s))+")


# -- helpers ----------------------------------------------------------------------------------


def validate(request: dict[str, Any]) -> None:
    """botocore's own validation of a Converse call with these fields, plus the constraints of the
    service model that botocore's validator leaves to the server (enums, patterns, lengths,
    unions)."""
    params = {"modelId": "m", **request}
    report = ParamValidator().validate(params, CONVERSE.input_shape)
    assert not report.has_errors(), report.generate_report()
    problems = list(constraint_errors(params, CONVERSE.input_shape, "request"))
    assert not problems, problems


def constraint_errors(value: Any, shape: Shape, path: str) -> Iterator[str]:
    """What the service model forbids and botocore's ParamValidator does not check."""
    meta = shape.metadata
    if shape.type_name == "string" and isinstance(value, str):
        if getattr(shape, "enum", None) and value not in shape.enum:
            yield f"{path}: {value!r} is not one of {shape.enum}"
        if "pattern" in meta and not re.fullmatch(meta["pattern"], value):
            yield f"{path}: {value!r} does not match {meta['pattern']}"
        if len(value) < meta.get("min", 0) or len(value) > meta.get("max", len(value)):
            yield f"{path}: length {len(value)} outside {meta.get('min')}..{meta.get('max')}"
    elif shape.type_name == "blob" and isinstance(value, (bytes, str)):
        size = len(value) if isinstance(value, bytes) else len(base64.b64decode(value))
        if size < meta.get("min", 0):
            yield f"{path}: {size} bytes, fewer than {meta['min']}"
    elif shape.type_name == "structure" and isinstance(value, dict) and not meta.get("document"):
        if meta.get("union") and len(value) != 1:
            yield f"{path}: a union sets {len(value)} members"
        for key, item in value.items():
            if key in shape.members:
                yield from constraint_errors(item, shape.members[key], f"{path}.{key}")
            else:
                yield f"{path}: {shape.name} has no member {key!r}"
    elif shape.type_name == "list" and isinstance(value, list):
        for number, item in enumerate(value):
            yield from constraint_errors(item, shape.member, f"{path}[{number}]")


def test_the_constraint_check_catches_what_botocore_lets_through() -> None:
    request = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"image": {"format": "jpg", "source": {"bytes": b""}}},
                    {"toolUse": {"toolUseId": "a b!", "name": "f", "input": {}}},
                ],
            }
        ]
    }
    report = ParamValidator().validate({"modelId": "m", **request}, CONVERSE.input_shape)
    assert not report.has_errors()  # botocore alone accepts this
    problems = list(constraint_errors(request, CONVERSE.input_shape, "request"))
    assert len(problems) == 3, problems


def blobs(value: Any, shape: Shape, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every value the service model types as a blob, with where it is."""
    if shape.type_name == "blob":
        yield path, value
    elif shape.type_name == "structure" and isinstance(value, dict):
        if shape.metadata.get("document"):
            return
        for key, item in value.items():
            member = shape.members.get(key)
            if member is not None:
                yield from blobs(item, member, f"{path}.{key}")
    elif shape.type_name == "list" and isinstance(value, list):
        for number, item in enumerate(value):
            yield from blobs(item, shape.member, f"{path}[{number}]")


def check_request(fields: dict[str, Any], target: str = "sdk") -> None:
    """The whole request, then every system block, message and content block one by one (each
    wrapped in a minimal request, so an error points at it); blobs typed as the target wants."""
    assert set(fields) <= {"messages", "system"}
    validate(fields)
    user = {"role": "user", "content": [{"text": "x"}]}
    for block in fields.get("system", []):
        validate({"messages": [user], "system": [block]})
    roles = [m["role"] for m in fields["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles)), f"roles do not alternate: {roles}"
    for message in fields["messages"]:
        assert set(message) == {"role", "content"}
        assert message["content"], "no empty turn is sent"
        kinds = ["toolResult" in block for block in message["content"]]
        assert kinds == sorted(kinds, reverse=True), "tool results must come first"
        for block in message["content"]:
            validate({"messages": [{"role": message["role"], "content": [block]}]})
            assert len(block) == 1, "a content block sets exactly one member"
            if "toolResult" in block:
                for inner in block["toolResult"]["content"]:
                    result = {"toolUseId": "t", "content": [inner]}
                    validate({"messages": [{"role": "user", "content": [{"toolResult": result}]}]})
            if "document" in block:
                assert DOCUMENT_NAME.fullmatch(block["document"]["name"])
    for path, value in blobs(fields, CONVERSE.input_shape):
        if target == "sdk":
            assert isinstance(value, bytes), f"{path} is a {type(value).__name__}, not bytes"
        else:
            assert isinstance(value, str), f"{path} is a {type(value).__name__}, not base64"
            base64.b64decode(value, validate=True)
    if target == "json":
        json.dumps(fields)


def encode(messages: list[Any], **options: Any) -> dict[str, Any]:
    fields = to_bedrock(messages, EncodeOptions(**options))
    check_request(fields, options.get("target", "sdk"))
    return fields


def view(block: Any) -> Any:
    """What a block means, independent of how it was built (media: bytes, type and name)."""
    if isinstance(block, mb.MediaBlock):
        source = block.source
        name = block.filename if isinstance(block, mb.FileBlock) else None  # only documents
        if isinstance(source, FileIdSource):
            return (block.type, "file_id", source.file_id, name)
        return (block.type, block.read(), block.mime_type, name)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, shown, block.is_error)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


@pytest.fixture
def server() -> Iterator[tuple[str, type[RouteHandler]]]:
    """A real HTTP server on 127.0.0.1 with routes the test fills in, replying with a request
    id header as Bedrock does."""
    with serve(reply_headers={"x-amzn-RequestId": REQUEST_ID}) as running:
        yield running


def bedrock_client(endpoint: str) -> Any:
    """A real botocore bedrock-runtime client that talks to a local server."""
    return botocore.session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="example-secret",
        config=Config(retries={"max_attempts": 1}),
    )


LOCAL = mb.FetchPolicy(allow_private=True)
REQUEST_ID = "3c1b8f7e-5a2d-4e61-9f0b-7d2c4a9e1b35"
REDACTED = b"\x01\x02opaque-reasoning\xff"

# A Converse response in the HTTP API's JSON (blobs as base64), checked against the service model.
RESPONSE: dict[str, Any] = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {
                    "reasoningContent": {
                        "reasoningText": {"text": "Need the weather.", "signature": "EqoBCkgIAR"}
                    }
                },
                {"reasoningContent": {"redactedContent": base64.b64encode(REDACTED).decode()}},
                {"text": "Let me check."},
                {
                    "toolUse": {
                        "toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                        "name": "get_weather",
                        "input": {"city": "Paris", "units": "C"},
                    }
                },
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {
        "inputTokens": 30,
        "outputTokens": 40,
        "totalTokens": 175,
        "cacheReadInputTokens": 100,
        "cacheWriteInputTokens": 5,
    },
    "metrics": {"latencyMs": 812},
}


def test_the_recorded_response_fits_the_service_model() -> None:
    report = ParamValidator().validate(RESPONSE, CONVERSE.output_shape)
    assert not report.has_errors(), report.generate_report()


# -- system, roles and turns ------------------------------------------------------------------


def test_system_is_a_list_of_text_blocks_and_omitted_when_absent() -> None:
    fields = encode([mb.SystemMessage.text("be brief"), mb.UserMessage.text("hi")])
    assert fields == {
        "system": [{"text": "be brief"}],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }
    assert "system" not in encode([mb.UserMessage.text("hi")])
    back = from_bedrock(fields)
    assert views(back) == views([mb.SystemMessage.text("be brief"), mb.UserMessage.text("hi")])


def test_system_refuses_media_naming_the_position(png_bytes: bytes) -> None:
    system = mb.SystemMessage(content=["look", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError, match=r"ImageBlock.*message 1, block 1.*text only"):
        to_bedrock([mb.UserMessage.text("x"), system])


def test_same_role_turns_merge_and_empty_ones_vanish() -> None:
    fields = encode(
        [
            mb.UserMessage.text("a"),
            mb.BranchSummaryMessage(summary="elsewhere"),
            mb.UserMessage(content=[mb.TextBlock(text=""), mb.TextBlock(text="b")]),
            mb.AssistantMessage(content=[mb.ThinkingBlock(thinking="x", provider="openai")]),
            mb.AssistantMessage.text("c"),
        ]
    )
    assert fields["messages"] == [
        {"role": "user", "content": [{"text": "a"}, {"text": "b"}]},
        {"role": "assistant", "content": [{"text": "c"}]},
    ]


# -- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "wire"), [("PNG", "png"), ("JPEG", "jpeg"), ("GIF", "gif"), ("WEBP", "webp")]
)
@pytest.mark.parametrize("target", ["sdk", "json"])
def test_images_carry_their_bytes_and_decode_back(fmt: str, wire: str, target: str) -> None:
    data = image_bytes(fmt)
    fields = encode([mb.UserMessage.with_images("what is this?", [data])], target=target)
    image = fields["messages"][0]["content"][1]["image"]
    assert image["format"] == wire
    sent = image["source"]["bytes"]
    assert sent == (data if target == "sdk" else base64.b64encode(data).decode())
    block = from_bedrock(fields)[0].content[1]
    assert isinstance(block, mb.ImageBlock)
    assert isinstance(block.source, (BytesSource, Base64Source))
    assert block.read() == data


def test_sdk_target_sends_the_very_bytes_object_read(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes)
    fields = encode([mb.UserMessage(content=[block])])
    assert fields["messages"][0]["content"][0]["image"]["source"]["bytes"] is png_bytes


@pytest.mark.parametrize("fmt", ["BMP", "TIFF"])
def test_other_image_types_raise_pointing_at_prepare(fmt: str) -> None:
    block = mb.ImageBlock.from_bytes(image_bytes(fmt))
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 1.*mb\.prepare\(messages"):
        to_bedrock([mb.UserMessage(content=["look", block])])


def test_url_media_are_downloaded_and_url_mode_is_refused(server: tuple[str, Any]) -> None:
    base, handler = server
    png = make_png((3, 3))
    handler.routes["/pic"] = ("image/png", png)
    block = mb.ImageBlock.from_url(base + "/pic")
    fields = encode([mb.UserMessage(content=[block])], policy=LOCAL)
    assert fields["messages"][0]["content"][0]["image"] == {
        "format": "png",
        "source": {"bytes": png},
    }
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*cannot fetch URLs"):
        to_bedrock(
            [mb.UserMessage(content=[mb.ImageBlock.from_url("https://example.com/a.png")])],
            EncodeOptions(url_media="url"),
        )


def test_s3_file_ids_are_s3_locations_and_other_ids_raise() -> None:
    by_extension = mb.ImageBlock.from_file_id("s3://my-bucket/cats/cat.png", provider="bedrock")
    declared = mb.VideoBlock.from_file_id("s3://my-bucket/clip", "video/mp4")
    owned = mb.FileBlock.from_file_id("s3://my-bucket/a.pdf", filename="a.pdf").model_copy(
        update={"provider_data": {"bedrock": {"bucketOwner": "111122223333"}}}
    )
    fields = encode([mb.UserMessage(content=[by_extension, declared, owned])])
    content = fields["messages"][0]["content"]
    assert content[0] == {
        "image": {"format": "png", "source": {"s3Location": {"uri": "s3://my-bucket/cats/cat.png"}}}
    }
    assert content[1]["video"] == {
        "format": "mp4",
        "source": {"s3Location": {"uri": "s3://my-bucket/clip"}},
    }
    assert content[2]["document"] == {
        "format": "pdf",
        "name": "a",
        "source": {"s3Location": {"uri": "s3://my-bucket/a.pdf", "bucketOwner": "111122223333"}},
    }
    back = from_bedrock(fields)[0].content
    assert [view(b) for b in back] == [
        ("image", "file_id", "s3://my-bucket/cats/cat.png", None),
        ("video", "file_id", "s3://my-bucket/clip", None),
        ("file", "file_id", "s3://my-bucket/a.pdf", "a.pdf"),
    ]
    assert back[2].provider_data == {"bedrock": {"bucketOwner": "111122223333"}}
    other = mb.ImageBlock.from_file_id("file-abc", "image/png", provider="openai")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*s3:// URI"):
        to_bedrock([mb.UserMessage(content=[other])])


def test_media_sink_gets_placeholders_for_the_json_target(png_bytes: bytes) -> None:
    sink = MediaSink()
    block = mb.ImageBlock.from_bytes(png_bytes)
    options = EncodeOptions(target="json", media_sink=sink)
    fields = to_bedrock([mb.UserMessage(content=[block])], options)
    data = fields["messages"][0]["content"][0]["image"]["source"]["bytes"]
    assert data.startswith(sink.token)
    assert sink.items == [(block, "base64")]


# -- documents --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "mime", "filename", "wire"),
    [
        (make_pdf, None, "report.pdf", "pdf"),
        (lambda: b"a,b\n1,2\n", "text/csv", "table.csv", "csv"),
        (lambda: b"<html><body><p>hi</p></body></html>", "text/html", "page.html", "html"),
        (lambda: b"plain words\n", "text/plain", "notes.txt", "txt"),
        (lambda: b"# Title\n\n- item\n", "text/markdown", "readme.md", "md"),
        (
            lambda: (PUBLIC_TESTDATA / "fixture-office365.docx").read_bytes(),
            None,
            "memo.docx",
            "docx",
        ),
        (
            lambda: (PUBLIC_TESTDATA / "fixture-office365.xlsx").read_bytes(),
            None,
            "sheet.xlsx",
            "xlsx",
        ),
    ],
)
def test_documents_carry_format_name_and_bytes(
    make: Any, mime: str | None, filename: str, wire: str
) -> None:
    data = make()
    block = mb.FileBlock.from_bytes(data, mime, filename=filename)
    fields = encode([mb.UserMessage(content=["read this", block])])
    document = fields["messages"][0]["content"][1]["document"]
    assert document == {
        "format": wire,
        "name": filename.rsplit(".", 1)[0],
        "source": {"bytes": data},
    }
    back = from_bedrock(fields)[0].content[1]
    assert view(back) == ("file", data, block.mime_type, filename)


def test_unsupported_document_types_raise_with_their_type() -> None:
    pptx = mb.FileBlock.from_path(PUBLIC_TESTDATA / "fixture-office365.pptx")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*presentationml"):
        to_bedrock([mb.UserMessage(content=[pptx])])


def test_document_names_follow_bedrock_rules_and_are_unique() -> None:
    pdf = make_pdf()
    names = [
        "Q3_report (final).v2.pdf",
        "résumé.pdf",
        "report.pdf",
        "REPORT.pdf",
        None,
        None,
        "x" * 300 + ".pdf",
        "a  \t b.pdf",
        "../../etc/passwd.pdf",
    ]
    blocks = [mb.FileBlock.from_bytes(pdf, filename=name) for name in names]
    fields = encode([mb.UserMessage(content=blocks)])
    sent = [part["document"]["name"] for part in fields["messages"][0]["content"]]
    assert sent[:6] == [
        "Q3 report (final) v2",
        "resume",
        "report",
        "REPORT (2)",
        "pdf document",
        "pdf document (2)",
    ]
    assert sent[6] == "x" * 200
    assert sent[7] == "a b"
    assert sent[8] == "passwd"
    assert len(set(sent)) == len(sent)
    assert all(DOCUMENT_NAME.fullmatch(name) and len(name) <= 200 for name in sent)
    assert bedrock_document_name("", "csv") == "csv document"


def test_text_source_documents_round_trip() -> None:
    message = {
        "role": "user",
        "content": [{"document": {"format": "txt", "name": "notes", "source": {"text": "hé"}}}],
    }
    [decoded] = from_bedrock([message])
    block = decoded.content[0]
    assert view(block) == ("file", "hé".encode(), "text/plain", "notes.txt")
    assert encode([decoded])["messages"] == [message]


# -- video and audio --------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_video_and_audio_carry_their_bytes_and_decode_back(target: str) -> None:
    mp4 = (PUBLIC_TESTDATA / "fixture-imovie.mp4").read_bytes()
    wav = make_wav(0.05)
    history = [
        mb.UserMessage(
            content=[
                "watch and listen",
                mb.VideoBlock.from_bytes(mp4),
                mb.AudioBlock.from_bytes(wav),
            ]
        )
    ]
    fields = encode(history, target=target)
    video, audio = fields["messages"][0]["content"][1:]
    assert video["video"]["format"] == "mp4"
    assert audio["audio"]["format"] == "wav"
    back = from_bedrock(fields)
    assert views(back) == views(history)


def test_audio_inside_a_tool_result_raises_naming_the_call_when_asked() -> None:
    result = mb.ToolResultBlock(tool_call_id="t9", content=[mb.AudioBlock.from_bytes(make_wav())])
    options = EncodeOptions(tool_result_media="error")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*no audio.*'t9'"):
        to_bedrock([mb.ToolMessage(content=[result])], options)


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_audio_inside_a_tool_result_moves_to_the_user_turn_after_the_results(
    target: str,
) -> None:
    wav = make_wav()
    result = mb.ToolResultBlock(
        tool_call_id="t9", content=[mb.TextBlock(text="recorded"), mb.AudioBlock.from_bytes(wav)]
    )
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="t9", name="record", args={})]),
        mb.ToolMessage(content=[result]),
        mb.UserMessage.text("what was said?"),
    ]
    fields = encode(history, target=target)
    turn = fields["messages"][1]
    assert turn["role"] == "user"
    assert turn["content"][0] == {
        "toolResult": {"toolUseId": "t9", "content": [{"text": "recorded"}]}
    }
    assert turn["content"][1] == {"text": "Media returned by tool call t9:"}
    audio = turn["content"][2]["audio"]
    assert audio["format"] == "wav"
    assert audio["source"]["bytes"] == (wav if target == "sdk" else base64.b64encode(wav).decode())
    assert turn["content"][3] == {"text": "what was said?"}


# -- thinking ---------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_own_reasoning_is_replayed_and_other_thinking_follows_the_option(target: str) -> None:
    own = mb.ThinkingBlock(thinking="plan", signature="sig", provider="bedrock")
    unsigned = mb.ThinkingBlock(thinking="r1 style", provider="bedrock")
    redacted = mb.ThinkingBlock(
        redacted=True, redacted_data=base64.b64encode(REDACTED).decode(), provider="bedrock"
    )
    foreign = mb.ThinkingBlock(thinking="claude plan", signature="s", provider="anthropic")
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[own, unsigned, redacted, foreign, mb.TextBlock(text="a")]),
    ]
    content = encode(history, target=target)["messages"][1]["content"]
    assert content[:2] == [
        {"reasoningContent": {"reasoningText": {"text": "plan", "signature": "sig"}}},
        {"reasoningContent": {"reasoningText": {"text": "r1 style"}}},
    ]
    blob = content[2]["reasoningContent"]["redactedContent"]
    assert blob == (REDACTED if target == "sdk" else base64.b64encode(REDACTED).decode())
    assert content[3:] == [{"text": "a"}]
    as_text = encode(history, thinking="text")["messages"][1]["content"]
    assert as_text[3:] == [{"text": "claude plan"}, {"text": "a"}]
    back = from_bedrock(encode(history, target=target))[1].content
    assert back[:3] == [own, unsigned, redacted]


# -- tools ------------------------------------------------------------------------------------


def test_tool_calls_and_results_round_trip_with_results_first(png_bytes: bytes) -> None:
    call = mb.ToolCallBlock(id="tooluse_1", name="screenshot", args={"page": "home", "n": [1]})
    call2 = mb.ToolCallBlock(id="tooluse_2", name="lookup", args={})
    shot = mb.ImageBlock.from_bytes(png_bytes)
    pdf = mb.FileBlock.from_bytes(make_pdf(), filename="page.pdf")
    mp4 = mb.VideoBlock.from_path(PUBLIC_TESTDATA / "fixture-imovie.mp4")
    history = [
        mb.UserMessage.text("show me"),
        mb.AssistantMessage(content=[mb.TextBlock(text="on it"), call, call2]),
        mb.UserMessage.text("also, hurry"),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(
                    tool_call_id="tooluse_1",
                    content=[mb.TextBlock(text="here"), shot, pdf, mp4],
                    name="screenshot",
                ),
                mb.ToolResultBlock(
                    tool_call_id="tooluse_2", content="not found", is_error=True, name="lookup"
                ),
            ]
        ),
    ]
    fields = encode(history)
    user = fields["messages"][2]["content"]
    assert [next(iter(block)) for block in user] == ["toolResult", "toolResult", "text"]
    assert user[1] == {
        "toolResult": {
            "toolUseId": "tooluse_2",
            "content": [{"text": "not found"}],
            "status": "error",
        }
    }
    assert [next(iter(part)) for part in user[0]["toolResult"]["content"]] == [
        "text",
        "image",
        "document",
        "video",
    ]
    assert "status" not in user[0]["toolResult"]
    assert fields["messages"][1]["content"][1] == {
        "toolUse": {
            "toolUseId": "tooluse_1",
            "name": "screenshot",
            "input": {"page": "home", "n": [1]},
        }
    }
    back = from_bedrock(fields)
    assert [m.role for m in back] == ["user", "assistant", "tool", "user"]
    assert views(back) == views([history[0], history[1], history[3], history[2]])
    assert [r.name for r in back[2].results] == ["screenshot", "lookup"]


def test_json_tool_results_stay_json() -> None:
    messages = [
        {"role": "user", "content": [{"text": "stats?"}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "stats", "input": {}}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "t1",
                        "content": [{"json": {"mean": 2.5, "tags": ["a", "é"]}}, {"text": "ok"}],
                        "status": "success",
                    }
                }
            ],
        },
    ]
    decoded = from_bedrock(messages)
    result = decoded[2].results[0]
    assert json.loads(result.content[0].text) == {"mean": 2.5, "tags": ["a", "é"]}
    assert result.name == "stats"
    again = encode(decoded)["messages"][2]["content"][0]["toolResult"]
    assert again == {
        "toolUseId": "t1",
        "content": messages[2]["content"][0]["toolResult"]["content"],
    }


def test_invalid_tool_arguments_raise_instead_of_sending_an_empty_object() -> None:
    bad = mb.ToolCallBlock(id="t1", name="f", raw_args="[1, 2]")
    with pytest.raises(UnsupportedBlockError, match=r"message 1, block 0.*requires an object"):
        to_bedrock([mb.UserMessage.text("q"), mb.AssistantMessage(content=[bad])])


def test_blocks_in_the_wrong_place_raise() -> None:
    call = mb.ToolCallBlock(id="t", name="f")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*assistant"):
        to_bedrock([mb.UserMessage(content=[call])])
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*tool results only"):
        to_bedrock([mb.ToolMessage(content=["text"])])


# -- raw blocks -------------------------------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_cache_points_and_guard_content_round_trip_json_safe(as_json: bool) -> None:
    png = make_png((2, 2))
    image_bytes_value: Any = base64.b64encode(png).decode() if as_json else png
    guard = {"guardContent": {"image": {"format": "png", "source": {"bytes": image_bytes_value}}}}
    body = {
        "system": [{"text": "rules"}, {"cachePoint": {"type": "default"}}],
        "messages": [
            {
                "role": "user",
                "content": [{"text": "hi"}, guard, {"cachePoint": {"type": "default"}}],
            }
        ],
    }
    decoded = from_bedrock(body)
    raw = decoded[1].content[1]
    assert isinstance(raw, mb.RawBlock)
    assert raw.data == {
        "guardContent": {
            "image": {
                "format": "png",
                "source": {"bytes": {BYTES_MARKER: base64.b64encode(png).decode()}},
            }
        }
    }
    json.loads(mb.dump_messages(decoded))  # JSON-safe: the history saves and loads
    assert mb.load_messages(mb.dump_messages(decoded))[1].content[1] == raw
    sdk = encode(decoded)
    assert sdk["system"] == body["system"]
    assert sdk["messages"][0]["content"][1]["guardContent"]["image"]["source"]["bytes"] == png
    as_http = encode(decoded, target="json")
    sent = as_http["messages"][0]["content"][1]["guardContent"]["image"]["source"]["bytes"]
    assert sent == base64.b64encode(png).decode()


def test_unknown_blocks_are_kept_and_foreign_raw_blocks_raise() -> None:
    future = {"someFutureBlock": {"x": 1, "blob": b"\x00\x01"}}
    [message] = from_bedrock([{"role": "assistant", "content": [future]}])
    raw = message.content[0]
    assert raw == mb.RawBlock(
        provider="bedrock",
        data={"someFutureBlock": {"x": 1, "blob": {BYTES_MARKER: "AAE="}}},
    )
    assert to_bedrock([message])["messages"][0]["content"] == [future]
    foreign = mb.RawBlock(provider="anthropic", data={"type": "server_tool_use"})
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*anthropic content"):
        to_bedrock([mb.UserMessage(content=[foreign])])


def test_tool_use_extra_fields_survive() -> None:
    part = {
        "toolUse": {"toolUseId": "t1", "name": "web", "input": {"q": 1}, "type": "server_tool_use"}
    }
    [message] = from_bedrock([{"role": "assistant", "content": [part]}])
    assert message.content[0].provider_data == {"bedrock": {"type": "server_tool_use"}}
    assert encode([mb.UserMessage.text("q"), message])["messages"][1]["content"] == [part]


# -- responses --------------------------------------------------------------------------------


def _check_reply(reply: Any) -> None:
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.provider == "bedrock"
    assert reply.stop_reason == "tool_use"
    assert without_raw(reply.usage) == mb.Usage(
        input_tokens=135, output_tokens=40, cache_read_tokens=100, cache_write_tokens=5
    )
    thinking, redacted, text, call = reply.content
    assert thinking == mb.ThinkingBlock(
        thinking="Need the weather.", signature="EqoBCkgIAR", provider="bedrock"
    )
    assert redacted.redacted
    assert base64.b64decode(redacted.redacted_data) == REDACTED
    assert text == mb.TextBlock(text="Let me check.")
    assert call == mb.ToolCallBlock(
        id="tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
        name="get_weather",
        args={"city": "Paris", "units": "C"},
    )


def test_response_json_decodes() -> None:
    [reply] = from_bedrock(RESPONSE)
    _check_reply(reply)
    assert reply.metadata == {"bedrock": {"metrics": {"latencyMs": 812}}}


def test_botocore_sends_our_fields_and_its_response_decodes(server: tuple[str, Any]) -> None:
    base, handler = server
    handler.routes["/model/my-model/converse"] = ("application/json", json.dumps(RESPONSE).encode())
    png = make_png((4, 4))
    history = [
        mb.SystemMessage.text("You are terse."),
        mb.UserMessage(
            content=[
                "What is in these?",
                mb.ImageBlock.from_bytes(png),
                mb.FileBlock.from_bytes(make_pdf(), filename="scan.pdf"),
            ]
        ),
    ]
    client = bedrock_client(base)
    response = client.converse(modelId="my-model", **encode(history))
    method, path, body = handler.seen[-1]
    assert (method, path) == ("POST", "/model/my-model/converse")
    # What botocore puts on the wire is exactly our JSON target: same field names, base64 bytes.
    assert json.loads(body) == encode(history, target="json")
    assert from_bedrock(json.loads(body))[1].media[0].read() == png
    # boto3 gives bytes for blobs (here the redacted reasoning) and adds ResponseMetadata.
    assert (
        response["output"]["message"]["content"][1]["reasoningContent"]["redactedContent"]
        == REDACTED
    )
    [reply] = from_bedrock(response)
    _check_reply(reply)
    assert response["ResponseMetadata"]["RequestId"] == REQUEST_ID
    assert reply.response_id == REQUEST_ID


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (42, "not a Bedrock Converse payload"),
        ({"foo": 1}, "not a Bedrock Converse payload"),
        ([{"role": "system", "content": []}], "message 0 has role 'system'"),
        ([{"role": "user", "content": [{"text": "a", "image": {}}]}], "sets 2 members"),
        ([{"role": "user", "content": [{"toolResult": {"content": []}}]}], "no toolUseId"),
        (
            [
                {
                    "role": "user",
                    "content": [{"image": {"format": "png", "source": {"bytes": "@@"}}}],
                }
            ],
            "message 0, block 0",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"image": {"format": "png", "source": {"bytes": b"%PDF-1.4 x"}}}],
                }
            ],
            "message 0, block 0.*not image",
        ),
        ({"output": {}}, "holds no 'message'"),
    ],
)
def test_malformed_payloads_raise_decode_errors(payload: Any, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_bedrock(payload)


# -- round trip -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_decode_of_encode_gives_the_history_back(target: str, png_bytes: bytes) -> None:
    history = [
        mb.SystemMessage.text("sys"),
        mb.UserMessage(
            content=[
                "look",
                mb.ImageBlock.from_bytes(png_bytes),
                mb.ImageBlock.from_bytes(make_jpeg()),
                mb.FileBlock.from_bytes(make_pdf(), filename="doc.pdf"),
                mb.AudioBlock.from_bytes(make_wav()),
            ]
        ),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="t", signature="s", provider="bedrock"),
                mb.TextBlock(text="calling"),
                mb.ToolCallBlock(id="tooluse_9", name="f", args={"a": 1}),
            ]
        ),
        mb.ToolMessage.from_result("tooluse_9", "done", name="f"),
        mb.AssistantMessage.text("bye"),
    ]
    back = from_bedrock(encode(history, target=target))
    assert views(back) == views(history)


# -- through mb.encode / mb.decode / mb.encode_json -------------------------------------------


def test_the_registry_uses_this_translator(png_bytes: bytes) -> None:
    from mediablocks.encoding import encode as registry_encode
    from mediablocks.providers import decode as registry_decode

    history = [mb.SystemMessage.text("s"), mb.UserMessage.with_images("hi", [png_bytes])]
    fields = registry_encode(history, "bedrock")
    assert fields == to_bedrock(history)
    as_json = registry_encode(history, "bedrock-converse", target="json")
    check_request(as_json, "json")
    back = registry_decode(json.dumps(as_json), "bedrock")
    assert views(back) == views(history)


def test_encode_json_streams_the_media_into_the_http_body(png_bytes: bytes) -> None:
    from mediablocks.encoding import encode_json

    mp4 = (PUBLIC_TESTDATA / "fixture-imovie.mp4").read_bytes()
    history = [
        mb.UserMessage(
            content=["see", mb.ImageBlock.from_bytes(png_bytes), mb.VideoBlock.from_bytes(mp4)]
        )
    ]
    body = json.loads(encode_json(history, "bedrock", inferenceConfig={"maxTokens": 5}))
    assert body.pop("inferenceConfig") == {"maxTokens": 5}
    assert body == to_bedrock(history, EncodeOptions(target="json"))
    check_request(body, "json")
    assert base64.b64decode(body["messages"][0]["content"][2]["video"]["source"]["bytes"]) == mp4
