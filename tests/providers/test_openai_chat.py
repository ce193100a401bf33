"""The OpenAI Chat Completions translator, checked against the installed ``openai`` SDK's types."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionAssistantMessageParam,
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartInputAudioParam,
    ChatCompletionContentPartRefusalParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
    completion_create_params,
)
from openai.types.chat.chat_completion_content_part_param import File as FilePartParam
from openai.types.chat.chat_completion_message_custom_tool_call_param import (
    ChatCompletionMessageCustomToolCallParam,
)
from pydantic import TypeAdapter
from tests.conftest import (
    TESTDATA,
    RouteHandler,
    check_typed_dict,
    load_manifest,
    make_bmp,
    make_jpeg,
    make_pdf,
    make_png,
    make_wav,
    tool_call_history,
    typed_dict_keys,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.openai_chat import from_openai_chat, to_openai_chat
from mediablocks.sources import FileIdSource, URLSource

PARTS: dict[str, Any] = {
    "text": ChatCompletionContentPartTextParam,
    "image_url": ChatCompletionContentPartImageParam,
    "input_audio": ChatCompletionContentPartInputAudioParam,
    "file": FilePartParam,
    "refusal": ChatCompletionContentPartRefusalParam,
}
MESSAGES: dict[str, Any] = {
    "system": ChatCompletionSystemMessageParam,
    "user": ChatCompletionUserMessageParam,
    "assistant": ChatCompletionAssistantMessageParam,
    "tool": ChatCompletionToolMessageParam,
}
CALLS: dict[str, Any] = {
    "function": ChatCompletionMessageFunctionToolCallParam,
    "custom": ChatCompletionMessageCustomToolCallParam,
}
# Nested TypedDicts whose keys we also hold to the SDK's list: (part key, inner key) -> type.
NESTED: dict[tuple[str, str], Any] = {
    ("image_url", "image_url"): get_type_hints(ChatCompletionContentPartImageParam)["image_url"],
    ("input_audio", "input_audio"): get_type_hints(ChatCompletionContentPartInputAudioParam)[
        "input_audio"
    ],
    ("file", "file"): get_type_hints(FilePartParam)["file"],
    ("function", "function"): get_type_hints(ChatCompletionMessageFunctionToolCallParam)[
        "function"
    ],
}


# -- helpers ----------------------------------------------------------------------------------


def _check(typed_dict: Any, value: dict[str, Any], kind: str) -> None:
    """Validate with the SDK's TypedDict, and refuse keys it does not have (pydantic ignores
    them), including those of the nested objects."""
    check_typed_dict(typed_dict, value)
    for (outer, inner), nested in NESTED.items():
        if outer == kind and isinstance(value.get(inner), dict):
            extra = set(value[inner]) - typed_dict_keys(nested)
            assert not extra, f"{kind}.{inner} has no key(s) {extra}"


def check_messages(messages: list[dict[str, Any]]) -> None:
    """Every message, every part and every tool call, one by one, against openai's types."""
    for message in messages:
        _check(MESSAGES[message["role"]], message, message["role"])
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                _check(PARTS[part["type"]], part, part["type"])
        for call in message.get("tool_calls") or []:
            _check(CALLS[call["type"]], call, call["type"])
    TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming).validate_python(
        {"model": "gpt-4o", "messages": messages}
    )


def encode(messages: list[Any], **options: Any) -> list[dict[str, Any]]:
    out = to_openai_chat(messages, EncodeOptions(**options))
    assert list(out) == ["messages"]
    check_messages(out["messages"])
    return out["messages"]


def view(block: Any) -> Any:
    """What a block means, independent of how it was built (media: bytes, type and name)."""
    if isinstance(block, mb.MediaBlock):
        source = block.source
        if isinstance(source, FileIdSource):
            return (block.type, "file_id", source.file_id, block.filename)
        if isinstance(source, URLSource):
            return (block.type, "url", source.url)
        extra = (block.detail,) if isinstance(block, mb.ImageBlock) else ()
        return (block.type, block.read(), block.mime_type, block.filename, *extra)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, shown)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


