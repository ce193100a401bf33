"""Nothing leaves `prepare` that its own decoders cannot open: broken audio, encrypted or broken
PDFs and broken video are refused naming the block and why; short clips still give a frame;
audio in containers PyAV decodes is converted, audio-only video containers become audio."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mediablocks import ConversionLimits
from mediablocks.convert.verify import check_audio_decodes, check_pdf_opens, check_video_decodes
from mediablocks.errors import DecodeError, DoesNotFitError
from mediablocks.media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from mediablocks.media_input import media_block
from mediablocks.messages import UserMessage
from mediablocks.mime import detect_mime
from mediablocks.preparing import prepare, prepare_with_report
from tests.conftest import pyav_audio

av = pytest.importorskip("av")

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
AUDIO_MODEL = "gpt-4o-audio-preview"


def problem(block: object, provider: str, model: str | None = None) -> str:
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=[block])], provider, model=model)  # type: ignore[list-item]
    (only,) = caught.value.problems
    return only


@pytest.mark.parametrize(
    ("name", "why"),
    [("truncated.flac", "End of file"), ("short-picture-block.flac", "Invalid data")],
)
@pytest.mark.parametrize("provider", ["gemini", "mistral", "bedrock", "openai-chat"])
def test_broken_flac_is_refused_naming_the_block(name: str, why: str, provider: str) -> None:
    block = AudioBlock.from_path(TESTDATA / "bad" / name)
    assert block.mime_type == "audio/flac"  # the header says FLAC, which every one here takes
    text = problem(block, provider, AUDIO_MODEL if provider == "openai-chat" else None)
    assert f"AudioBlock(path '{name}', audio/flac)" in text
    assert "cannot be decoded" in text
    assert why in text


def test_a_flac_whose_picture_is_whole_goes_untouched() -> None:
    block = AudioBlock.from_path(TESTDATA / "audio/sample.flac")
    assert prepare([UserMessage(content=[block])], "gemini")[0].content[0] is block


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("encrypted-no-password.pdf", "is encrypted"),
        ("encrypted-password.pdf", "Incorrect password"),
    ],
)
@pytest.mark.parametrize("provider", ["anthropic", "gemini", "openai-responses", "bedrock"])
def test_encrypted_pdfs_are_refused_not_passed_through(name: str, why: str, provider: str) -> None:
    pytest.importorskip("pypdfium2")
    block = FileBlock.from_path(TESTDATA / "bad" / name)
    text = problem(block, provider)
    assert f"FileBlock(path '{name}', application/pdf)" in text
    assert why in text


def test_the_pdf_check_is_a_function_over_bytes() -> None:
    pytest.importorskip("pypdfium2")
    check_pdf_opens((TESTDATA / "document/report.pdf").read_bytes(), "fine")
    cut = (TESTDATA / "document/report.pdf").read_bytes()[:2000]
    with pytest.raises(DecodeError, match=r"^the-block: PDFium cannot open it"):
        check_pdf_opens(cut, "the-block")


def test_an_encrypted_pdf_can_still_go_as_page_images() -> None:
    pytest.importorskip("pypdfium2")
    block = FileBlock.from_path(TESTDATA / "bad/encrypted-no-password.pdf")
    (message,) = prepare([UserMessage(content=[block])], "anthropic", documents="pages")
    assert any(isinstance(item, ImageBlock) for item in message.content)


def test_video_check_decodes_a_first_frame() -> None:
    good = (TESTDATA / "video/phone-h264-aac.mp4").read_bytes()
    check_video_decodes(good, "phone")
    with pytest.raises(DecodeError, match=r"^flv: holds no video stream"):
        check_video_decodes((TESTDATA / "audio/audio-only.flv").read_bytes(), "flv")


def _h264_with_broken_frames() -> bytes:
    """An MP4 whose H.264 packets are replaced by noise: the headers are whole, no frame decodes."""
    import numpy as np

    source = io.BytesIO()
    with av.open(source, "w", format="mp4") as output:
        stream = output.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for index in range(5):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), index * 40, np.uint8), "rgb24")
            frame.pts, frame.time_base = index, Fraction(1, 10)
            output.mux(stream.encode(frame))
        output.mux(stream.encode(None))
    data = bytearray(source.getvalue())
    start = data.index(b"mdat") + 4
    end = data.index(b"moov") if data.index(b"moov") > start else len(data)
    noise = np.random.default_rng(7).integers(0, 256, end - start, dtype=np.uint8).tobytes()
    data[start:end] = noise
    return bytes(data)


def test_a_video_whose_frames_do_not_decode_is_refused() -> None:
    block = VideoBlock.from_bytes(_h264_with_broken_frames(), "video/mp4", filename="noise.mp4")
    text = problem(block, "gemini")
    assert "VideoBlock(1702 bytes in memory, video/mp4): cannot be decoded: Invalid data" in text


def test_check_audio_decodes_opens_and_decodes_the_start() -> None:
    check_audio_decodes((TESTDATA / "audio/sample.flac").read_bytes(), "ok")
    with pytest.raises(DecodeError, match=r"^cut: cannot be decoded"):
        check_audio_decodes((TESTDATA / "bad/truncated.flac").read_bytes(), "cut")


def _long_flac(seconds: int) -> bytes:
    """``seconds`` of a 440 Hz tone as FLAC, encoded by PyAV (many packets)."""
    import numpy as np

    def second(n: int) -> tuple[Any, str]:
        t = np.arange(n * 16000, (n + 1) * 16000) / 16000
        return (np.sin(2 * np.pi * 440 * t) * 12000).astype(np.int16).reshape(1, -1), "s16"

    return pyav_audio(seconds, "flac", "flac", second)


def test_the_default_audio_check_stops_after_the_first_frames() -> None:
    """A stream cut near its end opens and starts well: only ``full=True`` decodes to the cut.
    The default costs what the start costs, however long the audio (issue 30)."""
    pytest.importorskip("av")
    data = _long_flac(40)
    cut = data[: len(data) * 95 // 100]
    check_audio_decodes(cut, "late cut")
    with pytest.raises(DecodeError, match=r"^late cut: cannot be decoded"):
        check_audio_decodes(cut, "late cut", full=True)


# -- item 3: a clip shorter than its slice of time ------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "ollama"])
def test_a_one_frame_clip_gives_its_first_frame(provider: str) -> None:
    clip = VideoBlock.from_path(TESTDATA / "video/one-frame.mp4")
    (message,), report = prepare_with_report([UserMessage(content=[clip])], provider)
    images = [item for item in message.content if isinstance(item, ImageBlock)]
    assert len(images) == 1
    assert images[0].mime_type == "image/jpeg"
    assert "at 0:00.0" in str(message.content[0])
    assert report.blocks[0].changes[0].kind == "frames"


# -- item 4: audio in containers PyAV decodes ---------------------------------------------------


def _encoded(codec: str, muxer: str) -> bytes:
    """Half a second of a tone written with one of the PyAV wheel's encoders."""
    import numpy as np

    rate = 44100
    buffer = io.BytesIO()
    with av.open(buffer, "w", format=muxer) as output:
        stream = output.add_stream(codec, rate=rate)
        stream.layout = "mono"
        tone = (np.sin(np.arange(rate // 2) / rate * 2 * np.pi * 440) * 8000).astype(np.int16)
        resampler = av.AudioResampler(
            format=av.Codec(codec, "w").audio_formats[0].name, layout="mono", rate=rate
        )
        frame = av.AudioFrame.from_ndarray(tone.reshape(1, -1), "s16", "mono")
        frame.sample_rate = rate
        for chunk in resampler.resample(frame):
            output.mux(stream.encode(chunk))
        output.mux(stream.encode(None))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("codec", "muxer", "mime"),
    [("wavpack", "wv", "audio/x-wavpack"), ("tta", "tta", "audio/x-tta")],
)
@pytest.mark.parametrize("provider", ["gemini", "openai-chat", "mistral", "bedrock"])
def test_audio_in_any_container_pyav_decodes_is_converted(
    codec: str, muxer: str, mime: str, provider: str
) -> None:
    data = _encoded(codec, muxer)
    block = AudioBlock.from_bytes(data, mime)
    model = AUDIO_MODEL if provider == "openai-chat" else None
    (message,), report = prepare_with_report([UserMessage(content=[block])], provider, model=model)
    (result,) = message.content
    assert isinstance(result, AudioBlock)
    assert detect_mime(result.read()) in {"audio/flac", "audio/wav"}
    with av.open(io.BytesIO(result.read())) as container:
        samples = sum(frame.samples for frame in container.decode(audio=0))
    assert samples == 22050
    assert report.blocks[0].changes[0].kind == "transcoded"


@pytest.mark.parametrize("provider", ["gemini", "openai-chat", "mistral", "bedrock"])
def test_an_audio_only_flv_goes_as_its_mp3_stream(provider: str) -> None:
    block = media_block(TESTDATA / "audio/audio-only.flv")
    assert isinstance(block, AudioBlock)  # the tracks say audio: detected as audio/x-flv
    assert block.mime_type == "audio/x-flv"
    model = AUDIO_MODEL if provider == "openai-chat" else None
    (message,), report = prepare_with_report([UserMessage(content=[block])], provider, model=model)
    (result,) = message.content
    assert isinstance(result, AudioBlock)
    assert result.mime_type == "audio/mpeg" == detect_mime(result.read())
    assert result.filename == "audio-only.mp3"
    kinds = [change.kind for change in report.blocks[0].changes]
    assert "remuxed" in kinds


def test_an_audio_only_flv_for_a_provider_without_audio_says_so() -> None:
    block = media_block(TESTDATA / "audio/audio-only.flv")
    assert "anthropic takes no audio input" in problem(block, "anthropic")


def _dsf(seconds: float = 0.1) -> bytes:
    """A mono DSD64 DSF file (Sony's DSD Stream File) built by the spec, holding DSD's idle
    pattern: no encoder for it ships with FFmpeg, its decoders do."""
    import struct

    rate, block = 2_822_400, 4096
    samples = int(rate * seconds)
    blocks = -(-samples // 8 // block)
    payload = b"\x69" * (blocks * block)
    fmt = struct.pack("<4sQIIIIIIQII", b"fmt ", 52, 1, 0, 1, 1, rate, 1, samples, block, 0)
    data = struct.pack("<4sQ", b"data", 12 + len(payload)) + payload
    total = 28 + len(fmt) + len(data)
    return struct.pack("<4sQQQ", b"DSD ", 28, total, 0) + fmt + data


@pytest.mark.parametrize("provider", ["gemini", "openai-chat"])
def test_dsd_audio_is_converted(provider: str) -> None:
    block = AudioBlock.from_bytes(_dsf(), "audio/x-dsf")
    model = AUDIO_MODEL if provider == "openai-chat" else None
    (message,), report = prepare_with_report([UserMessage(content=[block])], provider, model=model)
    (result,) = message.content
    assert isinstance(result, AudioBlock)
    with av.open(io.BytesIO(result.read())) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        rate = stream.codec_context.sample_rate
    assert rate == 48000  # DSD decodes at 352.8 kHz; at most 48 kHz is sent
    assert samples / rate == pytest.approx(0.1, abs=0.02)
    assert "audio/x-dsf" in str(report.blocks[0])


def test_without_the_decoders_the_checks_step_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "av", None)  # import av now raises ImportError
    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    cut = AudioBlock.from_path(TESTDATA / "bad/truncated.flac")
    pdf = FileBlock.from_path(TESTDATA / "bad/encrypted-no-password.pdf")
    in_process = ConversionLimits(isolate=False)  # the patched imports must be the checks' own
    (message,) = prepare([UserMessage(content=[cut, pdf])], "gemini", conversion_limits=in_process)
    assert message.content[0] is cut  # the type and header checks are all there is then
    assert message.content[1] is pdf
