"""`detect_mime` is bounded by a constant: it reads 64 KiB at most, and every walk in the window
steps over at least a byte or is capped. The densest windows each walker can be given cost
milliseconds, and bytes past the window cost nothing."""

from __future__ import annotations

import struct
import time
import zlib

import pytest

from mediablocks.mime import HEADER_WINDOW, detect_mime


def _moov_of_tiny_boxes() -> bytes:
    ftyp = struct.pack(">I4s4sI4s", 20, b"ftyp", b"isom", 0, b"isom")
    traks = struct.pack(">I4s", 16, b"trak") + struct.pack(">I4s", 8, b"mdia")
    return ftyp + struct.pack(">I4s", 1 << 30, b"moov") + traks * 8192


def _ebml_of_tiny_elements() -> bytes:
    header = b"\x1a\x45\xdf\xa3\x88\x42\x82\x84webm"
    segment = b"\x18\x53\x80\x67\x01\xff\xff\xff\xff\xff\xff\xff"
    return header + segment + b"\xec\x80" * 40_000


def _zip_of_streamed_entries() -> bytes:
    entry = b"PK\x03\x04" + struct.pack("<HHHHHIIIHH", 20, 8, 8, 0, 0, 0, 0, 0, 1, 0) + b"a"
    return (entry + b"\x00" * 900) * 80  # sizes after the data: each next entry is searched


def _ogg_of_empty_pages() -> bytes:
    page = b"OggS\x00\x02" + bytes(20) + b"\x00"
    return page * 3000


def _flv_of_empty_tags() -> bytes:
    return b"FLV\x01\x05\x00\x00\x00\x09" + bytes(4) + (b"\x08" + bytes(10) + bytes(4)) * 4000


def _mp3_of_false_syncs() -> bytes:
    return b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x00" * 30_000


def _deflated_content_types() -> bytes:
    xml = zlib.compress(b"<Types>" + b" " * 5_000_000, 9)[2:-4]
    name = b"[Content_Types].xml"
    head = struct.pack("<HHHHHIIIHH", 20, 0, 8, 0, 0, 0, len(xml), 0, len(name), 0)
    return b"PK\x03\x04" + head + name + xml


@pytest.mark.parametrize(
    "build",
    [
        _moov_of_tiny_boxes,
        _ebml_of_tiny_elements,
        _zip_of_streamed_entries,
        _ogg_of_empty_pages,
        _flv_of_empty_tags,
        _mp3_of_false_syncs,
        _deflated_content_types,
    ],
)
def test_the_densest_window_costs_milliseconds_and_more_bytes_cost_nothing(build: object) -> None:
    window = build()  # type: ignore[operator]
    start = time.process_time()
    for _ in range(10):
        found = detect_mime(window)
    spent = (time.process_time() - start) / 10
    assert spent < 0.05
    longer = window + b"\x00" * (8 * HEADER_WINDOW)
    assert detect_mime(longer) == found  # nothing past the window is read
