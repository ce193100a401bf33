"""FLI/FLC animations: PyAV decodes no frame of many, so their frames come from Pillow, with the
bounds every video has (frame count, pixel limit, deadline) and only library errors escaping.
Multi-frame files are built here byte by byte (FLC header, a palette chunk, one COPY chunk of
raw pixels per frame), so each frame's content is known."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mediablocks.convert.flic import is_flic
from mediablocks.convert.video import sample_frames
from mediablocks.errors import DecodeError, DoesNotFitError, ImageBombError, MediaBlocksError
from mediablocks.media import ImageBlock, VideoBlock
from mediablocks.messages import UserMessage
from mediablocks.preparing import prepare_with_report

pytest.importorskip("av")

HOPPER = Path(__file__).resolve().parents[2] / "testdata/public/pillow-hopper.fli"
GREYS = [0, 60, 120, 180, 240]  # frame n is filled with palette index n: grey GREYS[n]


def _chunk(kind: int, payload: bytes) -> bytes:
    return struct.pack("<IH", 6 + len(payload), kind) + payload


def make_flc(frames: int, width: int = 32, height: int = 24, ms: int = 100) -> bytes:
    """An FLC animation whose frame n is one flat colour (palette index n)."""
    palette = bytearray(768)
    for index, grey in enumerate(GREYS):
        palette[index * 3 : index * 3 + 3] = bytes([grey] * 3)
    body = b""
    for n in range(frames):
        subchunks = [_chunk(16, bytes([n % len(GREYS)]) * (width * height))]  # COPY
        if n == 0:
            subchunks.insert(0, _chunk(4, struct.pack("<HBB", 1, 0, 0) + bytes(palette)))
        inner = b"".join(subchunks)
        head = struct.pack("<IHHHHHH", 16 + len(inner), 0xF1FA, len(subchunks), 0, 0, 0, 0)
        body += head + inner
    header = bytearray(128)
    struct.pack_into(
        "<IHHHHHHI", header, 0, 128 + len(body), 0xAF12, frames, width, height, 8, 3, ms
    )
    return bytes(header) + body


def grey_of(jpeg: bytes) -> int:
    with Image.open(__import__("io").BytesIO(jpeg)) as image:
        return round(sum(image.convert("L").get_flattened_data()) / (image.width * image.height))


def test_a_flic_pyav_decodes_no_frame_of_gives_its_frame_through_pillow() -> None:
    data = HOPPER.read_bytes()
    assert is_flic(data)
    av = pytest.importorskip("av")
    import io

    with av.open(io.BytesIO(data)) as container:  # the reason for the fallback
        assert list(container.decode(video=0)) == []
    video = sample_frames(data, what="hopper.fli")
    [frame] = video.frames
    assert (video.codec, video.width, video.height) == ("flic", 128, 128)
    with Image.open(HOPPER) as expected, Image.open(__import__("io").BytesIO(frame.data)) as got:
        assert got.size == (128, 128)
        diff = sum(
            abs(a - b)
            for a, b in zip(
                got.convert("L").get_flattened_data(),
                expected.convert("L").get_flattened_data(),
                strict=True,
            )
        )
        assert diff / (128 * 128) < 8  # the same picture, up to JPEG loss


def test_frames_are_spread_over_the_animation_and_bounded() -> None:
    data = make_flc(5)  # 5 frames of 0.1 s
    video = sample_frames(data, what="anim.flc", max_frames=5)
    assert [round(f.time, 2) for f in video.frames] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert [grey_of(f.data) for f in video.frames] == pytest.approx(GREYS, abs=3)
    assert video.duration == pytest.approx(0.5)
    two = sample_frames(data, what="anim.flc", max_frames=2, max_side=16)
    assert [grey_of(f.data) for f in two.frames] == pytest.approx([GREYS[1], GREYS[3]], abs=3)
    assert (two.frames[0].width, two.frames[0].height) == (16, 12)
    every = sample_frames(data, what="anim.flc", max_frames=10, interval=0.2)
    assert [round(f.time, 2) for f in every.frames] == [0.0, 0.2, 0.4]


def test_prepare_sends_flic_frames_and_names_them() -> None:
    block = VideoBlock.from_path(HOPPER)
    assert block.mime_type == "video/x-flic"
    [message], report = prepare_with_report([UserMessage(content=[block])], "anthropic")
    images = [b for b in message.content if isinstance(b, ImageBlock)]
    assert len(images) == 1
    assert images[0].mime_type == "image/jpeg"
    assert "flic 128x128" in str(report)


def test_a_flic_header_over_the_pixel_limit_is_a_bomb_before_decoding() -> None:
    huge = bytearray(make_flc(1))
    struct.pack_into("<HH", huge, 8, 60_000, 60_000)
    with pytest.raises(ImageBombError, match="60000x60000"):
        sample_frames(bytes(huge), what="bomb.flc", max_pixels=10_000_000)
    with pytest.raises(ImageBombError):
        sample_frames(make_flc(1, 200, 200), what="big.flc", max_pixels=1_000)


def test_a_truncated_flic_keeps_the_frames_before_the_cut_or_is_a_decode_error() -> None:
    data = make_flc(4)
    frame_bytes = (len(data) - 128 - 790) // 4
    cut = data[: 128 + 790 + frame_bytes * 2 + 10]  # frames 0 and 1 whole, frame 2 cut
    video = sample_frames(cut, what="cut.flc", max_frames=4)
    assert [grey_of(f.data) for f in video.frames] == pytest.approx(GREYS[:2], abs=3)
    with pytest.raises(DecodeError, match=r"header-only\.flc"):
        sample_frames(data[:128], what="header-only.flc")


def test_the_deadline_stops_a_flic() -> None:
    from mediablocks.convert._av import Deadline

    with pytest.raises(DoesNotFitError, match="budget"):
        sample_frames(make_flc(5), what="slow.flc", deadline=Deadline(1e-9, "slow.flc"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=128, max_value=2000),
    st.binary(min_size=1, max_size=40),
    st.integers(min_value=0, max_value=1999),
)
def test_mutated_flic_raises_only_library_errors(cut: int, noise: bytes, at: int) -> None:
    data = bytearray(make_flc(3, 16, 16))
    data[at : at + len(noise)] = noise
    data = data[: max(cut, 6)]
    try:
        video = sample_frames(bytes(data), what="fuzz.flc", max_frames=3, max_pixels=1_000_000)
    except MediaBlocksError:
        return
    assert 1 <= len(video.frames) <= 3
