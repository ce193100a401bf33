"""Video conversion with PyAV: frames with timestamps for providers taking images, H.264 MP4 for
providers taking video; results checked by decoding them again."""

from __future__ import annotations

import io
import re
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageStat

from mediablocks import estimate_tokens
from mediablocks.blocks import TextBlock, ToolCallBlock, ToolResultBlock
from mediablocks.convert.video import sample_frames, transcode_video
from mediablocks.errors import (
    DecodeError,
    DoesNotFitError,
    ImageBombError,
    InvalidOptionError,
    MediaBlocksError,
)
from mediablocks.media import AudioBlock, ImageBlock, VideoBlock
from mediablocks.messages import AssistantMessage, ToolMessage, UserMessage
from mediablocks.mime import detect_mime
from mediablocks.preparing import prepare, prepare_block, prepare_with_report

av = pytest.importorskip("av")

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
PHONE = TESTDATA / "video/phone-h264-aac.mp4"  # 6 s, 30 fps, 144x256, speech
HEVC = TESTDATA / "video/hevc-aac.mov"  # 2 s, 24 fps, 192x108, HEVC + AAC
STAMP = re.compile(r"^\[video phone-h264-aac\.mp4, frame (\d+)/(\d+) at (\d+):(\d\d\.\d)\]$")


def streams(data: bytes) -> dict[str, tuple[str, float]]:
    """Each stream type's codec and decoded duration (first frame's start to last frame's end),
    by decoding every frame, one fresh container per stream (some demuxers cannot seek)."""
    with av.open(io.BytesIO(data)) as container:
        kinds = [stream.type for stream in container.streams if stream.type in ("audio", "video")]
    found: dict[str, tuple[str, float]] = {}
    for kind in kinds:
        with av.open(io.BytesIO(data)) as container:
            stream = container.streams.get(**{kind: 0})[0]
            first, end = None, 0.0
            for frame in container.decode(stream):
                if frame.time is None:
                    continue
                length = frame.samples / frame.sample_rate if kind == "audio" else 0.0
                first = float(frame.time) if first is None else first
                end = max(end, float(frame.time) + length)
            if kind == "video":
                end += 1 / float(stream.average_rate or 25)
            found[kind] = (stream.codec_context.name, end - (first or 0.0))
    return found


def frames_and_stamps(content: list[object]) -> list[tuple[float, ImageBlock]]:
    """(timestamp, frame) pairs, checking that every frame follows its text block."""
    pairs = []
    for label, frame in zip(content[0::2], content[1::2], strict=False):
        if not isinstance(frame, ImageBlock):
            break
        assert isinstance(label, TextBlock)
        match = STAMP.match(label.text)
        assert match, label.text
        pairs.append((int(match[3]) * 60 + float(match[4]), frame))
    return pairs


