"""probe / probe_bytes: header facts from real encoders' output, and hostile input."""

from __future__ import annotations

import io
import struct
import wave
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from mediablocks.errors import DecodeError, MediaBlocksError, SourceError
from mediablocks.media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from mediablocks.media_input import media_block
from mediablocks.probing import MediaInfo, probe, probe_bytes
from tests.conftest import TESTDATA, load_manifest

MANIFEST = load_manifest()


def _image(size: tuple[int, int], fmt: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "red").save(buffer, fmt, **options)
    return buffer.getvalue()


def _animation(fmt: str, frames: int, delay_ms: int, **options: Any) -> bytes:
    images = [Image.new("RGB", (40, 30), (i * 60 % 256, 0, 0)) for i in range(frames)]
    buffer = io.BytesIO()
    images[0].save(
        buffer,
        fmt,
        save_all=True,
        append_images=images[1:],
        duration=delay_ms,
        loop=0,
        **options,
    )
    return buffer.getvalue()


def _wav(seconds: float, rate: int, channels: int, width: int = 2) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(b"\x00" * width * channels * round(seconds * rate))
    return buffer.getvalue()


def _testdata(path: str) -> Path:
    file = TESTDATA / path
    if not file.exists():
        pytest.skip(f"testdata/{path} is not present")
    return file


# -- images -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF"])
def test_still_image_size_and_one_frame(fmt: str) -> None:
    info = probe_bytes(_image((321, 123), fmt))
    assert (info.width, info.height, info.frames) == (321, 123, 1)
    assert info.mime_type.startswith("image/")
    assert info.duration is None


def test_webp_lossless_and_extended_headers() -> None:
    lossless = probe_bytes(_image((300, 7), "WEBP", lossless=True))  # VP8L
    assert (lossless.width, lossless.height) == (300, 7)
    buffer = io.BytesIO()
    Image.new("RGBA", (77, 55), (1, 2, 3, 4)).save(buffer, "WEBP", exif=b"Exif\0\0")  # VP8X
    assert buffer.getvalue()[12:16] == b"VP8X"
    extended = probe_bytes(buffer.getvalue())
    assert (extended.width, extended.height, extended.frames) == (77, 55, 1)


@pytest.mark.parametrize(
    ("fmt", "options"),
    [("GIF", {}), ("PNG", {}), ("WEBP", {"lossless": True})],
    ids=["gif", "apng", "webp"],
)
def test_animation_frames_and_duration(fmt: str, options: dict[str, Any]) -> None:
    info = probe_bytes(_animation(fmt, frames=4, delay_ms=150, **options))
    assert (info.width, info.height, info.frames) == (40, 30, 4)
    assert info.duration == pytest.approx(0.6)  # 4 frames x 150 ms


@pytest.mark.parametrize("orientation", [5, 6, 7, 8])
def test_exif_orientation_swaps_to_display_size(orientation: int) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    info = probe_bytes(_image((300, 200), "JPEG", exif=exif.tobytes()))
    assert (info.width, info.height) == (200, 300)


def test_exif_orientation_upright_keeps_stored_size() -> None:
    exif = Image.Exif()
    exif[0x0112] = 3  # turned 180 degrees: width and height unchanged
    info = probe_bytes(_image((300, 200), "JPEG", exif=exif.tobytes()))
    assert (info.width, info.height) == (300, 200)


def test_testdata_sideways_photo_is_portrait() -> None:
    # testdata README: pixels stored 160x120 with EXIF Orientation 6; displayed upright 120x160.
    info = probe(ImageBlock.from_path(_testdata("image/sideways-exif6-gps.jpg")))
    assert (info.width, info.height) == (120, 160)


@pytest.mark.parametrize("fmt", ["HEIF", "AVIF"])
def test_heif_and_avif_size_from_ispe(fmt: str) -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    info = probe_bytes(_image((130, 90), fmt))
    assert (info.width, info.height, info.frames) == (130, 90, 1)
    assert info.mime_type in ("image/heic", "image/heif", "image/avif")


def test_avif_sequence_frames_and_duration() -> None:
    # made_by: three 48x32 frames at 5 fps (see testdata/manifest.json).
    info = probe(ImageBlock.from_path(_testdata("image/sequence.avif")))
    assert (info.width, info.height, info.frames) == (48, 32, 3)
    assert info.duration == pytest.approx(0.6, abs=0.01)


def test_bomb_dimensions_come_from_the_header_without_decoding() -> None:
    info = probe(ImageBlock.from_path(_testdata("bad/bomb-28000x28000.png")))
    assert (info.width, info.height) == (28000, 28000)


