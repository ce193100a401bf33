"""The Ollama translator, checked against the installed ``ollama`` SDK's own models."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import ollama
import pytest
from ollama._types import ChatRequest
from tests.conftest import (
    TESTDATA,
    load_manifest,
    make_jpeg,
    make_png,
    make_wav,
    model_keys,
    without_raw,
)

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._options import EncodeOptions, MediaSink
from mediablocks.providers.ollama import from_ollama, to_ollama
from mediablocks.sources import URLSource

# -- helpers ----------------------------------------------------------------------------------


def check_messages(messages: list[dict[str, Any]]) -> None:
    """Each message and each tool call against ``ollama.Message``; no key it would ignore
    except a tool call's ``id`` (the HTTP API's, which this SDK version does not model).

    ``ollama.chat`` wraps each image in ``ollama.Image`` before validating a message; so do we,
    and the SDK must serialise our base64 strings back unchanged.
    """
    sdk_messages = []
    for message in messages:
        images = message.get("images", [])
        wrapped = (
            {**message, "images": [ollama.Image(value=i) for i in images]} if images else message
        )
        sdk_message = ollama.Message.model_validate(wrapped)
        sdk_messages.append(sdk_message)
        # beyond the SDK's fields: the ids Ollama's server has (api.Message.ToolCallID,
        # api.ToolCall.ID), sent back only where Ollama sent them; the SDK drops them
        known = model_keys(ollama.Message) | {"tool_call_id"}
        assert set(message) <= known, set(message) - known
        assert isinstance(message["content"], str)
        for image in images:
            assert isinstance(image, str)
            base64.b64decode(image, validate=True)
        if images:
            assert sdk_message.model_dump(exclude_none=True)["images"] == images
        for call in message.get("tool_calls", []):
            ollama.Message.ToolCall.model_validate(call)
            assert set(call) <= model_keys(ollama.Message.ToolCall) | {"id"}
            assert isinstance(call["function"]["arguments"], dict)
    ChatRequest.model_validate({"model": "llava", "messages": sdk_messages})


def encode(messages: list[Any], **options: Any) -> list[dict[str, Any]]:
    out = to_ollama(messages, EncodeOptions(**options))
    assert list(out) == ["messages"]
    check_messages(out["messages"])
    return out["messages"]


def view(block: Any) -> Any:
    if isinstance(block, mb.MediaBlock):
        if isinstance(block.source, URLSource):
            return (block.type, "url", block.source.url)
        return (block.type, block.read(), block.mime_type)
    if isinstance(block, mb.ToolResultBlock):
        content = block.content
        shown = content if isinstance(content, str) else [view(b) for b in content]
        return ("tool_result", block.tool_call_id, shown, block.name)
    return block.model_dump()


def views(messages: list[Any]) -> list[tuple[str, list[Any]]]:
    return [(m.role, [view(b) for b in m.content]) for m in messages]


LOCAL = mb.FetchPolicy(allow_private=True)


# -- text, images, roles ----------------------------------------------------------------------


def test_text_blocks_are_joined_with_a_blank_line() -> None:
    out = encode(
        [
            mb.SystemMessage.text("be brief"),
            mb.UserMessage(content=["first", "second"]),
            mb.AssistantMessage.text("ok"),
        ]
    )
    assert out == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "first\n\nsecond"},
        {"role": "assistant", "content": "ok"},
    ]
    assert [b.text for b in from_ollama(out)[1].content] == ["first\n\nsecond"]


def test_images_are_base64_and_decode_after_the_text() -> None:
    png, jpeg = make_png((9, 4)), make_jpeg((3, 3))
    message = mb.UserMessage(
        content=[mb.ImageBlock.from_bytes(png), "compare", mb.ImageBlock.from_bytes(jpeg)]
    )
    out = encode([message])
    assert out[0]["content"] == "compare"
    assert [base64.b64decode(i) for i in out[0]["images"]] == [png, jpeg]
    text, first, second = from_ollama(out)[0].content
    assert text.text == "compare"
    assert (first.read(), first.mime_type) == (png, "image/png")
    assert (second.read(), second.mime_type) == (jpeg, "image/jpeg")


def test_url_images_are_always_downloaded(server: tuple[str, Any]) -> None:
    base, handler = server
    png = make_png((6, 6))
    handler.routes["/cat.png"] = ("image/png", png)
    block = mb.ImageBlock.from_url(base + "/cat.png")
    out = encode([mb.UserMessage(content=[block])], policy=LOCAL)
    assert base64.b64decode(out[0]["images"][0]) == png
    assert [p for _, p, _ in handler.seen] == ["/cat.png"]
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*cannot fetch"):
        to_ollama(
            [mb.UserMessage(content=[mb.ImageBlock.from_url(base + "/cat.png")])],
            EncodeOptions(url_media="url"),
        )


@pytest.mark.parametrize(
    "block",
    [
        mb.AudioBlock.from_bytes(make_wav(0.01)),
        mb.VideoBlock.from_url("https://example.com/v.mp4"),
        mb.FileBlock.from_bytes(b"plain words\n", "text/plain"),
        mb.ImageBlock.from_file_id("file-1", "image/png", provider="openai"),
    ],
    ids=["audio", "video", "text-file", "file-id"],
)
def test_what_ollama_cannot_take_raises_with_its_position(block: Any) -> None:
    kind = type(block).__name__
    with pytest.raises(
        UnsupportedBlockError,
        match=rf"ollama cannot carry {kind}.*message 1, "
        r"block 1",
    ):
        to_ollama([mb.SystemMessage.text("s"), mb.UserMessage(content=["see", block])])


def test_media_sink_gets_placeholders(png_bytes: bytes) -> None:
    sink = MediaSink()
    out = to_ollama(
        [mb.UserMessage.with_images("x", [png_bytes])],
        EncodeOptions(media_sink=sink, target="json"),
    )
    assert out["messages"][0]["images"][0].startswith(sink.token)
    assert sink.items[0][1] == "base64"


# -- thinking ---------------------------------------------------------------------------------


def test_own_thinking_goes_in_the_thinking_field_and_foreign_follows_the_option() -> None:
    history = [
        mb.UserMessage.text("2+2?"),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="add", provider="ollama"),
                mb.ThinkingBlock(thinking="gpt's idea", provider="openai-responses"),
                mb.TextBlock(text="4"),
            ]
        ),
    ]
    assert encode(history)[1] == {"role": "assistant", "content": "4", "thinking": "add"}
    assert encode(history, thinking="text")[1]["content"] == "gpt's idea\n\n4"
    back = from_ollama(encode(history))[1].content
    assert (back[0].thinking, back[0].provider, back[1].text) == ("add", "ollama", "4")


# -- tools ------------------------------------------------------------------------------------


def _tool_history(png: bytes) -> list[Any]:
    return [
        mb.UserMessage.text("weather?"),
        mb.AssistantMessage(
            content=[
                mb.ToolCallBlock(id="call_1", name="weather", args={"city": "Paris"}),
                mb.ToolCallBlock(id="call_2", name="radar", args={"city": "Oslo"}),
            ]
        ),
        mb.ToolMessage.from_results(
            [
                mb.ToolResultBlock(tool_call_id="call_1", content="18C"),
                mb.ToolResultBlock(
                    tool_call_id="call_2",
                    content=[mb.TextBlock(text="radar map"), mb.ImageBlock.from_bytes(png)],
                ),
            ]
        ),
        mb.AssistantMessage.text("Paris is warm"),
    ]


def test_tool_calls_have_object_arguments_and_results_name_their_tool(png_bytes: bytes) -> None:
    out = encode(_tool_history(png_bytes))
    assert out[1]["tool_calls"] == [
        # ollama-python's Message.ToolCall has no id: none is sent
        {"function": {"name": "weather", "arguments": {"city": "Paris"}}},
        {"function": {"name": "radar", "arguments": {"city": "Oslo"}}},
    ]
    assert out[2] == {"role": "tool", "content": "18C", "tool_name": "weather"}
    assert out[3]["tool_name"] == "radar"
    assert out[3]["content"] == "radar map"
    assert base64.b64decode(out[3]["images"][0]) == png_bytes  # images ride on the tool message


def test_tool_results_decode_into_one_tool_message_paired_with_their_calls(
    png_bytes: bytes,
) -> None:
    back = from_ollama(encode(_tool_history(png_bytes)))
    assert [m.role for m in back] == ["user", "assistant", "tool", "assistant"]
    first, second = back[2].results
    calls = back[1].tool_calls  # no ids on Ollama's wire: stable synthetic ones pair them
    assert (first.tool_call_id, first.name, first.content) == (calls[0].id, "weather", "18C")
    assert second.tool_call_id == calls[1].id != calls[0].id
    assert second.content[0].text == "radar map"
    assert second.content[1].read() == png_bytes


def test_results_without_ids_pair_by_tool_name_then_order() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "a", "arguments": {"n": 1}}},
                {"function": {"name": "b", "arguments": {}}},
                {"function": {"name": "a", "arguments": {"n": 2}}},
            ],
        },
        {"role": "tool", "tool_name": "b", "content": "B"},
        {"role": "tool", "tool_name": "a", "content": "A1"},
        {"role": "tool", "tool_name": "a", "content": "A2"},
    ]
    _, assistant, tool = from_ollama(messages)
    ids = [call.id for call in assistant.tool_calls]
    assert len(set(ids)) == 3
    assert [(r.tool_call_id, r.content) for r in tool.results] == [
        (ids[1], "B"),
        (ids[0], "A1"),
        (ids[2], "A2"),
    ]


def test_invalid_arguments_cannot_go_to_ollama() -> None:
    call = mb.ToolCallBlock(id="c", name="f", raw_args="{oops")
    with pytest.raises(UnsupportedBlockError, match=r"message 0, block 0.*not a JSON object"):
        to_ollama([mb.AssistantMessage(content=[call])])


def test_tool_result_audio_raises() -> None:
    result = mb.ToolResultBlock(tool_call_id="c", content=[mb.AudioBlock.from_bytes(make_wav())])
    with pytest.raises(UnsupportedBlockError, match=r"AudioBlock.*message 0, block 0.*images only"):
        to_ollama([mb.ToolMessage(content=[result])])


def test_tool_results_in_a_user_message_come_first() -> None:
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="f")]),
        mb.UserMessage(
            content=[mb.ToolResultBlock(tool_call_id="c1", content="ok"), mb.TextBlock(text="go")]
        ),
    ]
    out = encode(history)
    assert [m["role"] for m in out] == ["assistant", "tool", "user"]
    assert out[1]["tool_name"] == "f"


# -- responses --------------------------------------------------------------------------------

RESPONSE = {
    "model": "qwen3:8b",
    "created_at": "2025-10-17T23:14:07.414671Z",
    "message": {
        "role": "assistant",
        "content": "",
        "thinking": "The user wants the weather.",
        "tool_calls": [
            {
                "id": "call_lyywui55",
                "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}},
            }
        ],
    },
    "done": True,
    "done_reason": "stop",
    "total_duration": 174560334,
    "load_duration": 101397084,
    "prompt_eval_count": 11,
    "prompt_eval_duration": 13074791,
    "eval_count": 18,
    "eval_duration": 52479709,
}


def test_response_dict_decodes_with_usage_stop_reason_and_call_id() -> None:
    [message] = from_ollama(RESPONSE)
    assert isinstance(message, mb.AssistantMessage)
    assert (message.provider, message.model, message.provider_stop_reason) == (
        "ollama",
        "qwen3:8b",
        "stop",
    )
    assert without_raw(message.usage) == mb.Usage(input_tokens=11, output_tokens=18)
    thinking, call = message.content
    assert (thinking.thinking, thinking.provider) == ("The user wants the weather.", "ollama")
    assert (call.id, call.name, call.args) == ("call_lyywui55", "get_weather", {"city": "Paris"})
    # the function index and Ollama's own id survive a replay to Ollama
    assert encode([message])[0]["tool_calls"] == RESPONSE["message"]["tool_calls"]


def test_sdk_response_object_decodes() -> None:
    response = ollama.ChatResponse.model_validate(RESPONSE)
    [message] = from_ollama(response)
    assert without_raw(message.usage) == mb.Usage(input_tokens=11, output_tokens=18)
    assert message.provider_stop_reason == "stop"
    # this SDK version drops the server's tool-call id: one is made up, never empty
    [call] = message.tool_calls
    assert call.id.startswith("call_")
    assert call.args == {"city": "Paris"}


def test_sdk_message_objects_with_raw_image_bytes_decode(png_bytes: bytes) -> None:
    messages = [
        ollama.Message(role="user", content="what?", images=[ollama.Image(value=png_bytes)])
    ]
    [user] = from_ollama(messages)
    assert user.content[1].read() == png_bytes


def test_unknown_fields_are_kept_and_sent_back() -> None:
    message = {"role": "assistant", "content": "hi", "logprobs": [{"token": "hi", "logprob": -0.1}]}
    [decoded] = from_ollama([message])
    raw = decoded.content[-1]
    assert isinstance(raw, mb.RawBlock)
    assert raw.data == {"logprobs": [{"token": "hi", "logprob": -0.1}]}
    assert to_ollama([decoded])["messages"] == [message]
    with pytest.raises(UnsupportedBlockError, match="holds gemini content"):
        to_ollama([mb.UserMessage(content=[mb.RawBlock(provider="gemini", data={"x": 1})])])


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("hello", "not an Ollama payload"),
        ({"model": "x"}, "not an Ollama payload"),
        ([{"role": "robot", "content": ""}], "role 'robot'"),
        ([{"role": "user", "content": ["a"]}], "content is a list"),
        ([{"role": "user", "content": "", "images": ["%%%"]}], r"message 0, image 0.*base64"),
        (
            [{"role": "user", "content": "", "images": [base64.b64encode(b"%PDF-1.4 x").decode()]}],
            r"message 0, image 0",
        ),
        ([{"role": "assistant", "tool_calls": [{"function": {"arguments": {}}}]}], "no function"),
    ],
)
def test_bad_payloads_raise_decode_errors(payload: Any, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        from_ollama(payload)


# -- round trips and the real SDK -------------------------------------------------------------


def test_history_round_trips(png_bytes: bytes) -> None:
    history = [
        mb.SystemMessage.text("you see images"),
        mb.UserMessage(content=[mb.TextBlock(text="look"), mb.ImageBlock.from_bytes(png_bytes)]),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="a red square", provider="ollama"),
                mb.TextBlock(text="zooming"),
                mb.ToolCallBlock(id="call_9", name="zoom", args={"factor": 2}),
            ]
        ),
        mb.ToolMessage.from_results(
            [mb.ToolResultBlock(tool_call_id="call_9", content="zoomed", name="zoom")]
        ),
        mb.AssistantMessage.text("red"),
    ]
    back = from_ollama(to_ollama(history))
    # Ollama's wire has no call ids: the decoder gives a stable one, and pairs the result to it
    new_id = back[2].tool_calls[0].id
    assert back[3].results[0].tool_call_id == new_id
    assert views(from_ollama(to_ollama(back))) == views(back)
    assert str(views(back)).replace(new_id, "call_9") == str(views(history))


def test_sdk_sends_base64_images_unchanged(server: tuple[str, Any], png_bytes: bytes) -> None:
    base, handler = server
    handler.routes["/api/chat"] = ("application/json", json.dumps(RESPONSE).encode())
    history = _tool_history(png_bytes)
    fields = to_ollama(history)
    client = ollama.Client(host=base)
    response = client.chat(model="qwen3:8b", **fields)
    method, path, body = handler.seen[-1]
    assert (method, path) == ("POST", "/api/chat")
    sent = json.loads(body)["messages"]
    assert sent[3]["images"] == fields["messages"][3]["images"]
    assert base64.b64decode(sent[3]["images"][0]) == png_bytes
    assert sent[2] == {"role": "tool", "content": "18C", "tool_name": "weather"}
    # what the SDK sends decodes back to the same conversation (ids re-paired by tool name)
    assert [m.role for m in from_ollama(sent)] == ["user", "assistant", "tool", "assistant"]
    [message] = from_ollama(response)
    assert message.tool_calls[0].name == "get_weather"


def test_through_the_public_encode_and_decode(png_bytes: bytes) -> None:
    history = [mb.UserMessage.with_images("hi", [png_bytes])]
    fields = mb.encode(history, "ollama")
    assert fields == to_ollama(history)
    assert views(mb.decode(fields, "ollama")) == views(history)


def test_bundled_testdata_images_validate() -> None:
    manifest = load_manifest()
    if not manifest:
        pytest.skip("testdata/ is not generated yet")
    checked = 0
    for name, info in manifest.items():
        path = TESTDATA / name
        if not (info["mime"] or "").startswith("image/") or not Path(path).is_file():
            continue
        block = mb.ImageBlock.from_path(path)
        out = encode([mb.UserMessage(content=[block])])
        back = from_ollama(out)[0].content[0]
        assert back.read() == path.read_bytes(), name
        checked += 1
    assert checked > 0
