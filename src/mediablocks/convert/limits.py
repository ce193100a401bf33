"""`ConversionLimits`: the resources one conversion in a worker process may use, and the scope
(`use_conversion_limits`) through which `prepare` hands them to every converter it calls;
`WorkerSettings`: the size and upkeep of the worker pool itself.

Kept apart from `mediablocks.convert.isolation` (the worker pool) so that ``import mediablocks``
loads only this small module; the pool and `subprocess` load with the first conversion.
"""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from .._checks import check_bool, check_seconds, check_size
from ..errors import InvalidOptionError

__all__ = [
    "AUTO",
    "DEFAULT_CPU_SECONDS",
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MAX_TEXT_CHARS",
    "DEFAULT_MEMORY_BYTES",
    "DEFAULT_STACK_BYTES",
    "DEFAULT_TIME_BUDGET",
    "DEFAULT_TOTAL_TIME_BUDGET",
    "DEFAULT_WORKERS",
    "KEEP",
    "ConversionLimits",
    "TimeBudget",
    "WorkerSettings",
    "check_time_budget",
    "current_limits",
    "describe_size",
    "set_worker_settings",
    "use_conversion_limits",
    "worker_settings",
]

DEFAULT_MAX_PAGES = 20
"""Pages of one PDF turned into images (or text) unless the caller says otherwise."""

DEFAULT_MAX_TEXT_CHARS = 100_000
"""Characters of text one document may become before the rest is cut (about 25,000 tokens)."""

DEFAULT_MEMORY_BYTES = 1 << 30
"""Address space one worker may map (1 GiB): room for a 1568 px page bitmap and the document."""

DEFAULT_CPU_SECONDS = 60.0
"""CPU seconds one conversion may use."""

DEFAULT_TIME_BUDGET = 120.0
"""Seconds of wall time one conversion may take outside any scope; in `prepare`, the most the
automatic budget (``time_budget="auto"``) gives one block, however long its media."""

DEFAULT_TOTAL_TIME_BUDGET = 300.0
"""Seconds of wall time one `prepare` call may take for all its blocks together."""

AUTO: Literal["auto"] = "auto"
"""``time_budget="auto"`` (`prepare`'s default): each block's budget follows its kind and size
(``mediablocks.convert.budget.auto_seconds``: seconds for an SVG, per page for a PDF, by
duration for audio and video), at most `DEFAULT_TIME_BUDGET`."""

TimeBudget = float | Literal["auto"] | None
"""A block's budget as `prepare` takes it: seconds, ``None`` (none) or ``"auto"``."""

DEFAULT_WORKERS = max(1, min(4, os.cpu_count() or 1))
"""Worker processes for long jobs (audio and video) at once, by default: the CPUs, at most 4."""

DEFAULT_STACK_BYTES = 8 << 20
"""Stack of a worker (8 MiB, Linux's usual default): deep nesting ends in a crash, not a hang."""


@dataclass(frozen=True)
class ConversionLimits:
    """The resources one document or SVG conversion may use (ImageMagick's resource policy idea).

    ``memory_bytes``: address space of the worker process (``RLIMIT_AS``; default 1 GiB).
    ``cpu_seconds``: CPU time of one conversion (``RLIMIT_CPU``; default 60 s).
    ``stack_bytes``: the worker's stack (``RLIMIT_STACK``; default 8 MiB). ``None`` lifts a limit.
    ``isolate``: run converters in worker processes (default); ``False`` runs them in the
    caller's process, for trusted input only: then no limit applies and a crash is the caller's.
    ``allow_postscript``: render PostScript and EPS images with Ghostscript (default ``False``:
    they are refused). PostScript is a program; when allowed, Ghostscript runs in a worker under
    these limits with ``-dSAFER``, like ImageMagick's policy that disables its PS coders.

    These bound each worker job. `prepare` adds one budget per block on top (its
    ``time_budget``: wall and CPU seconds for everything one block costs, by kind unless given)
    and one per call (``total_time_budget``); ``docs/isolation.md`` has the table. On Windows,
    and for limits the platform does not enforce (``RLIMIT_AS`` on macOS), only the wall-time
    budgets stop a conversion.
    """

    memory_bytes: int | None = DEFAULT_MEMORY_BYTES
    cpu_seconds: float | None = DEFAULT_CPU_SECONDS
    stack_bytes: int | None = DEFAULT_STACK_BYTES
    isolate: bool = True
    allow_postscript: bool = False

    def __post_init__(self) -> None:
        check_size("ConversionLimits", "memory_bytes", self.memory_bytes, optional=True)
        check_size("ConversionLimits", "stack_bytes", self.stack_bytes, optional=True)
        if self.cpu_seconds is not None:
            check_seconds("ConversionLimits", "cpu_seconds", self.cpu_seconds)
        check_bool("ConversionLimits", "isolate", self.isolate)
        check_bool("ConversionLimits", "allow_postscript", self.allow_postscript)
        if self.memory_bytes is not None and self.memory_bytes < 64 << 20:
            raise InvalidOptionError(
                f"ConversionLimits.memory_bytes must be at least 64 MiB (a worker's interpreter "
                f"needs it), got {self.memory_bytes:,}"
            )
        if self.stack_bytes is not None and self.stack_bytes < 256 << 10:
            raise InvalidOptionError(
                f"ConversionLimits.stack_bytes must be at least 256 KiB, got {self.stack_bytes:,}"
            )

    def describe(self) -> str:
        """The limits in force, as error messages name them."""
        parts = [
            f"memory_bytes={describe_size(self.memory_bytes)}",
            f"cpu_seconds={'none' if self.cpu_seconds is None else f'{self.cpu_seconds:g}'}",
            f"stack_bytes={describe_size(self.stack_bytes)}",
        ]
        return ", ".join(parts)


