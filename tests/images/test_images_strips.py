"""Large PNGs resized a strip of rows at a time give the pixels a whole decode would."""

from __future__ import annotations

import io
import zlib
from functools import cache

import pytest
from PIL import Image, ImageChops

from mediablocks.errors import DecodeError
from mediablocks.images import ImageTarget, fit_image, strips
from mediablocks.images.strips import png_resized_in_strips

SIZE = (2100, 2000)  # 4.2 MP: above the size where strips start


@cache
def base() -> Image.Image:
    """Gradients and blocky noise: rows that PNG filters Sub, Up, Average and Paeth all suit."""
    blocks = Image.effect_noise((210, 200), 60).resize(SIZE, Image.Resampling.NEAREST)
    gradient = Image.linear_gradient("L").resize(SIZE)
    across = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90).resize(SIZE)
    return Image.merge("RGB", (blocks, gradient, across))


def big_png(mode: str, **options: object) -> tuple[Image.Image, bytes]:
    image = base()
    if mode == "P":
        image = image.resize((210, 200)).quantize(64).resize(SIZE, Image.Resampling.NEAREST)
    elif mode != "RGB":
        image = image.convert(mode)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1, **options)
    return image, buffer.getvalue()


@pytest.fixture(autouse=True)
def many_strips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strips, "STRIP_BYTES", 150_000)  # dozens of strips, seams everywhere


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA", "P"])
def test_strips_match_a_whole_decode(mode: str) -> None:
    image, data = big_png(mode)
    out = png_resized_in_strips(data, (700, 666), "big.png")
    assert out is not None
    whole = image.convert("RGBA" if "A" in mode else "RGB") if mode in ("P", "LA") else image
    expected = whole.resize((700, 666), Image.Resampling.HAMMING, reducing_gap=3.0)
    difference = ImageChops.difference(out.convert(expected.mode), expected)
    extrema = difference.getextrema()
    highs = [extrema[1]] if difference.mode == "L" else [high for _, high in extrema]  # type: ignore[misc]
    assert max(highs) <= 1  # rounding only, no seams


def test_fit_image_takes_the_strip_path_for_a_big_png() -> None:
    _, data = big_png("RGB")
    target = ImageTarget(frozenset({"image/png"}), max_side=1000)
    fitted = fit_image(data, target)
    assert (fitted.width, fitted.height) == (1000, 952)
    assert "resized: 2100x2000 -> 1000x952" in [str(change) for change in fitted.changes]


def test_a_truncated_big_png_is_a_decode_error() -> None:
    _, data = big_png("RGB")
    target = ImageTarget(frozenset({"image/png"}), max_side=1000)
    with pytest.raises(DecodeError, match="rows"):
        fit_image(data[: len(data) // 2] + data[-12:], target)  # half the data, then IEND


def test_interlaced_and_small_pngs_take_the_ordinary_path() -> None:
    _, data = big_png("RGB")
    header = bytearray(data[12:29])  # "IHDR" and its 13 bytes
    header[-1] = 1  # Adam7 (Pillow does not write interlaced PNGs: the header says so here)
    crc = zlib.crc32(bytes(header)).to_bytes(4, "big")
    interlaced = data[:12] + bytes(header) + crc + data[33:]
    assert png_resized_in_strips(interlaced, (700, 666), "adam7.png") is None
    small = io.BytesIO()
    Image.new("RGB", (300, 200)).save(small, "PNG")
    assert png_resized_in_strips(small.getvalue(), (150, 100), "small.png") is None
    assert png_resized_in_strips(data, (700, 666), "big.png") is not None
