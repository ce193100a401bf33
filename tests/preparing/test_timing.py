"""`prepare`'s time budgets (`mediablocks.preparing.timing`): one per block, sized by kind, under
one per call; what ends the call is raised at once."""

from __future__ import annotations

import time

import pytest

import mediablocks as mb
from mediablocks.convert.budget import AUTO_PAGE_SECONDS, AUTO_SVG_SECONDS, auto_seconds
from mediablocks.convert.limits import DEFAULT_TOTAL_TIME_BUDGET
from mediablocks.preparing import PrepareOptions
from mediablocks.preparing.timing import block_budget, call_budget, fatal, size_by_duration
from mediablocks.probing import probe
from tests.conftest import TESTDATA

TURBULENCE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">'
    b'<filter id="f"><feTurbulence baseFrequency="0.05" numOctaves="1000"/></filter>'
    b'<rect width="400" height="400" filter="url(#f)"/></svg>'
)


def test_each_kind_gets_its_automatic_budget() -> None:
    options = PrepareOptions()
    call = call_budget(options)
    assert call.seconds == DEFAULT_TOTAL_TIME_BUDGET
    assert call.limit == "total_time_budget"
    svg = mb.ImageBlock.from_bytes(TURBULENCE_SVG, "image/svg+xml")
    budget = block_budget(options, svg, call)
    assert (budget.seconds, budget.cpu_seconds, budget.lane) == (10.0, 10.0, "short")
    assert budget.seconds == AUTO_SVG_SECONDS
    pdf = mb.media_block(TESTDATA / "document" / "report.pdf")
    pages = block_budget(PrepareOptions(max_pages=3), pdf, call)
    assert pages.seconds == auto_seconds("document") + 3 * AUTO_PAGE_SECONDS
    assert pages.parent is call


def test_audio_and_video_budgets_follow_the_duration_in_the_header() -> None:
    options = PrepareOptions()
    video = mb.media_block(TESTDATA / "video" / "phone-h264-aac.mp4")
    budget = block_budget(options, video, None)
    assert budget.lane == "long"
    base = budget.seconds
    size_by_duration(options, video, budget)
    duration = probe(video).duration
    assert duration is not None
    assert budget.seconds == auto_seconds("video", media_seconds=duration)
    assert base is not None
    assert budget.seconds > base
    garbage = mb.VideoBlock.from_bytes(b"\x00\x00\x00\x18ftypisom" + b"\xff" * 64, "video/mp4")
    unknown = block_budget(options, garbage, None)
    size_by_duration(options, garbage, unknown)
    assert unknown.seconds == auto_seconds("video", media_seconds=None)  # the cap


def test_a_number_or_none_is_every_blocks_budget() -> None:
    video = mb.media_block(TESTDATA / "video" / "phone-h264-aac.mp4")
    fixed = block_budget(PrepareOptions(time_budget=7), video, None)
    size_by_duration(PrepareOptions(time_budget=7), video, fixed)
    assert fixed.seconds == 7
    unbounded = block_budget(PrepareOptions(time_budget=None), video, None)
    assert unbounded.seconds is None
    assert unbounded.time_left() is None


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"time_budget": "1"}, "time_budget"),
        ({"time_budget": float("nan")}, "time_budget"),
        ({"time_budget": True}, "time_budget"),
        ({"total_time_budget": "auto"}, "total_time_budget"),
        ({"total_time_budget": -1}, "total_time_budget"),
    ],
)
def test_bad_budgets_are_refused(options: dict[str, object], name: str) -> None:
    with pytest.raises(mb.InvalidOptionError, match=name):
        mb.prepare([], "anthropic", **options)  # type: ignore[arg-type]


def test_the_calls_total_ends_the_call_at_once() -> None:
    images = [
        mb.ImageBlock.from_bytes(TURBULENCE_SVG, "image/svg+xml", filename=f"{n}.svg")
        for n in range(3)
    ]
    start = time.monotonic()
    with pytest.raises(mb.ConversionTimeoutError) as caught:
        mb.prepare([mb.UserMessage(content=images)], "anthropic", total_time_budget=1)
    spent = time.monotonic() - start
    assert caught.value.limit == "total_time_budget"
    assert caught.value.value == 1
    assert str(caught.value).startswith("ImageBlock(")  # the block it was working on
    assert "total_time_budget=1 s of this prepare call" in str(caught.value)
    assert not isinstance(caught.value, mb.DoesNotFitError)
    assert spent < 3 * AUTO_SVG_SECONDS  # not each block's own budget in turn


def test_a_blocks_budget_is_its_problem_and_the_others_go_on() -> None:
    hostile = mb.FileBlock.from_bytes(b"%PDF-1.7\n" + b"%" * 10, "application/pdf")
    fine = mb.FileBlock.from_bytes(b"{\\rtf1 hello there}", "text/rtf", filename="note.rtf")
    with pytest.raises(mb.DoesNotFitError) as caught:
        mb.prepare([mb.UserMessage(content=[hostile, fine])], "ollama", time_budget=5)
    (problem,) = caught.value.problems
    assert problem.startswith("message 0, block 0")  # only the broken one; the RTF converted


def test_what_ends_the_call_is_told_apart() -> None:
    assert fatal(mb.ConversionUnavailableError("x"))
    assert fatal(mb.ConversionTimeoutError("x", limit="total_time_budget"))
    assert not fatal(mb.ConversionTimeoutError("x", limit="time_budget"))
    assert not fatal(mb.ConversionCrashedError("x"))
