from __future__ import annotations

import json
from datetime import datetime

import pytest

import mediablocks as mb


def test_user_message_constructors(png_bytes: bytes, wav_bytes: bytes) -> None:
    assert mb.UserMessage.text("hi").content == [mb.TextBlock(text="hi")]
    with_images = mb.UserMessage.with_images("describe", [png_bytes])
    assert with_images.text == "describe"
    assert [type(b) for b in with_images.content] == [mb.TextBlock, mb.ImageBlock]
    with_audio = mb.UserMessage.with_audio("transcribe", [wav_bytes])
    assert isinstance(with_audio.content[1], mb.AudioBlock)
    assert with_audio.media[0].mime_type == "audio/wav"


def test_with_images_refuses_non_images(wav_bytes: bytes) -> None:
    with pytest.raises(mb.MediaTypeError, match="not image media"):
        mb.UserMessage.with_images("x", [wav_bytes])


def test_text_on_the_class_builds_and_on_an_instance_reads() -> None:
    message = mb.SystemMessage.text("be brief")
    assert isinstance(message, mb.SystemMessage)
    assert message.text == "be brief"
    assert mb.AssistantMessage(content=["a", "b"]).text == "a\nb"


def test_every_message_has_an_id_and_an_aware_timestamp() -> None:
    first, second = mb.UserMessage.text("a"), mb.UserMessage.text("a")
    assert first.id != second.id
    assert isinstance(first.timestamp, datetime)
    assert first.timestamp.tzinfo is not None


def test_assistant_helpers() -> None:
    message = mb.AssistantMessage(
        content=[
            mb.ThinkingBlock(thinking="plan", signature="s"),
            mb.TextBlock(text="calling"),
            mb.ToolCallBlock(id="1", name="f", args={}),
        ],
        usage=mb.Usage(input_tokens=10, output_tokens=5, cache_read_tokens=3, cost=0.01),
        stop_reason="tool_use",
    )
    assert [c.id for c in message.tool_calls] == ["1"]
    assert message.thinking[0].thinking == "plan"
    assert message.text == "calling"
    assert message.usage is not None
    assert message.usage.total_tokens == 15
    total = message.usage + mb.Usage(input_tokens=1, output_tokens=1)
    assert (total.input_tokens, total.output_tokens, total.cost) == (11, 6, 0.01)


def test_tool_message_from_results(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    one = mb.ToolMessage.from_result("c1", [mb.TextBlock(text="ok"), image], name="shot")
    assert one.results[0].media == [image]
    assert one.results[0].name == "shot"
    two = mb.ToolMessage.from_results(
        [mb.ToolResultBlock(tool_call_id="a"), mb.ToolResultBlock(tool_call_id="b", is_error=True)]
    )
    assert [r.tool_call_id for r in two.results] == ["a", "b"]


@pytest.mark.parametrize(
    ("alias", "cls"),
    [
        ("human", mb.UserMessage),
        ("ai", mb.AssistantMessage),
        ("model", mb.AssistantMessage),
        ("developer", mb.SystemMessage),
        ("function", mb.ToolMessage),
        ("USER", mb.UserMessage),
    ],
)
def test_role_aliases(alias: str, cls: type) -> None:
    [message] = mb.load_messages([{"role": alias, "content": "x"}])
    assert type(message) is cls


def test_history_round_trip_is_lossless_and_versioned(png_bytes: bytes) -> None:
    history: list[mb.Message] = [
        mb.SystemMessage.text("sys"),
        mb.UserMessage.with_images("look", [png_bytes]),
        mb.AssistantMessage(
            content=[mb.ToolCallBlock(id="1", name="f", args={"a": [1, 2]})],
            usage=mb.Usage(input_tokens=3),
            provider="anthropic",
            model="claude",
        ),
        mb.ToolMessage.from_result("1", [mb.ImageBlock.from_bytes(png_bytes)]),
        mb.CustomMessage(custom_type="ui.note", data={"pinned": True}),
        mb.BranchSummaryMessage(summary="we tried X", from_id="msg_1"),
        mb.CompactionSummaryMessage(summary="earlier: Y", tokens_before=1234),
    ]
    text = mb.dump_messages(history)
    document = json.loads(text)
    assert document["format"] == "mediablocks.messages"
    assert document["version"] == 1
    back = mb.load_messages(text)
    assert back == history
    assert back[1].media[0].read() == png_bytes


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "other", "messages": []}', "not a mediablocks message document"),
        ('{"format": "mediablocks.messages", "version": 99, "messages": []}', "version 99"),
        ('[{"role": "alien"}]', "invalid message history"),
        ('"just a string"', "must be a JSON list"),
    ],
)
def test_bad_histories_raise_decode_error(payload: str, fragment: str) -> None:
    with pytest.raises(mb.DecodeError) as info:
        mb.load_messages(payload)
    assert fragment in str(info.value)


def test_content_accepts_a_single_block_or_a_string() -> None:
    block = mb.TextBlock(text="x")
    assert mb.UserMessage(content=block).content == [block]
    assert mb.UserMessage(content="x").content == [block]


def test_text_constructor_takes_other_fields() -> None:
    message = mb.UserMessage.text("hi", id="u1", name="ann")
    assert (message.id, message.name, message.text) == ("u1", "ann", "hi")


def test_from_result_takes_a_ready_result_block() -> None:
    result = mb.ToolResultBlock(tool_call_id="c1", content="42", is_error=True)
    message = mb.ToolMessage.from_result(result)
    assert message.results == [result]


def test_usage_keeps_raw_numbers_and_splits_cached_input() -> None:
    first = mb.Usage(
        input_tokens=100, cache_read_tokens=60, cache_write_tokens=10, raw={"in": 30, "x": {"a": 1}}
    )
    assert first.uncached_input_tokens == 30
    total = first + mb.Usage(input_tokens=5, raw={"in": 5, "x": {"a": 2}, "tier": "s"})
    assert total.raw == {"in": 35, "x": {"a": 3}, "tier": "s"}
    assert total.uncached_input_tokens == 35
