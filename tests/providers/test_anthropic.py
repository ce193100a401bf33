"""The Anthropic Messages translator, checked against the installed ``anthropic`` SDK's types."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic import types as at
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from pydantic import TypeAdapter
from tests.conftest import (
    PUBLIC_TESTDATA,
    b64,
    check_typed_dict,
    image_bytes,
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.anthropic import from_anthropic, to_anthropic
from mediablocks.sources import Base64Source, FileIdSource, URLSource

# The SDK's request types, by block ``type``: every emitted block is checked against its own.
PARAMS: dict[str, Any] = {
    "text": at.TextBlockParam,
    "image": at.ImageBlockParam,
    "document": at.DocumentBlockParam,
    "tool_use": at.ToolUseBlockParam,
    "tool_result": at.ToolResultBlockParam,
    "thinking": at.ThinkingBlockParam,
    "redacted_thinking": at.RedactedThinkingBlockParam,
    "server_tool_use": at.ServerToolUseBlockParam,
    "web_search_tool_result": at.WebSearchToolResultBlockParam,
    "search_result": at.SearchResultBlockParam,
}
SOURCES: dict[tuple[str, str], Any] = {
    ("image", "base64"): at.Base64ImageSourceParam,
    ("image", "url"): at.URLImageSourceParam,
    ("image", "file"): at.FileImageSourceParam,
    ("document", "base64"): at.Base64PDFSourceParam,
    ("document", "text"): at.PlainTextSourceParam,
    ("document", "url"): at.URLPDFSourceParam,
    ("document", "file"): at.FileDocumentSourceParam,
}
MESSAGE = TypeAdapter(at.MessageParam)
SYSTEM = TypeAdapter(str | list[at.TextBlockParam])
CITATION = TypeAdapter(at.TextCitationParam)


# -- helpers ----------------------------------------------------------------------------------


def check_block(part: dict[str, Any]) -> None:
    """One content block, its source and its nested lists, each against the SDK's own type."""
    kind = part["type"]
    check_typed_dict(PARAMS[kind], part)
    if kind in ("image", "document"):
        check_typed_dict(SOURCES[(kind, part["source"]["type"])], part["source"])
    for citation in part.get("citations") or [] if kind == "text" else []:
        CITATION.validate_python(citation)
    if kind == "tool_result" and isinstance(part.get("content"), list):
        assert part["content"], "an empty content list is not sent"
        for inner in part["content"]:
            assert inner["type"] in ("text", "image", "document", "search_result")
            check_block(inner)


