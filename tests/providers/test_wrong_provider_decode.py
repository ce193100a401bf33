"""Decoding a payload under the wrong provider's name raises `DecodeError` naming the format it
looks like, instead of returning a reply with no tool calls (an agent loop would stop)."""

from __future__ import annotations

import pytest
from tests.providers.kit import response_seed

import mediablocks as mb
from mediablocks.errors import DecodeError

BASES = [
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
    "cohere",
]
SAME_ENVELOPE = {frozenset({"openai-chat", "mistral"})}
"""Mistral answers in the Chat Completions envelope: nothing tells the two apart."""


@pytest.mark.parametrize("source", BASES)
def test_every_wrong_provider_decode_of_a_response_raises(source: str) -> None:
    seed = response_seed(source)
    for target in BASES:
        if target == source or frozenset({source, target}) in SAME_ENVELOPE:
            continue
        with pytest.raises(DecodeError):
            mb.decode(seed, target)
    assert mb.decode(seed, source)


def test_a_text_only_claude_reply_is_not_read_as_openai_text() -> None:
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "Hello"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }
    for provider in ("openai", "mistral", "cohere", "groq", "ollama"):
        with pytest.raises(DecodeError, match="anthropic"):
            mb.decode(reply, provider)
    assert mb.decode(reply, "anthropic-bedrock")[0].text == "Hello"
