"""Tool-call arguments that JSON cannot hold raise a library error from encode (issue 10)."""

from __future__ import annotations

from typing import Any

import pytest

import mediablocks as mb

PROVIDERS = [
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("args", [{"x": {1, 2}}, {"blob": b"\x00\x01"}, {"when": object()}])
def test_arguments_json_cannot_hold_never_raise_a_raw_type_error(
    provider: str, args: dict[str, Any]
) -> None:
    messages = [
        mb.UserMessage(content=[mb.TextBlock(text="hi")]),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="lookup", args=args)]),
    ]
    with pytest.raises(mb.MediaBlocksError, match="JSON"):
        mb.encode_json(messages, provider)
    message = "c1"
    try:
        mb.encode(messages, provider)  # SDK targets that take a dict may pass it on untouched
    except mb.MediaBlocksError as error:
        message = str(error)
    assert "c1" in message