def bundled(mime: str) -> bytes | None:
    """Bytes of a bundled test file with this MIME type, if the test data has one."""
    for name, entry in sorted(load_manifest().items()):
        if entry.get("mime") == mime and entry.get("kind") != "bad" and (TESTDATA / name).is_file():
            return (TESTDATA / name).read_bytes()
    return None


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
    out = encode([mb.UserMessage(content=["one", "two"]), mb.SystemMessage(content=["a", "b"])])
    assert out[0]["content"] == [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    back = from_openai_chat(out)
    assert [b.text for b in back[0].content] == ["one", "two"]
    assert [b.text for b in back[1].content] == ["a", "b"]


def test_user_name_goes_out_and_comes_back() -> None:
    out = encode([mb.UserMessage(content=["hi"], name="ana")])
    assert out == [{"role": "user", "content": "hi", "name": "ana"}]
    assert from_openai_chat(out)[0].name == "ana"  # type: ignore[union-attr]


def test_session_messages_are_not_sent() -> None:
    out = encode(
        [
            mb.UserMessage.text("a"),
            mb.CustomMessage(custom_type="ui-note", data={"x": 1}),
            mb.CompactionSummaryMessage(summary="earlier"),
            mb.AssistantMessage.text("b"),
        ]
    )
    assert [m["role"] for m in out] == ["user", "assistant"]


def test_developer_messages_decode_as_system() -> None:
    back = from_openai_chat([{"role": "developer", "content": [{"type": "text", "text": "rules"}]}])
    assert isinstance(back[0], mb.SystemMessage)
    assert back[0].text == "rules"


def test_system_message_refuses_media_with_its_position(png_bytes: bytes) -> None:
    system = mb.SystemMessage(content=["look", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError, match=r"ImageBlock.*message 1, block 1.*text only"):
        to_openai_chat([mb.UserMessage.text("x"), system])


# -- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("maker", "mime"), [(make_png, "image/png"), (make_jpeg, "image/jpeg")])
def test_inline_image_is_a_data_uri_and_decodes_back(maker: Any, mime: str) -> None:
    data = maker()
    block = mb.ImageBlock.from_bytes(data).model_copy(update={"detail": "low"})
    out = encode([mb.UserMessage(content=["what is this?", block])])
    part = out[0]["content"][1]
    assert part["image_url"]["url"] == f"data:{mime};base64," + base64.b64encode(data).decode()
    assert part["image_url"]["detail"] == "low"
    back = from_openai_chat(out)
    image = back[0].content[1]
    assert isinstance(image, mb.ImageBlock)
    assert image.read() == data
    assert image.mime_type == mime
    assert image.detail == "low"


def test_detail_levels_newer_than_the_block_model_survive(png_bytes: bytes) -> None:
    url = "data:image/png;base64," + base64.b64encode(png_bytes).decode()
    message = {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": url, "detail": "original"}}],
    }
    back = from_openai_chat([message])
    assert encode(back) == [message]


def test_image_url_is_passed_through_without_fetching(
    server: tuple[str, type[RouteHandler]],
) -> None:
    base, handler = server
    out = encode([mb.UserMessage.with_images(None, [mb.ImageBlock.from_url(base + "/cat.png")])])
    assert out[0]["content"][0]["image_url"] == {"url": base + "/cat.png"}
    assert handler.hits == []
    back = from_openai_chat(out)
    assert view(back[0].content[0]) == ("image", "url", base + "/cat.png")


def test_image_url_is_inlined_on_request(
    server: tuple[str, type[RouteHandler]], png_bytes: bytes
) -> None:
    base, handler = server
    handler.routes["/cat"] = ("image/png", png_bytes)
    block = mb.ImageBlock.from_url(base + "/cat")
    out = encode([mb.UserMessage(content=[block])], url_media="inline", policy=LOCAL)
    url = out[0]["content"][0]["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(png_bytes).decode()
    assert handler.hits == ["/cat"]


def test_image_formats_openai_does_not_take_are_refused() -> None:
    bmp = mb.ImageBlock.from_bytes(make_bmp())
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 1.*image/bmp.*prepare"):
        to_openai_chat([mb.UserMessage(content=["x", bmp])])


def test_image_file_ids_are_refused() -> None:
    block = mb.ImageBlock.from_file_id("file-abc", "image/png", provider="openai")
    with pytest.raises(UnsupportedBlockError, match=r"not by file id"):
        to_openai_chat([mb.UserMessage(content=[block])])


# -- audio ------------------------------------------------------------------------------------


def test_wav_audio_is_input_audio_and_decodes_back() -> None:
    data = make_wav(0.05)
    out = encode([mb.UserMessage.with_audio("transcribe", [data])])
    part = out[0]["content"][1]
    assert part == {
        "type": "input_audio",
        "input_audio": {"data": base64.b64encode(data).decode(), "format": "wav"},
    }
    back = from_openai_chat(out)
    audio = back[0].content[1]
    assert isinstance(audio, mb.AudioBlock)
    assert (audio.read(), audio.mime_type) == (data, "audio/wav")


def test_mp3_audio_has_the_mp3_format() -> None:
    data = bundled("audio/mpeg")
    if data is None:
        pytest.skip("no MP3 in testdata/ yet")
    out = encode([mb.UserMessage(content=[mb.AudioBlock.from_bytes(data)])])
    assert out[0]["content"][0]["input_audio"]["format"] == "mp3"
    assert from_openai_chat(out)[0].content[0].read() == data  # type: ignore[union-attr]


def test_other_audio_formats_are_refused_with_a_pointer_to_prepare(tmp_path: Path) -> None:
    data = bundled("audio/flac") or bundled("audio/ogg")
    if data is None:
        aifc = pytest.importorskip("aifc")  # in the standard library up to Python 3.12
        path = tmp_path / "tone.aiff"
        with aifc.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(8000)
            out.writeframes(b"\x00\x01" * 80)
        data = path.read_bytes()
    block = mb.AudioBlock.from_bytes(data)
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*WAV or MP3.*prepare"):
        to_openai_chat([mb.UserMessage(content=[block])])


def test_audio_urls_are_downloaded_or_refused(
    server: tuple[str, type[RouteHandler]], wav_bytes: bytes
) -> None:
    base, handler = server
    handler.routes["/a.wav"] = ("audio/wav", wav_bytes)
    with pytest.raises(UnsupportedBlockError, match=r"cannot fetch URLs"):
        to_openai_chat(
            [mb.UserMessage(content=[mb.AudioBlock.from_url(base + "/a.wav")])],
            EncodeOptions(url_media="url"),
        )
    out = encode([mb.UserMessage(content=[mb.AudioBlock.from_url(base + "/a.wav")])], policy=LOCAL)
    assert out[0]["content"][0]["input_audio"]["data"] == base64.b64encode(wav_bytes).decode()


# -- files and video --------------------------------------------------------------------------


def test_pdf_is_a_file_part_with_a_data_uri_and_its_name() -> None:
    pdf = make_pdf()
    named = mb.FileBlock.from_bytes(pdf, filename="/home/ana/report.pdf")
    unnamed = mb.FileBlock.from_bytes(pdf)
    out = encode([mb.UserMessage(content=[named, unnamed])])
    first, second = out[0]["content"]
    assert first["file"] == {
        "file_data": "data:application/pdf;base64," + base64.b64encode(pdf).decode(),
        "filename": "report.pdf",
    }
    assert second["file"]["filename"] == "document.pdf"
    back = from_openai_chat(out)
    assert view(back[0].content[0]) == ("file", pdf, "application/pdf", "report.pdf")


def test_openai_file_ids_go_out_and_foreign_ones_raise() -> None:
    ours = mb.FileBlock.from_file_id("file-123", "application/pdf", provider="openai")
    out = encode([mb.UserMessage(content=[ours])])
    assert out[0]["content"][0] == {"type": "file", "file": {"file_id": "file-123"}}
    back = from_openai_chat(out)
    assert view(back[0].content[0]) == ("file", "file_id", "file-123", None)
    theirs = mb.FileBlock.from_file_id("file_x", provider="anthropic")
    with pytest.raises(UnsupportedBlockError, match=r"anthropic file"):
        to_openai_chat([mb.UserMessage(content=[theirs])])


def test_non_pdf_files_are_refused() -> None:
    text = mb.FileBlock.from_bytes(b"plain notes\n", "text/plain")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 1.*PDF files only"):
        to_openai_chat([mb.UserMessage(content=["read", text])])


def test_video_is_refused_with_its_position() -> None:
    data = bundled("video/mp4")
    block = (
        mb.VideoBlock.from_bytes(data)
        if data
        else mb.VideoBlock.from_url("https://example.com/clip.mp4")
    )
    with pytest.raises(UnsupportedBlockError, match=r"VideoBlock.*message 0, block 1.*no video"):
        to_openai_chat([mb.UserMessage(content=["watch", block])])


# -- tool calls and results -------------------------------------------------------------------


def test_tool_calls_and_results_round_trip() -> None:
    history = tool_call_history()
    out = encode(history)
    calls = out[1]["tool_calls"]
    assert calls[0]["function"] == {"name": "weather", "arguments": '{"city":"Paris"}'}
    assert calls[1]["function"]["arguments"] == "{city: Rome"  # invalid JSON kept verbatim
    assert out[2] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}
    assert out[3]["content"] == [
        {"type": "text", "text": "bad"},
        {"type": "text", "text": "arguments"},
    ]
    back = from_openai_chat(out)
    assert views(back) == views(history)
    assert [r.name for r in back[2].content] == ["weather", "weather"]  # type: ignore[union-attr]


def test_tool_call_only_assistant_message_has_null_content() -> None:
    call = mb.ToolCallBlock(id="call_9", name="now", args={})
    out = encode([mb.UserMessage.text("t?"), mb.AssistantMessage(content=[call])])
    assert out[1]["content"] is None
    assert out[1]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_results_inside_a_user_message_go_first_as_tool_messages() -> None:
    history = [
        mb.UserMessage.text("go"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="f", args={"a": 1})]),
        mb.UserMessage(content=[mb.ToolResultBlock(tool_call_id="c1", content="done"), "thanks"]),
    ]
    out = encode(history)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "user"]
    assert out[3]["content"] == "thanks"