def test_video_to_anthropic_becomes_20_ordered_timestamped_jpeg_frames() -> None:
    video = VideoBlock.from_path(PHONE)
    (message,), report = prepare_with_report(
        [UserMessage(content=[video, "what happens?"])], "anthropic"
    )
    content = list(message.content)
    assert getattr(content[-1], "text", None) == "what happens?"
    pairs = frames_and_stamps(content[:-1])
    assert len(pairs) == 20
    assert len(content) == 41  # no audio block: Anthropic takes none
    times = [time for time, _ in pairs]
    # Evenly spread: the frame at or just after the middle of each 0.3 s slice (30 fps).
    for number, time in enumerate(times):
        assert (number + 0.5) * 0.3 - 0.05 <= time <= (number + 0.5) * 0.3 + 1 / 30 + 0.05
    for _, frame in pairs:
        data = frame.read()
        assert detect_mime(data) == "image/jpeg"
        with Image.open(io.BytesIO(data)) as image:
            assert image.size == (144, 256)
    entry = report.blocks[0]
    assert [change.kind for change in entry.changes] == ["frames", "dropped"]
    assert "20 JPEG frames 144x256" in str(entry)
    assert "audio track: anthropic takes no audio" in str(entry)
    tokens = estimate_tokens([message], "anthropic")
    assert tokens >= 20 * (144 * 256 // 750)


def test_frames_for_openai_audio_model_carry_the_audio_track_after_them() -> None:
    video = VideoBlock.from_path(PHONE)
    (message,) = prepare([UserMessage(content=[video])], "openai", model="gpt-4o-audio-preview")
    content = list(message.content)
    assert len(frames_and_stamps(content)) == 20
    label, track = content[-2:]
    assert isinstance(label, TextBlock)
    assert label.text.startswith("[audio track of video phone-h264-aac.mp4, 0:00.0 to 0:03.")
    assert isinstance(track, AudioBlock)
    assert track.mime_type == "audio/wav"  # lossless while small (docs/conversion.md)
    codec, seconds = streams(track.read())["audio"]
    assert codec == "pcm_s16le"
    assert seconds == pytest.approx(streams(PHONE.read_bytes())["audio"][1], abs=0.08)


def test_frame_budget_interval_and_provider_image_cap() -> None:
    video = VideoBlock.from_path(PHONE)
    (two,) = prepare([UserMessage(content=[video])], "anthropic", max_frames=2)
    times = [time for time, _ in frames_and_stamps(list(two.content))]
    assert times == [pytest.approx(1.5, abs=0.05), pytest.approx(4.5, abs=0.05)]  # one seek
    (spaced,) = prepare([UserMessage(content=[video])], "ollama", frame_interval=2.0)
    times = [time for time, _ in frames_and_stamps(list(spaced.content))]
    assert times == [pytest.approx(t, abs=0.05) for t in (0.0, 2.0, 4.0)]
    # Mistral takes at most 8 images per request: 3 photos leave room for 5 frames.
    photo = ImageBlock.from_path(next((TESTDATA / "image").glob("*.png")))
    (mistral,) = prepare([UserMessage(content=[photo, photo, photo, video])], "mistral")
    images = [block for block in mistral.content if isinstance(block, ImageBlock)]
    assert len(images) == 8


def test_hevc_mov_becomes_h264_mp4_for_gemini_and_bedrock() -> None:
    source = streams(HEVC.read_bytes())
    assert source["video"][0] == "hevc"
    for provider in ("gemini", "bedrock"):
        video = VideoBlock.from_path(HEVC)
        (message,), report = prepare_with_report([UserMessage(content=[video])], provider)
        (result,) = message.content
        assert isinstance(result, VideoBlock)
        assert result.mime_type == "video/mp4"
        assert result.filename == "hevc-aac.mp4"
        found = streams(result.read())
        assert found["video"][0] == "h264"
        assert found["audio"][0] == "aac"
        assert found["video"][1] == pytest.approx(source["video"][1], abs=0.05)
        assert "hevc 192x108" in str(report.blocks[0])


def test_accepted_h264_video_is_left_alone_and_frames_can_be_asked_for() -> None:
    video = VideoBlock.from_path(PHONE)
    (message,) = prepare([UserMessage(content=[video])], "gemini")
    assert message.content[0] is video
    (framed,) = prepare([UserMessage(content=[video])], "gemini", video="frames", max_frames=3)
    assert len(frames_and_stamps(list(framed.content))) == 3
    assert isinstance(framed.content[-1], AudioBlock)  # Gemini takes audio too


def test_a_long_video_is_cut_when_asked() -> None:
    video = VideoBlock.from_path(HEVC)
    (message,), report = prepare_with_report(
        [UserMessage(content=[video])], "gemini", max_video_seconds=1.0
    )
    (result,) = message.content
    assert isinstance(result, VideoBlock)
    assert streams(result.read())["video"][1] == pytest.approx(1.0, abs=0.05)
    assert [change.kind for change in report.blocks[0].changes] == ["transcoded", "trimmed"]


def test_raise_strategy_and_prepare_block_refuse_what_would_become_frames() -> None:
    video = VideoBlock.from_path(PHONE)
    with pytest.raises(DoesNotFitError, match="takes no video input"):
        prepare([UserMessage(content=[video])], "anthropic", video="raise")
    with pytest.raises(DoesNotFitError, match="becomes 40 blocks"):
        prepare_block(video, "anthropic")


def test_frames_over_the_pixel_limit_are_a_bomb() -> None:
    video = VideoBlock.from_path(PHONE)
    with pytest.raises(ImageBombError, match="144x256"):
        prepare([UserMessage(content=[video])], "anthropic", max_image_pixels=10_000)
    with pytest.raises(ImageBombError):
        transcode_video(PHONE.read_bytes(), mime_type="video/mp4", what="v", max_pixels=10_000)


@pytest.mark.parametrize(
    "data",
    [
        (TESTDATA / "bad/truncated-ftyp-only.mp4").read_bytes(),
        (TESTDATA / "bad/random.bin").read_bytes(),
        PHONE.read_bytes()[:300],
    ],
    ids=["ftyp-only", "random", "first-300-bytes"],
)
def test_undecodable_video_is_a_decode_error_naming_it(data: bytes) -> None:
    with pytest.raises(DecodeError, match="the-video"):
        sample_frames(data, what="the-video")
    with pytest.raises(DecodeError, match="the-video"):
        transcode_video(data, mime_type="video/mp4", what="the-video")


def test_a_truncated_video_in_prepare_names_the_block() -> None:
    block = VideoBlock.from_bytes(PHONE.read_bytes()[:300], "video/mp4")
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=[block])], "anthropic")
    assert "VideoBlock(300 bytes in memory, video/mp4)" in caught.value.problems[0]