# -- audio ------------------------------------------------------------------------------------


def test_wav_pcm() -> None:
    info = probe_bytes(_wav(2.5, 16000, 2))
    assert (info.mime_type, info.sample_rate, info.channels) == ("audio/wav", 16000, 2)
    assert info.duration == pytest.approx(2.5)


def test_wav_truncated_data_counts_only_what_is_there() -> None:
    data = _wav(2.0, 8000, 1)
    info = probe_bytes(data[: 44 + 8000])  # header says 32000 data bytes, 8000 are present
    assert info.duration == pytest.approx(0.5)


def _mp3_frames(count: int) -> bytes:
    # MPEG-1 layer III, 128 kbit/s, 44.1 kHz, no padding: 144 * 128000 / 44100 = 417 bytes.
    header = bytes([0xFF, 0xFB, 0x90, 0x64])
    return (header + b"\x00" * 413) * count


def test_mp3_without_xing_uses_the_constant_bitrate() -> None:
    info = probe_bytes(_mp3_frames(100), "audio/mpeg")
    # 100 frames x 417 bytes x 8 / 128000 = 2.606 s (true length 100 x 1152 / 44100 = 2.612 s)
    assert info.duration == pytest.approx(41700 * 8 / 128000)
    assert (info.sample_rate, info.channels) == (44100, 2)


def test_mp3_xing_frame_count_wins_over_file_size() -> None:
    first = bytearray(_mp3_frames(1))
    first[4 + 32 : 4 + 32 + 12] = b"Xing" + struct.pack(">II", 1, 500)  # frames flag, 500 frames
    info = probe_bytes(bytes(first) + _mp3_frames(3), "audio/mpeg")
    assert info.duration == pytest.approx(500 * 1152 / 44100)


# (path, seconds in the make command, sample rate, channels, tolerance in seconds)
AUDIO = [
    ("audio/pcm16.wav", None, 16000, 1, 0),
    ("audio/float32.wav", 0.25, 16000, 1, 0.001),
    ("audio/extensible-24bit-4ch.wav", 0.2, 8000, 4, 0.001),
    # MP3/AAC encoders add priming and pad to whole frames: up to ~2 frames longer.
    ("audio/ffmpeg.mp3", 0.5, 22050, 1, 0.1),
    ("audio/id3v2.mp3", 0.5, 44100, 1, 0.1),
    ("audio/id3v1-only.mp3", 0.5, 44100, 1, 0.1),
    ("audio/mpeg2-layer3-22050.mp3", 0.5, 22050, 1, 0.1),
    ("audio/mpeg25-layer3-8000.mp3", 0.5, 8000, 1, 0.2),
    ("audio/layer2.mp2", 0.5, 32000, 1, 0.05),
    ("audio/adts.aac", 0.5, 22050, 1, 0.1),
    ("audio/adts-id3v2.aac", 0.5, 22050, 1, 0.1),
    ("audio/sample.flac", 0.5, 16000, 1, 0.001),
    ("audio/flac-in-ogg.oga", 0.5, 16000, 1, 0.001),
    ("audio/vorbis.ogg", 0.5, 22050, 1, 0.001),
    ("audio/speech.opus", None, 48000, 1, 0),
    ("audio/opus.webm", 0.5, 48000, 1, 0.02),
    ("audio/sample.m4a", 0.5, 22050, 1, 0.001),
    ("audio/sample.mka", 0.5, 22050, 1, 0.03),
    ("audio/sample.aiff", 0.3, 8000, 1, 0.001),
    ("audio/sample.aifc", 0.3, 8000, 1, 0.001),
    ("audio/sample.au", 0.3, 8000, 1, 0.001),
    ("audio/audiobook-cover.m4b", 1.0, 22050, 1, 0.001),
]


@pytest.mark.parametrize(("path", "seconds", "rate", "channels", "tolerance"), AUDIO)
def test_testdata_audio(
    path: str, seconds: float | None, rate: int, channels: int, tolerance: float
) -> None:
    file = _testdata(path)
    info = probe_bytes(file.read_bytes())
    assert (info.sample_rate, info.channels) == (rate, channels)
    assert info.duration is not None
    assert info.duration > 0
    if seconds is not None:
        assert info.duration == pytest.approx(seconds, abs=tolerance)
        assert info.duration >= seconds - 0.001  # never shorter than what was encoded
    assert probe(media_block(file)) == info  # a path gives the same facts as the bytes


