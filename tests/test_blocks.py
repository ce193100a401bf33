from __future__ import annotations

import json

import pytest

import mediablocks as mb


def test_every_block_round_trips_through_json(png_bytes: bytes) -> None:
    blocks: list[mb.Block] = [
        mb.TextBlock(text="héllo", annotations=[{"type": "citation", "start": 0}]),
        mb.ThinkingBlock(thinking="hmm", signature="sig==", provider="anthropic"),
        mb.ThinkingBlock(redacted=True, redacted_data="opaque", provider="anthropic"),
        mb.ToolCallBlock(id="call_1", name="lookup", args={"q": "cats", "n": 2}),
        mb.ToolCallBlock(id="call_2", name="broken", raw_args='{"q": '),
        mb.ToolResultBlock(
            tool_call_id="call_1",
            content=[mb.TextBlock(text="found"), mb.ImageBlock.from_bytes(png_bytes)],
            name="lookup",
            metadata={"ms": 12},
        ),
        mb.ToolResultBlock(tool_call_id="call_2", content="bad args", is_error=True),
        mb.RawBlock(provider="anthropic", data={"type": "server_tool_use", "id": "s1"}),
        mb.TextBlock(text="x", provider_data={"gemini": {"thought_signature": "c2ln"}}),
    ]
    text = "[" + ",".join(b.model_dump_json() for b in blocks) + "]"
    assert mb.parse_blocks(text) == blocks


def test_tool_call_flags_invalid_arguments() -> None:
    assert mb.ToolCallBlock(id="a", name="f", args={"x": 1}).args_valid
    broken = mb.ToolCallBlock(id="a", name="f", raw_args="{not json")
    assert not broken.args_valid
    assert broken.args == {}


def test_tool_result_text_and_media(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    result = mb.ToolResultBlock(tool_call_id="c", content=[mb.TextBlock(text="a"), image])
    assert result.text == "a"
    assert result.media == [image]
    single = mb.ToolResultBlock(tool_call_id="c", content=image)
    assert single.media == [image]


def test_parse_block_unknown_type_is_a_decode_error() -> None:
    with pytest.raises(mb.DecodeError, match="not a valid block"):
        mb.parse_block({"type": "hologram"})


def test_blocks_forbid_unknown_fields() -> None:
    with pytest.raises(mb.DecodeError, match=r"(?i)extra"):
        mb.parse_block({"type": "text", "text": "a", "colour": "red"})


def test_opaque_provider_data_is_per_provider() -> None:
    block = mb.TextBlock(text="a", provider_data={"gemini": {"thought_signature": "s"}})
    assert block.for_provider("gemini") == {"thought_signature": "s"}
    assert block.for_provider("anthropic") == {}


def test_equality_ignores_read_caches(tmp_path: object, png_bytes: bytes) -> None:
    a = mb.ImageBlock.from_bytes(png_bytes)
    b = mb.ImageBlock.from_bytes(png_bytes)
    a.to_base64()  # fills a's cache only
    assert a == b


def test_parse_blocks_can_keep_unknown_types_as_raw() -> None:
    items = [{"type": "text", "text": "a"}, {"type": "hologram", "depth": 3}]
    with pytest.raises(mb.DecodeError):
        mb.parse_blocks(items)
    blocks = mb.parse_blocks(items, unknown="raw")
    assert blocks[0] == mb.TextBlock(text="a")
    assert blocks[1] == mb.RawBlock(provider="unknown", data={"type": "hologram", "depth": 3})
    assert mb.parse_blocks('[{"type": "hologram"}]', unknown="raw")[0].type == "raw"


def test_claude_native_blocks_are_read_and_unknown_ones_kept_raw() -> None:
    items = [
        {"type": "text", "text": "Looking.", "citations": []},
        {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "cats"}},
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 cats", "is_error": False},
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "hologram", "depth": 3},
        {"type": "text"},  # a known type that does not validate
    ]
    blocks = mb.parse_blocks(items, unknown="raw")
    assert isinstance(blocks[1], mb.ToolCallBlock)
    assert (blocks[1].id, blocks[1].name, blocks[1].args) == ("toolu_1", "search", {"q": "cats"})
    assert isinstance(blocks[2], mb.ToolResultBlock)
    assert (blocks[2].tool_call_id, blocks[2].text) == ("toolu_1", "3 cats")
    assert isinstance(blocks[3], mb.ThinkingBlock)
    assert (blocks[3].signature, blocks[3].provider) == ("sig", "anthropic")
    assert blocks[4] == mb.RawBlock(provider="unknown", data={"type": "hologram", "depth": 3})
    assert blocks[5] == mb.RawBlock(provider="unknown", data={"type": "text"})
    with pytest.raises(mb.DecodeError, match="at 4"):
        mb.parse_blocks(items[:4] + items[5:])


def test_block_metadata_cannot_change_in_place(png_bytes: bytes) -> None:
    image = mb.ImageBlock.from_bytes(png_bytes)
    result = mb.ToolResultBlock(
        tool_call_id="c1", content=[mb.TextBlock(text="x"), image], metadata={"ms": 5}
    )
    with pytest.raises(TypeError, match="read-only"):
        result.metadata["ms"] = 6  # type: ignore[index]
    with pytest.raises(TypeError, match="read-only"):
        image.metadata["note"] = "x"  # type: ignore[index]
    noted = image.model_copy(update={"metadata": {**image.metadata, "note": "x"}})
    assert noted.metadata == {"note": "x"}
    with pytest.raises(TypeError):
        noted.metadata["more"] = 1  # type: ignore[index]
    assert mb.parse_block(result.model_dump_json()) == result


def test_a_tool_calls_application_fields_are_kept_and_never_sent() -> None:
    call = mb.ToolCallBlock(
        id="call_1", name="zoom", args={"x": 1}, kind="approval", metadata={"by": "ana"}
    )
    history = [
        mb.UserMessage.text("zoom in"),
        mb.AssistantMessage(content=[call]),
        mb.ToolMessage.from_result("call_1", "done", name="zoom"),
    ]
    [_, loaded, _] = mb.load_messages(mb.dump_messages(history))
    assert loaded.content[0] == call
    for provider in ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "mistral"):
        body = json.dumps(mb.encode(history, provider, target="json"))
        assert "approval" not in body
        assert "ana" not in body


def test_media_block_returns_a_member_of_the_block_union(png_bytes: bytes) -> None:
    block = mb.media_block(png_bytes)
    blocks: list[mb.Block] = [block, mb.TextBlock(text="what is it?")]
    assert type(blocks[0]) is mb.ImageBlock
