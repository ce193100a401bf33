"""LangChain v1 messages through mediablocks and back, and the agent middleware fitting media for
a real ``create_agent`` agent driven by LangChain's own fake chat model."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import tool
from PIL import Image

import mediablocks as mb
from mediablocks.integrations.langchain_agent import PrepareMediaMiddleware
from tests.conftest import TESTDATA, make_png
from tests.providers.kit import assert_sdk_types

PNG = (TESTDATA / "image" / "rgb.png").read_bytes()
WAV = (TESTDATA / "audio" / "pcm16.wav").read_bytes()
PDF = (TESTDATA / "document" / "report.pdf").read_bytes()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def history() -> list[Any]:
    return [
        SystemMessage("Be brief."),
        HumanMessage(
            content=[
                {"type": "text", "text": "What is in these?"},
                {"type": "image", "base64": b64(PNG), "mime_type": "image/png"},
                {"type": "image", "url": "https://example.org/a.png", "extras": {"detail": "low"}},
                {"type": "audio", "base64": b64(WAV), "mime_type": "audio/wav"},
                {"type": "file", "file_id": "file-123", "mime_type": "application/pdf"},
                {
                    "type": "file",
                    "base64": b64(PDF),
                    "mime_type": "application/pdf",
                    "extras": {"filename": "report.pdf"},
                },
                {"type": "text-plain", "text": "notes", "mime_type": "text/plain", "title": "N"},
            ],
            id="h1",
            name="ana",
        ),
        AIMessage(
            content=[
                {"type": "thinking", "thinking": "Let me look.", "signature": "c2ln"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "call_1", "name": "zoom", "input": {"x": 2}},
            ],
            tool_calls=[{"id": "call_1", "name": "zoom", "args": {"x": 2}}],
            response_metadata={"model_provider": "anthropic", "model_name": "claude-x"},
            usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
            id="a1",
        ),
        ToolMessage(
            content=[
                {"type": "text", "text": "zoomed"},
                {"type": "image", "base64": b64(PNG), "mime_type": "image/png"},
            ],
            tool_call_id="call_1",
            name="zoom",
            artifact={"scale": 2},
            id="t1",
        ),
        AIMessage(
            "",
            invalid_tool_calls=[
                {
                    "type": "invalid_tool_call",
                    "id": "c2",
                    "name": "zoom",
                    "args": "{x:",
                    "error": "bad",
                }
            ],
        ),
        ToolMessage("no such page", tool_call_id="c2", status="error"),
        AIMessage("It is a photo.", id="a2"),
    ]


def _standard(message: Any) -> list[dict[str, Any]]:
    """The message's standard blocks without the ids LangChain makes up on each read."""
    blocks = []
    for block in message.content_blocks:
        block = dict(block)
        if str(block.get("id", "")).startswith("lc_"):
            del block["id"]
        blocks.append(block)
    return blocks


def test_a_history_goes_through_mediablocks_and_back_unchanged() -> None:
    original = history()
    read = mb.from_langchain(original)
    back = mb.to_langchain(read)
    assert [type(m) for m in back] == [type(m) for m in original]
    for before, after in zip(original, back, strict=True):
        assert _standard(after) == _standard(before)
        assert after.id == before.id
        assert getattr(after, "tool_calls", None) == getattr(before, "tool_calls", None)
    assert back[1].name == "ana"
    assert back[2].usage_metadata == original[2].usage_metadata
    assert back[3].artifact == {"scale": 2}
    assert back[4].invalid_tool_calls[0]["args"] == "{x:"
    assert back[5].status == "error"


def test_what_mediablocks_reads_from_langchain() -> None:
    system, user, reply, result, broken, failed, _ = mb.from_langchain(history())
    assert system.text == "Be brief."
    kinds = [type(b) for b in user.content]
    assert kinds == [
        mb.TextBlock,
        mb.ImageBlock,
        mb.ImageBlock,
        mb.AudioBlock,
        mb.FileBlock,
        mb.FileBlock,
        mb.FileBlock,
    ]
    assert user.content[1].read() == PNG
    assert user.content[2].detail == "low"
    assert user.content[4].source.file_id == "file-123"
    assert user.content[5].filename == "report.pdf"
    assert user.content[6].read() == b"notes"
    thinking, text, call = reply.content
    assert text.text == "Looking."
    assert (thinking.thinking, thinking.signature, thinking.provider) == (
        "Let me look.",
        "c2ln",
        "anthropic",
    )
    assert (call.id, call.name, call.args) == ("call_1", "zoom", {"x": 2})
    assert reply.usage.input_tokens == 10
    assert reply.model == "claude-x"
    (tool_result,) = result.results
    assert tool_result.media[0].read() == PNG
    assert tool_result.name == "zoom"
    assert broken.tool_calls[0].raw_args == "{x:"
    assert failed.results[0].is_error


def test_read_from_langchain_the_history_encodes_for_claude_with_its_signature() -> None:
    read = mb.from_langchain(history())
    read[1] = read[1].model_copy(
        update={"content": [b for b in read[1].content if not isinstance(b, mb.AudioBlock)]}
    )
    read[1] = read[1].model_copy(
        update={"content": [b for b in read[1].content if b.type != "file" or b.filename]}
    )
    fields = assert_sdk_types("anthropic", read[:4])
    thinking = fields["messages"][1]["content"][0]
    assert thinking == {"type": "thinking", "thinking": "Let me look.", "signature": "c2ln"}


