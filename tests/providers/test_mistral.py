"""The Mistral translator, checked against the installed ``mistralai`` SDK's own models."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mistralai.client import Mistral
from mistralai.client import models as mm
from pydantic import BaseModel
from tests.conftest import (
    TESTDATA,
    load_manifest,
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
    model_keys,
    without_raw,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.mistral import from_mistral, mistral_tool_call_ids, to_mistral
from mediablocks.sources import FileIdSource, URLSource

MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
CHUNK_MODELS: dict[str, type[BaseModel]] = {
    "text": mm.TextChunk,
    "image_url": mm.ImageURLChunk,
    "input_audio": mm.AudioChunk,
    "document_url": mm.DocumentURLChunk,
    "file": mm.FileChunk,
    "reference": mm.ReferenceChunk,
    "thinking": mm.ThinkChunk,
}
MESSAGE_MODELS: dict[str, type[BaseModel]] = {
    "system": mm.SystemMessage,
    "user": mm.UserMessage,
    "assistant": mm.AssistantMessage,
    "tool": mm.ToolMessage,
}


# -- helpers ----------------------------------------------------------------------------------


def _check(model: type[BaseModel], data: dict[str, Any]) -> None:
    """Validate with the SDK model, and refuse keys the model would silently ignore."""
    model.model_validate(data)
    unknown = set(data) - model_keys(model)
    assert not unknown, f"{model.__name__} has no field(s) {unknown}"


def check_messages(messages: list[dict[str, Any]]) -> None:
    """Every message, every chunk and every tool call, one by one, against mistralai's models."""
    for message in messages:
        _check(MESSAGE_MODELS[message["role"]], message)
        content = message.get("content")
        if isinstance(content, list):
            for chunk in content:
                _check(CHUNK_MODELS[chunk["type"]], chunk)
                if chunk["type"] == "thinking":
                    for inner in chunk["thinking"]:
                        _check(mm.TextChunk, inner)
        for call in message.get("tool_calls") or []:
            _check(mm.ToolCall, call)
            _check(mm.FunctionCall, call["function"])
            assert MISTRAL_ID.fullmatch(call["id"])
        if message["role"] == "tool":
            assert MISTRAL_ID.fullmatch(message["tool_call_id"])
    mm.ChatCompletionRequest.model_validate({"model": "mistral-small-latest", "messages": messages})


def encode(messages: list[Any], **options: Any) -> list[dict[str, Any]]:
    out = to_mistral(messages, EncodeOptions(**options))
    assert list(out) == ["messages"]
    check_messages(out["messages"])
    return out["messages"]


def view(block: Any) -> Any:
    """What a block means, independent of how it was built (media: bytes, type and name)."""
    if isinstance(block, mb.MediaBlock):
        source = block.source
        if isinstance(source, FileIdSource):
            return (block.type, "file_id", source.file_id)
        if isinstance(source, URLSource):
            return (block.type, "url", source.url, block.filename)
        return (block.type, block.read(), block.mime_type, block.filename)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, shown, block.name)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


LOCAL = mb.FetchPolicy(allow_private=True)


# -- text and roles ---------------------------------------------------------------------------


def test_text_messages_are_plain_strings() -> None:
    out = encode(
        [
            mb.SystemMessage.text("be brief"),
            mb.UserMessage.text("hi"),
            mb.AssistantMessage.text("hello"),
        ]
    )
    assert out == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]