def test_tool_result_media_move_to_a_user_message(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    history = [
        mb.UserMessage.text("screenshot please"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="call_s", name="shot", args={})]),
        mb.ToolMessage.from_result("call_s", [mb.TextBlock(text="here"), image]),
        mb.AssistantMessage.text("I see a red square."),
    ]
    out = encode(history)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "user", "assistant"]
    assert out[2]["content"] == "here"
    moved = out[3]["content"]
    assert moved[0] == {"type": "text", "text": "Media returned by tool call call_s:"}
    assert base64.b64decode(moved[1]["image_url"]["url"].split(",", 1)[1]) == png_bytes
    with pytest.raises(UnsupportedBlockError, match=r"message 2, block 0.*tool_result_media"):
        to_openai_chat(history, EncodeOptions(tool_result_media="error"))


def test_custom_tool_calls_and_legacy_function_fields_are_kept_verbatim() -> None:
    custom = {"id": "call_c", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [custom]},
        {"role": "tool", "tool_call_id": "call_c", "content": "1"},
    ]
    back = from_openai_chat(messages)
    raw = back[1].content[0]
    assert isinstance(raw, mb.RawBlock)
    assert raw.data == custom
    assert encode(back) == messages
    legacy = [
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "ok"},
    ]
    again = from_openai_chat(legacy)
    assert to_openai_chat(again)["messages"] == legacy


