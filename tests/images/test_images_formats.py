"""The long tail of raster formats: detected by signature and converted by `prepare`; outputs
that a strict decoder could not open (malformed animated PNG) never leave `prepare`."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageSequence, UnidentifiedImageError

import mediablocks as mb
from mediablocks.errors import BrokenMediaError, DoesNotFitError, MediaBlocksError
from mediablocks.images.verify import apng_problem, strip_animation
from mediablocks.media import AudioBlock, ImageBlock
from mediablocks.media_input import media_block
from mediablocks.messages import UserMessage
from mediablocks.preparing import prepare_with_report
from tests.conftest import TESTDATA

# (file, detected type): each made by ImageMagick, Pillow, png2icns or icotool (testdata/README.md)
CONVERTED = [
    ("image/rose.tga", "image/x-tga"),
    ("image/rose-rle.tga", "image/x-tga"),
    ("image/rose.dds", "image/vnd.ms-dds"),
    ("image/rose.sgi", "image/x-sgi"),
    ("image/rose.pcx", "image/vnd.zbrush.pcx"),
    ("image/rose.dcx", "image/x-dcx"),
    ("image/rose.icns", "image/x-icns"),
    ("image/rose.cur", "image/x-win-bitmap"),
    ("image/plain.pbm", "image/x-portable-bitmap"),
    ("image/raw.pgm", "image/x-portable-graymap"),
    ("image/plain.ppm", "image/x-portable-pixmap"),
    ("image/raw.ppm", "image/x-portable-pixmap"),
    ("image/rose.xpm", "image/x-xpixmap"),
    ("image/rose.xbm", "image/x-xbitmap"),
    ("image/rose.ras", "image/x-sun-raster"),
    ("image/rgb.qoi", "image/qoi"),
    ("image/rose.fits", "image/fits"),
]


def _prepared(block: mb.MediaBlock, provider: str) -> tuple[mb.MediaBlock, str]:
    messages, report = prepare_with_report([UserMessage(content=[block])], provider)
    out = messages[0].content[0]
    assert isinstance(out, ImageBlock)
    return out, str(report)


@pytest.mark.parametrize(("path", "mime"), CONVERTED)
@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_long_tail_image_is_detected_and_converted(path: str, mime: str, provider: str) -> None:
    file = TESTDATA / path
    block = media_block(file)
    assert isinstance(block, ImageBlock)
    assert block.mime_type == mime
    out, report = _prepared(block, provider)
    assert out.mime_type in ("image/png", "image/jpeg", "image/webp")
    with Image.open(io.BytesIO(out.read())) as image:
        image.load()
        source = Image.open(file)
        assert image.size == source.size  # small files: converted, not resized
    assert f"converted: {mime} -> {out.mime_type}" in report


def test_eps_allowed_without_ghostscript_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from mediablocks.convert import postscript

    monkeypatch.setattr(postscript.shutil, "which", lambda name: None)
    block = media_block(TESTDATA / "image/rose.eps")
    assert block.mime_type == "image/x-eps"
    allowed = mb.ConversionLimits(allow_postscript=True)
    with pytest.raises(DoesNotFitError, match=r"rose\.eps.*Ghostscript.*not installed"):
        prepare_with_report([UserMessage(content=[block])], "openai", conversion_limits=allowed)


def test_undecodable_image_is_the_public_broken_media_error() -> None:
    # Tile-compressed FITS (fpack): a FITS file, which Pillow's FITS plugin cannot decode.
    block = media_block(TESTDATA / "image/rose-tiled-gzip.fits")
    assert block.mime_type == "image/fits"
    with pytest.raises(BrokenMediaError, match=r"rose-tiled-gzip\.fits") as caught:
        prepare_with_report([UserMessage(content=[block])], "openai")
    assert type(caught.value) is BrokenMediaError
    assert isinstance(caught.value, MediaBlocksError)
    assert not type(caught.value).__name__.startswith("_")


@pytest.mark.parametrize(
    ("path", "mime"),
    [
        ("audio/tone.wv", "audio/x-wavpack"),
        ("audio/tone.mpc", "audio/x-musepack"),
        ("audio/audio-only.flv", "audio/x-flv"),
    ],
)
def test_audio_containers_pyav_decodes_are_audio_blocks(path: str, mime: str) -> None:
    block = media_block(TESTDATA / path)
    assert isinstance(block, AudioBlock)
    assert block.mime_type == mime


# -- animated PNG that a strict decoder refuses ----------------------------------------------------


@pytest.mark.parametrize("provider", ["gemini", "xai"])
def test_gif_frame_past_the_canvas_becomes_a_valid_animated_png(provider: str) -> None:
    source = TESTDATA / "image/frame-past-canvas.gif"
    data = source.read_bytes()
    first = data.index(b"\x2c", 13 + 3 * 2 ** ((data[10] & 7) + 1))  # the first image descriptor
    second = data.index(b"\x2c\x0c\x00\x0c\x00", first + 1)
    x, y, w, h = struct.unpack("<HHHH", data[second + 1 : second + 9])
    assert (x + w, y + h) == (36, 36)  # the case: past the 24x24 logical screen
    out, _ = _prepared(media_block(source), provider)
    assert out.mime_type == "image/png"
    png = out.read()
    assert apng_problem(png) is None
    with Image.open(io.BytesIO(png)) as image:
        sizes = [frame.size for frame in ImageSequence.Iterator(image)]
    assert sizes == [(24, 24), (24, 24)]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _with_second_frame(size: tuple[int, int], offset: tuple[int, int]) -> bytes:
    """testdata's APNG with its second fcTL rewritten (CRC fixed)."""
    data = (TESTDATA / "image/apng.png").read_bytes()
    at = data.index(b"fcTL", data.index(b"IDAT")) - 4
    (length,) = struct.unpack(">I", data[at : at + 4])
    body = bytearray(data[at + 8 : at + 8 + length])
    body[4:20] = struct.pack(">IIII", *size, *offset)
    return data[:at] + _chunk(b"fcTL", bytes(body)) + data[at + 12 + length :]


