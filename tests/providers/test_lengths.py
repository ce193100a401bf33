"""Length caps per provider: the documented defaults, and `set_length_limits` for any provider."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mediablocks as mb
from mediablocks.providers import lengths


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    saved = dict(lengths._overrides)
    yield
    lengths._overrides.clear()
    lengths._overrides.update(saved)


def _call(call_id: str) -> list[mb.Message]:
    return [
        mb.UserMessage.text("weather?"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id=call_id, name="weather")]),
        mb.ToolMessage.from_result(call_id, "12C", name="weather"),
    ]


def test_the_documented_defaults() -> None:
    assert mb.length_limits("openai") == mb.LengthLimits(max_string=10_485_760)
    assert mb.length_limits("openai-responses").max_call_id == 64
    assert mb.length_limits("bedrock") == mb.LengthLimits(max_call_id=64)
    assert mb.length_limits("groq") == mb.length_limits("openai-chat")  # a profile: its base's
    assert mb.length_limits("anthropic") == mb.LengthLimits()


def test_a_cap_set_for_any_provider_counts_in_encode_and_validate() -> None:
    history = [mb.UserMessage.text("x" * 50)]
    assert mb.encode(history, "anthropic")["messages"]
    before = mb.set_length_limits("anthropic", max_string=40)
    assert before == mb.LengthLimits()
    with pytest.raises(mb.UnsupportedBlockError, match=r"text of 50 characters.*at most 40"):
        mb.encode(history, "anthropic")
    assert [p.code for p in mb.validate(history, "anthropic")] == ["text-too-long"]
    assert mb.validate(history, "gemini") == []
    mb.set_length_limits("anthropic", max_string=None)
    assert mb.encode(history, "anthropic")["messages"]


def test_a_profile_gets_its_own_cap_and_the_other_cap_is_kept() -> None:
    mb.set_length_limits("groq", max_call_id=8)
    assert mb.length_limits("groq") == mb.LengthLimits(max_string=10_485_760, max_call_id=8)
    assert mb.length_limits("openai-chat").max_call_id is None
    with pytest.raises(mb.UnsupportedBlockError, match="call id"):
        mb.encode(_call("call_0123456789"), "groq")
    assert mb.encode(_call("call_0123456789"), "openai")["messages"]


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", True])
def test_a_cap_that_is_not_a_whole_number_is_refused(bad: object) -> None:
    with pytest.raises(mb.InvalidOptionError, match="max_string"):
        mb.set_length_limits("mistral", max_string=bad)  # type: ignore[arg-type]
    with pytest.raises(mb.UnknownProviderError):
        mb.set_length_limits("nobody", max_string=10)