def test_several_text_blocks_keep_their_boundaries() -> None:
    out = encode([mb.UserMessage(content=["one", "two"])])
    assert out[0]["content"] == [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    back = from_mistral(out)
    assert [b.text for b in back[0].content] == ["one", "two"]


def test_session_messages_are_not_sent() -> None:
    out = encode(
        [
            mb.UserMessage.text("a"),
            mb.CustomMessage(custom_type="ui-note", data={"x": 1}),
            mb.BranchSummaryMessage(summary="left a branch"),
            mb.AssistantMessage.text("b"),
        ]
    )
    assert [m["role"] for m in out] == ["user", "assistant"]


def test_system_message_refuses_media_with_its_position(png_bytes: bytes) -> None:
    system = mb.SystemMessage(content=["look", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError, match=r"ImageBlock.*message 1, block 1.*text only"):
        to_mistral([mb.UserMessage.text("x"), system])


# -- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("maker", "mime"), [(make_png, "image/png"), (make_jpeg, "image/jpeg")])
def test_inline_image_is_a_data_uri_and_decodes_back(maker: Any, mime: str) -> None:
    data = maker()
    out = encode([mb.UserMessage.with_images("what is this?", [data])])
    chunk = out[0]["content"][1]
    assert chunk["type"] == "image_url"
    assert chunk["image_url"].startswith(f"data:{mime};base64,")
    image = from_mistral(out)[0].content[1]
    assert isinstance(image, mb.ImageBlock)
    assert image.read() == data
    assert image.mime_type == mime


def test_image_url_is_passed_for_mistral_to_fetch() -> None:
    url = "https://example.com/cat.png"
    out = encode([mb.UserMessage.with_images(None, [mb.ImageBlock.from_url(url)])])
    assert out[0]["content"] == [{"type": "image_url", "image_url": url}]
    image = from_mistral(out)[0].content[0]
    assert isinstance(image.source, URLSource)
    assert image.source.url == url


def test_image_url_inlined_on_request(server: tuple[str, Any]) -> None:
    base, handler = server
    png = make_png((5, 7))
    handler.routes["/a.png"] = ("image/png", png)
    block = mb.ImageBlock.from_url(base + "/a.png")
    out = encode([mb.UserMessage(content=[block])], url_media="inline", policy=LOCAL)
    assert out[0]["content"][0]["image_url"].startswith("data:image/png;base64,")
    assert from_mistral(out)[0].content[0].read() == png


def test_image_detail_uses_the_object_form(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes).model_copy(update={"detail": "low"})
    out = encode([mb.UserMessage(content=[block])])
    image_url = out[0]["content"][0]["image_url"]
    assert image_url["detail"] == "low"
    _check(mm.ImageURL, image_url)
    assert from_mistral(out)[0].content[0].detail == "low"


def test_image_by_file_id_is_refused() -> None:
    block = mb.ImageBlock.from_file_id("file-1", "image/png", provider="mistral")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*file id"):
        to_mistral([mb.UserMessage(content=[block])])


# -- audio, documents, files, video -----------------------------------------------------------


def test_audio_is_inline_base64_and_decodes_back() -> None:
    wav = make_wav(0.05)
    out = encode([mb.UserMessage.with_audio("transcribe", [wav])])
    chunk = out[0]["content"][1]
    assert chunk["type"] == "input_audio"
    assert isinstance(chunk["input_audio"], str)
    audio = from_mistral(out)[0].content[1]
    assert isinstance(audio, mb.AudioBlock)
    assert audio.read() == wav
    assert audio.mime_type == "audio/wav"


def test_audio_url_goes_as_the_url_and_inline_mode_downloads_it(server: tuple[str, Any]) -> None:
    base, handler = server
    wav = make_wav(0.02)
    handler.routes["/clip.wav"] = ("audio/wav", wav)
    block = mb.AudioBlock.from_url(base + "/clip.wav")
    out = encode([mb.UserMessage(content=[block])])
    assert out[0]["content"][0] == {"type": "input_audio", "input_audio": base + "/clip.wav"}
    back = from_mistral(out)[0].content[0]
    assert isinstance(back, mb.AudioBlock)
    assert back.source == block.source  # still the URL, nothing fetched
    inlined = encode([mb.UserMessage(content=[block])], policy=LOCAL, url_media="inline")
    assert from_mistral(inlined)[0].content[0].read() == wav


def test_pdf_goes_as_document_url_with_its_name() -> None:
    pdf = make_pdf()
    block = mb.FileBlock.from_bytes(pdf, filename="/home/ana/report.pdf")
    out = encode([mb.UserMessage(content=["summarise", block])])
    chunk = out[0]["content"][1]
    assert chunk["type"] == "document_url"
    assert chunk["document_url"].startswith("data:application/pdf;base64,")
    assert chunk["document_name"] == "report.pdf"  # a basename, never the local path
    back = from_mistral(out)[0].content[1]
    assert isinstance(back, mb.FileBlock)
    assert (back.read(), back.mime_type, back.filename) == (pdf, "application/pdf", "report.pdf")


def test_pdf_url_is_passed_through() -> None:
    url = "https://arxiv.org/pdf/1805.04770"
    block = mb.FileBlock.from_url(url, "application/pdf")
    out = encode([mb.UserMessage(content=[block])])
    assert out[0]["content"][0]["document_url"] == url


def test_non_pdf_file_is_refused_with_its_type() -> None:
    block = mb.FileBlock.from_bytes(b"name,age\nana,3\n", "text/csv")
    with pytest.raises(UnsupportedBlockError, match=r"FileBlock.*message 0, block 1.*text/csv"):
        to_mistral([mb.UserMessage(content=["read", block])])


def test_mistral_file_id_is_a_file_chunk_and_foreign_ids_raise() -> None:
    block = mb.FileBlock.from_file_id("00edaf84-95b0-45db-8f83-f71138491f23", provider="mistral")
    out = encode([mb.UserMessage(content=[block])])
    assert out[0]["content"] == [
        {"type": "file", "file_id": "00edaf84-95b0-45db-8f83-f71138491f23"}
    ]
    back = from_mistral(out)[0].content[0]
    assert back.source.file_id == "00edaf84-95b0-45db-8f83-f71138491f23"
    foreign = mb.FileBlock.from_file_id("file-abc", provider="openai")
    with pytest.raises(UnsupportedBlockError, match="openai file id"):
        to_mistral([mb.UserMessage(content=[foreign])])


def test_video_raises_naming_kind_position_and_provider() -> None:
    video = mb.VideoBlock.from_url("https://example.com/v.mp4")
    with pytest.raises(
        UnsupportedBlockError,
        match=r"mistral cannot carry VideoBlock.*message 0, "
        r"block 1",
    ):
        to_mistral([mb.UserMessage(content=["watch", video])])


def test_media_sink_gets_placeholders_instead_of_base64(png_bytes: bytes) -> None:
    sink = MediaSink()
    image = mb.ImageBlock.from_bytes(png_bytes)
    audio = mb.AudioBlock.from_bytes(make_wav(0.01))
    out = to_mistral([mb.UserMessage(content=[image, audio])], EncodeOptions(media_sink=sink))
    chunks = out["messages"][0]["content"]
    assert chunks[0]["image_url"].startswith(sink.token)
    assert chunks[1]["input_audio"].startswith(sink.token)
    assert [form for _, form in sink.items] == ["data_uri", "base64"]
    assert sink.items[0][0] is image


# -- thinking ---------------------------------------------------------------------------------


def test_own_thinking_is_replayed_and_foreign_thinking_follows_the_option() -> None:
    history = [
        mb.UserMessage.text("2+2?"),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="add them", provider="mistral", signature="sig-1"),
                mb.ThinkingBlock(thinking="claude's view", signature="x", provider="anthropic"),
                mb.TextBlock(text="4"),
            ]
        ),
    ]
    dropped = encode(history)[1]["content"]
    assert dropped[0] == {
        "type": "thinking",
        "thinking": [{"type": "text", "text": "add them"}],
        "signature": "sig-1",
    }
    assert dropped[1:] == [{"type": "text", "text": "4"}]
    as_text = encode(history, thinking="text")[1]["content"]
    assert as_text[1] == {"type": "text", "text": "claude's view"}
    back = from_mistral(encode(history))[1].content[0]
    assert (back.thinking, back.signature, back.provider) == ("add them", "sig-1", "mistral")


