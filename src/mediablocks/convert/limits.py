"""`ConversionLimits`: the resources one conversion in a worker process may use, and the scope
(`use_conversion_limits`) through which `prepare` hands them to every converter it calls.

Kept apart from `mediablocks.convert.isolation` (the worker pool) so that ``import mediablocks``
loads only this small module; the pool and `subprocess` load with the first conversion.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from .._checks import check_bool, check_seconds, check_size
from ..errors import InvalidOptionError

__all__ = [
    "DEFAULT_CPU_SECONDS",
    "DEFAULT_MEMORY_BYTES",
    "DEFAULT_STACK_BYTES",
    "DEFAULT_TIME_BUDGET",
    "KEEP",
    "ConversionLimits",
    "current_limits",
    "describe_size",
    "use_conversion_limits",
]

DEFAULT_MEMORY_BYTES = 1 << 30
"""Address space one worker may map (1 GiB): room for a 1568 px page bitmap and the document."""

DEFAULT_CPU_SECONDS = 60.0
"""CPU seconds one conversion may use."""

DEFAULT_TIME_BUDGET = 120.0
"""Seconds of wall time one conversion may take outside any scope (`prepare`'s default too)."""

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

    The wall-time budget of a conversion is `prepare`'s ``time_budget`` (default 120 s). On
    Windows, and for limits the platform does not enforce (``RLIMIT_AS`` on macOS), only the
    wall-time budget stops a conversion.
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
