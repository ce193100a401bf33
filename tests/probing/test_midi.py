"""MIDI length from the event times and the tempo map (`mediablocks.probing.midi`)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from tests.conftest import TESTDATA


def _varint(value: int) -> bytes:
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def _midi(division: int, tracks: list[bytes], fmt: int = 1) -> bytes:
    head = b"MThd" + struct.pack(">IHHH", 6, fmt, len(tracks), division)
    return head + b"".join(b"MTrk" + struct.pack(">I", len(t)) + t for t in tracks)


def _note_track(deltas: list[int], tempo: int | None = None) -> bytes:
    body = b""
    if tempo is not None:
        body += b"\x00\xff\x51\x03" + tempo.to_bytes(3, "big")
    for delta in deltas:
        body += _varint(0) + b"\x90\x3c\x40" + _varint(delta) + b"\x3c\x00"  # running status
    return body + b"\x00\xff\x2f\x00"


def test_the_testdata_file_lasts_four_eighth_notes() -> None:
    info = mb.probe(mb.AudioBlock.from_path(TESTDATA / "audio" / "sample.mid"))
    assert info.mime_type == "audio/midi"
    assert info.duration == pytest.approx(1.0)


def test_tempo_changes_are_integrated() -> None:
    # 96 ticks a quarter; 96 ticks at 120 bpm (0.5 s), then 96 at 60 bpm (1.0 s)
    conductor = b"\x00\xff\x51\x03" + (500_000).to_bytes(3, "big")
    conductor += (
        _varint(96) + b"\xff\x51\x03" + (1_000_000).to_bytes(3, "big") + b"\x00\xff\x2f\x00"
    )
    data = _midi(96, [conductor, _note_track([192])])
    assert mb.probe_bytes(data).duration == pytest.approx(1.5)


def test_smpte_division_counts_frames() -> None:
    division = ((256 - 25) << 8) | 40  # 25 frames a second, 40 ticks a frame
    data = _midi(division, [_note_track([2000])], fmt=0)
    assert mb.probe_bytes(data).duration == pytest.approx(2.0)


@settings(max_examples=60, deadline=None)
@given(
    deltas=st.lists(st.integers(min_value=0, max_value=0x0FFFFFFF), max_size=20),
    tempo=st.integers(min_value=1, max_value=0xFFFFFF),
    division=st.integers(min_value=1, max_value=0x7FFF),
)
def test_length_is_the_sum_of_the_deltas(deltas: list[int], tempo: int, division: int) -> None:
    data = _midi(division, [_note_track(deltas, tempo)])
    expected = sum(deltas) * tempo / (division * 1_000_000)
    assert mb.probe_bytes(data).duration == pytest.approx(expected)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_after_the_header_are_read_without_crashing(tail: bytes) -> None:
    data = b"MThd\x00\x00\x00\x06\x00\x01\x00\x03\x00\x60" + tail
    try:
        info = mb.probe_bytes(data)
    except mb.DecodeError:
        return
    assert info.duration is None or info.duration >= 0


def test_a_length_field_past_the_end_reads_what_is_there() -> None:
    data = _midi(96, [_note_track([96])])[:-6] + b"\xff\xff"  # cut, claiming more
    data = data[:18] + struct.pack(">I", 0xFFFFFFF0) + data[22:]
    info = mb.probe_bytes(data)
    assert info.duration is not None
