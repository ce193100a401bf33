"""Image preprocessing on real images made by real encoders (Pillow, pillow-heif)."""

from __future__ import annotations

import io
import resource
import struct
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageCms, ImageOps

from mediablocks.errors import ImageBombError, UnsupportedBlockError
from mediablocks.images import ImageTarget, fit_image, image_size
from mediablocks.images.convert import _TURNS, _transposed
from mediablocks.limits import measured_size
from mediablocks.providers.registry import limits_for

TESTDATA = Path(__file__).resolve().parents[2] / "testdata" / "image"


def target(provider: str, **options: object) -> ImageTarget:
    return ImageTarget.from_limits(limits_for(provider), **options)  # type: ignore[arg-type]


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def assert_fits(data: bytes, provider: str, image_count: int = 1) -> Image.Image:
    """Decode the output and check it against the provider's limits as the provider counts."""
    limits = limits_for(provider)
    image = decoded(data)
    assert Image.MIME[image.format or ""] in limits.image_types
    side = limits.max_side_for(image_count)
    if side is not None:
        assert max(image.size) <= side
    if limits.max_image_bytes is not None:
        assert measured_size(len(data), limits.image_bytes_measure) <= limits.max_image_bytes
    if not limits.animated_images:
        assert getattr(image, "n_frames", 1) == 1
    return image