SEEDS = [
    PHONE.read_bytes()[:40_000],
    HEVC.read_bytes(),
    (TESTDATA / "video/vp9-opus.webm").read_bytes(),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(SEEDS),
    cut=st.integers(min_value=0, max_value=40_000),
    flips=st.lists(st.tuples(st.integers(0, 40_000), st.integers(0, 255)), max_size=8),
)
def test_mutated_video_raises_only_library_errors(
    seed: bytes, cut: int, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(seed[: max(cut, 1)])
    for offset, value in flips:
        data[offset % len(data)] = value
    try:
        sampled = sample_frames(bytes(data), what="mutant", max_frames=3, max_pixels=4_000_000)
    except MediaBlocksError:
        return
    assert 1 <= len(sampled.frames) <= 3
    assert all(detect_mime(frame.data) == "image/jpeg" for frame in sampled.frames)


def test_a_video_in_a_tool_result_becomes_frames_inside_it() -> None:
    video = VideoBlock.from_path(PHONE)
    result = ToolResultBlock(tool_call_id="call_1", content=[TextBlock(text="recorded:"), video])
    messages = [
        AssistantMessage(content=[ToolCallBlock(id="call_1", name="record", args={})]),
        ToolMessage(content=[result]),
    ]
    prepared = prepare(messages, "anthropic", max_frames=3)
    (tool_result,) = prepared[1].content
    assert isinstance(tool_result, ToolResultBlock)
    items = tool_result.content
    assert isinstance(items, list)
    assert getattr(items[0], "text", None) == "recorded:"
    assert len(frames_and_stamps(list(items[1:]))) == 3
    assert len(items) == 7


def test_the_wall_time_budget_and_bad_budgets_are_refused() -> None:
    video = VideoBlock.from_path(PHONE)
    with pytest.raises(DoesNotFitError, match="budget"):
        prepare([UserMessage(content=[video])], "anthropic", time_budget=1e-9)
    with pytest.raises(InvalidOptionError, match="max_frames"):
        prepare([UserMessage(content=[video])], "anthropic", max_frames=0)
    with pytest.raises(InvalidOptionError, match="frame_interval"):
        prepare([UserMessage(content=[video])], "anthropic", frame_interval=-1.0)
    with pytest.raises(InvalidOptionError, match="max_frames"):
        prepare([UserMessage(content=[video])], "anthropic", max_frames=2.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="time_budget"):
        prepare([UserMessage(content=[video])], "anthropic", time_budget="1")  # type: ignore[arg-type]


def test_a_video_url_not_read_says_how_to_get_frames() -> None:
    video = VideoBlock.from_url("https://example.com/clip.mp4")
    with pytest.raises(DoesNotFitError, match="read_urls=True lets prepare fetch it"):
        prepare([UserMessage(content=[video])], "anthropic")


def _turned(data: bytes) -> bytes:
    """The video with its first track's display matrix set to a 90 degree turn, as a phone
    writes for a video held sideways (the same patch as the probe's rotation test)."""
    patched = bytearray(data)
    tkhd = patched.index(b"tkhd") - 4
    size = struct.unpack(">I", patched[tkhd : tkhd + 4])[0]
    matrix = tkhd + size - 8 - 36
    patched[matrix : matrix + 16] = struct.pack(">iiii", 0, 0x10000, 0, -0x10000)
    return bytes(patched)


def test_frames_and_transcodes_of_a_turned_video_come_out_upright() -> None:
    turned = _turned(PHONE.read_bytes())
    (frame,) = sample_frames(turned, what="turned", max_frames=1).frames
    (plain,) = sample_frames(PHONE.read_bytes(), what="plain", max_frames=1).frames
    with Image.open(io.BytesIO(frame.data)) as upright, Image.open(io.BytesIO(plain.data)) as raw:
        assert upright.size == (256, 144)
        # The display matrix turns the stored picture 90 degrees clockwise.
        expected = raw.convert("L").transpose(Image.Transpose.ROTATE_270)
        difference = ImageChops.difference(upright.convert("L"), expected)
        assert ImageStat.Stat(difference).mean[0] < 8
    video = transcode_video(turned, mime_type="video/mp4", what="turned")
    with av.open(io.BytesIO(video.data)) as container:
        first = next(container.decode(video=0))
        assert (first.width, first.height) == (256, 144)
    assert [change.kind for change in video.changes] == ["transcoded", "rotated"]


VIDEOS = sorted((TESTDATA / "video").iterdir())


@pytest.mark.parametrize("path", VIDEOS, ids=lambda p: p.name)
def test_every_testdata_video_transcodes_and_samples(path: Path) -> None:
    data = path.read_bytes()
    video = transcode_video(data, mime_type="video/x-test", what=path.name)
    found = streams(video.data)
    assert found["video"][0] == "h264"
    assert found["video"][1] == pytest.approx(streams(data)["video"][1], abs=0.1)
    sampled = sample_frames(data, what=path.name, max_frames=2)
    assert 1 <= len(sampled.frames) <= 2
    assert [f.time for f in sampled.frames] == sorted(f.time for f in sampled.frames)