def check_request(fields: dict[str, Any]) -> None:
    """The whole request: fields, system, each message, each block; roles alternate."""
    assert set(fields) <= {"messages", "system"}
    at_create = TypeAdapter(MessageCreateParamsNonStreaming)
    at_create.validate_python({"model": "claude-x", "max_tokens": 10, **fields})
    if "system" in fields:
        SYSTEM.validate_python(fields["system"])
        if isinstance(fields["system"], list):
            for part in fields["system"]:
                check_typed_dict(at.TextBlockParam, part)
    roles = [m["role"] for m in fields["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles)), f"roles do not alternate: {roles}"
    for message in fields["messages"]:
        MESSAGE.validate_python(message)
        assert set(message) == {"role", "content"}
        assert message["content"], "no empty turn is sent"
        kinds = [part["type"] for part in message["content"]]
        if "tool_result" in kinds:
            first_other = next((i for i, k in enumerate(kinds) if k != "tool_result"), len(kinds))
            assert "tool_result" not in kinds[first_other:], "tool results must come first"
        for part in message["content"]:
            check_block(part)


def encode(messages: list[Any], **options: Any) -> dict[str, Any]:
    fields = to_anthropic(messages, EncodeOptions(**options))
    check_request(fields)
    return fields


def view(block: Any) -> Any:
    """What a block means, independent of how it was built (media: bytes, type and name)."""
    if isinstance(block, mb.MediaBlock):
        source = block.source
        if isinstance(source, FileIdSource):
            return (block.type, "file_id", source.file_id, block.filename)
        if isinstance(source, URLSource):
            return (block.type, "url", source.url)
        name = block.filename if isinstance(block, mb.FileBlock) else None  # images carry none
        return (block.type, block.read(), block.mime_type, name)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, shown, block.is_error, block.provider_data)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


LOCAL = mb.FetchPolicy(allow_private=True)

# A response in the shape the Messages API returns, checked by the SDK's own model below.
RESPONSE: dict[str, Any] = {
    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "type": "message",
    "role": "assistant",
    "model": "claude-example-1",
    "content": [
        {
            "type": "thinking",
            "thinking": "The user wants the weather.",
            "signature": "EqQBCgIYAhIM",
        },
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01",
            "name": "web_search",
            "input": {"query": "weather Paris"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://weather.example/paris",
                    "title": "Paris weather",
                    "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1jZjVhLTQ",
                    "page_age": None,
                }
            ],
        },
        {
            "type": "text",
            "text": "It is sunny in Paris.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": "https://weather.example/paris",
                    "title": "Paris weather",
                    "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                    "cited_text": "Sunny, 24C",
                }
            ],
        },
        {
            "type": "tool_use",
            "id": "toolu_01A09q90qw90lq917835lq9",
            "name": "get_forecast",
            "input": {"city": "Paris", "days": 3},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 2095,
        "output_tokens": 503,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 200,
        "output_tokens_details": {"thinking_tokens": 120},
    },
}


# -- system, roles and turns ------------------------------------------------------------------


