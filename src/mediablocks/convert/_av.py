"""What the audio and video converters share: importing PyAV, opening input, a deadline, and
turning every PyAV failure into a `DecodeError` naming the block."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from ..errors import DecodeError, DoesNotFitError, MediaBlocksError
from . import AV_EXTRA_HINT


def import_av(what: str) -> ModuleType:
    """The ``av`` module, or `DoesNotFitError` saying which extra installs it."""
    try:
        import av
    except ImportError:
        raise DoesNotFitError(
            f"{what}: converting audio and video needs PyAV: {AV_EXTRA_HINT}"
        ) from None
    return av


@contextmanager
def decoding(what: str) -> Iterator[None]:
    """Run PyAV code; any exception but ours becomes a `DecodeError` naming ``what``."""
    try:
        yield
    except MediaBlocksError:
        raise
    except MemoryError:
        raise DecodeError(f"{what}: ran out of memory decoding it") from None
    except Exception as exc:  # PyAV raises FFmpegError, ValueError, IndexError, EOFError...
        detail = getattr(exc, "strerror", None) or str(exc).strip() or type(exc).__name__
        raise DecodeError(f"{what}: cannot be decoded: {detail}") from None


def open_input(data: bytes, what: str) -> Any:
    """A PyAV input container over bytes in memory (no copy)."""
    av = import_av(what)
    with decoding(what):
        return av.open(io.BytesIO(data), mode="r", metadata_errors="ignore")


class Deadline:
    """A wall-time budget for one conversion; `check` raises `DoesNotFitError` once it is spent."""

    def __init__(self, seconds: float | None, what: str) -> None:
        self.seconds = seconds
        self.what = what
        self.end = None if seconds is None else time.monotonic() + seconds

    def check(self) -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise DoesNotFitError(
                f"{self.what}: converting it took longer than the {self.seconds:g} s budget"
            )


def clock(seconds: float) -> str:
    """``75.25`` as ``1:15.2``: how offsets and timestamps are written for the model."""
    minutes, rest = divmod(max(seconds, 0.0), 60.0)
    hours, minutes = divmod(int(minutes), 60)
    if hours:
        return f"{hours}:{minutes:02d}:{rest:04.1f}"
    return f"{minutes}:{rest:04.1f}"
