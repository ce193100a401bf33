"""Images Pillow cannot read alone: SVG (resvg), JPEG XL (its plugin), 16-bit PSD composites."""

from __future__ import annotations

import io
import struct
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

import mediablocks as mb
from mediablocks.convert.raster import convert_refused_image, psd_composite, unreadable_hint
from mediablocks.images import ImageTarget, fit_image
from mediablocks.providers.registry import PROVIDERS, limits_for
from tests.conftest import TESTDATA

IMAGES = TESTDATA / "image"


def target(provider: str) -> ImageTarget:
    return ImageTarget.from_limits(limits_for(provider))


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("name", ["with-xml-declaration.svg", "no-xml-declaration.svg"])
def test_svg_becomes_a_png_at_least_512_px_keeping_its_shape(name: str) -> None:
    fitted = fit_image((IMAGES / name).read_bytes(), target("anthropic"), mime_type="image/svg+xml")
    image = opened(fitted.data)
    assert image.format == "PNG"
    assert image.size == (512, 384)
    assert any(
        str(change) == "converted: SVG -> PNG (rendered with resvg)" for change in fitted.changes
    )


def test_the_svg_fill_colour_is_rendered() -> None:
    # with-xml-declaration.svg is a full-size rect filled #3a7 (51, 170, 119).
    fitted = fit_image((IMAGES / "with-xml-declaration.svg").read_bytes(), target("openai"))
    assert opened(fitted.data).convert("RGB").getpixel((5, 5)) == (51, 170, 119)


def test_a_tall_svg_stays_within_the_pixel_limits() -> None:
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="100000">'
        b'<rect width="10" height="100000"/></svg>'
    )
    png, _ = convert_refused_image(
        svg, None, max_side=1568, max_pixels=1_000_000, convert=True, what="tall"
    ) or (b"", "")
    assert max(opened(png).size) <= 1568


@pytest.mark.parametrize(
    "svg",
    [
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        b'<image xlink:href="/etc/hostname.png" width="10" height="10"/></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg"><image href="https://example.com/a.png"/></svg>',
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "x">]><svg xmlns="http://www.w3.org/2000/svg"/>',
    ],
)
def test_svgs_reading_files_urls_or_entities_are_refused(svg: bytes) -> None:
    with pytest.raises(mb.UnsupportedBlockError, match="not rendered"):
        fit_image(svg, target("anthropic"), mime_type="image/svg+xml", what="hostile.svg")


def test_a_broken_svg_is_a_decode_error() -> None:
    with pytest.raises(mb.DecodeError, match=r"bad\.svg: not a readable SVG"):
        fit_image(b"<svg><g></svg>", target("anthropic"), mime_type="image/svg+xml", what="bad.svg")


@pytest.mark.parametrize("name", ["container.jxl", "codestream.jxl"])
def test_jpeg_xl_is_converted_for_providers_that_refuse_it(name: str) -> None:
    fitted = fit_image((IMAGES / name).read_bytes(), target("anthropic"))
    image = opened(fitted.data)
    assert image.format in ("PNG", "JPEG")
    assert image.size == (64, 48)
    assert fitted.changes


def test_missing_extras_name_their_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pillow_jxl", None)
    with pytest.raises(mb.UnsupportedBlockError, match=r"mediablocks\[jxl\]"):
        convert_refused_image(
            (IMAGES / "container.jxl").read_bytes(),
            None,
            max_side=None,
            max_pixels=None,
            convert=True,
            what="x",
        )
    assert "mediablocks[svg]" in unreadable_hint(b"<svg/>")


def test_the_16_bit_psd_composite_is_read() -> None:
    # testdata: `convert -size 32x24 gradient:red-blue image/sample.psd` (16 bits per channel).
    fitted = fit_image((IMAGES / "sample.psd").read_bytes(), target("anthropic"))
    image = opened(fitted.data).convert("RGB")
    assert image.size == (32, 24)
    assert image.getpixel((0, 0)) == (255, 0, 0)
    assert image.getpixel((31, 23)) == (0, 0, 255)
    assert "PSD (16-bit composite) -> PNG" in [change.detail for change in fitted.changes]


def test_psd_headers_that_lie_are_refused() -> None:
    data = bytearray((IMAGES / "sample.psd").read_bytes())
    struct.pack_into(">II", data, 14, 60000, 60000)  # 3.6 billion pixels declared
    with pytest.raises(mb.ImageBombError):
        psd_composite(bytes(data), 100_000_000, "huge.psd")
    with pytest.raises(mb.DecodeError, match=r"cut\.psd"):
        psd_composite((IMAGES / "sample.psd").read_bytes()[:4000], None, "cut.psd")
    lab = bytearray((IMAGES / "sample.psd").read_bytes())
    struct.pack_into(">H", lab, 24, 9)  # Lab colour
    with pytest.raises(mb.UnsupportedBlockError, match="colour mode"):
        psd_composite(bytes(lab), None, "lab.psd")