def test_opus_duration_subtracts_pre_skip() -> None:
    data = _testdata("audio/speech.opus").read_bytes()
    info = probe_bytes(data)
    # espeak-ng wrote pcm16.wav's source; the same speech is 1.5953 s (22050 Hz -> 48 kHz).
    pre_skip = struct.unpack("<H", data[data.index(b"OpusHead") + 10 :][:2])[0]
    last_granule = struct.unpack("<q", data[data.rindex(b"OggS") + 6 :][:8])[0]
    assert info.duration == pytest.approx((last_granule - pre_skip) / 48000)


# -- video ------------------------------------------------------------------------------------

# (path, width, height, seconds in the make command, tolerance)
VIDEO = [
    ("video/h264-aac.mp4", 96, 64, 0.5, 0.001),
    ("video/sample.mov", 96, 64, 0.5, 0.001),
    ("video/sample.m4v", 96, 64, 0.5, 0.001),
    ("video/h263.3gp", 128, 96, 0.5, 0.001),
    ("video/vp8-vorbis.webm", 96, 64, 0.5, 0.03),
    ("video/vp9-opus.webm", 96, 64, 0.5, 0.03),
    ("video/h264-flac.mkv", 96, 64, 0.5, 0.03),
    ("video/mpeg4-mp3.avi", 96, 64, 0.6, 0.001),
    ("video/theora-vorbis.ogv", 96, 64, 0.5, 0.001),
    # GStreamer writes esds descriptor lengths in the compact one-byte form (ffmpeg pads them).
    ("video/gstreamer-compact-esds.mp4", 64, 48, 0.6, 0.001),
    ("video/gstreamer-compact-esds.3gp", 128, 96, 0.512, 0.001),
]


@pytest.mark.parametrize(("path", "width", "height", "seconds", "tolerance"), VIDEO)
def test_testdata_video(
    path: str, width: int, height: int, seconds: float, tolerance: float
) -> None:
    file = _testdata(path)
    info = probe_bytes(file.read_bytes())
    assert (info.width, info.height) == (width, height)
    assert info.duration == pytest.approx(seconds, abs=tolerance)
    assert info.sample_rate is not None
    assert info.channels == 1
    assert probe(media_block(file)) == info


def test_mp4_with_moov_at_the_end_is_probed_without_reading_the_file(tmp_path: Path) -> None:
    data = _testdata("video/h264-aac.mp4").read_bytes()
    moov, mdat = data.find(b"moov"), data.find(b"mdat")
    assert mdat < moov, "ffmpeg's default layout puts moov after the media data"
    big = tmp_path / "padded.mp4"
    # A 4 MB free box before the media: probing must skip it by its size, not read it.
    ftyp_size = struct.unpack(">I", data[:4])[0]
    filler = struct.pack(">I", 8 + 4_000_000) + b"free" + b"\x00" * 4_000_000
    big.write_bytes(data[:ftyp_size] + filler + data[ftyp_size:])
    block = VideoBlock.from_path(big)
    info = probe(block)
    assert (info.width, info.height) == (96, 64)
    assert info.duration == pytest.approx(0.5, abs=0.001)
    assert not block.loaded  # headers were read in place; the file was not loaded


def _esds(config: bytes, padded: bool) -> bytes:
    """An esds box body holding an AAC config, descriptor lengths compact or 0x80-padded."""

    def descriptor(tag: int, payload: bytes) -> bytes:
        size = len(payload)
        length = bytes([0x80, 0x80, 0x80, size]) if padded else bytes([size])
        return bytes([tag]) + length + payload

    specific = descriptor(0x05, config)
    decoder = descriptor(0x04, bytes([0x40, 0x15]) + b"\x00" * 11 + specific)
    es = descriptor(0x03, b"\x00\x01\x00" + decoder + descriptor(0x06, b"\x02"))
    return b"\x00\x00\x00\x00" + es


@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize(("config", "channels"), [(b"\x13\x88", 1), (b"\x12\x10", 2)])
def test_esds_channels_compact_and_padded_lengths(
    padded: bool, config: bytes, channels: int
) -> None:
    from mediablocks.probing.video import _esds_channels

    assert _esds_channels(_esds(config, padded)) == channels


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.booleans(), st.binary(min_size=0, max_size=8))
def test_esds_parser_on_any_bytes_gives_channels_or_truncated(
    noise: bytes, padded: bool, config: bytes
) -> None:
    from mediablocks.probing._data import _Truncated
    from mediablocks.probing.video import _esds_channels

    for body in (noise, _esds(config, padded), _esds(config, padded)[: len(noise)]):
        try:
            channels = _esds_channels(body)
        except _Truncated:
            continue  # the probe turns this into DecodeError naming the file
        assert channels is None or 1 <= channels <= 15