def test_system_is_lifted_to_a_string_and_omitted_when_absent() -> None:
    fields = encode([mb.SystemMessage.text("be brief"), mb.UserMessage.text("hi")])
    assert fields == {
        "system": "be brief",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert "system" not in encode([mb.UserMessage.text("hi")])


def test_several_or_rich_system_blocks_go_as_a_list() -> None:
    cached = mb.TextBlock(
        text="long rules", provider_data={"anthropic": {"cache_control": {"type": "ephemeral"}}}
    )
    fields = encode(
        [
            mb.SystemMessage.text("one"),
            mb.SystemMessage(content=[cached]),
            mb.UserMessage.text("hi"),
        ]
    )
    assert fields["system"] == [
        {"type": "text", "text": "one"},
        {"type": "text", "text": "long rules", "cache_control": {"type": "ephemeral"}},
    ]
    back = from_anthropic(fields)
    assert isinstance(back[0], mb.SystemMessage)
    assert back[0].content[1] == cached


def test_system_refuses_media_naming_the_position(png_bytes: bytes) -> None:
    system = mb.SystemMessage(content=["look", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError, match=r"ImageBlock.*message 1, block 1.*text only"):
        to_anthropic([mb.UserMessage.text("x"), system])


def test_same_role_turns_merge_and_session_messages_are_skipped() -> None:
    fields = encode(
        [
            mb.UserMessage.text("a"),
            mb.CustomMessage(custom_type="note"),
            mb.UserMessage.text("b"),
            mb.AssistantMessage.text("c"),
            mb.AssistantMessage.text("d"),
        ]
    )
    assert [(m["role"], [p["text"] for p in m["content"]]) for m in fields["messages"]] == [
        ("user", ["a", "b"]),
        ("assistant", ["c", "d"]),
    ]


def test_empty_text_and_empty_turns_are_not_sent() -> None:
    fields = encode(
        [
            mb.UserMessage.text("q"),
            mb.AssistantMessage(content=[mb.ThinkingBlock(thinking="x", provider="openai")]),
            mb.UserMessage(content=[mb.TextBlock(text=""), mb.TextBlock(text="again")]),
        ]
    )
    assert fields["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "again"}],
        }
    ]


# -- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_images_go_as_base64_and_decode_back(fmt: str, mime: str) -> None:
    data = image_bytes(fmt)
    fields = encode([mb.UserMessage.with_images("what is this?", [data])])
    part = fields["messages"][0]["content"][1]
    assert part["type"] == "image"
    assert part["source"]["media_type"] == mime
    assert part["source"]["type"] == "base64"
    [message] = from_anthropic(fields)
    image = message.content[1]
    assert isinstance(image, mb.ImageBlock)
    # The base64 text is kept as it came and copied through, not decoded and re-encoded.
    assert isinstance(image.source, Base64Source)
    assert image.to_base64()[0] is part["source"]["data"]
    assert image.read() == data
    assert image.mime_type == mime


@pytest.mark.parametrize("fmt", ["BMP", "TIFF"])
def test_other_image_types_raise_pointing_at_prepare(fmt: str) -> None:
    block = mb.ImageBlock.from_bytes(image_bytes(fmt))
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 1.*mb\.prepare\(messages"):
        to_anthropic([mb.UserMessage(content=["look", block])])


def test_heic_photo_raises_pointing_at_prepare() -> None:
    block = mb.ImageBlock.from_path(PUBLIC_TESTDATA / "fixture-mif1.heic")
    with pytest.raises(UnsupportedBlockError, match=r"image/hei[cf].*prepare"):
        to_anthropic([mb.UserMessage(content=[block])])


def test_image_url_goes_as_url_source_and_decodes_to_a_url_block() -> None:
    url = "https://example.com/cat.png"
    fields = encode([mb.UserMessage.with_images(None, [mb.ImageBlock.from_url(url)])])
    assert fields["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "url", "url": url}}
    ]
    image = from_anthropic(fields)[0].content[0]
    assert isinstance(image, mb.ImageBlock)
    assert isinstance(image.source, URLSource)
    assert image.source.url == url


def test_image_url_is_downloaded_when_asked(server: tuple[str, Any]) -> None:
    base, handler = server
    png = make_png((5, 7))
    handler.routes["/a"] = ("application/octet-stream", png)
    block = mb.ImageBlock.from_url(base + "/a")
    fields = encode([mb.UserMessage(content=[block])], url_media="inline", policy=LOCAL)
    source = fields["messages"][0]["content"][0]["source"]
    assert source["type"] == "base64"
    assert source["media_type"] == "image/png"  # from the downloaded bytes, not the URL
    assert from_anthropic(fields)[0].content[0].read() == png


def test_image_file_ids() -> None:
    own = mb.ImageBlock.from_file_id("file_011CNha8iCJcU1wXNR6q4V8w", provider="anthropic")
    fields = encode([mb.UserMessage(content=[own])])
    assert fields["messages"][0]["content"][0]["source"] == {
        "type": "file",
        "file_id": "file_011CNha8iCJcU1wXNR6q4V8w",
    }
    back = from_anthropic(fields)[0].content[0]
    assert isinstance(back.source, FileIdSource)
    assert back.source.provider == "anthropic"
    foreign = mb.ImageBlock.from_file_id("file-abc", "image/png", provider="openai")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*openai file id"):
        to_anthropic([mb.UserMessage(content=[foreign])])


def test_media_in_assistant_turns_raise(png_bytes: bytes) -> None:
    reply = mb.AssistantMessage(content=["here", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError, match=r"message 1, block 1.*user turns"):
        to_anthropic([mb.UserMessage.text("draw"), reply])


def test_media_sink_gets_placeholders_instead_of_base64(png_bytes: bytes) -> None:
    sink = MediaSink()
    block = mb.ImageBlock.from_bytes(png_bytes)
    pdf = mb.FileBlock.from_bytes(make_pdf(), filename="a.pdf")
    fields = to_anthropic([mb.UserMessage(content=[block, pdf])], EncodeOptions(media_sink=sink))
    data = [part["source"]["data"] for part in fields["messages"][0]["content"]]
    assert all(d.startswith(sink.token) for d in data)
    assert [item[0] for item in sink.items] == [block, pdf]


# -- documents --------------------------------------------------------------------------------


def test_pdf_goes_as_base64_document_titled_by_its_filename() -> None:
    pdf = make_pdf()
    block = mb.FileBlock.from_bytes(pdf, filename="Q3 report.pdf")
    fields = encode([mb.UserMessage(content=["summarise", block])])
    part = fields["messages"][0]["content"][1]
    assert part["type"] == "document"
    assert part["title"] == "Q3 report.pdf"
    assert part["source"]["media_type"] == "application/pdf"
    back = from_anthropic(fields)[0].content[1]
    assert view(back) == ("file", pdf, "application/pdf", "Q3 report.pdf")


def test_pdf_url_is_passed_and_other_urls_are_downloaded(server: tuple[str, Any]) -> None:
    base, handler = server
    handler.routes["/notes"] = ("text/plain; charset=utf-8", "ça va\n".encode())
    pdf_url = "https://example.com/paper.pdf"
    blocks = [mb.FileBlock.from_url(pdf_url), mb.FileBlock.from_url(base + "/notes", "text/plain")]
    fields = encode([mb.UserMessage(content=blocks)], policy=LOCAL)
    first, second = fields["messages"][0]["content"]
    assert first["source"] == {"type": "url", "url": pdf_url}
    assert second["source"] == {"type": "text", "media_type": "text/plain", "data": "ça va\n"}
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*cannot fetch"):
        to_anthropic(
            [mb.UserMessage(content=[mb.FileBlock.from_url(base + "/notes", "text/plain")])],
            EncodeOptions(url_media="url"),
        )


def test_plain_text_document_round_trips_as_text() -> None:
    text = "line one\nline two — ünïcode\n"
    block = mb.FileBlock.from_bytes(text.encode(), "text/plain", filename="notes.txt")
    fields = encode([mb.UserMessage(content=[block])])
    part = fields["messages"][0]["content"][0]
    assert part == {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": text},
        "title": "notes.txt",
    }
    back = from_anthropic(fields)[0].content[0]
    assert view(back) == ("file", text.encode(), "text/plain", "notes.txt")


def test_other_documents_raise_with_their_type() -> None:
    docx = mb.FileBlock.from_path(PUBLIC_TESTDATA / "fixture-office365.docx")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*wordprocessingml"):
        to_anthropic([mb.UserMessage(content=[docx])])


def test_document_file_id_and_title_extras_survive() -> None:
    block = mb.FileBlock.from_file_id("file_abc", "application/pdf", provider="anthropic")
    block = block.model_copy(
        update={"provider_data": {"anthropic": {"citations": {"enabled": True}, "context": "Q3"}}}
    )
    fields = encode([mb.UserMessage(content=[block])])
    assert fields["messages"][0]["content"][0] == {
        "type": "document",
        "source": {"type": "file", "file_id": "file_abc"},
        "citations": {"enabled": True},
        "context": "Q3",
    }
    assert from_anthropic(fields)[0].content[0].provider_data == block.provider_data


def test_a_title_that_is_not_a_filename_is_kept_exactly() -> None:
    part = {
        "type": "document",
        "title": "Reports/2024: Q3",
        "source": {"type": "text", "media_type": "text/plain", "data": "x"},
    }
    [message] = from_anthropic([{"role": "user", "content": [part]}])
    block = message.content[0]
    assert block.filename == "2024: Q3"  # a basename, never a path
    assert encode([message])["messages"][0]["content"][0] == part


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (mb.AudioBlock.from_bytes(make_wav()), "AudioBlock"),
        (mb.VideoBlock.from_path(PUBLIC_TESTDATA / "fixture-imovie.mp4"), "VideoBlock"),
    ],
)
def test_audio_and_video_raise_naming_kind_position_and_provider(block: Any, kind: str) -> None:
    with pytest.raises(UnsupportedBlockError) as caught:
        to_anthropic([mb.UserMessage.text("hi"), mb.UserMessage(content=["x", block])])
    message = str(caught.value)
    assert message.startswith(f"anthropic cannot carry {kind}")
    assert "message 1, block 1" in message


# -- thinking ---------------------------------------------------------------------------------


def test_own_thinking_is_replayed_and_other_thinking_follows_the_option() -> None:
    own = mb.ThinkingBlock(thinking="plan", signature="sig==", provider="anthropic")
    redacted = mb.ThinkingBlock(redacted=True, redacted_data="opaque", provider="anthropic")
    foreign = mb.ThinkingBlock(thinking="gemini plan", signature="x", provider="gemini")
    unsigned = mb.ThinkingBlock(thinking="no signature", provider="anthropic")
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[own, redacted, foreign, unsigned, mb.TextBlock(text="a")]),
    ]
    dropped = encode(history)["messages"][1]["content"]
    assert dropped == [
        {"type": "thinking", "thinking": "plan", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "a"},
    ]
    as_text = encode(history, thinking="text")["messages"][1]["content"]
    assert [p["type"] for p in as_text] == ["thinking", "redacted_thinking", "text", "text", "text"]
    assert [p.get("text") for p in as_text[2:]] == ["gemini plan", "no signature", "a"]
    back = from_anthropic(encode(history))[1].content
    assert back[:2] == [own, redacted]


