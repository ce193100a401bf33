"""A block over base64 text learns its type from the first bytes when they decide it (JPEG,
PNG, GIF), without decoding the 64 KiB header window, and gets the very type, and the very
errors, the window would have given."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.mime import detect_mime
from tests.conftest import TESTDATA

IMAGES = ["cmyk.jpg", "grey.png", "palette.png", "animated.gif", "lossy.webp", "apng.png"]


@pytest.mark.parametrize("name", IMAGES)
def test_the_type_is_the_one_the_header_window_gives(name: str) -> None:
    data = (TESTDATA / "image" / name).read_bytes()
    block = mb.ImageBlock.from_base64(base64.b64encode(data).decode())
    assert block.mime_type == detect_mime(data)
    decided_early = name.endswith((".jpg", ".png", ".gif"))
    assert (block.source._header is None) is decided_early  # WebP still decodes its window


@settings(max_examples=200, deadline=None)
@given(
    signature=st.sampled_from([b"\xff\xd8\xff\xe0", b"\x89PNG\r\n\x1a\n", b"GIF89a"]),
    tail=st.binary(max_size=400),
    declared=st.sampled_from([None, "image/jpeg", "image/png", "image/gif", "text/plain"]),
)
def test_with_or_without_a_declared_type_the_answer_does_not_change(
    signature: bytes, tail: bytes, declared: str | None
) -> None:
    text = base64.b64encode(signature + tail).decode()
    quick = mb.FileBlock.from_base64(text, mime_type=declared)
    slow = mb.FileBlock.from_base64(text, mime_type=declared)
    slow.source.header()  # the window decoded first: the old way
    outcomes = []
    for block in (quick, slow):
        try:
            outcomes.append(block.mime_type)
        except mb.MediaBlocksError as exc:
            outcomes.append(f"{type(exc).__name__}: {exc}")
    assert outcomes[0] == outcomes[1]


def test_a_bad_character_in_the_window_is_still_named_when_the_type_is_learnt() -> None:
    data = (TESTDATA / "image" / "cmyk.jpg").read_bytes()
    text = base64.b64encode(data).decode()
    broken = text[:200] + "*" + text[201:]
    with pytest.raises(mb.DecodeError, match="unexpected character '\\*' at position 200"):
        mb.ImageBlock.from_base64(broken)  # in memory: the type is learnt at once
    payload = [
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/jpeg", "data": broken},
                }
            ],
        }
    ]
    with pytest.raises(mb.DecodeError, match=r"message 0, block 0: .*position 200"):
        mb.decode(payload, "anthropic")
