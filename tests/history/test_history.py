from __future__ import annotations

import io

import pytest

import mediablocks as mb
import mediablocks.history as history_module
from mediablocks.history import (
    CHARS_PER_TOKEN,
    DEFAULT_MEDIA_PROVIDER,
    FALLBACK_MEDIA_TOKENS,
    count_tokens,
    filter_messages,
    merge_consecutive,
    normalize_messages,
    parse_message,
    pretty,
    pretty_print,
    regroup_messages,
    trim_messages,
)
from tests.conftest import ROOT


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
    assert '[tool call c1] zoom({"x": 2})' in text
    assert "── assistant (m1, tool_use, 5 in / 2 out)" in text.splitlines()
    assert "   [thinking] hm" in text.splitlines()
    out = io.StringIO()
    pretty_print(_history(png_bytes), file=out)
    assert out.getvalue().strip() == text


def test_flat_view_parses_raw_json_blocks_keeping_unknown_types() -> None:
    raw = {
        "role": "assistant",
        "model": "m2",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "web_search_result", "url": "https://example.com", "rank": 1},
            {"type": "tool_call", "id": "c9", "name": "f", "args": {"x": 1}},
        ],
    }
    items = normalize_messages([raw, mb.UserMessage.text("next")])
    assert [type(i.block).__name__ for i in items] == [
        "TextBlock",
        "RawBlock",
        "ToolCallBlock",
        "TextBlock",
    ]
    unknown = items[1].block
    assert isinstance(unknown, mb.RawBlock)
    assert unknown.data == raw["content"][1]  # type: ignore[index]
    assert {i.message_id for i in items[:3]} == {items[0].message_id}
    assert [i.model for i in items[:3]] == ["m2", "m2", "m2"]
    assert [i.index for i in items[:3]] == [0, 1, 2]
    back = regroup_messages(items)
    assert back[0].content[1] == unknown
    assert regroup_messages(normalize_messages(back)) == back


def test_parse_message_refuses_what_is_not_a_message() -> None:
    with pytest.raises(mb.DecodeError, match="not a valid message"):
        parse_message({"role": "narrator", "content": []})


def test_merge_adds_usage_keeps_first_identity_and_never_merges_session_records() -> None:
    first = mb.AssistantMessage(content=["a"], usage=mb.Usage(input_tokens=3, output_tokens=1))
    second = mb.AssistantMessage(content=["b"], usage=mb.Usage(input_tokens=4, output_tokens=2))
    notes = [
        mb.CompactionSummaryMessage(summary="one"),
        mb.CompactionSummaryMessage(summary="two"),
    ]
    merged = merge_consecutive([first, second, *notes])
    assert len(merged) == 3
    assert merged[0].id == first.id
    assert merged[0].usage == mb.Usage(input_tokens=7, output_tokens=3)  # type: ignore[union-attr]
    assert merged[0].text == "a\nb"
    assert [m.summary for m in merged[1:]] == ["one", "two"]  # type: ignore[union-attr]


def test_filter_accepts_role_aliases_and_drops_tool_traffic_in_user_turns() -> None:
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=["calling", mb.ToolCallBlock(id="c", name="f")]),
        mb.UserMessage(content=[mb.ToolResultBlock(tool_call_id="c", content="r")]),
    ]
    assert [m.text for m in filter_messages(history, roles=["human"])] == ["q", ""]
    no_tools = filter_messages(history, drop=["tools"])
    assert [(m.role, m.text) for m in no_tools] == [("user", "q"), ("assistant", "calling")]


def test_trim_keeps_system_messages_in_place_and_the_budget_rules() -> None:
    history = [
        mb.SystemMessage.text("s" * 4),
        mb.UserMessage.text("u" * 40),
        mb.SystemMessage.text("mid" + "d" * 1),
        mb.AssistantMessage(content=["a" * 40]),
        mb.UserMessage.text("v" * 40),
    ]
    trimmed = trim_messages(history, 1 + 1 + 10 + 10)
    assert trimmed == [history[0], history[2], history[3], history[4]]  # order kept
    assert trim_messages(history, 1) == [history[0], history[2]]  # only the system messages fit
    assert trim_messages(history, 20, keep_system=False) == history[3:]
    assert trim_messages(history, 21, keep_system=False) == history[2:]
    by_messages = trim_messages(history, 2, counter=len, keep_system=False)
    assert by_messages == history[3:]


