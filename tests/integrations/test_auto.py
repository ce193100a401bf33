"""`decode(payload, "auto")`: lists mixing several providers' parts, framework messages and MCP
content, read part by part, each message saying which format it read."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.providers.registry import WIRE_FORMATS
from tests.conftest import TESTDATA, make_png
from tests.providers.kit import request_seed, response_seed, sample_history

PNG = (TESTDATA / "image" / "rgb.png").read_bytes()
B64 = base64.b64encode(PNG).decode("ascii")
DATA_URI = f"data:image/png;base64,{B64}"

IMAGE_PARTS: list[tuple[str, dict[str, Any]]] = [
    ("openai-chat", {"type": "image_url", "image_url": {"url": DATA_URI}}),
    (
        "anthropic",
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
    ),
    ("bedrock", {"image": {"format": "png", "source": {"bytes": B64}}}),
    ("gemini", {"inline_data": {"mime_type": "image/png", "data": B64}}),
    ("openai-responses", {"type": "input_image", "image_url": DATA_URI}),
    ("langchain", {"type": "image", "base64": B64, "mime_type": "image/png"}),
    ("mcp", {"type": "image", "data": B64, "mimeType": "image/png"}),
    ("mistral", {"type": "image_url", "image_url": DATA_URI}),
]


def _formats(message: mb.Message) -> list[tuple[Any, Any]]:
    return [(d.get("part"), d.get("format")) for d in message.metadata["decoded_as"]]


def test_one_user_message_with_every_formats_image() -> None:
    parts = [{"type": "text", "text": "Compare these."}, *(part for _, part in IMAGE_PARTS)]
    (message,) = mb.decode([{"role": "user", "content": parts}], "auto")
    assert isinstance(message, mb.UserMessage)
    assert message.text == "Compare these."
    assert [image.read() for image in message.media] == [PNG] * len(IMAGE_PARTS)
    expected = [(0, "text")] + [(i + 1, name) for i, (name, _) in enumerate(IMAGE_PARTS)]
    assert _formats(message) == expected


def test_ambiguous_parts_say_which_formats_share_their_shape() -> None:
    (message,) = mb.decode(
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "c2ln"},
                    {"type": "text", "text": "Done."},
                ],
            }
        ],
        "auto",
    )
    thinking, text = message.metadata["decoded_as"]
    assert thinking == {"part": 0, "format": "anthropic", "also": ["cohere"]}
    assert text["format"] == "text"
    assert "anthropic" in text["also"]
    assert message.thinking[0].provider == "anthropic"  # the signature is Claude's


def test_message_fields_and_whole_messages_of_other_formats() -> None:
    mixed = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Look."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [{"type": "text", "text": "here"}, dict(IMAGE_PARTS[6][1])],
        },
        {"role": "model", "parts": [{"text": "A photo."}]},
        {"role": "user", "content": "and this?", "images": [B64]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    ]
    system, user, call, tool, reply, ollama, responses = mb.decode(mixed, "auto")
    assert (system.text, user.text) == ("Be brief.", "Look.")
    assert call.tool_calls[0].name == "shot"
    (result,) = tool.results
    assert result.tool_call_id == "c1"
    assert result.media[0].read() == PNG
    assert _formats(tool) == [(None, "openai-chat"), (0, "text"), (1, "mcp")]
    assert (reply.role, reply.text, _formats(reply)) == (
        "assistant",
        "A photo.",
        [(None, "gemini")],
    )
    assert ollama.media[0].read() == PNG
    assert _formats(ollama) == [(None, "ollama")]
    assert _formats(responses) == [(None, "openai-responses")]


def test_framework_messages_in_the_same_list() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    pa = pytest.importorskip("pydantic_ai.messages")
    mixed = [
        lc.HumanMessage(content=[{"type": "image", "base64": B64, "mime_type": "image/png"}]),
        pa.ModelResponse(parts=[pa.TextPart("Seen.")]),
        {"role": "user", "content": "Thanks."},
    ]
    user, reply, thanks = mb.decode(mixed, "auto")
    assert user.media[0].read() == PNG
    assert _formats(user) == [(None, "langchain")]
    assert (reply.text, _formats(reply)) == ("Seen.", [(None, "pydantic-ai")])
    assert thanks.text == "Thanks."


def test_a_request_body_keeps_its_system_prompt() -> None:
    body = {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}
    system, user = mb.decode(body, "auto")
    assert (system.text, user.text) == ("Be brief.", "hi")
    gemini = {
        "system_instruction": {"parts": [{"text": "Be kind."}]},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    }
    system, user = mb.decode(gemini, "auto")
    assert (system.role, system.text, user.text) == ("system", "Be kind.", "hi")


@pytest.mark.parametrize("provider", WIRE_FORMATS)
def test_each_formats_own_requests_and_responses_read_as_with_its_name(provider: str) -> None:
    for payload in (request_seed(provider), response_seed(provider)):
        payload = json.loads(json.dumps(payload))
        auto = mb.decode(payload, "auto")
        named = mb.decode(payload, provider)
        assert [m.text for m in auto if m.text] == [m.text for m in named if m.text]
        calls = [(c.name, c.args) for m in auto for c in getattr(m, "tool_calls", [])]
        assert calls == [(c.name, c.args) for m in named for c in getattr(m, "tool_calls", [])]
        assert len([b for m in auto for b in m.media]) == len([b for m in named for b in m.media])
    assert sample_history(provider)


def test_what_no_format_reads_is_kept_raw_and_refused_when_sent() -> None:
    (message,) = mb.decode([{"role": "user", "content": [{"type": "hologram"}]}], "auto")
    assert message.content[0] == mb.RawBlock(provider="unknown", data={"type": "hologram"})
    with pytest.raises(mb.DecodeError, match=r"not a mediablocks block \(type 'hologram'\)"):
        mb.encode([message], "anthropic")  # nobody read it: refused, naming it
    with pytest.raises(mb.DecodeError, match="role"):
        mb.decode([{"role": "narrator", "content": "x"}], "auto")
    with pytest.raises(mb.DecodeError, match="read as anthropic"):
        mb.decode(
            [{"role": "user", "content": [{"type": "image", "source": {"type": "base64"}}]}],
            "auto",
        )


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.text(max_size=8), c, max_size=3)
    ),
    max_leaves=16,
)
_part = st.one_of(
    _json,
    st.sampled_from([part for _, part in IMAGE_PARTS]),
    st.dictionaries(
        st.sampled_from(["type", "text", "source", "image_url", "data", "mimeType", "image"]),
        st.one_of(_json, st.sampled_from(["image", "text", "image_url", "thinking", "document"])),
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    payload=st.one_of(
        _json,
        st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "system", "tool"])},
                optional={"content": st.one_of(st.text(max_size=5), st.lists(_part, max_size=4))},
            ),
            max_size=4,
        ),
    )
)
def test_any_json_gives_messages_or_a_mediablocks_error(payload: Any) -> None:
    try:
        messages = mb.decode(payload, "auto")
    except mb.MediaBlocksError:
        return
    assert mb.load_messages(mb.dump_messages(messages)) == messages  # real, storable messages


def test_a_mixed_payload_is_untrusted_too(tmp_path: Path) -> None:
    """``decode(..., "auto")`` marks paths and URLs as loaded input, like every other decoder:
    a path it names is not read without an allow, and an allow given to it counts."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(make_png((2, 2)))
    mixed = [
        {
            "role": "user",
            "content": [{"type": "image", "source": {"kind": "path", "path": str(secret)}}],
        },
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "http://10.0.0.1/x.png"}}],
        },
    ]
    messages = mb.decode(mixed, "auto")
    with pytest.raises(mb.PathNotAllowedError, match=r"secret\.png"):
        mb.encode(messages[:1], "anthropic")
    with pytest.raises(mb.BlockedURLError, match="came from a decoded"):
        mb.encode(messages[1:], "ollama")
    allowed = mb.decode(mixed[:1], "auto", allow_paths=[tmp_path])
    assert allowed[0].content[0].read() == secret.read_bytes()  # type: ignore[union-attr]