def test_what_langchain_cannot_give_or_take_is_refused_by_name() -> None:
    with pytest.raises(mb.UnsupportedBlockError, match="FunctionMessage"):
        mb.from_langchain([FunctionMessage(content="x", name="f")])
    server = AIMessage(
        content=[{"type": "server_tool_call", "id": "s1", "name": "web", "args": {}}]
    )
    (reply,) = mb.from_langchain([server])
    assert reply.content[0] == mb.RawBlock(provider="langchain", data=server.content[0])
    with pytest.raises(mb.UnsupportedBlockError):
        mb.encode([mb.UserMessage.text("hi"), reply], "anthropic")
    with pytest.raises(mb.UnsupportedBlockError, match="CustomMessage"):
        mb.to_langchain([mb.CustomMessage(custom_type="note", data={})])
    with pytest.raises(mb.DecodeError):
        mb.from_langchain("not messages")


def test_dicts_and_role_pairs_read_as_langchain_does() -> None:
    read = mb.from_langchain([("user", "hi"), {"role": "assistant", "content": "hello"}])
    assert [(m.role, m.text) for m in read] == [("user", "hi"), ("assistant", "hello")]


# -- the agent middleware ------------------------------------------------------------------


class RecordingChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, keeping the messages of each call."""

    calls: list[list[Any]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        self.calls.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)


def _screenshot() -> bytes:
    return make_png((1280, 10000), color="white")


def _agent(middleware: Any) -> tuple[Any, RecordingChatModel]:
    shot = b64(_screenshot())

    @tool(response_format="content_and_artifact")
    def screenshot() -> tuple[list[dict[str, Any]], None]:
        """A full-page screenshot."""
        return [{"type": "image", "base64": shot, "mime_type": "image/png"}], None

    replies = iter(
        [
            AIMessage(content="", tool_calls=[{"id": "c1", "name": "screenshot", "args": {}}]),
            AIMessage(content="A white page."),
        ]
    )
    model = RecordingChatModel(messages=replies, calls=[])
    return create_agent(model, [screenshot], middleware=[middleware]), model


def test_the_middleware_fits_the_screenshot_for_the_agents_model() -> None:
    agent, model = _agent(PrepareMediaMiddleware(provider="anthropic"))
    state = agent.invoke({"messages": [HumanMessage("Look at the page.")]})
    assert state["messages"][-1].content == "A white page."
    first, second = model.calls
    assert [type(m) for m in second] == [HumanMessage, AIMessage, ToolMessage]
    assert second[0] is first[0]  # messages without media are passed on as they were
    (image,) = [b for b in second[2].content if b["type"] == "image"]
    size = Image.open(io.BytesIO(base64.b64decode(image["base64"]))).size
    assert max(size) <= mb.limits_for("anthropic").max_image_side < 10000
    # The agent's state keeps the original: another model fits it afresh.
    kept = state["messages"][2].content[0]["base64"]
    assert Image.open(io.BytesIO(base64.b64decode(kept))).size == (1280, 10000)


def test_the_middleware_refuses_what_the_model_cannot_take_by_name() -> None:
    agent, _ = _agent(PrepareMediaMiddleware(provider="deepseek"))  # text only
    with pytest.raises(mb.DoesNotFitError, match="deepseek"):
        agent.invoke({"messages": [HumanMessage("Look at the page.")]})


def test_the_middleware_needs_a_provider_it_can_tell() -> None:
    agent, _ = _agent(PrepareMediaMiddleware())  # the fake model names no provider
    with pytest.raises(mb.InvalidOptionError, match="provider"):
        agent.invoke({"messages": [HumanMessage("Look at the page.")]})


# -- properties ------------------------------------------------------------------------------

_text = st.text(max_size=12)
_blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _text),
    st.builds(
        lambda data, kind: {"type": kind, "base64": b64(data), "mime_type": mb.detect_mime(data)},
        st.sampled_from([PNG, make_png((3, 2))]),
        st.just("image"),
    ),
    st.builds(lambda: {"type": "audio", "base64": b64(WAV), "mime_type": "audio/wav"}),
    st.builds(
        lambda name: {"type": "image", "url": f"https://example.org/{name}.png"},
        st.text("abc", min_size=1, max_size=5),
    ),
    st.builds(lambda fid: {"type": "file", "file_id": fid}, st.text("xyz", min_size=1, max_size=6)),
    st.builds(lambda v: {"type": "non_standard", "value": {"type": "custom", "v": v}}, _text),
)


@settings(max_examples=60, deadline=None)
@given(blocks=st.lists(_blocks, min_size=1, max_size=6))
def test_any_standard_content_survives_the_round_trip(blocks: list[dict[str, Any]]) -> None:
    message = HumanMessage(content=blocks, id="m")
    (back,) = mb.to_langchain(mb.from_langchain([message]))
    assert _standard(back) == _standard(message)


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _text),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(_text, c, max_size=3)),
    max_leaves=12,
)
_near = st.dictionaries(
    st.sampled_from(["type", "text", "base64", "url", "file_id", "mime_type", "value", "args"]),
    st.one_of(_json, st.sampled_from(["image", "file", "text", "reasoning", "tool_call"])),
)


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(_near, max_size=4))
def test_malformed_blocks_give_a_mediablocks_error_or_messages(parts: list[Any]) -> None:
    try:
        message = HumanMessage(content=parts)
    except ValueError:
        return  # LangChain's own validation refused it first
    try:
        read = mb.from_langchain([message])
    except mb.MediaBlocksError:
        return
    assert isinstance(read[0], mb.UserMessage)
