"""A history moved from provider to provider keeps every text, media byte and tool call.

Anthropic -> OpenAI Responses -> Gemini -> Bedrock -> Anthropic, each hop a real encode to the
provider's wire format and a decode back, as an application does when it switches providers
mid-conversation. Thinking is the one thing documented to change: another provider's thinking
cannot be replayed (its signature is meaningless elsewhere), so by default it is dropped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.conftest import TESTDATA, make_png

import mediablocks as mb

CHAIN = ["anthropic", "openai-responses", "gemini", "bedrock", "anthropic"]


def _history() -> list[mb.Message]:
    photo = mb.ImageBlock.from_path(TESTDATA / "image" / "photo.jpg")
    chart = mb.ImageBlock.from_bytes(make_png((20, 10), color="purple"))
    return [
        mb.SystemMessage.text("You are a careful assistant."),
        mb.UserMessage.with_images("What is in this photo? Plot its colours.", [photo]),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(
                    thinking="I should call the plotting tool.",
                    signature="c2lnbmF0dXJlLWZyb20tYW50aHJvcGlj",
                    provider="anthropic",
                ),
                mb.TextBlock(text="Let me plot the colours."),
                mb.ToolCallBlock(
                    id="toolu_01", name="plot_colours", args={"bins": 8, "space": "rgb"}
                ),
            ],
            provider="anthropic",
        ),
        mb.ToolMessage.from_result("toolu_01", [mb.TextBlock(text="Plotted 8 bins."), chart]),
        mb.AssistantMessage(content=[mb.TextBlock(text="Mostly warm tones.")]),
        mb.UserMessage.text("Thanks!"),
    ]


def _essence(messages: list[mb.Message]) -> list[tuple[str, Any]]:
    """What must survive: the role-tagged texts, media (type and bytes) and tool traffic, in order.

    Message boundaries are not compared: providers group turns differently (Anthropic puts tool
    results in user turns, Gemini in ``user`` contents), and decoding regroups them.
    """
    out: list[tuple[str, Any]] = []
    for message in messages:
        role = "tool" if message.role == "tool" else message.role
        for block in message.content:
            if isinstance(block, mb.TextBlock):
                out.append((role, ("text", block.text)))
            elif isinstance(block, mb.MediaBlock):
                out.append((role, ("media", block.mime_type, block.read())))
            elif isinstance(block, mb.ToolCallBlock):
                out.append((role, ("call", block.id, block.name, json.dumps(block.args))))
            elif isinstance(block, mb.ToolResultBlock):
                content = block.content
                items: list[Any] = []
                if isinstance(content, str):
                    items.append(("text", content))
                else:
                    for part in content:
                        if isinstance(part, mb.TextBlock):
                            items.append(("text", part.text))
                        elif isinstance(part, mb.MediaBlock):
                            items.append(("media", part.mime_type, part.read()))
                out.append(("tool", ("result", block.tool_call_id, block.is_error, tuple(items))))
    return out


def _hop(messages: list[mb.Message], provider: str, target: str) -> list[mb.Message]:
    fields = mb.encode(messages, provider, target=target)
    if target == "json":
        fields = json.loads(json.dumps(fields))  # what crosses the wire is JSON text
    return mb.decode(fields, provider)


@pytest.mark.parametrize("target", ["sdk", "json"])
def test_a_history_survives_a_tour_of_providers(target: str) -> None:
    history = _history()
    expected = _essence(history)
    current = history
    for provider in CHAIN:
        current = _hop(current, provider, target)
        assert _essence(current) == expected, f"after {provider} ({target})"


def test_foreign_thinking_is_dropped_and_own_thinking_replayed() -> None:
    history = _history()
    at_anthropic = _hop(history, "anthropic", "sdk")
    [thought] = [b for m in at_anthropic for b in m.content if isinstance(b, mb.ThinkingBlock)]
    assert thought.signature == "c2lnbmF0dXJlLWZyb20tYW50aHJvcGlj"  # replayed to its own API
    at_responses = _hop(at_anthropic, "openai-responses", "sdk")
    assert not [b for m in at_responses for b in m.content if isinstance(b, mb.ThinkingBlock)]


def test_thinking_can_travel_as_text_when_asked() -> None:
    history = _history()
    fields = mb.encode(history, "gemini", thinking="text")
    texts = [
        part.get("text")
        for content in fields["contents"]
        for part in content["parts"]
        if not part.get("thought")
    ]
    assert "I should call the plotting tool." in texts
