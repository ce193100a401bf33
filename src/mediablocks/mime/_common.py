"""Shared pieces of MIME detection: the header window, the check signature, byte readers."""

from __future__ import annotations

from collections.abc import Callable

HEADER_WINDOW = 64 * 1024
"""How many leading bytes detection may look at (64 KiB).

Large enough to walk the local file headers of an Office document whose deciding entry is not
first, to step over a typical ID3v2 tag, to reach the ``moov`` box of a small faststart MP4 or the
``Tracks`` of a WebM, and to see many MPEG-TS / M2TS packets; small enough that reading it from a
file costs one system call. Sources read only this much from a file to pick a block type."""

_HEAD_SIZE = 4096
"""The leading bytes copied out as `bytes` for prefix compares and text analysis (cheap to copy)."""

_Check = Callable[[bytes, memoryview, bool], "str | None"]
"""A built-in check: (head, window, truncated) -> a MIME type or None.

``head`` is the first `_HEAD_SIZE` bytes as `bytes`; ``window`` a memoryview over the header
window; ``truncated`` is true when the data goes on past ``head``."""


# -- small readers ---------------------------------------------------------------------------------


def _u16be(buf: bytes | memoryview, pos: int) -> int:
    return (buf[pos] << 8) | buf[pos + 1]


def _u32be(buf: bytes | memoryview, pos: int) -> int:
    return (buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]


def _u16le(buf: bytes | memoryview, pos: int) -> int:
    return buf[pos] | (buf[pos + 1] << 8)


def _u32le(buf: bytes | memoryview, pos: int) -> int:
    return buf[pos] | (buf[pos + 1] << 8) | (buf[pos + 2] << 16) | (buf[pos + 3] << 24)