def test_thinking_with_several_inner_chunks_round_trips_verbatim() -> None:
    response = {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": "magistral-medium-latest",
        "created": 1,
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "thinking",
                            "thinking": [
                                {"type": "text", "text": "first, "},
                                {"type": "text", "text": "then"},
                            ],
                            "closed": True,
                        },
                        {"type": "text", "text": "done"},
                    ],
                },
            }
        ],
    }
    message = from_mistral(mm.ChatCompletionResponse.model_validate(response))[0]
    thinking = message.content[0]
    assert thinking.thinking == "first, then"
    chunk = encode([message])[0]["content"][0]
    assert chunk == response["choices"][0]["message"]["content"][0]


# -- tool calls and results -------------------------------------------------------------------


def _tool_history(png: bytes) -> list[Any]:
    return [
        mb.UserMessage.text("weather in Paris and Oslo?"),
        mb.AssistantMessage(
            content=[
                mb.ToolCallBlock(
                    id="toolu_01A09q90qw90lq917835lq9", name="weather", args={"city": "Paris"}
                ),
                mb.ToolCallBlock(id="abcDEF123", name="weather", args={"city": "Oslo"}),
            ]
        ),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="toolu_01A09q90qw90lq917835lq9", content="18C"),
                mb.ToolResultBlock(
                    tool_call_id="abcDEF123",
                    content=[mb.TextBlock(text="radar"), mb.ImageBlock.from_bytes(png)],
                ),
            ]
        ),
        mb.AssistantMessage.text("Paris 18C; Oslo see radar"),
    ]