def test_esds_config_too_short_for_its_channels_says_nothing() -> None:
    from mediablocks.probing.video import _esds_channels

    # One byte of AudioSpecificConfig: the channel field is not in it.
    assert _esds_channels(_esds(b"\x13", padded=False)) is None


def test_mp4_rotation_matrix_swaps_display_size() -> None:
    data = bytearray(_testdata("video/h264-aac.mp4").read_bytes())
    tkhd = data.index(b"tkhd") - 4
    size = struct.unpack(">I", data[tkhd : tkhd + 4])[0]
    matrix = tkhd + size - 8 - 36  # the 3x3 matrix sits right before width and height
    # a 90 degree turn: a=0, b=1.0 (16.16), c=-1.0, d=0
    data[matrix : matrix + 16] = struct.pack(">iiii", 0, 0x10000, 0, -0x10000)
    info = probe_bytes(bytes(data))
    assert (info.width, info.height) == (64, 96)


# -- PDF --------------------------------------------------------------------------------------


def _pillow_pdf(pages: int) -> bytes:
    images = [Image.new("RGB", (50, 70), "white") for _ in range(pages)]
    buffer = io.BytesIO()
    images[0].save(buffer, "PDF", save_all=True, append_images=images[1:])
    return buffer.getvalue()


@pytest.mark.parametrize("pages", [1, 3, 7])
def test_pdf_page_count(pages: int) -> None:
    info = probe_bytes(_pillow_pdf(pages))
    assert (info.mime_type, info.pages) == ("application/pdf", pages)


def test_pdf_page_tree_inside_an_object_stream() -> None:
    # PDF 1.5: catalog (1) and page tree (2) compressed in object stream 5; pages 3 and 4, and
    # an orphan page 6 left behind by an edit (so counting page objects would say 3).
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
    ]
    offsets, body = [], b""
    for item in objects:
        offsets.append(len(body))
        body += item + b"\n"
    index = b"1 %d 2 %d " % (offsets[0], offsets[1])
    stream = zlib.compress(index + body)
    pdf = (
        b"%%PDF-1.5\n"
        b"3 0 obj << /Type /Page /Parent 2 0 R >> endobj\n"
        b"4 0 obj << /Type /Page /Parent 2 0 R >> endobj\n"
        b"6 0 obj << /Type /Page >> endobj\n"
        b"5 0 obj << /Type /ObjStm /N 2 /First %d /Filter /FlateDecode /Length %d >>\n"
        b"stream\n%s\nendstream endobj\n"
        b"trailer << /Root 1 0 R >>\n%%%%EOF\n" % (len(index), len(stream), stream)
    )
    assert b"/Count" not in pdf  # only the inflated stream says how many pages
    assert probe_bytes(pdf).pages == 2


def test_pdf_incremental_update_uses_the_latest_page_tree() -> None:
    pdf = (
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [] /Count 4 >> endobj\n"
        b"trailer << /Root 1 0 R >>\n%%EOF\n"
        b"2 0 obj << /Type /Pages /Kids [] /Count 9 >> endobj\n"
        b"trailer << /Root 1 0 R /Prev 9 >>\n%%EOF\n"
    )
    assert probe_bytes(pdf).pages == 9


def test_pdf_without_a_root_counts_page_objects() -> None:
    pdf = (
        b"%PDF-1.4\n"
        + b"".join(b"%d 0 obj << /Type /Page >> endobj\n" % n for n in range(1, 4))
        + b"9 0 obj << /Type /Pages /Count 3 >> endobj\n"
    )
    assert probe_bytes(pdf).pages == 3  # the /Pages object is not counted as a page


def test_pdf_path_block_is_read_whole_once() -> None:
    block = FileBlock.from_path(_testdata("document/report.pdf"))
    assert probe(block).pages == 1
    assert block.loaded  # PDFs are read whole (cached for sending)


# -- unknown, truncated, hostile ------------------------------------------------------------


def test_unknown_bytes_give_none_fields() -> None:
    info = probe_bytes(b"just some words, not media at all\n" * 4)
    assert info == MediaInfo(mime_type=info.mime_type)
    assert info.width is info.duration is info.pages is None


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfb\xfc\x00" + bytes(200),  # an MPEG sync word with impossible fields
        b"\xff\xf1" + b"\x01" * 300,  # an ADTS sync word, nothing else
        bytes(range(256)) * 3,
    ],
)
def test_unrecognised_bytes_give_the_empty_answer(data: bytes) -> None:
    # docs/probe.md: nothing recognisable is a MediaInfo whose facts are all None, not an error.
    assert probe_bytes(data) == MediaInfo(mime_type="application/octet-stream")


