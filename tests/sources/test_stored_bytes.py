"""Inline bytes loaded from JSON text stay the base64 text they were stored as (`_StoredBytes`):
decoded strictly on first need, written back as stored, equal to the bytes they hold."""

from __future__ import annotations

import base64
import contextlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.sources import Base64Source, BytesSource
from tests.conftest import TESTDATA

PNG = (TESTDATA / "image" / "rgb.png").read_bytes()


def _document(data: str, kind: str = "image") -> str:
    block = {"type": kind, "source": {"kind": "bytes", "data": data}}
    message = {"role": "user", "id": "m1", "timestamp": "2026-01-02T03:04:05Z"}
    messages = [{**message, "content": [{"type": "text", "text": "see"}, block]}]
    return json.dumps({"format": "mediablocks.messages", "version": 1, "messages": messages})


def _source(text: str) -> Any:
    (message,) = mb.load_messages(text)
    return message.content[1].source


def test_loaded_inline_bytes_stay_their_stored_text_until_read() -> None:
    stored = base64.b64encode(PNG).decode()
    source = _source(_document(stored))
    assert isinstance(source, Base64Source)
    assert not isinstance(source, BytesSource)
    assert source.kind == "bytes"
    assert source.data == stored
    assert source.base64() == stored  # what a base64 provider is handed: no re-encoding
    assert source.read() == PNG
    assert "bytes stored as base64" in source.describe()


def test_a_history_with_inline_media_dumps_back_to_the_very_text_loaded() -> None:
    original = [
        mb.UserMessage(content=["look", mb.ImageBlock.from_bytes(PNG, filename="rgb.png")]),
        mb.AssistantMessage(content=["a red square"]),
    ]
    text = mb.dump_messages(original)
    loaded = mb.load_messages(text)
    assert mb.dump_messages(loaded) == text
    assert loaded == original  # a stored-text source equals the bytes source over the same bytes
    assert original == loaded
    assert mb.load_messages(mb.dump_messages(loaded)) == loaded
    assert loaded[0].content[1].mime_type == "image/png"
    again = mb.ImageBlock(source=loaded[0].content[1].source)  # revalidated from Python
    assert again.source is loaded[0].content[1].source


def test_parsed_json_and_unclean_base64_are_still_decoded_at_load() -> None:
    stored = base64.b64encode(PNG).decode()
    (from_dict,) = mb.load_messages(json.loads(_document(stored)))
    assert type(from_dict.content[1].source) is BytesSource
    assert from_dict.content[1].source.data == PNG
    for unclean in (base64.urlsafe_b64encode(PNG).decode(), stored.rstrip("=")):
        decoded = _source(_document(unclean))
        assert type(decoded) is BytesSource
        assert decoded.data == base64.b64decode(unclean + "==", altchars=b"-_")


@pytest.mark.parametrize(("bad", "found"), [("*", "'*' at position 100"), ("====", "position 100")])
def test_malformed_stored_base64_raises_a_coded_decode_error_when_first_needed(
    bad: str, found: str
) -> None:
    stored = base64.b64encode(PNG).decode()
    broken = stored[:100] + bad + stored[100 + len(bad) :]
    (message,) = mb.load_messages(_document(broken))  # loads: nothing is decoded yet
    block = message.content[1]
    for need in (block.read, lambda: block.mime_type, lambda: mb.encode([message], "anthropic")):
        with pytest.raises(mb.DecodeError) as caught:
            need()
        assert caught.value.code == "decode_error"
        assert "bytes stored as base64 is not valid base64" in str(caught.value)
        assert found in str(caught.value)
    for provider in ("anthropic", "openai", "gemini", "bedrock"):  # encode names the block's place
        with pytest.raises(mb.DecodeError, match=r"^message 0, block 1: .*not valid base64"):
            mb.encode([message], provider)
    with pytest.raises(mb.DecodeError, match="base64"):  # the parsed document: refused at load
        mb.load_messages(json.loads(_document(broken)))


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


@settings(max_examples=200, deadline=None)
@given(
    payload=st.binary(min_size=1, max_size=64),
    edits=st.lists(
        st.tuples(st.integers(min_value=0), st.sampled_from([*_ALPHABET[:4], "=", "*", "-", " "])),
        max_size=3,
    ),
)
def test_stored_text_reads_as_the_bytes_loading_at_once_gives(
    payload: bytes, edits: list[tuple[int, str]]
) -> None:
    chars = list(base64.b64encode(payload).decode())
    for where, char in edits:
        chars[where % len(chars)] = char
    text = _document("".join(chars), kind="file")
    try:
        (eager,) = mb.load_messages(json.loads(text))  # decoded at load, as always
        expected: bytes | None = eager.content[1].source.read()
    except mb.DecodeError:
        expected = None
    try:
        lazy = _source(text)
    except mb.DecodeError:  # refused at load: only text decoded at load, which refused it too
        assert expected is None
        return
    if isinstance(lazy, BytesSource):
        assert lazy.data == expected
        return
    if expected is None:  # refused at load from a dict: from text, read decodes or refuses
        with contextlib.suppress(mb.DecodeError):  # any other exception fails the test
            lazy.read()
        return
    assert lazy.read() == expected  # what decodes at load decodes on read, to the same bytes