# -- thinking, refusals, assistant audio ------------------------------------------------------


def test_thinking_is_dropped_or_sent_as_text() -> None:
    history = [
        mb.UserMessage.text("2+2?"),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="add them", signature="sig", provider="anthropic"),
                mb.TextBlock(text="4"),
            ]
        ),
    ]
    assert encode(history)[1] == {"role": "assistant", "content": "4"}
    as_text = encode(history, thinking="text")[1]["content"]
    assert as_text == [{"type": "text", "text": "add them"}, {"type": "text", "text": "4"}]


def test_reasoning_content_from_compatible_servers_is_thinking() -> None:
    response = {
        "id": "r1",
        "object": "chat.completion",
        "created": 1,
        "model": "deepseek-reasoner",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "4", "reasoning_content": "2+2"},
            }
        ],
    }
    (message,) = from_openai_chat(response)
    assert isinstance(message, mb.AssistantMessage)
    assert [(b.type, getattr(b, "thinking", None)) for b in message.content] == [
        ("thinking", "2+2"),
        ("text", None),
    ]
    assert message.thinking[0].provider == "openai-chat"


def test_refusals_round_trip_in_their_own_form() -> None:
    field = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    back = from_openai_chat([field])
    assert back[0].text == "I can't help with that."  # readable as text by any provider
    assert encode(back) == [field]
    part = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Partly: "}, {"type": "refusal", "refusal": "no"}],
    }
    assert encode(from_openai_chat([part])) == [part]