# -- tools ------------------------------------------------------------------------------------


def test_tool_calls_and_results_round_trip_with_results_first(png_bytes: bytes) -> None:
    call = mb.ToolCallBlock(id="toolu_1", name="screenshot", args={"page": "home", "n": [1, 2]})
    call2 = mb.ToolCallBlock(id="toolu_2", name="lookup", args={})
    shot = mb.ImageBlock.from_bytes(png_bytes)
    pdf = mb.FileBlock.from_bytes(make_pdf(), filename="page.pdf")
    history = [
        mb.UserMessage.text("show me"),
        mb.AssistantMessage(content=[mb.TextBlock(text="on it"), call, call2]),
        mb.UserMessage.text("also, hurry"),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(
                    tool_call_id="toolu_1",
                    content=[mb.TextBlock(text="here"), shot, pdf],
                    name="screenshot",
                ),
                mb.ToolResultBlock(
                    tool_call_id="toolu_2", content="not found", is_error=True, name="lookup"
                ),
            ]
        ),
    ]
    fields = encode(history)
    user = fields["messages"][2]["content"]
    assert [p["type"] for p in user] == ["tool_result", "tool_result", "text"]
    assert user[1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "not found",
        "is_error": True,
    }
    assert [p["type"] for p in user[0]["content"]] == ["text", "image", "document"]
    assert fields["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "screenshot",
        "input": {"page": "home", "n": [1, 2]},
    }
    back = from_anthropic(fields)
    assert [m.role for m in back] == ["user", "assistant", "tool", "user"]
    assert views(back) == views([history[0], history[1], history[3], history[2]])