def test_trim_keep_first_never_cuts_between_a_call_and_its_results() -> None:
    history = [
        mb.UserMessage.text("u" * 40),
        mb.AssistantMessage(
            content=[mb.ToolCallBlock(id="a", name="f"), mb.ToolCallBlock(id="b", name="f")]
        ),
        mb.ToolMessage.from_result("a", "r" * 40),
        mb.ToolMessage.from_result("b", "r" * 40),
        mb.AssistantMessage(content=["done"]),
    ]
    unit = count_tokens(history[1:4])
    assert trim_messages(history, 10 + unit - 1, keep="first") == history[:1]
    assert trim_messages(history, 10 + unit, keep="first") == history[:4]


def test_media_tokens_come_from_the_tokens_module(
    png_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[object, str, object]] = []

    def estimate_tokens(block: object, provider: str, *, model: object = None) -> int:
        calls.append((block, provider, model))
        return 321

    monkeypatch.setattr(history_module, "estimate_tokens", estimate_tokens)
    image = mb.ImageBlock.from_bytes(png_bytes)
    message = mb.UserMessage(content=["x" * 8, image])
    assert count_tokens(message, "openai", model="gpt-4o") == 2 + 321
    assert calls == [(image, "openai-chat", "gpt-4o")]
    with pytest.raises(mb.UnknownProviderError):
        count_tokens(message, "skynet")
    count_tokens(message)
    assert calls[-1][1] == DEFAULT_MEDIA_PROVIDER

    def refuses(block: object, provider: str, *, model: object = None) -> int:
        raise mb.SourceError("cannot read it")

    monkeypatch.setattr(history_module, "estimate_tokens", refuses)
    assert count_tokens(message) == 2 + FALLBACK_MEDIA_TOKENS


def test_count_tokens_of_calls_results_and_thinking() -> None:
    message = mb.AssistantMessage(
        content=[
            mb.ThinkingBlock(thinking="t" * 12),
            mb.ToolCallBlock(id="c", name="abcd", raw_args="{bad json"),
        ]
    )
    assert count_tokens(message) == 3 + 1 + 3
    result = mb.ToolMessage.from_result("c", [mb.TextBlock(text="r" * 9)])
    assert count_tokens([message, result]) == 7 + 3


def test_trim_keeps_results_carried_in_a_user_turn_with_their_call() -> None:
    history = [
        mb.UserMessage.text("u" * 40),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f")]),
        mb.UserMessage(
            content=[mb.ToolResultBlock(tool_call_id="a", content="r" * 40), "and also this"]
        ),
        mb.AssistantMessage(content=["done"]),
    ]
    pair = count_tokens(history[1:3])
    last = count_tokens(history[3:])
    assert trim_messages(history, last + pair - 1) == history[3:]
    assert trim_messages(history, last + pair) == history[1:]


def test_media_tokens_match_the_real_estimates() -> None:
    tokens = pytest.importorskip("mediablocks.tokens")
    photo = mb.ImageBlock.from_path(ROOT / "testdata/image/photo.jpg")
    message = mb.UserMessage(content=["abcd", photo])
    for provider in (None, "openai", "gemini"):
        expected = tokens.estimate_tokens(photo, provider or DEFAULT_MEDIA_PROVIDER)
        assert count_tokens(message, provider) == 1 + expected
    unread = mb.ImageBlock.from_url("https://example.com/cat.png")  # never fetched to count
    assert count_tokens(mb.UserMessage(content=[unread])) == FALLBACK_MEDIA_TOKENS


CLAUDE_STYLE: list[dict[str, object]] = [
    {"role": "user", "content": "What is 2+2?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {"e": "2+2"}}],
    },
    {
        "role": "tool",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "4"}],
    },
    {"role": "assistant", "content": "4"},
    {"role": "assistant", "content": [{"type": "hologram"}]},
]


