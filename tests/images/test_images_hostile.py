"""Broken and mutated images: only library errors escape, and broken bytes are never sent."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mediablocks.errors import DecodeError, MediaBlocksError
from mediablocks.images import ImageTarget, fit_image
from mediablocks.media import ImageBlock
from mediablocks.messages import UserMessage
from mediablocks.preparing import prepare, prepare_block
from mediablocks.providers.registry import limits_for

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
IMAGES = sorted(
    path for path in (TESTDATA / "image").iterdir() if path.suffix not in (".svg", ".jxl")
)
ANTHROPIC = ImageTarget.from_limits(limits_for("anthropic"))
SMALL_BOMB_LIMIT = 4_000_000  # keeps mutated headers that claim huge sizes cheap


def test_a_jpeg_cut_in_half_is_a_decode_error_naming_the_block() -> None:
    whole = (TESTDATA / "image" / "photo.jpg").read_bytes()
    assert fit_image(whole, ANTHROPIC, strip_metadata=False).unchanged  # it would go untouched
    half = ImageBlock.from_bytes(whole[: len(whole) // 2], filename="half.jpg")
    with pytest.raises(DecodeError, match=r"message 0, block 1: ImageBlock\(.*truncated"):
        prepare([UserMessage(content=["what is this?", half])], "anthropic", strip_metadata=False)
    with pytest.raises(DecodeError, match=r"ImageBlock\(.*truncated"):
        prepare_block(half, "anthropic", strip_metadata=False)


@pytest.mark.parametrize("name", ["truncated.jpg", "truncated.png"])
def test_truncated_files_from_testdata_are_refused(name: str) -> None:
    data = (TESTDATA / "bad" / name).read_bytes()
    with pytest.raises(DecodeError, match="image"):
        fit_image(data, ANTHROPIC, strip_metadata=False)


def png_with_idat(width: int, height: int, raw: bytes) -> bytes:
    """A greyscale PNG whose one IDAT holds ``raw`` compressed, every CRC correct."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def test_a_png_with_correct_crcs_but_too_little_image_data_is_refused() -> None:
    good = png_with_idat(16, 16, b"".join(b"\x00" + bytes(range(16)) for _ in range(16)))
    assert fit_image(good, ANTHROPIC).unchanged
    short = png_with_idat(16, 16, b"".join(b"\x00" + bytes(range(16)) for _ in range(8)))
    with pytest.raises(DecodeError, match="header needs"):
        fit_image(short, ANTHROPIC)


def test_a_png_with_a_broken_crc_is_refused() -> None:
    good = png_with_idat(16, 16, bytes(17 * 16))
    at = good.index(b"IDAT") + 6
    broken = good[:at] + bytes([good[at] ^ 0xFF]) + good[at + 1 :]
    with pytest.raises(DecodeError, match="CRC"):
        fit_image(broken, ANTHROPIC)


def test_inspect_says_no_for_a_truncated_jpeg(tmp_path: Path) -> None:
    from mediablocks.cli import main

    whole = (TESTDATA / "image" / "photo.jpg").read_bytes()
    (tmp_path / "half.jpg").write_bytes(whole[: len(whole) // 2])
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        main(["inspect", "--json", str(tmp_path / "half.jpg"), "--provider", "anthropic"])
    assert '"cannot"' in out.getvalue()


@st.composite
def mutated_images(draw: st.DrawFn) -> bytes:
    """A real image from testdata/image/, then cut, overwritten, duplicated or spliced."""
    data = bytearray(draw(st.sampled_from(IMAGES)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(0, len(data) - 1)))
        action = draw(st.sampled_from(["cut", "flip", "set", "duplicate", "delete", "insert"]))
        if action == "cut":
            data = data[: max(8, at)]
        elif action == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "set" and data:
            data[at] = draw(st.sampled_from([0x00, 0xFF, 0x7F, 0x80, 0x01]))
        elif action == "duplicate":
            length = draw(st.integers(1, 64))
            data[at:at] = data[at : at + length]
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
    return bytes(data)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated_images(), st.sampled_from(["anthropic", "openai", "gemini", "bedrock", "ollama"]))
def test_mutated_images_raise_only_library_errors(data: bytes, provider: str) -> None:
    target = ImageTarget.from_limits(limits_for(provider), max_bytes=200_000)
    try:
        fitted = fit_image(data, target, max_image_pixels=SMALL_BOMB_LIMIT)
    except MediaBlocksError:
        pass
    else:  # whatever comes out decodes
        with Image.open(io.BytesIO(fitted.data)) as image:
            image.load()
    try:
        block = ImageBlock.from_bytes(data)
        prepare_block(block, provider, max_image_pixels=SMALL_BOMB_LIMIT)
    except MediaBlocksError:
        pass