def test_tool_results_get_their_tool_name_when_decoded() -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
    ]
    result = from_anthropic(messages)[2]
    assert isinstance(result, mb.ToolMessage)
    assert result.results[0].name == "weather"
    assert result.results[0].content == ""


def test_invalid_tool_arguments_raise_instead_of_sending_an_empty_object() -> None:
    bad = mb.ToolCallBlock(id="t1", name="f", raw_args='{"city": "Par')
    with pytest.raises(UnsupportedBlockError, match=r"message 1, block 0.*requires an object"):
        to_anthropic([mb.UserMessage.text("q"), mb.AssistantMessage(content=[bad])])


def test_audio_inside_a_tool_result_raises_naming_the_call() -> None:
    result = mb.ToolResultBlock(tool_call_id="t9", content=[mb.AudioBlock.from_bytes(make_wav())])
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*no audio.*'t9'"):
        to_anthropic([mb.ToolMessage(content=[result])])


def test_blocks_in_the_wrong_place_raise() -> None:
    call = mb.ToolCallBlock(id="t", name="f")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*assistant"):
        to_anthropic([mb.UserMessage(content=[call])])
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*tool results only"):
        to_anthropic([mb.ToolMessage(content=["text"])])


def test_cache_control_survives_on_every_kind_of_block(png_bytes: bytes) -> None:
    cache = {"cache_control": {"type": "ephemeral", "ttl": "1h"}}
    blocks = [
        {"type": "text", "text": "hi", **cache},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/jpeg", "data": b64(make_jpeg())},
            **cache,
        },
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok", **cache},
    ]
    messages = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}, **cache}],
        },
        {"role": "user", "content": blocks},
    ]
    decoded = from_anthropic(messages)
    fields = encode(decoded)
    assert fields["messages"][1]["content"] == [blocks[2], blocks[0], blocks[1]]
    assert fields["messages"][0] == messages[0]