def test_assistant_audio_reply_is_referred_to_by_id() -> None:
    wav = make_wav(0.02)
    message = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "audio": {
                "id": "audio_abc",
                "data": base64.b64encode(wav).decode(),
                "expires_at": 1_900_000_000,
                "transcript": "hello there",
            },
        }
    )
    (decoded,) = from_openai_chat(message)
    audio = decoded.content[0]
    assert isinstance(audio, mb.AudioBlock)
    assert (audio.read(), audio.mime_type) == (wav, "audio/wav")
    assert audio.for_provider("openai-chat")["audio"]["transcript"] == "hello there"
    out = encode([mb.UserMessage.text("say hi"), decoded])
    assert out[1] == {"role": "assistant", "content": None, "audio": {"id": "audio_abc"}}
    assert from_openai_chat(out)[1].content[0].source.file_id == "audio_abc"  # type: ignore


def test_headerless_pcm_audio_replies_are_audio_pcm() -> None:
    pcm = bytes(range(256)) * 4
    (decoded,) = from_openai_chat(
        {"role": "assistant", "audio": {"id": "a1", "data": base64.b64encode(pcm).decode()}}
    )
    audio = decoded.content[0]
    assert isinstance(audio, mb.AudioBlock)
    assert (audio.read(), audio.mime_type) == (pcm, "audio/pcm")


def test_assistant_messages_refuse_other_media(png_bytes: bytes) -> None:
    reply = mb.AssistantMessage(content=["see", mb.ImageBlock.from_bytes(png_bytes)])
    with pytest.raises(UnsupportedBlockError, match=r"message 1, block 1"):
        to_openai_chat([mb.UserMessage.text("draw"), reply])


# -- raw blocks ---------------------------------------------------------------------------------


def test_unknown_parts_are_raw_blocks_sent_back_verbatim() -> None:
    part = {"type": "input_video", "video": {"id": "v1"}, "future": [1, 2]}
    back = from_openai_chat([{"role": "user", "content": [part]}])
    raw = back[0].content[0]
    assert raw == mb.RawBlock(provider="openai-chat", data=part)
    assert to_openai_chat(back)["messages"][0]["content"] == [part]


def test_unmodelled_part_keys_survive() -> None:
    part = {"type": "text", "text": "long prefix", "prompt_cache_breakpoint": {"mode": "explicit"}}
    messages = [{"role": "user", "content": [part, {"type": "text", "text": "question"}]}]
    assert encode(from_openai_chat(messages)) == messages


def test_other_providers_raw_blocks_are_refused() -> None:
    raw = mb.RawBlock(provider="anthropic", data={"type": "search_result"})
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*anthropic content"):
        to_openai_chat([mb.UserMessage(content=[raw])])


# -- responses --------------------------------------------------------------------------------


