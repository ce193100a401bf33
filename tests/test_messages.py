from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- frozen messages cannot change in place ------------------------------------------------------


def test_content_is_a_tuple_and_cannot_be_appended_to() -> None:
    message = mb.UserMessage(content=["a", mb.TextBlock(text="b")])
    assert message.content == (mb.TextBlock(text="a"), mb.TextBlock(text="b"))
    with pytest.raises(AttributeError):
        message.content.append(mb.TextBlock(text="c"))  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        message.content[0] = mb.TextBlock(text="z")  # type: ignore[index]
    assert message.text == "a\nb"


def test_metadata_is_read_only_and_copies_are_ordinary_dicts() -> None:
    message = mb.UserMessage(content="a", metadata={"session": "s1"})
    for change in (
        lambda m: m.__setitem__("k", 1),
        lambda m: m.__delitem__("session"),
        lambda m: m.update(k=1),
        lambda m: m.setdefault("k", 1),
        lambda m: m.pop("session"),
        lambda m: m.clear(),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change(message.metadata)
    assert message.metadata == {"session": "s1"}
    copied = {**message.metadata, "k": 1}
    copied["more"] = 2  # an ordinary dict again
    moved = message.model_copy(update={"metadata": copied})
    with pytest.raises(TypeError):
        moved.metadata["x"] = 1  # type: ignore[index]
    assert moved.metadata == {"session": "s1", "k": 1, "more": 2}
    assert mb.UserMessage().metadata == {}


def test_frozen_containers_survive_json_pickle_and_copies() -> None:
    import copy
    import pickle

    message = mb.AssistantMessage(content=["x"], metadata={"n": [1, 2]})
    document = json.loads(mb.dump_messages([message]))
    assert document["messages"][0]["content"] == [
        {"provider_data": {}, "type": "text", "text": "x", "annotations": []}
    ]
    assert document["messages"][0]["metadata"] == {"n": [1, 2]}
    for back in (
        mb.load_messages(mb.dump_messages([message]))[0],
        pickle.loads(pickle.dumps(message)),
        copy.deepcopy(message),
        message.model_copy(deep=True),
    ):
        assert back == message
        assert isinstance(back.content, tuple)
        with pytest.raises(TypeError):
            back.metadata["n"] = 3  # type: ignore[index]


def test_model_copy_with_a_list_keeps_content_a_tuple() -> None:
    message = mb.UserMessage(content="a")
    copied = message.model_copy(update={"content": [mb.TextBlock(text="b"), "c"]})
    assert copied.content == (mb.TextBlock(text="b"), mb.TextBlock(text="c"))


def test_with_content_appends_and_keeps_the_type_and_id(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    message = mb.AssistantMessage(content="look", model="m1")
    more = message.with_content(image, "and this", {"type": "text", "text": "dict"})
    assert isinstance(more, mb.AssistantMessage)
    assert (more.id, more.model) == (message.id, "m1")
    assert more.content == (
        mb.TextBlock(text="look"),
        image,
        mb.TextBlock(text="and this"),
        mb.TextBlock(text="dict"),
    )
    assert message.content == (mb.TextBlock(text="look"),)  # the original is unchanged


def test_media_and_text_helpers_are_typed_narrowings(png_bytes: bytes, wav_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    clip = mb.AudioBlock.from_bytes(wav_bytes)
    message = mb.UserMessage(content=["a", image, "b", clip])
    assert message.media == [image, clip]  # a list,
    assert message.media() == [image, clip]  # called: a plain list,
    assert message.media(mb.ImageBlock) == [image]
    assert message.media(mb.AudioBlock) == [clip]
    assert message.media(mb.VideoBlock) == []
    assert message.text == "a\nb"


def test_a_compaction_summary_is_sent_and_counted_as_a_user_turn() -> None:
    summary = mb.CompactionSummaryMessage(summary="x" * 800)
    rendered = summary.as_user()
    assert isinstance(rendered, mb.UserMessage)
    assert rendered.id == summary.id
    assert "x" * 800 in rendered.text
    sent = mb.encode([summary], "anthropic", compaction="user")
    assert sent["messages"][0]["content"] == [{"type": "text", "text": rendered.text}]
    assert mb.count_tokens([summary]) == mb.count_tokens([rendered]) > 200
    assert mb.estimate_tokens([summary], "anthropic") == mb.estimate_tokens([rendered], "anthropic")


def test_a_history_trimmed_to_100_tokens_is_at_most_100_when_sent_with_its_summary() -> None:
    history: list[mb.Message] = [
        mb.CompactionSummaryMessage(summary="s" * 840),
        mb.UserMessage(content="q" * 200),
        mb.AssistantMessage(content="a" * 120),
    ]
    kept = mb.trim_messages(history, 100, provider="anthropic")
    sent = [m.as_user() if isinstance(m, mb.CompactionSummaryMessage) else m for m in kept]
    assert mb.count_tokens(sent, "anthropic") <= 100
    assert mb.estimate_tokens(sent, "anthropic") <= 100
    # with room, the summary is kept and counted at its sent size
    roomy = mb.trim_messages(history, 400, provider="anthropic")
    assert len(roomy) == 3
    assert mb.count_tokens(roomy, "anthropic") > 210 + 80


def test_lone_surrogates_are_refused_by_name_when_dumped_or_sent() -> None:
    history: list[mb.Message] = [
        mb.UserMessage(content="fine"),
        mb.AssistantMessage(
            content=[
                mb.TextBlock(text="ok"),
                mb.ToolCallBlock(id="c1", name="f", args={"q": "\ud83d"}),
            ]
        ),
    ]
    with pytest.raises(mb.InvalidTextError, match=r"message 1, block 1: .*lone surrogate"):
        mb.dump_messages(history)
    with pytest.raises(mb.InvalidTextError, match=r"message 1, block 1"):
        mb.encode_json(history, "openai")
    broken_text = [mb.UserMessage(content=["a", "bad \udc00 text"])]
    with pytest.raises(mb.InvalidTextError, match=r"message 0, block 1"):
        mb.encode_json(broken_text, "anthropic", model="m", max_tokens=10)
    problems = mb.validate(history)
    assert [(p.message_index, p.block_index, p.code) for p in problems] == [
        (1, 1, "invalid-unicode")
    ]


def test_save_history_names_a_lone_surrogate(tmp_path: Path) -> None:
    history = [mb.UserMessage(content="x", metadata={"note": "\ud800"})]
    with pytest.raises(mb.InvalidTextError, match=r"message 0: text"):
        mb.save_history(history, tmp_path / "h.json")
    assert not (tmp_path / "h.json").exists() or (tmp_path / "h.json").stat().st_size == 0


def test_a_plain_string_and_role_pairs_are_messages_everywhere() -> None:
    assert mb.encode("hello", "anthropic")["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    ]
    pairs = mb.encode([("system", "be brief"), ("human", "hi")], "openai")
    assert pairs["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert mb.encode(("user", "hi"), "openai")["messages"] == [{"role": "user", "content": "hi"}]
    request = mb.Request(messages="hi")
    assert [m.role for m in request.messages] == ["user"]
    assert request.messages[0].text == "hi"
    with pytest.raises(mb.DecodeError, match="not a mediablocks message"):
        mb.encode([3], "openai")  # type: ignore[list-item]
    with pytest.raises(mb.DecodeError, match="role, content"):
        mb.encode([("wizard", "x")], "openai")  # type: ignore[list-item]


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40),
    where=st.sampled_from(["text", "args", "metadata", "thinking"]),
)
def test_any_text_is_dumped_losslessly_or_refused_by_name(text: str, where: str) -> None:
    blocks: list[mb.Block] = [mb.TextBlock(text="fine")]
    metadata: dict[str, str] = {}
    if where == "text":
        blocks.append(mb.TextBlock(text=text))
    elif where == "args":
        blocks.append(mb.ToolCallBlock(id="c", name="f", args={"q": [text]}))
    elif where == "thinking":
        blocks.append(mb.ThinkingBlock(thinking=text, provider="anthropic"))
    else:
        metadata["note"] = text
    history = [mb.UserMessage(content="q"), mb.AssistantMessage(content=blocks, metadata=metadata)]
    lone = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    place = "message 1, block 1" if where != "metadata" else "message 1:"
    if lone:
        with pytest.raises(mb.InvalidTextError, match=re.escape(place)):
            mb.dump_messages(history)
    else:
        assert mb.load_messages(mb.dump_messages(history)) == history
    assert ("invalid-unicode" in [p.code for p in mb.validate(history)]) == lone


def test_message_ids_are_version_4_uuids_in_hex_and_distinct() -> None:
    """A new message's id is ``msg_`` and a random UUID's hex, as ``uuid.uuid4().hex`` spells it
    (version 4, RFC 4122 variant), never repeated."""
    import uuid

    ids = [mb.UserMessage.text("hi").id for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for made in ids:
        assert made.startswith("msg_")
        assert len(made) == 36
        parsed = uuid.UUID(hex=made.removeprefix("msg_"))
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
        assert parsed.hex == made.removeprefix("msg_")