def test_explicit_mime_is_reported() -> None:
    info = probe_bytes(_wav(0.1, 8000, 1), "audio/x-wav")
    assert info.mime_type == "audio/wav"  # normalised


@pytest.mark.parametrize(
    "data",
    [
        _image((10, 10), "PNG")[:20],
        _image((10, 10), "JPEG")[:30],
        _image((10, 10), "GIF")[:9],
        b"RIFF\x10\x00\x00\x00WAVEdata\x04\x00\x00\x00abcd",
        b"fLaC\x00\x00\x00\x22",
        b"\x1a\x45\xdf\xa3\x80",
        b"\x00\x00\x00\x10ftypisom\x00\x00\x00\x00",
    ],
    ids=["png", "jpeg", "gif", "wav-no-fmt", "flac", "ebml", "ftyp-only"],
)
def test_truncated_headers_raise_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError) as caught:
        probe_bytes(data)
    assert f"{len(data)} bytes" in str(caught.value)


def test_decode_error_names_the_block() -> None:
    block = AudioBlock.from_bytes(b"RIFF\x10\x00\x00\x00WAVEdata\x04\x00\x00\x00abcd")
    with pytest.raises(DecodeError, match=r"AudioBlock\(.*wav"):
        probe(block)


def test_impossible_box_size_is_a_decode_error() -> None:
    data = b"\x00\x00\x00\x10ftypisom\x00\x00\x00\x00" + b"\x00\x00\x00\x04moov"
    with pytest.raises(DecodeError, match="impossible size"):
        probe_bytes(data)


def test_cut_and_corrupted_testdata_never_crash() -> None:
    # Every real file, cut short and with bytes overwritten: a MediaInfo or a DecodeError only.
    if not MANIFEST:
        pytest.skip("testdata/manifest.json is not present")
    outcomes = {"info": 0, "error": 0}
    for path in MANIFEST:
        data = (TESTDATA / path).read_bytes()
        for cut in {1, 4, 12, 33, len(data) // 2, len(data) - 1}:
            variants = [data[:cut]]
            if len(data) > cut + 8:
                damaged = bytearray(data)
                damaged[cut : cut + 8] = b"\xff" * 8
                variants.append(bytes(damaged))
            for variant in variants:
                try:
                    probe_bytes(variant)
                    outcomes["info"] += 1
                except DecodeError:
                    outcomes["error"] += 1
    assert outcomes["info"] > 0
    assert outcomes["error"] > 0


def test_file_id_block_cannot_be_probed() -> None:
    block = ImageBlock.from_file_id("file-abc", "image/png")
    with pytest.raises(SourceError):
        probe(block)


def test_missing_path_is_a_source_error(tmp_path: Path) -> None:
    block = ImageBlock.from_path(tmp_path / "gone.png")
    with pytest.raises(MediaBlocksError):
        probe(block)


def test_zero_size_in_a_header_is_unknown() -> None:
    data = bytearray(_image((10, 10), "GIF"))
    data[6:10] = b"\x00\x00\x00\x00"  # logical screen 0x0
    info = probe_bytes(bytes(data))
    assert (info.width, info.height, info.frames) == (None, None, 1)


def test_mp3_vbri_frame_count() -> None:
    first = bytearray(_mp3_frames(1))
    # Fraunhofer VBRI header 32 bytes after the frame header: version, delay, quality, bytes, frames
    first[36:54] = b"VBRI" + struct.pack(">HHHII", 1, 0, 75, 100_000, 321)
    info = probe_bytes(bytes(first) + _mp3_frames(2), "audio/mpeg")
    assert info.duration == pytest.approx(321 * 1152 / 44100)


def test_url_block_is_fetched_with_the_policy() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from mediablocks.errors import BlockedURLError
    from mediablocks.fetching.policy import FetchPolicy

    body = _wav(1.5, 8000, 1)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "audio/wav")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/clip.wav"
        with pytest.raises(BlockedURLError):
            probe(AudioBlock.from_url(url))  # loopback is refused by the default policy
        block = AudioBlock.from_url(url)
        info = probe(block, FetchPolicy(allow_private=True))
        assert info.duration == pytest.approx(1.5)
        assert block.loaded
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize("size", [(16, 12), (100, 75)])
def test_heic_size_is_the_clean_aperture_not_the_coded_size(size: tuple[int, int]) -> None:
    # HEVC codes whole 8/64 px blocks; a 'clap' box crops them to the picture's own size.
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    buffer = io.BytesIO()
    Image.new("RGB", size, "red").save(buffer, "HEIF")
    info = probe_bytes(buffer.getvalue())
    assert (info.mime_type, info.width, info.height) == ("image/heic", *size)