def test_history_utilities_take_message_dicts_claude_blocks_included() -> None:
    assert mb.count_tokens(CLAUDE_STYLE) == mb.count_tokens(
        [mb.history.parse_message(m) for m in CLAUDE_STYLE]  # type: ignore[arg-type]
    )
    merged = mb.merge_consecutive(CLAUDE_STYLE)  # type: ignore[arg-type]
    assert [m.role for m in merged] == ["user", "assistant", "tool", "assistant"]
    assert isinstance(merged[3].content[1], mb.RawBlock)
    no_tools = mb.filter_messages(CLAUDE_STYLE, drop=["tools"])  # type: ignore[arg-type]
    assert [m.role for m in no_tools] == ["user", "assistant", "assistant"]
    trimmed = mb.trim_messages(CLAUDE_STYLE, 10_000)  # type: ignore[arg-type]
    assert len(trimmed) == 5
    assert isinstance(trimmed[1].content[0], mb.ToolCallBlock)
    regrouped = mb.regroup_messages(CLAUDE_STYLE)  # type: ignore[arg-type]
    assert [m.role for m in regrouped] == [m["role"] for m in CLAUDE_STYLE]
    flat = mb.normalize_messages(regrouped)
    assert mb.regroup_messages([item.model_dump() for item in flat]) == regrouped


def test_every_flat_item_carries_its_message_metadata() -> None:
    history = [
        mb.UserMessage(content=["a", "b", "c"], metadata={"session": "s1"}),
        mb.AssistantMessage(content=["d"], metadata={"session": "s2"}),
    ]
    items = mb.normalize_messages(history)
    assert [item.metadata for item in items] == [{"session": "s1"}] * 3 + [{"session": "s2"}]
    assert [i.index for i in items if i.metadata.get("session") == "s1"] == [0, 1, 2]
    assert mb.regroup_messages(items) == history
    assert mb.regroup_messages([item.model_dump() for item in items]) == history


def test_block_to_message_turns_one_item_or_block_into_a_message() -> None:
    usage = mb.Usage(input_tokens=5, output_tokens=2)
    history = [
        mb.UserMessage(content=["a", "b"], metadata={"session": "s1"}),
        mb.AssistantMessage(content=["c", "d"], model="m1", usage=usage),
    ]
    items = mb.normalize_messages(history)
    second = mb.block_to_message(items[1])
    assert isinstance(second, mb.UserMessage)
    assert (second.id, second.timestamp) == (history[0].id, history[0].timestamp)
    assert second.content == [mb.TextBlock(text="b")]
    assert second.metadata == {"session": "s1"}
    first_reply = mb.block_to_message(items[2])
    assert isinstance(first_reply, mb.AssistantMessage)
    assert (first_reply.model, first_reply.usage) == ("m1", usage)
    assert mb.block_to_message(items[3].model_dump()).text == "d"
    result = mb.ToolResultBlock(tool_call_id="c1", content="r")
    assert isinstance(mb.block_to_message(result), mb.ToolMessage)
    call = mb.ToolCallBlock(id="c1", name="f")
    assert isinstance(mb.block_to_message(call), mb.AssistantMessage)
    assert isinstance(mb.block_to_message(mb.TextBlock(text="x")), mb.UserMessage)
    as_system = mb.block_to_message({"type": "text", "text": "x"}, "developer")
    assert isinstance(as_system, mb.SystemMessage)
    with pytest.raises(mb.DecodeError, match="not a int"):
        mb.block_to_message(3)  # type: ignore[arg-type]


def test_pretty_and_the_utilities_take_dicts_strings_and_pairs() -> None:
    text = mb.pretty([{"role": "user", "content": "hi"}, ("assistant", "hello")])
    assert text == "── user\n   hi\n── assistant\n   hello"
    assert mb.pretty("just text") == "── user\n   just text"
    assert mb.count_tokens([("user", "abcd" * 10)]) == 10
    with pytest.raises(mb.DecodeError, match="role, content"):
        mb.pretty([("wizard", "x")])
