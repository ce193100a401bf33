"""Whatever an encoder writes, its own decoder reads under the same provider name.

The wrong-provider check in `mb.decode` refuses payloads that carry another format's markers; it
must never refuse a provider's own output. For every provider in the registry and every kind of
block it can carry (text, thinking it made, tool calls and results, image, audio, video, PDF,
its own raw parts), the encoded request fields (SDK and JSON targets) and the encoded response
decode with the provider's own name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import make_pdf, make_png, make_wav

import mediablocks as mb
from mediablocks.errors import UnsupportedBlockError
from mediablocks.providers.registry import REGISTRY, provider_entry

ROOT = Path(__file__).resolve().parents[2]
VIDEO = ROOT / "testdata" / "video"


def _video() -> mb.VideoBlock:
    return mb.VideoBlock.from_path(sorted(VIDEO.glob("*.mp4"))[0])


def _base(provider: str) -> str:
    entry = provider_entry(provider)
    return entry.profile.base if entry.profile is not None else entry.name


KINDS: dict[str, Callable[[str], list[mb.Message]]] = {
    "text": lambda p: [mb.UserMessage.text("hello"), mb.AssistantMessage.text("hi there")],
    "thinking": lambda p: [
        mb.UserMessage.text("think"),
        mb.AssistantMessage(
            content=[
                mb.ThinkingBlock(thinking="hmm", signature="c2ln", provider=_base(p)),
                mb.TextBlock(text="done"),
            ]
        ),
    ],
    "tool call and result": lambda p: [
        mb.UserMessage.text("weather?"),
        mb.AssistantMessage(
            content=[mb.ToolCallBlock(id="call_1", name="weather", args={"city": "Oslo"})]
        ),
        mb.ToolMessage.from_result("call_1", "12C", name="weather"),
    ],
    "image": lambda p: [
        mb.UserMessage(
            content=[mb.TextBlock(text="what is it"), mb.ImageBlock.from_bytes(make_png())]
        )
    ],
    "audio": lambda p: [
        mb.UserMessage(content=[mb.TextBlock(text="hear"), mb.AudioBlock.from_bytes(make_wav())])
    ],
    "video": lambda p: [mb.UserMessage(content=[mb.TextBlock(text="watch"), _video()])],
    "pdf": lambda p: [
        mb.UserMessage(
            content=[
                mb.TextBlock(text="read"),
                mb.FileBlock.from_bytes(make_pdf(), filename="report.pdf"),
            ]
        )
    ],
    "image in a tool result": lambda p: [
        mb.UserMessage.text("look"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="call_2", name="shot", args={})]),
        mb.ToolMessage(
            content=[
                mb.ToolResultBlock(
                    tool_call_id="call_2",
                    name="shot",
                    content=[mb.TextBlock(text="here"), mb.ImageBlock.from_bytes(make_png())],
                )
            ]
        ),
    ],
}

PROVIDERS = [entry.name for entry in REGISTRY]


def _encoded(messages: list[mb.Message], provider: str, target: str) -> dict[str, object] | None:
    try:
        return mb.encode(messages, provider, target=target)  # type: ignore[call-overload,no-any-return]
    except UnsupportedBlockError:
        return None  # a kind this provider cannot carry: nothing to read back


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_encoders_output_decodes_with_its_own_name(provider: str, kind: str) -> None:
    messages = KINDS[kind](provider)
    carried = 0
    for target in ("sdk", "json"):
        encoded = _encoded(messages, provider, target)
        if encoded is None:
            continue
        carried += 1
        if target == "json":
            encoded = json.loads(json.dumps(encoded))
        decoded = mb.decode(encoded, provider)
        said = " ".join(m.text for m in decoded if m.role in ("user", "assistant"))
        for message in messages:
            if message.role in ("user", "assistant") and message.text:
                assert message.text in said
        calls = [c.name for m in decoded for c in getattr(m, "tool_calls", [])]
        assert calls == [c.name for m in messages for c in getattr(m, "tool_calls", [])]
    if carried == 0:
        pytest.skip(f"{provider} carries no {kind}")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", ["text", "thinking", "tool call and result"])
def test_every_encoded_response_decodes_with_its_own_name(provider: str, kind: str) -> None:
    reply = next(m for m in reversed(KINDS[kind](provider)) if isinstance(m, mb.AssistantMessage))
    body = json.loads(json.dumps(mb.encode_response(reply, provider)))
    decoded = mb.decode_response(body, provider)
    assert decoded.text == reply.text
    assert [c.name for c in decoded.tool_calls] == [c.name for c in reply.tool_calls]


def test_a_pdf_beside_text_reads_back_from_openai_chat_and_its_profiles() -> None:
    """The regression: a text part and a ``file`` part were taken for Mistral's format."""
    messages = KINDS["pdf"]("openai-chat")
    for provider in ("openai-chat", "azure-openai", "openrouter"):
        body = mb.encode_request(mb.Request(messages=messages, model="m"), provider, target="json")
        request = mb.decode_request(body, provider)
        block = request.messages[0].content[1]
        assert isinstance(block, mb.FileBlock)
        assert block.filename == "report.pdf"
