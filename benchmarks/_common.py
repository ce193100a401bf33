"""Timing, memory and table helpers shared by the benchmarks (run by hand, never by the tests).

Time is the median of several runs measured with `time.perf_counter`. The cases of one benchmark
run in interleaved rounds, each round in a new shuffled order: a burst of load on the machine hits
every case alike, and no case always runs right after the same neighbour (whose freed memory
decides whether the next large allocation reuses warm pages or faults in fresh ones), so the
ratios against the baseline measured in the same run stay fair.

Peak memory is measured by `tracemalloc` in a separate run: the highest amount of memory Python
allocated during the call, above what was allocated when it started. tracemalloc sees every
allocation made through Python's allocators (bytes, str, bytearray, lists...), which is where
base64 text lives, so the figure is meaningful for this work; memory a C library allocates on
its own (libmagic, a codec) is not seen.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

MiB = 1024 * 1024


@dataclass
class Case:
    """One thing to measure: ``run(setup())`` is timed; ``setup`` is not."""

    name: str
    run: Callable[[Any], Any]
    setup: Callable[[], Any] = lambda: None
    check: Callable[[Any], None] | None = None
    """Called once with a result, outside the timing: asserts the case did the work."""
    api: str = ""
    """Which API the case goes through, for the table."""
    times: list[float] = field(default_factory=list)
    peak: int | None = None
    error: str | None = None


def _timed(case: Case) -> float:
    argument = case.setup()
    gc.collect()
    start = time.perf_counter()
    result = case.run(argument)
    elapsed = time.perf_counter() - start
    del result, argument
    return elapsed


def _peak(case: Case) -> int:
    argument = case.setup()
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        result = case.run(argument)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if case.check is not None:
        case.check(result)
    return peak - base


def measure(cases: Sequence[Case], rounds: int) -> None:
    """Fill each case's ``times`` (``rounds`` interleaved runs) and ``peak``.

    A case that raises is marked with its error and skipped from then on; the others go on.
    """
    for case in cases:
        if case.error is not None:
            continue
        try:
            _timed(case)  # warm-up: lazy imports and first-call caches are not measured
            case.peak = _peak(case)
        except Exception as exc:
            case.error = f"{type(exc).__name__}: {exc}"[:120]
    order = list(cases)
    shuffle = random.Random(2024).shuffle
    for _ in range(rounds):
        shuffle(order)
        for case in order:
            if case.error is None:
                try:
                    case.times.append(_timed(case))
                except Exception as exc:  # pragma: no cover - a flaky library
                    case.error = f"{type(exc).__name__}: {exc}"[:120]


def median(case: Case) -> float:
    return statistics.median(case.times)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        out = [str(cells[0]).ljust(widths[0])]
        out += [str(cell).rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def mebibytes(count: int) -> str:
    return f"{count / MiB:.1f}"
