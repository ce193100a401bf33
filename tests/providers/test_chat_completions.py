"""The Chat Completions base (`ChatEncoder`, `chat_messages`) and the payload reading every
decoder shares (`decode_payload`, `wire_object`), exercised directly: a provider written on the
base gets the walk, tool results and moved media right, and decoders fail only with
`DecodeError`, saying what they expected."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.errors import DecodeError, UnsupportedBlockError
from mediablocks.providers._chat_completions import ChatEncoder, chat_messages, tool_calls_of
from mediablocks.providers._common import tool_result_content
from mediablocks.providers._options import EncodeOptions
from mediablocks.providers._payload import decode_payload, wire_object
from mediablocks.providers.cohere.translate import from_cohere
from mediablocks.providers.mistral.decode import from_mistral
from mediablocks.providers.ollama.translate import from_ollama
from mediablocks.providers.openai_chat.decode import from_openai_chat

PNG = Path(__file__).resolve().parents[2] / "testdata" / "image" / "16bit.png"

PROPERTY = settings(
    max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


class _Toy(ChatEncoder):
    """A provider written only with what the base asks for: it takes text and images."""

    provider = "toy"
    system_only: ClassVar[str] = "toy system messages take text only"
    tool_media_refusal: ClassVar[str] = "toy tool messages carry text only"
    media_refusal: ClassVar[str] = "toy takes images only"

    def tool_call(self, block: mb.ToolCallBlock) -> dict[str, Any]:
        return {"id": block.id, "name": block.name}

    def image_part(self, block: mb.ImageBlock, index: int, position: int) -> dict[str, Any]:
        return {"type": "image", "url": self.url_or_data_uri(block, index, position)}


def _toy(messages: list[Any], **options: Any) -> list[dict[str, Any]]:
    return _Toy(EncodeOptions(**options)).run(messages)


def _call() -> mb.ToolCallBlock:
    return mb.ToolCallBlock(id="c1", name="look", args={})


def test_a_provider_on_the_base_sends_roles_and_lone_text_as_a_string() -> None:
    history = [
        mb.SystemMessage(content=[mb.TextBlock(text="be brief")]),
        mb.UserMessage(content=[mb.TextBlock(text="hi"), mb.TextBlock(text="there")]),
        mb.AssistantMessage(content=[mb.TextBlock(text="hello"), _call()]),
    ]
    assert _toy(history) == [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}],
        },
        {"role": "assistant", "content": "hello", "tool_calls": [{"id": "c1", "name": "look"}]},
    ]


def test_media_in_a_tool_result_moves_to_a_user_message_after_the_tool_messages() -> None:
    image = mb.ImageBlock.from_url("https://example.com/cat.png")
    history = [
        mb.AssistantMessage(content=[_call()]),
        mb.ToolMessage(
            content=[
                mb.ToolResultBlock(tool_call_id="c1", content=[mb.TextBlock(text="a cat"), image])
            ]
        ),
        mb.UserMessage(content=[mb.TextBlock(text="and?")]),
    ]
    out = _toy(history)
    assert out[1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "a cat"}],
    }
    assert out[2] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Media returned by tool call c1:"},
            {"type": "image", "url": "https://example.com/cat.png"},
        ],
    }
    assert out[3] == {"role": "user", "content": "and?"}


def test_media_in_a_tool_result_raises_when_the_caller_says_so() -> None:
    history = [
        mb.ToolMessage(
            content=[mb.ToolResultBlock(tool_call_id="c1", content=[mb.ImageBlock.from_path(PNG)])]
        )
    ]
    with pytest.raises(UnsupportedBlockError, match="toy tool messages carry text only"):
        _toy(history, tool_result_media="error")


def test_what_the_provider_lacks_is_refused_with_its_own_sentence() -> None:
    audio = mb.AudioBlock.from_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt ", "audio/wav")
    with pytest.raises(UnsupportedBlockError, match="toy takes images only"):
        _toy([mb.UserMessage(content=[audio])])
    with pytest.raises(UnsupportedBlockError, match="toy system messages take text only"):
        _toy([mb.SystemMessage(content=[mb.ImageBlock.from_path(PNG)])])
    with pytest.raises(UnsupportedBlockError, match="tool calls belong in assistant messages"):
        _toy([mb.UserMessage(content=[_call()])])


def test_an_assistant_message_left_empty_is_not_sent() -> None:
    foreign = mb.ThinkingBlock(thinking="hmm", provider="elsewhere")
    assert _toy([mb.AssistantMessage(content=[foreign])]) == []
    assert _toy([mb.AssistantMessage(content=[foreign])], thinking="text") == [
        {"role": "assistant", "content": "hmm"}
    ]


def test_chat_messages_joins_tool_messages_and_pairs_results_without_ids() -> None:
    def assistant(item: dict[str, Any], where: str) -> mb.AssistantMessage:
        calls = tool_calls_of(
            item, where, lambda raw, at: mb.ToolCallBlock(id=raw["id"], name=raw["name"], args={})
        )
        return mb.AssistantMessage(content=calls)

    def tool_result(
        item: dict[str, Any], where: str, pending: list[tuple[str, str]]
    ) -> mb.ToolResultBlock:
        call_id, _ = pending.pop(0)
        return mb.ToolResultBlock(tool_call_id=call_id, content=item["content"])

    items = [
        {"role": "assistant", "tool_calls": [{"id": "a", "name": "x"}, {"id": "b", "name": "y"}]},
        {"role": "tool", "content": "one"},
        {"role": "tool", "content": "two"},
    ]
    out = chat_messages(items, "Toy", assistant=assistant, tool_result=tool_result)
    assert len(out) == 2
    assert isinstance(out[1], mb.ToolMessage)
    assert [(r.tool_call_id, r.content) for r in out[1].content] == [("a", "one"), ("b", "two")]
    with pytest.raises(DecodeError, match=r"Toy message 0 has role 'robot', not system"):
        chat_messages([{"role": "robot"}], "Toy", assistant=assistant, tool_result=tool_result)
    with pytest.raises(DecodeError, match="Toy message 0 is a int, not a message object"):
        chat_messages([3], "Toy", assistant=assistant, tool_result=tool_result)


def test_a_tool_result_keeps_what_it_cannot_hold_verbatim_when_asked() -> None:
    def part(raw: Any, where: str) -> Any:
        return mb.ThinkingBlock(thinking=raw["thinking"])

    kept = tool_result_content([{"thinking": "t"}], "here", part, "content", "part", kept_for="p")
    assert kept == [mb.RawBlock(provider="p", data={"thinking": "t"})]
    with pytest.raises(DecodeError, match="here: content is a int, not text or chunks"):
        tool_result_content(5, "here", part, "content", "chunk", plural="chunks")


def test_decode_payload_says_what_it_expected() -> None:
    def items(value: Any) -> list[Any]:
        return [mb.UserMessage(content=[mb.TextBlock(text=str(len(value)))])]

    response = ("a response with 'out'", lambda data: "out" in data, lambda data: [])
    with pytest.raises(DecodeError) as caught:
        decode_payload({"x": 1}, "a Toy payload", items, response)
    assert str(caught.value) == (
        "not a Toy payload: expected a request with 'messages', a response with 'out', "
        "or a message with 'role'"
    )
    with pytest.raises(DecodeError, match=r"^not a Toy payload: a float$"):
        decode_payload(1.5, "a Toy payload", items, response)
    assert decode_payload({"out": 1}, "a Toy payload", items, response) == []
    one = decode_payload({"role": "user"}, "a Toy payload", items, response)
    assert one[0].content[0].text == "1"  # the message alone, as a list of one
    with pytest.raises(DecodeError, match=r"^here is a list, not an object$"):
        wire_object([], "here", "an object")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["role", "content", "messages", "choices", "message", "type", "text"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@PROPERTY
@given(payload=_JSON)
@pytest.mark.parametrize("decode", [from_openai_chat, from_mistral, from_cohere, from_ollama])
def test_chat_decoders_return_messages_or_raise_decode_error(decode: Any, payload: Any) -> None:
    try:
        out = decode(payload)
    except DecodeError:
        return
    assert isinstance(out, list)
    assert all(message.role in ("system", "user", "assistant", "tool") for message in out)
