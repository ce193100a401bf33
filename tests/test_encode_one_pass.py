"""`encode` reads the history once (issue 30): the provider looked up once per call, tool-call
arguments serialised once, each message checked as the pass reaches it."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mediablocks as mb
from mediablocks import encoding
from mediablocks.providers import _args, registry


def _history(turns: int) -> list[mb.Message]:
    """User questions and Anthropic replies with a tool call and its result every other turn."""
    messages: list[mb.Message] = []
    for turn in range(turns):
        messages.append(mb.UserMessage.text(f"question {turn}"))
        reply: list[Any] = [mb.TextBlock(text=f"answer {turn}")]
        if turn % 2:
            reply.append(mb.ToolCallBlock(id=f"c{turn}", name="f", args={"n": turn, "é": "ü"}))
        messages.append(mb.AssistantMessage(content=reply, provider="anthropic"))
        if turn % 2:
            messages.append(mb.ToolMessage(content=[mb.ToolResultBlock(tool_call_id=f"c{turn}")]))
    return messages


def test_the_provider_name_is_looked_up_once_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[str] = []
    real = registry.canonical_provider

    def counted(name: str) -> str:
        looked_up.append(name)
        return real(name)

    monkeypatch.setattr(registry, "canonical_provider", counted)
    tool = mb.Tool(name="f", parameters={"type": "object", "properties": {}})
    mb.encode(_history(40), "openai", tools=[tool], settings=mb.Settings(max_tokens=5))
    # The target once, for every step (rules, limits, tools and settings); the replies' own
    # provider only for a reply holding citations (none here), and then once per call.
    assert looked_up == ["openai"]


class _CountingEncoder:
    def __init__(self, real: json.JSONEncoder) -> None:
        self.real = real
        self.calls = 0

    def encode(self, value: Any) -> str:
        self.calls += 1
        return self.real.encode(value)


@pytest.mark.parametrize("provider", ["openai-chat", "mistral", "openai-responses", "cohere"])
def test_tool_arguments_are_serialised_once(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = _CountingEncoder(_args.ARGS_JSON)
    monkeypatch.setattr(encoding, "ARGS_JSON", counter)
    monkeypatch.setattr(_args, "ARGS_JSON", counter)
    history = _history(10)
    calls = [b for m in history for b in m.content if isinstance(b, mb.ToolCallBlock)]
    encoded = json.dumps(mb.encode(history, provider, target="json"), ensure_ascii=False)
    assert counter.calls == len(calls) == 5
    assert '{\\"n\\":1,\\"é\\":\\"ü\\"}' in encoded  # the text written at the check is what is sent


def test_a_written_text_is_used_only_for_the_block_it_was_written_for() -> None:
    call = mb.ToolCallBlock(id="c1", name="f", args={"a": 1})
    twin = mb.ToolCallBlock(id="c1", name="f", args={"a": 1})
    with _args.args_written({id(call): (call, "WRITTEN")}):
        assert _args.dump_args(call) == "WRITTEN"
        assert _args.dump_args(twin) == '{"a":1}'
    assert _args.dump_args(call) == '{"a":1}'  # only within the encode that wrote it


def test_the_first_message_holding_a_problem_is_named() -> None:
    history: list[Any] = [
        mb.UserMessage.text("hi"),
        {"role": "user", "content": [{"type": "mystery", "x": 1}]},
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="f", args={"x": {1, 2}})]),
    ]
    with pytest.raises(mb.DecodeError, match="message 1, block 0 is not a mediablocks block"):
        mb.encode(history, "anthropic")
    with pytest.raises(mb.UnsupportedBlockError, match="message 0, block 0: tool call 'f'"):
        mb.encode(history[2:], "anthropic")


def test_unknown_keywords_raise_type_error_as_a_python_signature_would() -> None:
    with pytest.raises(
        TypeError, match="encode\\(\\) got an unexpected keyword argument 'thinkng'"
    ):
        mb.encode("hi", "anthropic", thinkng="text")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="'media_sink'"):
        mb.encode("hi", "anthropic", media_sink=None)  # type: ignore[call-overload]


def test_the_replies_provider_is_looked_up_once_for_all_their_citations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked_up: list[str] = []
    real = registry.canonical_provider
    monkeypatch.setattr(
        registry, "canonical_provider", lambda name: looked_up.append(name) or real(name)
    )
    cited = {"type": "char_location", "cited_text": "x", "document_index": 0}
    replies = [
        mb.AssistantMessage(
            content=[mb.TextBlock(text=f"answer {n}", annotations=[cited])], provider="anthropic"
        )
        for n in range(30)
    ]
    fields, report = mb.encode_with_report(replies, "openai", unsupported="drop")
    assert len(report.dropped) == 30  # each reply's Anthropic citations, left out and reported
    assert all("anthropic citations" in str(drop) for drop in report.dropped)
    assert len(fields["messages"]) == 30
    assert looked_up == ["openai", "anthropic"]
