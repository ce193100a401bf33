"""`mediablocks.convert.budget`: one budget per block under one per call, spent by every step
(a fake clock stands in for time, so nothing here waits)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.convert.budget import (
    AUTO_SVG_SECONDS,
    Budget,
    BudgetCancelledError,
    auto_seconds,
    check_budget,
    current_budget,
    time_left,
    use_budget,
)
from mediablocks.convert.limits import DEFAULT_TIME_BUDGET


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_least_along_the_chain_is_what_is_left() -> None:
    clock = Clock()
    call = Budget(10, cpu_seconds=None, limit="total_time_budget", scope="the call", clock=clock)
    block = Budget(4, parent=call, clock=clock)
    assert block.time_left() == 4
    clock.now += 3
    assert block.time_left() == 1
    later = Budget(30, parent=call, clock=clock)
    assert later.time_left() == 7  # the call's total bounds a block's own budget
    assert later.wall_limit() == (clock.now + 7, call)


def test_a_spent_budget_names_the_block_and_which_limit() -> None:
    clock = Clock()
    call = Budget(10, cpu_seconds=None, limit="total_time_budget", scope="the call", clock=clock)
    block = Budget(4, parent=call, clock=clock)
    block.check("clip.mp4")  # nothing spent yet
    clock.now += 5
    with pytest.raises(mb.ConversionTimeoutError) as caught:
        block.check("clip.mp4", "probing its header")
    assert caught.value.limit == "time_budget"
    assert caught.value.value == 4
    assert str(caught.value).startswith("clip.mp4: ran past the wall-time budget time_budget=4 s")
    assert "while probing its header" in str(caught.value)
    other = Budget(60, parent=call, clock=clock)
    clock.now += 6
    with pytest.raises(mb.ConversionTimeoutError) as caught:
        other.check("b.pdf")
    assert caught.value.limit == "total_time_budget"
    assert "total_time_budget=10 s of the call" in str(caught.value)


def test_cpu_from_workers_and_this_thread_is_charged_up_the_chain() -> None:
    call = Budget(None, cpu_seconds=10.0, limit="total_time_budget")
    block = Budget(None, cpu_seconds=2.0, parent=call)
    block.charge(1.5)
    assert call.worker_cpu == 1.5
    assert block.cpu_left() == pytest.approx(0.5, abs=0.05)
    block.charge(float("nan"))  # a worker's figures are not trusted blindly
    block.charge(-5.0)
    assert block.worker_cpu == 1.5
    with use_budget(block):
        for _ in range(10**7):
            if block.spent_cpu() >= 2.05:
                break
            sum(range(1000))
        with pytest.raises(mb.ConversionTimeoutError, match="CPU budget time_budget=2 s"):
            check_budget("noise.svg")
    assert block.spent_cpu() >= 2.0  # the span's CPU stays counted after it ends


def test_the_automatic_budget_follows_the_work() -> None:
    assert auto_seconds("image", "image/svg+xml") == AUTO_SVG_SECONDS
    assert auto_seconds("image", "image/jpeg") > AUTO_SVG_SECONDS
    assert auto_seconds("document", "application/pdf", pages=20) > auto_seconds(
        "document", "application/pdf", pages=1
    )
    short = auto_seconds("video", "video/mp4", media_seconds=5)
    assert short < auto_seconds("video", "video/mp4", media_seconds=30) < DEFAULT_TIME_BUDGET
    assert auto_seconds("video", "video/mp4", media_seconds=36_000) == DEFAULT_TIME_BUDGET
    assert auto_seconds("audio", "audio/mpeg", media_seconds=None) == DEFAULT_TIME_BUDGET
    assert auto_seconds("audio", "audio/mpeg", media_seconds=float("inf")) == DEFAULT_TIME_BUDGET


@given(
    kind=st.sampled_from(["image", "audio", "video", "document"]),
    mime=st.sampled_from(["image/svg+xml", "image/png", "application/pdf", "video/mp4", ""]),
    media=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
    pages=st.one_of(st.none(), st.integers(min_value=0, max_value=10**9)),
    cap=st.floats(min_value=0.5, max_value=10_000),
)
def test_every_automatic_budget_is_positive_and_within_the_cap(
    kind: str, mime: str, media: float | None, pages: int | None, cap: float
) -> None:
    seconds = auto_seconds(kind, mime, media_seconds=media, pages=pages, cap=cap)
    assert 0 < seconds <= cap
    assert math.isfinite(seconds)


def test_cancelling_runs_callbacks_once_and_reaches_children() -> None:
    call = Budget(None)
    block = Budget(None, parent=call)
    seen: list[str] = []
    forget = block.on_cancel(lambda: seen.append("kill"))
    block.on_cancel(lambda: seen.append("other"))
    forget()
    call.cancel()
    call.cancel()
    assert seen == ["other"]
    assert block.cancelled
    with pytest.raises(BudgetCancelledError):
        block.check("a.svg")
    late = Budget(None, parent=call)
    late.on_cancel(lambda: seen.append("late"))  # registered after the cancel: runs at once
    assert seen == ["other", "late"]


def test_the_scope_hands_the_budget_to_the_steps_and_restores() -> None:
    assert current_budget() is None
    assert time_left() is None
    check_budget("nothing")  # outside a budget: nothing to check
    budget = Budget(30)
    with use_budget(budget):
        assert current_budget() is budget
        left = time_left()
        assert left is not None
        assert 0 < left <= 30
    assert current_budget() is None


def test_extending_an_automatic_budget_moves_the_cpu_with_it() -> None:
    budget = Budget(15)
    budget.extend_to(40)
    assert budget.seconds == 40
    assert budget.cpu_seconds == 40
    own = Budget(15, cpu_seconds=3.0)
    own.extend_to(40)
    assert own.cpu_seconds == 3.0  # a CPU budget of its own stays
