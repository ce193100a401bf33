"""The byte-limit search: quality predicted from a sample, resolution only after quality."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from mediablocks.errors import DoesNotFitError
from mediablocks.images import MIN_JPEG_QUALITY, ImageTarget, fit_image
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