RESPONSE: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1_700_000_000,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "logprobs": None,
            "message": {
                "role": "assistant",
                "content": "See example.com.",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url_citation": {
                            "url": "https://example.com",
                            "title": "Example",
                            "start_index": 4,
                            "end_index": 15,
                        },
                    }
                ],
                "tool_calls": [
                    {
                        "id": "call_w",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                    }
                ],
            },
        }
    ],
    "usage": {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 100},
        "completion_tokens_details": {"reasoning_tokens": 12},
    },
}


@pytest.mark.parametrize("as_object", [False, True])
def test_responses_decode_with_usage_and_stop_reason(as_object: bool) -> None:
    payload = ChatCompletion.model_validate(RESPONSE) if as_object else RESPONSE
    (message,) = from_openai_chat(payload)
    assert isinstance(message, mb.AssistantMessage)
    assert (message.provider, message.model, message.response_id, message.provider_stop_reason) == (
        "openai-chat",
        "gpt-4o-2024-08-06",
        "chatcmpl-1",
        "tool_calls",
    )
    assert message.usage is not None
    assert message.usage.raw["prompt_tokens"] == 120
    assert message.usage.model_copy(update={"raw": {}}) == mb.Usage(
        input_tokens=120, output_tokens=30, cache_read_tokens=100, reasoning_tokens=12
    )
    assert message.text == "See example.com."
    notes = message.content[0].for_provider("openai-chat")["annotations"]
    assert notes[0]["url_citation"]["url"] == "https://example.com"
    assert message.tool_calls == [
        mb.ToolCallBlock(id="call_w", name="weather", args={"city": "Oslo"})
    ]


def test_every_choice_becomes_a_message() -> None:
    response = {
        **RESPONSE,
        "choices": [
            {"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": t}}
            for i, t in enumerate(["one", "two"])
        ],
    }
    decoded = from_openai_chat(response)
    assert [m.text for m in decoded] == ["one", "two"]
    assert decoded[0].usage is not None  # type: ignore[union-attr]
    assert decoded[1].usage is None  # type: ignore[union-attr]


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        ({"messages": "hi"}, r"'messages' is not a list"),
        ({"foo": 1}, r"expected a request"),
        ([{"role": "wizard", "content": "x"}], r"message 0 has role 'wizard'"),
        ([{"role": "user", "content": 7}], r"message 0: content is a int"),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x"}}]}],
            r"message 0, part 0",
        ),
        (
            [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "@@"}}]}],
            r"message 0, part 0",
        ),
        ([{"role": "tool", "content": "x"}], r"no tool_call_id"),
        (
            [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}],
            r"tool call 0: tool call has no function name",
        ),
        (42, r"not an OpenAI Chat payload"),
    ],
)
def test_malformed_payloads_raise_decode_errors(payload: Any, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_openai_chat(payload)


def test_media_sink_gets_placeholders(png_bytes: bytes) -> None:
    sink = MediaSink()
    image = mb.ImageBlock.from_bytes(png_bytes)
    audio = mb.AudioBlock.from_bytes(make_wav(0.01))
    out = to_openai_chat(
        [mb.UserMessage(content=[image, audio])], EncodeOptions(target="json", media_sink=sink)
    )
    parts = out["messages"][0]["content"]
    assert parts[0]["image_url"]["url"].startswith(sink.token)
    assert parts[1]["input_audio"]["data"].startswith(sink.token)
    assert [form for _, form in sink.items] == ["data_uri", "base64"]
    assert image.source.cached_base64() is None  # nothing was encoded yet


def test_a_whole_history_round_trips(png_bytes: bytes) -> None:
    history = [
        mb.SystemMessage.text("You are terse."),
        mb.UserMessage(
            content=[
                "look",
                mb.ImageBlock.from_bytes(png_bytes),
                mb.AudioBlock.from_bytes(make_wav(0.02)),
                mb.FileBlock.from_bytes(make_pdf(), filename="a.pdf"),
            ]
        ),
        *tool_call_history()[1:],
    ]
    back = from_openai_chat(to_openai_chat(history))
    assert views(back) == views(history)
    assert all(m.provider == "openai-chat" for m in back if isinstance(m, mb.AssistantMessage))