def test_testdata_apng_keeps_the_rules() -> None:
    assert apng_problem((TESTDATA / "image/apng.png").read_bytes()) is None


@pytest.mark.parametrize(
    ("size", "offset", "problem"),
    [
        ((5000, 10), (0, 0), "outside the 48x32 canvas"),
        ((10, 10), (45, 0), "outside the 48x32 canvas"),
        ((0, 10), (0, 0), "outside"),
    ],
)
def test_malformed_apng_is_sent_as_its_still_image(
    size: tuple[int, int], offset: tuple[int, int], problem: str
) -> None:
    data = _with_second_frame(size, offset)
    assert problem in (apng_problem(data) or "")
    out, report = _prepared(ImageBlock.from_bytes(data, "image/png"), "gemini")
    still = out.read()
    assert b"acTL" not in still
    assert b"fdAT" not in still
    with Image.open(io.BytesIO(still)) as image:
        image.load()
        assert image.size == (48, 32)
        assert not getattr(image, "is_animated", False)
    assert "malformed animated PNG" in report


def test_apng_sequence_and_frame_count_rules() -> None:
    data = (TESTDATA / "image/apng.png").read_bytes()
    actl = data.index(b"acTL") - 4
    frames = struct.unpack(">I", data[actl + 8 : actl + 12])[0]
    wrong = data[:actl] + _chunk(b"acTL", struct.pack(">II", frames + 1, 0)) + data[actl + 20 :]
    assert "declares" in (apng_problem(wrong) or "")
    assert strip_animation(wrong).count(b"fcTL") == 0


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_apng_checks_never_raise_on_mutated_bytes(data: st.DataObject) -> None:
    original = bytearray((TESTDATA / "image/apng.png").read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        original[data.draw(st.integers(8, len(original) - 1))] = data.draw(st.integers(0, 255))
    cut = bytes(original[: data.draw(st.integers(8, len(original)))])
    problem = apng_problem(cut)
    assert problem is None or isinstance(problem, str)
    still = strip_animation(cut)
    assert apng_problem(still) is None  # nothing animated is left to break the rules
    assert still.startswith(bytes(original[:8]))


def test_new_testdata_stays_small() -> None:
    paths = [Path(p) for p, _ in CONVERTED] + [Path("image/frame-past-canvas.gif")]
    assert sum((TESTDATA / p).stat().st_size for p in paths) < 200_000


# -- every image of the corpus, prepared for providers with different image rules ----------------

_PROVIDERS = ("openai-chat", "anthropic", "gemini", "xai", "groq")


def _corpus_images() -> list[str]:
    from tests.conftest import load_manifest

    return sorted(
        path
        for path, entry in load_manifest().items()
        if (entry["mime"] or "").startswith("image/")  # bad/ too: broken, bombs, lies
    )


@pytest.mark.parametrize("path", _corpus_images())
def test_every_prepared_corpus_image_decodes(path: str) -> None:
    """Nothing leaves prepare that its own decoder cannot open: refused (a MediaBlocksError
    naming the block) or an image of a type the provider takes, every frame decoding."""
    from mediablocks.images.opening import _heif_decoder
    from mediablocks.providers.registry import limits_for

    _heif_decoder()  # HEIC sent to Gemini is decoded with pillow-heif below
    block = media_block(TESTDATA / path)
    for provider in _PROVIDERS:
        refusal = ""
        try:
            messages, _ = prepare_with_report([UserMessage(content=[block])], provider)
        except MediaBlocksError as exc:
            refusal = str(exc)
        if refusal:
            assert Path(path).name in refusal
            continue
        out = messages[0].content[0]
        assert isinstance(out, ImageBlock)
        assert out.mime_type in limits_for(provider).image_types, (provider, out.mime_type)
        data = out.read()
        if out.mime_type == "image/png":
            assert apng_problem(data) is None
        with Image.open(io.BytesIO(data)) as image:
            for frame in ImageSequence.Iterator(image):
                frame.load()


def test_flashpix_without_olefile_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from mediablocks.images import opening

    def unidentified(*args: object, **kwargs: object) -> None:
        raise UnidentifiedImageError("no FPX plugin without olefile")

    monkeypatch.setattr(opening, "_has_olefile", lambda: False)
    monkeypatch.setattr(opening.Image, "open", unidentified)  # Pillow as it is without olefile
    header = bytearray(1024)  # a compound file whose root entry has FlashPix's class id
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    header[30:32] = (9).to_bytes(2, "little")
    header[512 + 0x50 : 512 + 0x60] = bytes.fromhex("0067615654c1ce11855300aa00a1f95b")
    block = ImageBlock.from_bytes(bytes(header), "image/vnd.fpx")
    with pytest.raises(DoesNotFitError, match="olefile"):
        prepare_with_report([UserMessage(content=[block])], "openai")


@pytest.mark.parametrize(
    ("name", "mime", "size"),
    [
        ("pillow-hopper.mic", "image/x-mic", (128, 128)),
        ("pillow-input_bw_one_band.fpx", "image/vnd.fpx", (70, 46)),
        ("pillow-blp1_jpeg2.blp", "image/x-blp", (425, 256)),
        ("pillow-blp2_dxt1a.blp", "image/x-blp", (16, 16)),
        ("pillow-hopper.msp", "image/x-msp", (128, 128)),
        ("pillow-gbr.gbr", "image/x-gimp-gbr", (64, 64)),
    ],
)
def test_pillow_test_images_are_converted(name: str, mime: str, size: tuple[int, int]) -> None:
    if name.endswith((".mic", ".fpx")):
        pytest.importorskip("olefile")  # Pillow reads FlashPix and MIC through it
    block = media_block(TESTDATA / "public" / name)
    assert isinstance(block, ImageBlock)
    assert block.mime_type == mime
    out, report = _prepared(block, "openai")
    with Image.open(io.BytesIO(out.read())) as image:
        image.load()
        assert image.size == size
    assert f"converted: {mime} -> {out.mime_type}" in report


def test_flic_is_detected_as_video() -> None:
    # Pillow reads it; ffmpeg's flic decoder gives no frame for this file, so prepare refuses it
    # naming the block (see the report: the video path would need Pillow for FLIC).
    block = media_block(TESTDATA / "public/pillow-hopper.fli")
    assert block.mime_type == "video/x-flic"
    with pytest.raises(MediaBlocksError, match=r"pillow-hopper\.fli"):
        prepare_with_report([UserMessage(content=[block])], "gemini")