def test_tool_ids_are_remapped_consistently_and_results_become_tool_messages(
    png_bytes: bytes,
) -> None:
    history = _tool_history(png_bytes)
    out = encode(history)
    calls = out[1]["tool_calls"]
    mapping = mistral_tool_call_ids(history)
    new_id = mapping["toolu_01A09q90qw90lq917835lq9"]
    assert MISTRAL_ID.fullmatch(new_id)
    assert mapping["abcDEF123"] == "abcDEF123"  # already fits: kept
    assert [c["id"] for c in calls] == [new_id, "abcDEF123"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"city": "Paris"}
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "user", "assistant"]
    assert out[2] == {"role": "tool", "content": "18C", "tool_call_id": new_id, "name": "weather"}
    assert out[3]["tool_call_id"] == "abcDEF123"
    assert out[3]["content"] == [{"type": "text", "text": "radar"}]
    # the result's image moved into a user message after the tool results, naming the call
    moved = out[4]["content"]
    assert moved[0] == {"type": "text", "text": "Media returned by tool call abcDEF123 (weather):"}
    assert moved[1]["image_url"].startswith("data:image/png;base64,")
    # deterministic: the same history maps the same way
    assert encode(history) == out


def test_id_mapping_resolves_collisions() -> None:
    first = mistral_tool_call_ids(
        [mb.AssistantMessage(content=[mb.ToolCallBlock(id="call_1", name="f")])]
    )["call_1"]
    # a history where an id that already fits equals call_1's hashed id
    history = [
        mb.AssistantMessage(
            content=[mb.ToolCallBlock(id="call_1", name="f"), mb.ToolCallBlock(id=first, name="g")]
        ),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="call_1", content="a"),
                mb.ToolResultBlock(tool_call_id=first, content="b"),
            ]
        ),
    ]
    mapping = mistral_tool_call_ids(history)
    assert mapping[first] == first
    assert mapping["call_1"] != first
    assert MISTRAL_ID.fullmatch(mapping["call_1"])
    out = encode(history)
    assert [c["id"] for c in out[0]["tool_calls"]] == [mapping["call_1"], first]
    assert [m["tool_call_id"] for m in out[1:]] == [mapping["call_1"], first]


def test_tool_result_media_can_be_refused(png_bytes: bytes) -> None:
    with pytest.raises(UnsupportedBlockError, match=r"ImageBlock.*message 2, block 1.*text only"):
        to_mistral(_tool_history(png_bytes), EncodeOptions(tool_result_media="error"))


def test_moved_media_joins_a_following_user_message(png_bytes: bytes) -> None:
    history = [*_tool_history(png_bytes)[:3], mb.UserMessage.text("and now?")]
    out = encode(history)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "user"]
    assert out[4]["content"][-1] == {"type": "text", "text": "and now?"}


def test_invalid_arguments_are_sent_verbatim() -> None:
    call = mb.ToolCallBlock(id="abcDEF123", name="f", raw_args='{"a": 1,')
    out = encode([mb.AssistantMessage(content=[call])])
    assert out[0]["tool_calls"][0]["function"]["arguments"] == '{"a": 1,'
    assert "content" not in out[0]
    back = from_mistral(out)[0].content[0]
    assert (back.args, back.raw_args) == ({}, '{"a": 1,')


