from __future__ import annotations

import pytest

import mediablocks as mb
from mediablocks.validation import HistoryError, ensure_valid, validate


def _codes(problems: list) -> list[str]:  # type: ignore[type-arg]
    return [p.code for p in problems]


def test_a_clean_history_has_no_problems() -> None:
    history = [
        mb.SystemMessage.text("s"),
        mb.UserMessage.text("hi"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f", args={})]),
        mb.ToolMessage.from_result("a", "ok"),
        mb.AssistantMessage(content=["done"]),
    ]
    for provider in (None, "anthropic", "openai", "gemini", "bedrock", "mistral", "ollama"):
        assert validate(history, provider) == []


def test_every_problem_is_reported_at_once() -> None:
    history = [
        mb.UserMessage(content=[mb.TextBlock(text="  ")]),
        mb.AssistantMessage(
            content=[
                mb.ToolCallBlock(id="a", name="f", args={}),
                mb.ToolCallBlock(id="a", name="g", raw_args="{oops"),
            ]
        ),
        mb.ToolMessage.from_result("zzz", "orphan"),
    ]
    problems = validate(history)
    assert _codes(problems) == [
        "empty-text",
        "duplicate-tool-call-id",
        "invalid-tool-arguments",
        "orphan-tool-result",
    ]
    assert (problems[1].message_index, problems[1].block_index) == (1, 1)


def test_provider_rules() -> None:
    history = [
        mb.AssistantMessage(content=["I start"]),
        mb.SystemMessage.text("late system"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f", args={})]),
        mb.UserMessage.text("never answered the call"),
    ]
    anthropic = _codes(validate(history, "anthropic"))
    assert "first-turn-not-user" in anthropic
    assert "system-not-first" in anthropic
    assert "tool-call-without-result" in anthropic
    ollama = _codes(validate(history, "ollama"))
    assert "tool-call-without-result" not in ollama
    assert "first-turn-not-user" not in ollama


def test_ensure_valid_raises_listing_every_problem() -> None:
    history = [mb.UserMessage(content=[mb.TextBlock(text="")]), mb.ToolMessage.from_result("x", "")]
    with pytest.raises(HistoryError) as info:
        ensure_valid(history)
    assert len(info.value.problems) == 2
    assert "orphan-tool-result" in str(info.value)
    assert isinstance(info.value, mb.MediaBlocksError)


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(mb.UnknownProviderError):
        validate([], "skynet")
