from __future__ import annotations

import io

import mediablocks as mb
from mediablocks.history import (
    CHARS_PER_TOKEN,
    count_tokens,
    filter_messages,
    merge_consecutive,
    normalize_messages,
    pretty,
    pretty_print,
    regroup_messages,
    trim_messages,
)


def _history(png: bytes) -> list[mb.Message]:
    return [
        mb.SystemMessage.text("sys"),
        mb.UserMessage.with_images("look", [png]),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="hm", signature="s", provider="anthropic"),
                mb.ToolCallBlock(id="c1", name="zoom", args={"x": 2}),
            ],
            model="m1",
            usage=mb.Usage(input_tokens=5, output_tokens=2),
            stop_reason="tool_use",
        ),
        mb.ToolMessage.from_result(
            "c1", [mb.TextBlock(text="zoomed"), mb.ImageBlock.from_bytes(png)]
        ),
        mb.AssistantMessage(content=["a cat"], model="m1"),
        mb.AssistantMessage(content=[]),
    ]


def test_flat_view_has_one_block_per_item_with_parent_identity(png_bytes: bytes) -> None:
    history = _history(png_bytes)
    items = normalize_messages(history)
    assert len(items) == 1 + 2 + 2 + 1 + 1 + 1  # the empty message still has an item
    assert [i.role for i in items[3:5]] == ["assistant", "assistant"]
    assert items[3].message_id == history[2].id
    assert items[3].model == "m1"
    assert items[-1].block is None


def test_flat_view_round_trips(png_bytes: bytes) -> None:
    history = _history(png_bytes)
    assert regroup_messages(normalize_messages(history)) == history


def test_flat_view_round_trips_through_json(png_bytes: bytes) -> None:
    history = _history(png_bytes)
    items = normalize_messages(history)
    text = [i.model_dump_json() for i in items]
    back = [mb.history.FlatItem.model_validate_json(t) for t in text]
    assert regroup_messages(back) == history


def test_merge_consecutive_same_role() -> None:
    merged = merge_consecutive(
        [mb.UserMessage.text("a"), mb.UserMessage.text("b"), mb.AssistantMessage(content=["c"])]
    )
    assert [m.role for m in merged] == ["user", "assistant"]
    assert merged[0].text == "a\nb"


def test_filter_drops_kinds_and_roles(png_bytes: bytes) -> None:
    history = _history(png_bytes)
    no_thinking = filter_messages(history, drop=["thinking"])
    assert not any(isinstance(b, mb.ThinkingBlock) for m in no_thinking for b in m.content)
    no_media = filter_messages(history, drop=["media"])
    assert not any(m.media for m in no_media)
    tool_message = next(m for m in no_media if m.role == "tool")
    assert tool_message.content[0].media == []  # type: ignore[union-attr]
    no_tools = filter_messages(history, drop=["tools"])
    assert all(m.role != "tool" for m in no_tools)
    users = filter_messages(history, roles=["user"])
    assert [m.role for m in users] == ["user"]


def test_count_tokens_text_rule() -> None:
    message = mb.UserMessage.text("x" * 41)
    assert count_tokens(message) == -(-41 // CHARS_PER_TOKEN)


def test_trim_keeps_system_and_never_splits_a_call_from_its_result(png_bytes: bytes) -> None:
    history = [
        mb.SystemMessage.text("s" * 8),
        mb.UserMessage.text("u" * 40),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c", name="f", args={})]),
        mb.ToolMessage.from_result("c", "r" * 40),
        mb.AssistantMessage(content=["a" * 40]),
    ]

    def counter(ms: object) -> int:
        return count_tokens(ms)  # type: ignore[arg-type]

    call_and_result = counter(history[2:4])
    budget = counter(history[:1]) + counter(history[4:]) + call_and_result - 1
    trimmed = trim_messages(history, budget)
    assert trimmed[0] is history[0]
    assert trimmed[1:] == history[4:]  # the call/result pair did not fit and went together
    wider = trim_messages(history, budget + 1)
    assert wider[1:] == history[2:]
    first = trim_messages(history, counter(history[:2]), keep="first")
    assert first == history[:2]


def test_pretty_never_prints_base64(png_bytes: bytes) -> None:
    text = pretty(_history(png_bytes))
    assert "image/png" in text
    assert "sha256:" in text
    assert mb.ImageBlock.from_bytes(png_bytes).to_base64()[0][:20] not in text
    assert "[tool call c1] zoom" in text
    out = io.StringIO()
    pretty_print(_history(png_bytes), file=out)
    assert out.getvalue().strip() == text
