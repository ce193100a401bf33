"""Random access over bytes or an open file, and the bounded readers every parser uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, BinaryIO

from ..errors import DecodeError

# -- random access over bytes or an open file -------------------------------------------------


class _Data:
    """Random access to media: ``at(offset, n)`` returns at most ``n`` bytes (fewer at the end)."""

    size: int

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
_MAX_ITEMS = 1_000_000  # bound on chunks/boxes/frames walked, against hostile loops


def _boxes(d: _Data, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """ISO-BMFF boxes in ``[start, end)``: (type, payload offset, payload end)."""
    found: list[tuple[bytes, int, int]] = []
    offset = start
    while offset + 8 <= end and len(found) < 100_000:
        header = d.at(offset, 16)
        if len(header) < 8:
            break
        size, kind, skip = _u32be(header), header[4:8], 8
        if size == 1:
            size, skip = int.from_bytes(_need(header, 16)[8:16], "big"), 16
        elif size == 0:
            size = end - offset
        if size < skip:
            raise DecodeError(f"box {bytes(kind)!r} at byte {offset} has an impossible size")
        found.append((kind, offset + skip, min(offset + size, end)))
        offset += size
    return found


def _child(d: _Data, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    for box, payload, box_end in _boxes(d, start, end):
        if box == kind:
            return payload, box_end
    return None