# -- raw blocks and responses -----------------------------------------------------------------


@pytest.mark.parametrize("as_sdk", [False, True])
def test_response_decodes_with_usage_thinking_citations_and_raw_blocks(as_sdk: bool) -> None:
    payload: Any = at.Message.model_validate(RESPONSE) if as_sdk else RESPONSE
    [reply] = from_anthropic(payload)
    assert isinstance(reply, mb.AssistantMessage)
    assert reply.provider == "anthropic"
    assert reply.model == "claude-example-1"
    assert reply.response_id == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert reply.stop_reason == "tool_use"
    assert reply.usage == mb.Usage(
        input_tokens=2095 + 1000 + 200,
        output_tokens=503,
        cache_read_tokens=1000,
        cache_write_tokens=200,
        reasoning_tokens=120,
        raw=RESPONSE["usage"],
    )
    kinds = [type(b).__name__ for b in reply.content]
    assert kinds == [
        "ThinkingBlock",
        "ThinkingBlock",
        "RawBlock",
        "RawBlock",
        "TextBlock",
        "ToolCallBlock",
    ]
    assert reply.content[0].signature == "EqQBCgIYAhIM"
    assert reply.content[1].redacted_data == "EmwKAhgBEgy3va3pzix/LafPsn4a"
    assert reply.content[2].data == RESPONSE["content"][2]
    assert reply.content[4].annotations == RESPONSE["content"][4]["citations"]
    assert reply.tool_calls[0].args == {"city": "Paris", "days": 3}
    # Sent back, every block is what the API returned (the documented way to continue a turn).
    fields = encode([mb.UserMessage.text("weather in Paris?"), reply])
    assert fields["messages"][1]["content"] == RESPONSE["content"]


def test_response_content_objects_in_a_message_list_decode() -> None:
    response = at.Message.model_validate(RESPONSE)
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": response.content},
    ]
    decoded = from_anthropic(history)
    assert [m.role for m in decoded] == ["user", "assistant"]
    assert encode(decoded)["messages"][1]["content"] == RESPONSE["content"]


def test_foreign_raw_block_raises() -> None:
    raw = mb.RawBlock(provider="gemini", data={"executableCode": {"code": "1"}})
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*gemini content"):
        to_anthropic([mb.UserMessage(content=[raw])])


