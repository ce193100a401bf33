"""What the audio and video converters share: importing PyAV, opening input (whole bytes, or a
`Window` of them), a deadline, and turning every PyAV failure into a `DecodeError` naming the
block."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
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


READ_SIZE = 32 << 10
"""The bytes FFmpeg asks for at a time from input in memory (`opened`'s ``buffer_size``, PyAV's
default): it reads a `Window` in steps of this size, so one best ends on a multiple of it."""


@dataclass(frozen=True)
class Window:
    """The start and the end of a file of ``size`` bytes, without its middle: what a check that
    reads only the headers and the first packets needs (a container's header at the start, an
    MP4 index or an Ogg's last page at the end), shipped to a worker instead of the whole file.

    A read that reaches into the missing middle is recorded (`WindowReader.missed`) and sees
    the end of the file; whoever ran the job then runs it again over the whole file, so the
    outcome is always the one the whole file gives."""

    head: bytes
    tail: bytes
    size: int

    @classmethod
    def of(cls, data: bytes, head: int, tail: int) -> Window:
        """``data``'s first ``head`` and last ``tail`` bytes."""
        return cls(data[:head], data[max(head, len(data) - tail) :], len(data))


class WindowReader(io.RawIOBase):
    """A read-only, seekable file over a `Window`; a read reaching outside it sees the end of
    the file and is remembered (`missed_at`: where the first one started)."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.position = 0
        self.missed_at: int | None = None
        self.tail_start = window.size - len(window.tail)

    @property
    def missed(self) -> bool:
        return self.missed_at is not None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.position, os.SEEK_END: self.window.size}
        self.position = max(0, base[whence] + offset)
        return self.position

    def read(self, size: int | None = -1) -> bytes:
        window, start = self.window, self.position
        end = window.size if size is None or size < 0 else min(window.size, start + size)
        if start >= end:
            return b""
        head = len(window.head)
        if end <= head:
            chunk = window.head[start:end]
        elif start >= self.tail_start:
            chunk = window.tail[start - self.tail_start : end - self.tail_start]
        elif self.tail_start <= head:  # no middle: the tail goes on where the head ends
            rest = window.tail[head - self.tail_start : end - self.tail_start]
            chunk = window.head[start:] + rest
        else:  # the middle (or across its edge) was not shipped
            chunk = window.head[start:] if start < head else b""
            if self.missed_at is None:
                self.missed_at = start + len(chunk)
        self.position += len(chunk)
        return chunk

    def readinto(self, buffer: Any) -> int:
        chunk = self.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


Input = bytes | Window
"""What a converter or check may be given: the whole file, or a `Window` of it."""


class OutsideWindow(Exception):
    """Internal: a job over a `Window` read outside it, from ``offset`` on; its outcome says
    nothing, so it is run again over a larger window or the whole file."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


def open_input(data: bytes, what: str) -> Any:
    """A PyAV input container over bytes in memory (no copy)."""
    av = import_av(what)
    with decoding(what):
        return av.open(io.BytesIO(data), mode="r", metadata_errors="ignore")


@contextmanager
def opened(
    data: Input,
    what: str,
    *,
    format: str | None = None,
    options: Mapping[str, str] | None = None,
    buffer_size: int = READ_SIZE,
) -> Iterator[Any]:
    """The input container over ``data`` (whole bytes or a `Window`), closed after; PyAV's
    failures inside become `DecodeError` (`decoding`). Over a `Window`, a read outside it
    turns any outcome, success or error, into `OutsideWindow`. ``format`` names the demuxer
    (no probing), ``options`` are the container's (``probesize``...), ``buffer_size`` the bytes
    FFmpeg asks for at a time (PyAV's default: 32 KiB)."""
    av = import_av(what)
    reader = WindowReader(data) if isinstance(data, Window) else None
    source: Any = io.BytesIO(data) if isinstance(data, bytes) else reader
    try:
        with (
            decoding(what),
            av.open(
                source,
                mode="r",
                format=format,
                container_options=dict(options or {}),
                buffer_size=buffer_size,
                metadata_errors="ignore",
            ) as container,
        ):
            yield container
    except Exception:
        if reader is not None and reader.missed_at is not None:
            raise OutsideWindow(reader.missed_at) from None
        raise
    if reader is not None and reader.missed_at is not None:
        raise OutsideWindow(reader.missed_at)


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
