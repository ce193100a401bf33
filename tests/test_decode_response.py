"""`decode_response`: a recorded response of each provider to its one `AssistantMessage`."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import mediablocks as mb

from .providers import (
    test_anthropic,
    test_bedrock,
    test_gemini,
    test_mistral,
    test_ollama,
    test_openai_chat,
    test_openai_responses,
)

RESPONSES: dict[str, dict[str, Any]] = {
    "openai-chat": test_openai_chat.RESPONSE,
    "openai-responses": test_openai_responses.RESPONSE,
    "anthropic": test_anthropic.RESPONSE,
    "gemini": test_gemini.RESPONSE,
    "bedrock": test_bedrock.RESPONSE,
    "mistral": test_mistral.RESPONSE,
    "ollama": test_ollama.RESPONSE,
}


@pytest.mark.parametrize("provider", sorted(RESPONSES))
def test_a_recorded_response_gives_its_one_reply(provider: str) -> None:
    payload = RESPONSES[provider]
    reply = mb.decode_response(payload, provider)
    assert isinstance(reply, mb.AssistantMessage)
    [same] = mb.decode(payload, provider)  # the same reply decode gives, narrowed
    assert reply.content == same.content
    assert reply.usage is not None
    assert reply.usage.total_tokens > 0


@pytest.mark.parametrize("provider", sorted(RESPONSES))
def test_json_text_and_bytes_are_read_too(provider: str) -> None:
    text = json.dumps(RESPONSES[provider])
    assert (
        mb.decode_response(text, provider).content
        == mb.decode_response(text.encode(), provider).content
    )


def test_an_sdk_object_is_read() -> None:
    from anthropic.types import Message

    sdk = Message.model_validate(test_anthropic.RESPONSE)
    reply = mb.decode_response(sdk, "anthropic")
    assert reply.response_id == test_anthropic.RESPONSE["id"]


def test_a_request_body_is_not_a_response() -> None:
    body = mb.encode([mb.UserMessage(content="hi")], "anthropic")
    with pytest.raises(mb.DecodeError, match=r"not a response: it holds user"):
        mb.decode_response(body, "anthropic")


def test_several_choices_are_refused_with_the_way_to_read_them() -> None:
    payload = copy.deepcopy(test_openai_chat.RESPONSE)
    second = copy.deepcopy(payload["choices"][0])
    second["index"] = 1
    payload["choices"].append(second)
    assert len(mb.decode(payload, "openai")) == 2
    with pytest.raises(mb.DecodeError, match=r"2 assistant replies.*mb\.decode"):
        mb.decode_response(payload, "openai")


def test_not_json_and_unknown_providers_raise_library_errors() -> None:
    with pytest.raises(mb.DecodeError):
        mb.decode_response("{not json", "gemini")
    with pytest.raises(mb.UnknownProviderError):
        mb.decode_response({}, "nope")
