"""Random access over bytes or an open file, and the bounded readers every parser uses.

Every walker (boxes, chunks, elements, frames, pages, IFDs) takes one `_Data.step` per item it
steps over, so one probe is bounded twice: by `PROBE_STEPS` items (each item is at least one
byte of input, so the walk is linear in the input) and by `PROBE_SECONDS` of wall time (a
backstop, checked every few hundred steps). Past either, the probe raises `DecodeError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..errors import DecodeError

PROBE_STEPS = 1_000_000
"""Items (boxes, chunks, elements, frames, IFDs, pages) one probe may step over in all."""

PROBE_SECONDS = 5.0
"""Wall-clock seconds one probe may take before it gives up (checked between steps)."""

_CHECK_EVERY = 256  # steps between two looks at the clock

# -- random access over bytes or an open file -------------------------------------------------


class _Data:
    """Random access to media: ``at(offset, n)`` returns at most ``n`` bytes (fewer at the end).

    It also carries the walk budget of the probe reading it (`step`).
    """

    size: int
    steps: int = 0
    _next_check: int = _CHECK_EVERY
    _deadline: float = float("inf")

    def start_walk(self) -> None:
        """Begin a probe: the step count from zero, the deadline `PROBE_SECONDS` from now."""
        self.steps = 0
        self._next_check = _CHECK_EVERY
        self._deadline = time.monotonic() + PROBE_SECONDS

    def step(self, count: int = 1) -> None:
        """Count ``count`` items walked; `DecodeError` past `PROBE_STEPS` or the deadline."""
        self.steps += count
        if self.steps < self._next_check:
            return
        if self.steps > PROBE_STEPS:
            raise DecodeError(
                f"more than {PROBE_STEPS:,} boxes, chunks or frames to walk: not a header this "
                "probe reads"
            )
        self._next_check = self.steps + _CHECK_EVERY
        if time.monotonic() > self._deadline:
            raise DecodeError(f"reading the header took more than {PROBE_SECONDS:g} s")

    def at(self, offset: int, n: int) -> bytes:
        raise NotImplementedError

    def whole(self) -> bytes | memoryview:
        raise NotImplementedError


class _BufferData(_Data):
    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.view = memoryview(data).cast("B") if isinstance(data, memoryview) else memoryview(data)
        self.size = len(self.view)

    def at(self, offset: int, n: int) -> bytes:
        if offset < 0 or n <= 0 or offset >= self.size:
            return b""
        return bytes(self.view[offset : offset + n])

    def whole(self) -> bytes | memoryview:
        return self.view


class _FileData(_Data):
    def __init__(self, handle: BinaryIO, size: int, whole: Callable[[], bytes]) -> None:
        self.handle = handle
        self.size = size
        self._whole = whole

    def at(self, offset: int, n: int) -> bytes:
        if offset < 0 or n <= 0 or offset >= self.size:
            return b""
        self.handle.seek(offset)
        # Never more than the file holds: read(n) allocates n bytes first, and n may come from
        # a hostile header.
        return self.handle.read(min(n, self.size - offset))

    def whole(self) -> bytes | memoryview:
        return self._whole()


class _RangeData(_Data):
    """Random access through a range reader (base64 text decoded only where it is read)."""

    def __init__(
        self, size: int, read_range: Callable[[int, int], bytes], whole: Callable[[], bytes]
    ) -> None:
        self.size = size
        self._read_range = read_range
        self._whole = whole

    def at(self, offset: int, n: int) -> bytes:
        if offset < 0 or n <= 0 or offset >= self.size:
            return b""
        return self._read_range(offset, min(n, self.size - offset))

    def whole(self) -> bytes | memoryview:
        return self._whole()


class _Truncated(Exception):
    """Internal: a structure ran past the end of the data."""


def _need(data: bytes, n: int) -> bytes:
    if len(data) < n:
        raise _Truncated
    return data


def _u16be(b: bytes, o: int = 0) -> int:
    return int.from_bytes(_need(b, o + 2)[o : o + 2], "big")


def _u32be(b: bytes, o: int = 0) -> int:
    return int.from_bytes(_need(b, o + 4)[o : o + 4], "big")


def _u24be(b: bytes, o: int = 0) -> int:
    return int.from_bytes(_need(b, o + 3)[o : o + 3], "big")


def _u16le(b: bytes, o: int = 0) -> int:
    return int.from_bytes(_need(b, o + 2)[o : o + 2], "little")


def _u24le(b: bytes, o: int = 0) -> int:
    return int.from_bytes(_need(b, o + 3)[o : o + 3], "little")


def _u32le(b: bytes, o: int = 0) -> int:
    return int.from_bytes(_need(b, o + 4)[o : o + 4], "little")


_Fields = dict[str, Any]
_MAX_ITEMS = PROBE_STEPS  # an upper bound for loops that also step: never the one reached first


def _iter_boxes(d: _Data, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """ISO-BMFF boxes in ``[start, end)``, one step each: (type, payload offset, payload end).

    Every box is at least 8 bytes, so a walk reads at most ``(end - start) / 8`` headers; it
    holds one at a time (a list of a hostile file's boxes would take 50 times its size).
    """
    offset = start
    while offset + 8 <= end:
        d.step()
        header = d.at(offset, 16)
        if len(header) < 8:
            return
        size, kind, skip = _u32be(header), header[4:8], 8
        if size == 1:
            size, skip = int.from_bytes(_need(header, 16)[8:16], "big"), 16
        elif size == 0:
            size = end - offset
        if size < skip:
            raise DecodeError(f"box {bytes(kind)!r} at byte {offset} has an impossible size")
        yield kind, offset + skip, min(offset + size, end)
        offset += size


def _child(d: _Data, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    """The first box of type ``kind`` in ``[start, end)``; the walk stops there."""
    for box, payload, box_end in _iter_boxes(d, start, end):
        if box == kind:
            return payload, box_end
    return None
