"""The byte-limit search: quality predicted from a sample in a few encodes, resolution only
after quality."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from mediablocks.errors import DoesNotFitError
from mediablocks.images import MIN_JPEG_QUALITY, ImageTarget, fit_image
from mediablocks.images.encoding import _highest_fitting, _SizeModel
from mediablocks.images.fit import _jpeg_quality


def noisy_jpeg(size: tuple[int, int], quality: int) -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise(size, 50).convert("RGB").save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


@pytest.mark.parametrize("quality", [30, 50, 75, 90, 95])
def test_the_saved_quality_is_read_from_the_quantisation_tables(quality: int) -> None:
    with Image.open(io.BytesIO(noisy_jpeg((64, 64), quality))) as image:
        estimate = _jpeg_quality(image)
    assert estimate is not None
    assert abs(estimate - quality) <= 2


def test_the_search_uses_most_of_the_limit_and_lowers_quality_before_size() -> None:
    data = noisy_jpeg((1600, 1200), 95)
    limit = len(data) * 6 // 10
    fitted = fit_image(data, ImageTarget(frozenset({"image/jpeg"}), max_bytes=limit))
    assert 0.85 * limit <= len(fitted.data) <= limit  # a prediction, not a crude guess
    assert (fitted.width, fitted.height) == (1600, 1200)  # quality went first
    quality = int(next(c.detail for c in fitted.changes if c.kind == "re-encoded").split()[-1])
    assert MIN_JPEG_QUALITY <= quality < 90


def test_resolution_goes_only_below_the_quality_floor_and_never_below_min_side() -> None:
    data = noisy_jpeg((1600, 1200), 95)
    fitted = fit_image(data, ImageTarget(frozenset({"image/jpeg"}), max_bytes=60_000))
    assert fitted.width < 1600
    assert len(fitted.data) <= 60_000
    floor = ImageTarget(frozenset({"image/jpeg"}), max_bytes=60_000, min_side=1200)
    with pytest.raises(DoesNotFitError, match="long edge 1200 px"):
        fit_image(data, floor)


def grainy_photo(size: tuple[int, int], seed: int) -> Image.Image:
    """A smooth scene under grain and sensor noise, like a detailed phone photo."""
    scene = Image.linear_gradient("L").resize(size).convert("RGB")
    grain = Image.effect_noise((size[0] // 4, size[1] // 4), 60 + seed).resize(size)
    texture = Image.blend(grain, Image.effect_noise(size, 20), 0.5)
    return Image.blend(scene, Image.merge("RGB", (texture,) * 3), 0.4)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1_000, 10_000_000),
    st.lists(st.integers(0, 40_000), min_size=50, max_size=50),
    st.integers(1, 20_000_000),
)
def test_the_quality_search_finds_the_highest_quality_under_any_growing_curve(
    start: int, steps: list[int], aim: int
) -> None:
    sizes = {MIN_JPEG_QUALITY: start}
    for quality, step in zip(range(MIN_JPEG_QUALITY + 1, 91), steps, strict=True):
        sizes[quality] = sizes[quality - 1] + step
    asked: list[int] = []

    def size_at(quality: int) -> int:
        asked.append(quality)
        return sizes[quality]

    fitting = [quality for quality, size in sizes.items() if size <= aim]
    assert _highest_fitting(size_at, aim) == (max(fitting) if fitting else None)
    assert len(asked) <= 12
    assert len(set(asked)) == len(asked)  # no size is asked for twice


@pytest.mark.parametrize("seed", [0, 15, 30])
def test_on_a_photo_the_search_takes_few_sample_encodes(seed: int) -> None:
    frame = grainy_photo((1600, 1200), seed)
    model = _SizeModel(frame, "JPEG", None, None)
    assert not model.exact  # predicted from bands, as for any photo over 1 MP
    exhaustive = {quality: model.predict(quality) for quality in range(MIN_JPEG_QUALITY, 91)}
    for share in (0.45, 0.7, 0.9):
        limit = int(exhaustive[90] * share / 0.97)  # the search aims 3% under the limit
        fresh = _SizeModel(frame, "JPEG", None, None)
        quality = fresh.best_quality(limit)
        fitting = [q for q, size in exhaustive.items() if size <= int(limit * 0.97)]
        assert quality == max(fitting)
        assert len(fresh.sizes) <= 5  # the log-linear search from 40 and 90 took 5 to 7


@pytest.mark.parametrize("share", [0.35, 0.55, 0.8])
def test_the_search_hits_the_byte_target_on_a_hard_photo(share: float) -> None:
    photo = grainy_photo((1600, 1200), 20)
    buffer = io.BytesIO()
    photo.save(buffer, "JPEG", quality=95)
    data = buffer.getvalue()
    at_90 = io.BytesIO()
    photo.save(at_90, "JPEG", quality=90)
    limit = int(len(at_90.getvalue()) * share)
    fitted = fit_image(data, ImageTarget(frozenset({"image/jpeg"}), max_bytes=limit))
    assert 0.85 * limit <= len(fitted.data) <= limit
    assert (fitted.width, fitted.height) == (1600, 1200)  # quality alone was enough
    quality = int(next(c.detail for c in fitted.changes if c.kind == "re-encoded").split()[-1])
    assert MIN_JPEG_QUALITY <= quality < 90
