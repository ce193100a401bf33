"""`plan_image` names what `fit_image` does, from the header, without decoding to re-encode."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from PIL.ImageFile import ImageFile

import mediablocks as mb
from mediablocks.images import ImageTarget, fit_image
from mediablocks.images.plan import PLANNED_TYPES, plan_image
from mediablocks.providers.registry import limits_for
from tests.conftest import TESTDATA


def _encoded(size: tuple[int, int], mode: str, fmt: str, exif_orientation: int = 1) -> bytes:
    image = Image.new(mode, size, "orange" if mode != "L" else 128)
    out = io.BytesIO()
    extra: dict[str, Any] = {}
    if exif_orientation != 1 and fmt in ("JPEG", "PNG", "WEBP"):
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        extra["exif"] = exif.tobytes()
    image.save(out, fmt, **extra)
    return out.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    width=st.integers(8, 3000),
    height=st.integers(8, 3000),
    fmt=st.sampled_from(["JPEG", "PNG", "WEBP", "GIF", "BMP"]),
    mode=st.sampled_from(["RGB", "RGBA", "L"]),
    orientation=st.sampled_from([1, 6]),
    provider=st.sampled_from(["anthropic", "openai-chat", "gemini", "mistral"]),
    optimal=st.booleans(),
)
def test_the_plan_names_what_fitting_does(
    width: int,
    height: int,
    fmt: str,
    mode: str,
    orientation: int,
    provider: str,
    optimal: bool,
) -> None:
    if fmt == "JPEG" and mode == "RGBA":
        mode = "RGB"
    data = _encoded((width, height), mode, fmt, orientation)
    target = ImageTarget.from_limits(limits_for(provider), optimal_size=optimal)
    planned = plan_image(data, target)
    fitted = fit_image(data, target)
    assert (not planned) == fitted.unchanged
    kinds = {change.kind for change in fitted.changes}
    for change in planned:
        if change.kind in ("resized", "orientation", "metadata"):
            assert change in fitted.changes  # the same words: the same sizes, the same tags
        elif change.kind == "converted" and "->" in change.detail and "/" in change.detail:
            assert "converted" in kinds


def test_a_large_image_is_planned_without_being_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _encoded((4032, 3024), "RGB", "JPEG")
    decoded: list[tuple[int, int]] = []
    original = ImageFile.load

    def counting_load(self: ImageFile) -> Any:
        decoded.append(self.size)
        return original(self)

    monkeypatch.setattr(ImageFile, "load", counting_load)
    target = ImageTarget.from_limits(limits_for("anthropic"), optimal_size=True)
    changes = plan_image(data, target)
    assert [c.kind for c in changes] == ["resized"]
    # Only the bounded check of the JPEG data ran: a decode at 1/8 scale, 1/64 of the pixels.
    assert decoded
    assert all(width * height <= 4032 * 3024 // 60 for width, height in decoded)
    decoded.clear()
    fit_image(data, target)  # the real fit decodes far more: the check above could have failed
    assert max(width * height for width, height in decoded) > 4032 * 3024 // 60


def test_a_truncated_image_sent_as_it_is_is_refused() -> None:
    target = ImageTarget.from_limits(limits_for("gemini"))
    with pytest.raises(mb.DecodeError):
        plan_image((TESTDATA / "bad" / "truncated.jpg").read_bytes(), target)
    with pytest.raises(mb.DecompressionBombError):
        plan_image((TESTDATA / "bad" / "bomb-28000x28000.png").read_bytes(), target)


def test_the_command_line_plans_the_same_types() -> None:
    from mediablocks.cli.inspect import _PLANNED_TYPES

    assert _PLANNED_TYPES == PLANNED_TYPES