def halves(stored_size: tuple[int, int] = (40, 20)) -> Image.Image:
    """Left half red, right half blue: orientation is visible in the pixels."""
    image = Image.new("RGB", stored_size, (255, 0, 0))
    image.paste((0, 0, 255), (stored_size[0] // 2, 0, stored_size[0], stored_size[1]))
    return image


def gps_exif(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "PhoneMaker"
    exif[0x0110] = "Phone 12"
    gps = exif.get_ifd(0x8825)
    gps[1] = "N"
    gps[2] = (48.0, 51.0, 29.0)
    return exif.tobytes()


@pytest.fixture(scope="module")
def noisy_24mp() -> bytes:
    """A 6000x4000 noisy JPEG of about 20 MB, made once per module."""
    noise = Image.effect_noise((6000, 4000), 60).convert("RGB")
    return encode(noise, "JPEG", quality=93)


# -- unchanged ------------------------------------------------------------------------------------


def test_an_image_that_fits_comes_back_byte_for_byte() -> None:
    data = encode(Image.effect_noise((300, 200), 30).convert("RGBA"), "PNG")
    fitted = fit_image(data, target("anthropic"))
    assert fitted.unchanged
    assert fitted.data is data
    assert (fitted.width, fitted.height) == (300, 200)


def test_harmless_exif_does_not_count_as_private() -> None:
    exif = Image.Exif()
    exif[0x0112] = 1
    data = encode(halves(), "JPEG", exif=exif.tobytes())
    assert fit_image(data, target("openai")).data is data


# -- orientation and metadata ---------------------------------------------------------------------


def test_sideways_phone_photo_is_turned_upright_and_loses_gps() -> None:
    data = encode(halves((40, 20)), "JPEG", quality=95, exif=gps_exif(6))
    fitted = fit_image(data, target("anthropic"))
    image = assert_fits(fitted.data, "anthropic")
    assert image.size == (20, 40)
    top, bottom = image.getpixel((10, 5)), image.getpixel((10, 35))
    assert isinstance(top, tuple)
    assert isinstance(bottom, tuple)
    assert top[0] > 200
    assert top[2] < 60
    assert bottom[2] > 200
    assert bottom[0] < 60
    exif = image.getexif()
    assert not exif.get_ifd(0x8825)
    assert 0x010F not in exif
    assert {c.kind for c in fitted.changes} >= {"orientation", "metadata"}


def quadrants(stored_size: tuple[int, int]) -> Image.Image:
    """Four quadrants of four colours: every orientation of it looks different."""
    width, height = stored_size
    image = Image.new("RGB", stored_size, (230, 20, 20))
    image.paste((20, 20, 230), (width // 2, 0, width, height // 2))
    image.paste((20, 200, 20), (0, height // 2, width // 2, height))
    image.paste((240, 240, 240), (width // 2, height // 2, width, height))
    return image


def quadrant_colours(image: Image.Image) -> list[tuple[int, ...]]:
    width, height = image.size
    centres = [(width // 4, height // 4), (3 * width // 4, height // 4)]
    centres += [(width // 4, 3 * height // 4), (3 * width // 4, 3 * height // 4)]
    return [image.convert("RGB").getpixel(centre) for centre in centres]  # type: ignore[misc]


@pytest.mark.parametrize("orientation", range(2, 9))
def test_a_turned_photo_that_is_also_scaled_down_comes_out_upright(orientation: int) -> None:
    stored = quadrants((640, 320))
    data = encode(stored, "JPEG", quality=95, exif=gps_exif(orientation))
    fitted = fit_image(data, ImageTarget(frozenset({"image/jpeg"}), max_side=200))
    with Image.open(io.BytesIO(data)) as source:
        upright = ImageOps.exif_transpose(source)
    image = decoded(fitted.data)
    assert image.size == (fitted.width, fitted.height)
    assert image.size == ((200, 100) if upright.width > upright.height else (100, 200))
    for got, want in zip(quadrant_colours(image), quadrant_colours(upright), strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 40
    kinds = [c.kind for c in fitted.changes]
    assert kinds.index("orientation") < kinds.index("resized")


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 48),
    st.integers(1, 48),
    st.sampled_from(["RGB", "RGBA", "YCbCr", "L", "LA", "CMYK"]),
    st.integers(2, 8),
    st.integers(1, 16),
)
def test_a_turn_band_by_band_is_pillows_turn(
    width: int, height: int, mode: str, orientation: int, band: int
) -> None:
    frame = Image.effect_noise((width, height), 60).convert("RGB").convert(mode)
    frame.info["duration"] = 40
    turned = _transposed(frame, orientation, band)
    whole = frame.transpose(_TURNS[orientation])
    assert (turned.mode, turned.size) == (whole.mode, whole.size)
    assert turned.tobytes() == whole.tobytes()
    assert turned.info["duration"] == 40


@pytest.mark.skipif(
    not (TESTDATA / "sideways-exif6-gps.jpg").exists(), reason="testdata photo not there"
)
def test_testdata_sideways_photo() -> None:
    data = (TESTDATA / "sideways-exif6-gps.jpg").read_bytes()
    stored = Image.open(io.BytesIO(data)).size
    fitted = fit_image(data, target("bedrock"))
    image = assert_fits(fitted.data, "bedrock")
    assert image.size == (stored[1], stored[0])
    assert not image.getexif().get_ifd(0x8825)


def test_metadata_only_jpeg_is_stripped_without_reencoding_and_keeps_icc() -> None:
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    source = Image.effect_noise((64, 48), 50).convert("RGB")
    data = encode(source, "JPEG", exif=gps_exif(1), icc_profile=icc, comment=b"secret")
    fitted = fit_image(data, target("anthropic"))
    assert [c.kind for c in fitted.changes] == ["metadata"]
    out = decoded(fitted.data)
    assert out.tobytes() == decoded(data).tobytes()  # the very same pixels
    assert out.info.get("icc_profile") == icc
    assert "exif" not in out.info
    assert "comment" not in out.info
    assert b"PhoneMaker" not in fitted.data
    assert b"secret" not in fitted.data


def test_png_text_chunks_are_dropped_losslessly() -> None:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Ana at 12 Rue X")
    data = encode(Image.effect_noise((50, 40), 40), "PNG", pnginfo=info)
    fitted = fit_image(data, target("openai"))
    assert b"Rue X" not in fitted.data
    assert decoded(fitted.data).tobytes() == decoded(data).tobytes()


def test_strip_metadata_false_keeps_it() -> None:
    data = encode(halves(), "JPEG", exif=gps_exif(1))
    assert fit_image(data, target("anthropic"), strip_metadata=False).data is data


# -- conversion -----------------------------------------------------------------------------------


def test_cmyk_jpeg_becomes_rgb() -> None:
    path = TESTDATA / "cmyk.jpg"
    data = (
        path.read_bytes()
        if path.exists()
        else encode(Image.new("CMYK", (40, 30), (0, 255, 255, 0)), "JPEG")
    )
    fitted = fit_image(data, target("anthropic"))
    image = assert_fits(fitted.data, "anthropic")
    assert image.mode == "RGB"
    assert any(c.detail == "CMYK -> RGB" for c in fitted.changes)


def test_rgba_webp_becomes_png_with_alpha_for_ollama() -> None:
    image = Image.new("RGBA", (30, 20), (0, 128, 0, 255))
    image.paste((0, 0, 0, 0), (0, 0, 10, 20))
    fitted = fit_image(encode(image, "WEBP", lossless=True), target("ollama"))
    out = assert_fits(fitted.data, "ollama")
    assert out.format == "PNG"
    assert out.mode == "RGBA"
    assert out.getpixel((2, 2))[3] == 0
    assert out.getpixel((20, 10))[3] == 255


@pytest.mark.parametrize("name", ["rgba.png", "apng.png"])
def test_testdata_pngs_fit_openai(name: str) -> None:
    path = TESTDATA / name
    if not path.exists():
        pytest.skip(f"testdata/image/{name} not there")
    assert_fits(fit_image(path.read_bytes(), target("openai")).data, "openai")


def test_sixteen_bit_png_becomes_eight_bit() -> None:
    path = TESTDATA / "16bit.png"
    if path.exists():
        data = path.read_bytes()
    else:
        data = encode(Image.linear_gradient("L").convert("I;16"), "PNG")
    assert data[24] == 16
    fitted = fit_image(data, target("anthropic"))
    out = assert_fits(fitted.data, "anthropic")
    assert fitted.data[24] == 8
    assert out.mode in ("L", "RGB", "RGBA", "LA")


def test_heic_is_converted_for_anthropic_and_kept_for_gemini() -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    path = TESTDATA / "photo.heic"
    data = (
        path.read_bytes()
        if path.exists()
        else encode(Image.effect_noise((64, 48), 40).convert("RGB"), "HEIF")
    )
    fitted = fit_image(data, target("anthropic"))
    out = assert_fits(fitted.data, "anthropic")
    assert out.format in ("JPEG", "PNG")
    assert fitted.changes[0].kind == "converted" or any(
        c.kind == "converted" for c in fitted.changes
    )
    if not path.exists():  # the image made here is upright: no orientation change reported
        assert not any(c.kind == "orientation" for c in fitted.changes)
    kept = fit_image(data, target("gemini"))
    assert kept.mime_type == "image/heic"


def test_heic_without_pillow_heif_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    data = encode(Image.new("RGB", (16, 16), "red"), "HEIF")
    monkeypatch.setitem(sys.modules, "pillow_heif", None)
    with pytest.raises(UnsupportedBlockError, match=r"mediablocks\[heif\]"):
        fit_image(data, target("anthropic"), what="ImageBlock(photo.heic)")


def test_heic_without_pillow_heif_goes_as_is_only_where_nothing_needs_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    data = encode(Image.new("RGB", (128, 96), "red"), "HEIF")
    monkeypatch.setitem(sys.modules, "pillow_heif", None)
    # Gemini takes HEIC: with stripping off, the header's size is all that must be read.
    kept = fit_image(data, target("gemini"), strip_metadata=False)
    assert (kept.data, kept.mime_type, kept.width, kept.height) == (data, "image/heic", 128, 96)
    assert kept.unchanged
    # By default its metadata must be read to be stripped: a clear error says how.
    with pytest.raises(UnsupportedBlockError, match=r"to strip its metadata.*strip_metadata=False"):
        fit_image(data, target("gemini"))


def test_avif_is_converted() -> None:
    path = TESTDATA / "photo.avif"
    data = (
        path.read_bytes()
        if path.exists()
        else encode(Image.effect_noise((64, 48), 40).convert("RGB"), "AVIF")
    )
    fitted = fit_image(data, target("openai"))
    assert assert_fits(fitted.data, "openai").format == "JPEG"
    assert any("image/avif -> image/jpeg" in c.detail for c in fitted.changes)


@pytest.mark.parametrize("fmt", ["TIFF", "BMP", "ICO", "JPEG2000"])
def test_graphics_in_refused_formats_become_png(fmt: str) -> None:
    image = Image.new("RGB", (60, 40), "white")
    image.paste((0, 0, 0), (10, 10, 30, 30))
    data = encode(image, fmt)
    source = decoded(data).convert("RGB")  # ICO keeps the largest icon size it wrote
    fitted = fit_image(data, target("bedrock"))
    out = assert_fits(fitted.data, "bedrock")
    assert out.format == "PNG"
    assert out.convert("RGB").tobytes() == source.tobytes()


def test_svg_without_a_rasteriser_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "resvg_py", None)  # as if the svg extra were not installed
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'
    with pytest.raises(UnsupportedBlockError, match=r"pip install 'mediablocks\[svg\]'"):
        fit_image(svg, target("anthropic"), mime_type="image/svg+xml")


def _installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


# -- animation ------------------------------------------------------------------------------------


def make_animated_gif() -> bytes:
    frames = [Image.new("RGB", (20, 20), color) for color in ("red", "lime", "blue")]
    return encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)


@pytest.mark.parametrize("name", ["animated.gif", "animated.webp", None])
def test_animation_is_reduced_to_the_first_frame_for_openai(name: str | None) -> None:
    data = (
        (TESTDATA / name).read_bytes()
        if name and (TESTDATA / name).exists()
        else make_animated_gif()
    )
    first = Image.open(io.BytesIO(data))
    assert first.n_frames > 1
    first.seek(0)
    expected = first.convert("RGB")
    fitted = fit_image(data, target("openai"))
    out = assert_fits(fitted.data, "openai").convert("RGB")
    difference = ImageChops.difference(out, expected).getextrema()
    assert max(high for _, high in difference) <= 8  # type: ignore[union-attr]  # WebP is lossy
    assert any(c.kind == "first_frame" for c in fitted.changes)


def test_animation_is_kept_where_the_provider_takes_it() -> None:
    data = make_animated_gif()
    assert fit_image(data, target("anthropic")).data is data


# -- sizes ----------------------------------------------------------------------------------------


def test_panorama_is_scaled_to_the_side_limit_keeping_its_shape() -> None:
    data = encode(Image.effect_noise((12000, 400), 20).convert("RGB"), "JPEG", quality=80)
    fitted = fit_image(data, target("anthropic"))
    out = assert_fits(fitted.data, "anthropic")
    assert out.size[0] == 8000
    assert abs(out.size[1] - 267) <= 1


def test_many_images_cap_applies() -> None:
    data = encode(Image.effect_noise((2600, 1300), 20).convert("RGB"), "JPEG", quality=80)
    assert fit_image(data, target("anthropic", image_count=20)).data is data
    out = assert_fits(fit_image(data, target("anthropic", image_count=21)).data, "anthropic", 21)
    assert out.size == (2000, 1000)


def test_small_images_are_never_upscaled() -> None:
    data = encode(Image.new("RGB", (10, 8), "red"), "BMP")
    fitted = fit_image(data, target("anthropic", optimal_size=True))
    assert (fitted.width, fitted.height) == (10, 8)


def test_optimal_size_targets_anthropic_long_edge_and_pixels(noisy_24mp: bytes) -> None:
    fitted = fit_image(noisy_24mp, target("anthropic", optimal_size=True))
    out = assert_fits(fitted.data, "anthropic")
    assert max(out.size) <= 1568
    assert out.size[0] * out.size[1] <= 1_150_000
    assert out.size[0] * out.size[1] > 1_100_000  # as large as allowed, not smaller


@pytest.mark.parametrize("provider", ["anthropic", "bedrock"])
def test_large_noisy_photo_fits_the_byte_limit(noisy_24mp: bytes, provider: str) -> None:
    assert len(noisy_24mp) > 15_000_000
    fitted = fit_image(noisy_24mp, target(provider))
    out = assert_fits(fitted.data, provider)
    assert out.format == "JPEG"
    assert max(out.size) < 6000
    assert any(c.kind == "re-encoded" for c in fitted.changes)


def test_quality_search_picks_the_highest_quality_that_fits() -> None:
    image = Image.effect_noise((400, 300), 50).convert("RGB")
    at_90 = len(encode(image, "JPEG", quality=90))
    at_40 = len(encode(image, "JPEG", quality=40))
    budget = (at_90 + at_40) // 2
    fitted = fit_image(
        encode(image, "PNG"),
        ImageTarget(frozenset({"image/jpeg"}), max_bytes=budget),
    )
    quality = int(fitted.changes[-1].detail.rsplit(" ", 1)[1])
    assert 40 <= quality < 90
    assert len(fitted.data) <= budget
    assert len(encode(image, "JPEG", quality=quality + 1)) > budget


# -- bombs ----------------------------------------------------------------------------------------


def tiny_png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height, with a few bytes of image data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def test_bomb_is_refused_from_the_header_without_allocating() -> None:
    data = tiny_png_header(30000, 30000)
    assert len(data) < 200
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ImageBombError, match=r"bomb\.png.*900,000,000 pixels") as caught:
        fit_image(data, target("anthropic"), what="ImageBlock(bomb.png)")
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (after - before) * 1024 < 200_000_000  # no 900 MB decode happened
    assert caught.value.size == 900_000_000
    assert caught.value.limit == 100_000_000


def test_pillows_own_bomb_error_never_escapes() -> None:
    data = tiny_png_header(20000, 10000)  # over Pillow's hard limit of ~179 MP
    with pytest.raises(ImageBombError, match="200,000,000 pixels"):
        fit_image(data, target("anthropic"), max_image_pixels=None)


def test_bomb_limit_is_configurable() -> None:
    data = tiny_png_header(3000, 3000)
    with pytest.raises(ImageBombError, match="limit of 1,000,000"):
        image_size(data, max_image_pixels=1_000_000)
    assert image_size(data) == (3000, 3000)


@pytest.mark.parametrize("name", ["bomb-28000x28000.png", "bomb-65535x65535.gif"])
def test_testdata_bombs(name: str) -> None:
    path = TESTDATA.parent / "bad" / name
    if not path.exists():
        pytest.skip("testdata bomb not there")
    with pytest.raises(ImageBombError):
        fit_image(path.read_bytes(), target("gemini"))


def test_a_kept_animation_is_resized_frame_by_frame_with_its_timing() -> None:
    frames = [Image.new("RGB", (9000, 100), color) for color in ("red", "lime", "blue")]
    data = encode(
        frames[0], "GIF", save_all=True, append_images=frames[1:], duration=[100, 200, 300]
    )
    fitted = fit_image(data, target("anthropic"))
    out = assert_fits(fitted.data, "anthropic")
    assert out.size == (8000, 88)
    assert out.n_frames == 3
    seen = []
    for index in range(3):
        out.seek(index)
        seen.append((out.convert("RGB").getpixel((5, 5)), out.info.get("duration")))
    assert seen == [((255, 0, 0), 100), ((0, 255, 0), 200), ((0, 0, 255), 300)]


def test_a_lossless_webp_is_not_made_lossy() -> None:
    image = Image.effect_noise((300, 200), 40).convert("RGB")
    data = encode(image, "WEBP", lossless=True, exif=gps_exif(1))
    fitted = fit_image(data, target("anthropic"))
    out = assert_fits(fitted.data, "anthropic")
    assert out.format == "PNG"
    assert out.tobytes() == decoded(data).convert("RGB").tobytes()
    assert b"PhoneMaker" not in fitted.data