def test_tool_results_inside_a_user_message_go_first() -> None:
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="abcDEF123", name="f")]),
        mb.UserMessage(
            content=[
                mb.ToolResultBlock(tool_call_id="abcDEF123", content="ok"),
                mb.TextBlock(text="thanks"),
            ]
        ),
    ]
    out = encode(history)
    assert [m["role"] for m in out] == ["assistant", "tool", "user"]
    assert out[2]["content"] == "thanks"


def test_consecutive_tool_messages_decode_as_one_tool_message(png_bytes: bytes) -> None:
    back = from_mistral(encode(_tool_history(png_bytes)))
    assert [m.role for m in back] == ["user", "assistant", "tool", "user", "assistant"]
    assert [r.text for r in back[2].results] == ["18C", "radar"]
    assert back[2].results[0].name == "weather"


# -- decoding responses -----------------------------------------------------------------------


RESPONSE = {
    "id": "cmpl-e5cc70bb28c444948073e77776eb30ef",
    "object": "chat.completion",
    "model": "mistral-small-latest",
    "created": 1702256327,
    "usage": {
        "prompt_tokens": 16,
        "completion_tokens": 34,
        "total_tokens": 50,
        "prompt_tokens_details": {"cached_tokens": 4},
    },
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me check."},
                    {"type": "reference", "reference_ids": [1, 2]},
                ],
                "tool_calls": [
                    {
                        "id": "D681PevKs",
                        "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
        }
    ],
}


@pytest.mark.parametrize("as_sdk", [False, True])
def test_response_decodes_with_usage_stop_reason_and_raw_chunks(as_sdk: bool) -> None:
    payload: Any = mm.ChatCompletionResponse.model_validate(RESPONSE) if as_sdk else RESPONSE
    [message] = from_mistral(payload)
    assert isinstance(message, mb.AssistantMessage)
    assert message.provider == "mistral"
    assert message.model == "mistral-small-latest"
    assert message.response_id == "cmpl-e5cc70bb28c444948073e77776eb30ef"
    assert message.provider_stop_reason == "tool_calls"
    assert without_raw(message.usage) == mb.Usage(
        input_tokens=16, output_tokens=34, cache_read_tokens=4
    )
    text, raw, call = message.content
    assert text.text == "Let me check."
    assert isinstance(raw, mb.RawBlock)
    assert raw.data == {"type": "reference", "reference_ids": [1, 2]}
    assert (call.id, call.name, call.args) == ("D681PevKs", "weather", {"city": "Paris"})
    # the unknown chunk goes back out verbatim, to Mistral only
    out = encode([message])
    assert out[0]["content"][1] == {"type": "reference", "reference_ids": [1, 2]}


def test_foreign_raw_block_raises() -> None:
    block = mb.RawBlock(provider="anthropic", data={"type": "server_tool_use"})
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*anthropic content"):
        to_mistral([mb.AssistantMessage(content=[block])])


def test_request_body_and_sdk_message_objects_decode() -> None:
    body = {
        "model": "mistral-small-latest",
        "messages": [
            mm.SystemMessage(content="be brief"),
            {"role": "user", "content": "hi"},
            mm.AssistantMessage(
                content=None,
                tool_calls=[
                    mm.ToolCall(
                        id="abcDEF123", function=mm.FunctionCall(name="f", arguments={"x": 1})
                    )
                ],
            ),
            mm.ToolMessage(content="done", tool_call_id="abcDEF123", name="f"),
        ],
    }
    system, user, assistant, tool = from_mistral(body)
    assert (system.text, user.text) == ("be brief", "hi")
    assert assistant.tool_calls[0].args == {"x": 1}
    assert tool.results[0].tool_call_id == "abcDEF123"
    assert tool.results[0].name == "f"