def check_time_budget(owner: str, name: str, value: object, *, auto: bool = True) -> None:
    """A budget option: a finite positive number of seconds, ``None``, or (``auto``) ``"auto"``."""
    if value is None or (auto and value == AUTO and isinstance(value, str)):
        return
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number:
        choices = "a number of seconds, None" + (" or 'auto'" if auto else "")
        raise InvalidOptionError(f"{owner}.{name} must be {choices}, got {value!r}")
    check_seconds(owner, name, value)


@dataclass(frozen=True)
class WorkerSettings:
    """The worker pool of this process (`mediablocks.configure_workers` applies them).

    ``workers``: long jobs (audio and video conversions) running at once (default: the CPUs, at
    most 4). ``short_workers``: more workers kept for short jobs only (SVG, JPEG XL, PDF pages,
    document text, checks), so a small upload never waits behind slow ones (default 1): a short
    job takes any free worker, a long one at most ``workers``. ``idle_seconds``: an idle worker
    leaves after this (``None``: never; workers started by `warm_up` never do).
    ``recycle_rss_bytes``: a worker whose resident memory is over this after a job is replaced
    rather than kept idle (``None``: never). ``max_reply_bytes``: the largest reply a worker may
    send (a conversion's result); a larger one is a `ConversionLimitError`. ``jobs_per_worker``:
    then a fresh worker, whatever the old one leaked.
    """

    workers: int = DEFAULT_WORKERS
    short_workers: int = 1
    idle_seconds: float | None = 300.0
    recycle_rss_bytes: int | None = 128 << 20
    max_reply_bytes: int = 128 << 20
    jobs_per_worker: int = 500

    def __post_init__(self) -> None:
        check_size("WorkerSettings", "workers", self.workers)
        check_size("WorkerSettings", "jobs_per_worker", self.jobs_per_worker)
        check_size("WorkerSettings", "max_reply_bytes", self.max_reply_bytes)
        check_size("WorkerSettings", "recycle_rss_bytes", self.recycle_rss_bytes, optional=True)
        short = self.short_workers
        if isinstance(short, bool) or not isinstance(short, int) or short < 0:
            raise InvalidOptionError(
                f"WorkerSettings.short_workers must be an int >= 0, got {short!r}"
            )
        if self.idle_seconds is not None:
            check_seconds("WorkerSettings", "idle_seconds", self.idle_seconds)
        if self.max_reply_bytes < 1 << 20:
            raise InvalidOptionError(
                "WorkerSettings.max_reply_bytes must be at least 1 MiB, got "
                f"{self.max_reply_bytes:,}"
            )

    @property
    def capacity(self) -> int:
        """Jobs running at once at most: ``workers + short_workers``."""
        return self.workers + self.short_workers


_worker_settings = WorkerSettings()


def worker_settings() -> WorkerSettings:
    """The `WorkerSettings` the worker pool of this process runs with (`configure_workers`)."""
    return _worker_settings


def set_worker_settings(settings: WorkerSettings) -> None:
    """Record the settings `configure_workers` chose (the pool reads them from here)."""
    global _worker_settings
    _worker_settings = settings


def describe_size(value: int | None) -> str:
    if value is None:
        return "none"
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if value >= 1 << shift and value % (1 << (shift - 4)) == 0:
            return f"{value / (1 << shift):g} {unit}"
    return f"{value:,} bytes"


_DEFAULT = ConversionLimits()
_scope: ContextVar[tuple[ConversionLimits, float | None] | None] = ContextVar(
    "mediablocks_conversion_limits", default=None
)


def current_limits() -> tuple[ConversionLimits, float | None]:
    """``(limits, time_budget)`` of the current `use_conversion_limits` scope, else the defaults
    and `DEFAULT_TIME_BUDGET`."""
    return _scope.get() or (_DEFAULT, DEFAULT_TIME_BUDGET)


class Keep(enum.Enum):
    """`KEEP`: a `use_conversion_limits` argument that keeps the enclosing scope's value."""

    KEEP = "keep"


KEEP = Keep.KEEP


@contextlib.contextmanager
def use_conversion_limits(
    limits: ConversionLimits | None = None, time_budget: float | Keep | None = KEEP
) -> Iterator[ConversionLimits]:
    """Make ``limits`` and ``time_budget`` (seconds of wall time per conversion; ``None``: no
    wall-time budget) apply to every conversion inside the ``with`` block (`prepare` does this).
    ``limits=None`` and ``time_budget=KEEP`` keep the enclosing scope's (outside any scope: the
    default limits and `DEFAULT_TIME_BUDGET`)."""
    if limits is not None and not isinstance(limits, ConversionLimits):
        raise InvalidOptionError(
            f"conversion limits must be a ConversionLimits, not a {type(limits).__name__}"
        )
    if time_budget is not None and time_budget is not KEEP:
        check_seconds("use_conversion_limits", "time_budget", time_budget)
    outer_limits, outer_budget = current_limits()
    chosen = limits or outer_limits
    budget = outer_budget if isinstance(time_budget, Keep) else time_budget
    token = _scope.set((chosen, budget))
    try:
        yield chosen
    finally:
        _scope.reset(token)
