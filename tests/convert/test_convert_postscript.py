"""PostScript and EPS: recognised, sized from their DSC comments, and refused by default."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediablocks.convert.limits import ConversionLimits, use_conversion_limits
from mediablocks.convert.postscript import is_postscript, postscript_size, render_postscript
from mediablocks.errors import UnsupportedBlockError
from tests.bombs import LOOPING_EPS
from tests.conftest import TESTDATA


def _dos_eps(postscript: bytes) -> bytes:
    """The DOS EPS binary header: the PostScript section's offset and length, no preview."""
    return b"\xc5\xd0\xd3\xc6" + struct.pack("<IIIIIIH", 30, len(postscript), 0, 0, 0, 0, 0xFFFF)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (LOOPING_EPS, True),
        (b"%!PS\nshowpage\n", True),
        (_dos_eps(b"%!PS-Adobe-3.0 EPSF-3.0\n") + b"%!PS-Adobe-3.0 EPSF-3.0\n", True),
        (b"%PDF-1.7\n", False),
        (b" %!PS", False),
    ],
)
def test_postscript_is_what_ghostscript_and_pillow_would_take(data: bytes, expected: bool) -> None:
    assert is_postscript(data) is expected


def test_the_size_is_the_last_bounding_box_in_points() -> None:
    rose = (TESTDATA / "image/rose.eps").read_bytes()
    assert postscript_size(rose) == (70.0, 46.0)
    hires = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n%%HiResBoundingBox: 1 2 11.5 7\n"
    assert postscript_size(hires) == (10.5, 5.0)
    assert postscript_size(b"%!PS\n%%BoundingBox: (atend)\n") == (612.0, 792.0)  # Letter
    body = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 300 100\n"
    assert postscript_size(_dos_eps(body) + body) == (300.0, 100.0)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_the_size_takes_any_bytes(junk: bytes) -> None:
    for data in (junk, b"%!PS\n%%BoundingBox: " + junk, b"\xc5\xd0\xd3\xc6" + junk):
        width, height = postscript_size(data)
        assert width > 0
        assert height > 0


def test_refused_without_the_opt_in_before_any_program_runs() -> None:
    with pytest.raises(UnsupportedBlockError, match=r"loop\.eps: PostScript and EPS are refused"):
        render_postscript(LOOPING_EPS, 2048, None, "loop.eps")
    with (
        use_conversion_limits(ConversionLimits(allow_postscript=False)),
        pytest.raises(UnsupportedBlockError, match="allow_postscript=True"),
    ):
        render_postscript(LOOPING_EPS, 2048, None, "loop.eps")


def test_without_ghostscript_the_opt_in_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mediablocks.convert import postscript

    monkeypatch.setattr(postscript.shutil, "which", lambda name: None)
    with (
        use_conversion_limits(ConversionLimits(allow_postscript=True)),
        pytest.raises(UnsupportedBlockError, match=r"gs program is not installed"),
    ):
        render_postscript(LOOPING_EPS, 2048, None, "loop.eps")