def test_tool_message_without_id_pairs_with_its_call_by_name() -> None:
    messages = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "aaaaaaaa1", "function": {"name": "a", "arguments": "{}"}},
                {"id": "bbbbbbbb2", "function": {"name": "b", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "name": "b", "content": "B"},
        {"role": "tool", "name": "a", "content": "A"},
    ]
    results = from_mistral(messages)[1].results
    assert [(r.tool_call_id, r.text) for r in results] == [("bbbbbbbb2", "B"), ("aaaaaaaa1", "A")]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (42, "not a Mistral payload"),
        ({"foo": 1}, "not a Mistral payload"),
        ([{"role": "robot", "content": "x"}], "role 'robot'"),
        ([{"role": "user", "content": 3}], "content is a int"),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": "data:image/png;base64,!!!"}],
                }
            ],
            r"message 0, chunk 0.*base64",
        ),
        ([{"role": "assistant", "tool_calls": [{"function": {}}]}], "no function name"),
    ],
)
def test_bad_payloads_raise_decode_errors(payload: Any, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        from_mistral(payload)


# -- round trips and the real SDK -------------------------------------------------------------


def test_history_round_trips(png_bytes: bytes) -> None:
    pdf = make_pdf()
    history = [
        mb.SystemMessage.text("you are helpful"),
        mb.UserMessage(
            content=[
                mb.TextBlock(text="look"),
                mb.ImageBlock.from_bytes(png_bytes),
                mb.AudioBlock.from_bytes(make_wav(0.02)),
                mb.FileBlock.from_bytes(pdf, filename="a.pdf"),
                mb.FileBlock.from_file_id("f-1", provider="mistral"),
            ]
        ),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="hmm", provider="mistral"),
                mb.TextBlock(text="calling"),
                mb.ToolCallBlock(id="abcDEF123", name="zoom", args={"x": [1, 2]}),
            ]
        ),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="abcDEF123", content="zoomed", name="zoom"),
            ]
        ),
        mb.AssistantMessage.text("done"),
    ]
    back = from_mistral(to_mistral(history))
    assert views(back) == views(history)


def _without_sdk_defaults(message: dict[str, Any]) -> dict[str, Any]:
    """The SDK adds ``prefix: false`` to assistant messages and ``index: 0`` to tool calls."""
    message = dict(message)
    if message.get("prefix") is False:
        del message["prefix"]
    if "tool_calls" in message:
        message["tool_calls"] = [
            {k: v for k, v in call.items() if (k, v) != ("index", 0)}
            for call in message["tool_calls"]
        ]
    return message


def test_sdk_sends_the_encoded_messages_unchanged(
    server: tuple[str, Any], png_bytes: bytes
) -> None:
    base, handler = server
    handler.routes["/v1/chat/completions"] = ("application/json", json.dumps(RESPONSE).encode())
    history = [*_tool_history(png_bytes), mb.UserMessage.with_audio("and this?", [make_wav(0.01)])]
    fields = to_mistral(history)
    client = Mistral(api_key="test-key", server_url=base)
    response = client.chat.complete(model="mistral-small-latest", **fields)
    method, path, body = handler.seen[-1]
    assert (method, path) == ("POST", "/v1/chat/completions")
    sent = json.loads(body)["messages"]
    ours = json.loads(json.dumps(fields["messages"]))
    assert len(sent) == len(ours)
    for sent_message, our_message in zip(sent, ours, strict=True):
        assert _without_sdk_defaults(sent_message) == our_message
    [message] = from_mistral(response)
    assert message.tool_calls[0].id == "D681PevKs"


def test_through_the_public_encode_and_decode(png_bytes: bytes) -> None:
    history = [mb.UserMessage.with_images("hi", [png_bytes])]
    fields = mb.encode(history, "mistral")
    assert fields == to_mistral(history)
    assert views(mb.decode(fields, "mistral")) == views(history)


def test_bundled_testdata_media_validate() -> None:
    manifest = load_manifest()
    if not manifest:
        pytest.skip("testdata/ is not generated yet")
    checked = 0
    for name, info in manifest.items():
        mime = info["mime"] or ""  # null: bytes that are nothing known
        path = TESTDATA / name
        if not Path(path).is_file():
            continue
        if mime.startswith(("image/jpeg", "image/png", "image/webp", "image/gif")):
            block: Any = mb.ImageBlock.from_path(path)
        elif mime.startswith("audio/"):
            block = mb.AudioBlock.from_path(path)
        elif mime == "application/pdf":
            block = mb.FileBlock.from_path(path)
        else:
            continue
        out = encode([mb.UserMessage(content=[block])])
        back = from_mistral(out)[0].content[0]
        assert back.read() == path.read_bytes(), name
        assert back.mime_type == block.mime_type, name
        checked += 1
    assert checked > 0