def test_request_body_with_system_list_decodes() -> None:
    body = {
        "model": "claude-x",
        "max_tokens": 5,
        "system": [{"type": "text", "text": "rules"}],
        "messages": [{"role": "user", "content": "hello"}],
    }
    system, user = from_anthropic(body)
    assert isinstance(system, mb.SystemMessage)
    assert system.text == "rules"
    assert isinstance(user, mb.UserMessage)
    assert user.text == "hello"


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (42, "not an Anthropic payload"),
        ({"foo": 1}, "not an Anthropic payload"),
        ([{"role": "robot", "content": "x"}], "message 0 has role 'robot'"),
        ([{"role": "user", "content": [{"type": "tool_result"}]}], "no tool_use_id"),
        (
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "x"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "@@"},
                        },
                    ],
                }
            ],
            "message 0, block 1",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": b64(b"%PDF-1.4 not an image"),
                            },
                        }
                    ],
                }
            ],
            "message 0, block 0.*not image",
        ),
    ],
)
def test_malformed_payloads_raise_decode_errors(payload: Any, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_anthropic(payload)


def test_unknown_image_source_is_kept_raw() -> None:
    part = {"type": "image", "source": {"type": "future", "ref": "x"}}
    [message] = from_anthropic([{"role": "user", "content": [part]}])
    assert message.content == [mb.RawBlock(provider="anthropic", data=part)]


# -- through the real SDK client against a local server ---------------------------------------


def test_the_sdk_sends_our_fields_and_its_response_decodes(server: tuple[str, Any]) -> None:
    base, handler = server
    handler.routes["/v1/messages"] = ("application/json", json.dumps(RESPONSE).encode())
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
    fields = encode(history)
    client = anthropic.Anthropic(api_key="test-key", base_url=base, max_retries=0)
    response = client.messages.create(model="claude-example-1", max_tokens=100, **fields)
    method, path, body = handler.seen[-1]
    assert (method, path) == ("POST", "/v1/messages")
    sent = json.loads(body)
    assert sent["messages"] == json.loads(json.dumps(fields["messages"]))
    assert sent["system"] == "You are terse."
    assert from_anthropic(sent)[1].media[0].read() == png
    [reply] = from_anthropic(response)
    assert reply.response_id == RESPONSE["id"]
    assert reply.tool_calls[0].name == "get_forecast"


# -- round trip -------------------------------------------------------------------------------


def test_decode_of_encode_gives_the_history_back(png_bytes: bytes, tmp_path: Path) -> None:
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(make_jpeg())
    history = [
        mb.SystemMessage.text("sys"),
        mb.UserMessage(
            content=[
                "look",
                mb.ImageBlock.from_bytes(png_bytes),
                mb.ImageBlock.from_path(photo),
                mb.ImageBlock.from_url("https://example.com/x.webp"),
                mb.FileBlock.from_bytes(make_pdf(), filename="doc.pdf"),
                mb.FileBlock.from_url("https://example.com/y.pdf"),
            ]
        ),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="t", signature="s", provider="anthropic"),
                mb.TextBlock(text="calling", annotations=[]),
                mb.ToolCallBlock(id="toolu_9", name="f", args={"a": 1}),
            ]
        ),
        mb.ToolMessage.from_result("toolu_9", "done", name="f"),
        mb.AssistantMessage.text("bye"),
    ]
    back = from_anthropic(encode(history))
    assert views(back) == views(history)


# -- through mb.encode / mb.decode / mb.encode_json -------------------------------------------


def test_the_registry_uses_this_translator(png_bytes: bytes) -> None:
    from mediablocks.encoding import encode as registry_encode
    from mediablocks.providers import decode as registry_decode

    history = [mb.SystemMessage.text("s"), mb.UserMessage.with_images("hi", [png_bytes])]
    fields = registry_encode(history, "anthropic")
    assert fields == to_anthropic(history)
    check_request(fields)
    back = registry_decode(json.dumps(fields).encode(), "anthropic")
    assert views(back) == views(history)


def test_encode_json_streams_the_media_into_a_valid_body(png_bytes: bytes) -> None:
    from mediablocks.encoding import encode_json

    pdf = make_pdf()
    history = [
        mb.UserMessage(
            content=["see", mb.ImageBlock.from_bytes(png_bytes), mb.FileBlock.from_bytes(pdf)]
        )
    ]
    body = json.loads(encode_json(history, "anthropic", model="claude-x", max_tokens=5))
    assert body["model"] == "claude-x"
    check_request({k: v for k, v in body.items() if k in ("messages", "system")})
    image, document = body["messages"][0]["content"][1:]
    assert image["source"]["data"] == b64(png_bytes)
    assert document["source"]["data"] == b64(pdf)
