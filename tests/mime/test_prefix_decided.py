"""`decided_by_prefix`: the types whose first bytes alone decide `detect_mime`, so that media
held as base64 text need not decode a whole header window to learn its type."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.datauri import base64_characters_only
from mediablocks.mime import detect_mime
from mediablocks.mime.detect import _BY_FIRST_BYTE, PREFIX_DECIDED, PREFIX_SIZE, decided_by_prefix
from mediablocks.mime.signatures import register_signature, unregister_signature
from tests.conftest import TESTDATA


def test_each_signature_is_the_first_check_for_its_first_byte() -> None:
    """What makes the prefix enough: no other check runs before it for that first byte."""
    for signature, mime in PREFIX_DECIDED:
        assert len(signature) <= PREFIX_SIZE
        first = _BY_FIRST_BYTE[signature[0]][0]
        assert first(signature + b"\0" * 64, memoryview(signature), True) == mime


@settings(max_examples=300, deadline=None)
@given(choice=st.sampled_from(PREFIX_DECIDED), tail=st.binary(max_size=3000))
def test_whatever_follows_the_prefix_detect_mime_agrees(
    choice: tuple[bytes, str], tail: bytes
) -> None:
    signature, mime = choice
    data = signature + tail
    assert decided_by_prefix(data[:PREFIX_SIZE]) == mime
    assert detect_mime(data) == mime


@settings(max_examples=300, deadline=None)
@given(data=st.binary(min_size=PREFIX_SIZE, max_size=64))
def test_a_prefix_decides_only_what_detect_mime_says(data: bytes) -> None:
    decided = decided_by_prefix(data[:PREFIX_SIZE])
    assert decided is None or decided == detect_mime(data)


def test_user_signatures_turn_the_shortcut_off() -> None:
    jpeg = (TESTDATA / "image" / "cmyk.jpg").read_bytes()
    assert decided_by_prefix(jpeg[:PREFIX_SIZE]) == "image/jpeg"
    register_signature("image/x-house-jpeg", prefix=b"\xff\xd8\xff", name="house-jpeg")
    try:
        assert decided_by_prefix(jpeg[:PREFIX_SIZE]) is None
        block = mb.ImageBlock.from_base64(base64.b64encode(jpeg).decode())
        assert block.mime_type == "image/x-house-jpeg"  # the user's signature still wins
    finally:
        unregister_signature("house-jpeg")


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_EDITS = [*_ALPHABET[:3], "=", "*", "-", " ", "é"]


@settings(max_examples=400, deadline=None)
@given(
    payload=st.binary(max_size=60),
    edit=st.tuples(
        st.integers(min_value=0), st.sampled_from([*_ALPHABET[:3], "=", "*", "-", " ", "é"])
    ),
)
def test_base64_characters_only_agrees_with_a_strict_decode_on_characters(
    payload: bytes, edit: tuple[int, str]
) -> None:
    import binascii

    text = base64.b64encode(payload).decode()
    if text:
        where = edit[0] % len(text)
        text = text[:where] + edit[1] + text[where + 1 :]
    try:
        binascii.a2b_base64(text.encode("ascii"), strict_mode=True)
        decodes = True
    except (binascii.Error, UnicodeEncodeError):
        decodes = False
    if decodes:
        assert base64_characters_only(text)
    elif base64_characters_only(text):
        # Only the length or padding count can still be wrong: never a foreign character.
        assert len(text) % 4 or text.rstrip("=").count("=") == 0