@pytest.mark.parametrize(
    "name", ["with-xml-declaration.svg", "container.jxl", "codestream.jxl", "sample.psd"]
)
def test_refused_images_in_testdata_are_sendable_to_every_provider_taking_images(name: str) -> None:
    for provider in [p for p in PROVIDERS if limits_for(p).image_types]:
        prepared = mb.prepare([mb.UserMessage(content=[mb.media_block(IMAGES / name)])], provider)
        [block] = prepared[0].content
        assert isinstance(block, mb.ImageBlock)
        assert block.mime_type in limits_for(provider).image_types


@pytest.mark.parametrize(
    "name", ["with-xml-declaration.svg", "container.jxl", "codestream.jxl", "sample.psd"]
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_refused_images_raise_only_mediablocks_errors(
    name: str, data: st.DataObject
) -> None:
    original = bytearray((IMAGES / name).read_bytes())
    for position in data.draw(st.lists(st.integers(0, len(original) - 1), min_size=1, max_size=6)):
        original[position] = data.draw(st.integers(0, 255))
    mutated = bytes(original[: data.draw(st.integers(len(original) // 2, len(original)))])
    try:
        fit_image(mutated, target("ollama"), what=name)
    except mb.MediaBlocksError as exc:
        assert name in str(exc)  # noqa: PT017 - the error names the image


def test_a_jpeg_xl_header_declaring_a_bomb_is_refused_before_decoding() -> None:
    # SizeHeader bits (LSB first): small=0, height selector 3 (30 bits) = 2**30 - 1, ratio 1:1.
    bits = (3 << 1) | ((2**30 - 1) << 3) | (1 << 33)
    bomb = b"\xff\x0a" + bits.to_bytes(10, "little")
    with pytest.raises(mb.ImageBombError, match=r"bomb\.jxl"):
        fit_image(bomb, target("anthropic"), what="bomb.jxl")


# -- the SVG's size, from the parsed document ------------------------------------------------------


def test_a_size_written_with_character_references_is_read_as_the_parser_reads_it() -> None:
    from mediablocks.convert.raster import svg_size
    from tests.bombs import character_reference_svg

    data = character_reference_svg(6000)
    assert b"6000" not in data  # what a regular expression over the bytes saw: no size
    assert svg_size(data) == (6000.0, 6000.0)
    fitted = fit_image(data, target("openai"), mime_type="image/svg+xml", what="ref.svg")
    with opened(fitted.data) as image:
        assert max(image.size) <= 2048  # rendered within the target, not at 6000 px
    assert fitted.width <= 2048


@pytest.mark.parametrize(
    ("root", "size"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="3in" height="1in">', (288.0, 96.0)),
        (b'<svg viewBox="0,0,40,30" xmlns="http://www.w3.org/2000/svg">', (40.0, 30.0)),
        (b'<svg width="100%" height="100%" viewBox="0 0 7 5">', (7.0, 5.0)),
        (
            b'<!-- a comment --><svg:svg xmlns:svg="http://www.w3.org/2000/svg" width="9"'
            b' height="4">',
            (9.0, 4.0),
        ),
        (
            b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/'
            b'DTD/svg11.dtd"><svg width="12" height="8">',
            (12.0, 8.0),
        ),
        (b'<!DOCTYPE svg [<!ENTITY w "6000">]><svg width="&w;" height="&w;">', None),
        (b"<svg>", None),
        (b"not xml at all", None),
    ],
)
def test_svg_size_from_the_root_element(root: bytes, size: tuple[float, float] | None) -> None:
    from mediablocks.convert.raster import svg_size

    assert svg_size(root + b"</svg>") == size


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.text(max_size=40))
def test_svg_size_takes_any_bytes(junk: bytes, width: str) -> None:
    from mediablocks.convert.raster import svg_size

    for data in (junk, b'<svg width="' + width.encode("utf-8", "replace") + b'">' + junk):
        found = svg_size(data)
        assert found is None or (len(found) == 2 and all(isinstance(v, float) for v in found))


def test_a_rendering_over_the_pixel_limit_never_leaves_the_worker() -> None:
    from mediablocks.convert.raster import _render_svg

    pytest.importorskip("resvg_py")
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"></svg>'
    assert _render_svg(svg, 300, 200, "a.svg", 60_000).startswith(b"\x89PNG")
    with pytest.raises(mb.ImageBombError, match="300x200 pixels"):
        _render_svg(svg, 300, 200, "a.svg", 59_999)
