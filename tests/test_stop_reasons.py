"""One stop-reason vocabulary for every provider, the provider's value kept beside it."""

from __future__ import annotations

from typing import Any

import pytest

import mediablocks as mb
from mediablocks.stop_reasons import (
    STOP_REASONS,
    normalize_stop_reason,
    provider_stop_reason_for,
)

CASES = [
    ("anthropic", "end_turn", "end_turn"),
    ("anthropic", "pause_turn", "pause"),
    ("anthropic", "refusal", "refusal"),
    ("anthropic", "model_context_window_exceeded", "max_tokens"),
    ("openai-chat", "stop", "end_turn"),
    ("openai-chat", "length", "max_tokens"),
    ("openai-chat", "tool_calls", "tool_use"),
    ("openai-chat", "content_filter", "content_filter"),
    ("openai-responses", "max_output_tokens", "max_tokens"),
    ("openai-responses", "failed", "error"),
    ("gemini", "STOP", "end_turn"),
    ("gemini", "SAFETY", "content_filter"),
    ("gemini", "MALFORMED_FUNCTION_CALL", "error"),
    ("bedrock", "guardrail_intervened", "content_filter"),
    ("bedrock", "stop_sequence", "stop_sequence"),
    ("mistral", "model_length", "max_tokens"),
    ("ollama", "length", "max_tokens"),
    ("anthropic", "error: overloaded_error", "error"),
    ("gemini", "SOMETHING_NEW", "other"),
]


@pytest.mark.parametrize(("provider", "raw", "normal"), CASES)
def test_each_provider_value_maps_to_one_reason(provider: str, raw: str, normal: str) -> None:
    assert normalize_stop_reason(raw, provider) == normal
    assert normal in STOP_REASONS


@pytest.mark.parametrize("provider", ["gemini", "ollama", "openai"])
def test_a_plain_stop_with_tool_calls_is_tool_use(provider: str) -> None:
    raw = "STOP" if provider == "gemini" else "stop"
    assert normalize_stop_reason(raw, provider, tool_calls=True) == "tool_use"


def test_the_message_keeps_both_values() -> None:
    call = mb.ToolCallBlock(id="c1", name="f")
    reply = mb.AssistantMessage(content=[call], provider="gemini", provider_stop_reason="STOP")
    assert (reply.stop_reason, reply.provider_stop_reason) == ("tool_use", "STOP")


def test_an_old_provider_value_in_stop_reason_moves_over() -> None:
    loaded = mb.load_messages(
        [{"role": "assistant", "content": "hi", "stop_reason": "length", "provider": "mistral"}]
    )
    assert isinstance(loaded[0], mb.AssistantMessage)
    assert (loaded[0].stop_reason, loaded[0].provider_stop_reason) == ("max_tokens", "length")


def test_decoding_a_response_normalises_and_keeps_the_raw_value() -> None:
    [reply] = mb.decode(
        {
            "choices": [
                {"message": {"role": "assistant", "content": "x"}, "finish_reason": "length"}
            ]
        },
        "openai",
    )
    assert isinstance(reply, mb.AssistantMessage)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("max_tokens", "length")


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "gemini", "bedrock", "mistral"])
@pytest.mark.parametrize("reason", ["end_turn", "max_tokens", "tool_use"])
def test_writing_back_gives_a_value_that_reads_the_same(provider: str, reason: str) -> None:
    raw = provider_stop_reason_for(reason, provider)
    assert raw is not None
    assert normalize_stop_reason(raw, provider, tool_calls=reason == "tool_use") == reason


def _sdk_stop_values() -> dict[str, set[str]]:
    from typing import get_args

    import cohere
    import mistralai.client.models as mm
    from anthropic.types import StopReason
    from google.genai import types as gt
    from mypy_boto3_bedrock_runtime.literals import StopReasonType
    from openai.types.chat.chat_completion import Choice

    def literal(value: Any) -> set[str]:
        found: set[str] = set()
        for arg in get_args(value):
            found |= literal(arg) if get_args(arg) else {arg} if isinstance(arg, str) else set()
        return found

    return {
        "bedrock": literal(StopReasonType),
        "mistral": literal(mm.ChatCompletionChoiceFinishReason),
        "anthropic": literal(StopReason),
        "cohere": literal(cohere.ChatFinishReason),
        "gemini": {reason.value for reason in gt.FinishReason},
        "openai-chat": literal(Choice.model_fields["finish_reason"].annotation),
    }


@pytest.mark.parametrize("reason", STOP_REASONS)
def test_a_response_gets_only_stop_values_its_provider_accepts(reason: str) -> None:
    # `pause` and `other` have no Bedrock or Mistral value: their SDKs' enums refuse them.
    for provider, accepted in _sdk_stop_values().items():
        assert provider_stop_reason_for(reason, provider) in accepted, (provider, reason)
