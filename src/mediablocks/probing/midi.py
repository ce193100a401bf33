"""Standard MIDI files: their length in seconds, from the event times and the tempo map.

A MIDI file holds notes, not sound, so no audio decoder measures it; its length is the last
event's time. Each track is read once, event by event (a delta time, then a channel, meta or
system-exclusive event), so the work is linear in the file's size; a length field never makes
the reader allocate more than the file holds.
"""

from __future__ import annotations

from ._data import _Data, _Fields

__all__ = ["_midi"]

_DEFAULT_TEMPO = 500_000  # microseconds per quarter note (120 beats a minute)
_MAX_TRACKS = 65_535
_EVENTS_PER_STEP = 256


def _midi(d: _Data) -> _Fields:
    """``duration`` of a Standard MIDI File (empty when its header is not one)."""
    head = d.at(0, 14)
    if len(head) < 14 or head[:4] != b"MThd":
        return {}
    header_length = int.from_bytes(head[4:8], "big")
    tracks = int.from_bytes(head[10:12], "big")
    division = int.from_bytes(head[12:14], "big")
    if header_length < 6 or division == 0:
        return {}
    offset = 8 + header_length
    tempos: list[tuple[int, int]] = []
    end_tick = 0
    for _ in range(min(tracks, _MAX_TRACKS)):
        chunk = d.at(offset, 8)
        if len(chunk) < 8:
            break
        length = int.from_bytes(chunk[4:8], "big")
        d.step()  # a chunk is at least 8 bytes
        body = d.at(offset + 8, length)
        offset += 8 + length
        if chunk[:4] != b"MTrk":
            continue  # an unknown chunk is skipped, as the format says
        end_tick = max(end_tick, _track(d, body, tempos))
    if division & 0x8000:  # SMPTE: frames a second and ticks a frame, no tempo
        frames = 256 - (division >> 8)
        ticks = division & 0xFF
        seconds = end_tick / (frames * ticks) if frames and ticks else None
    else:
        seconds = _seconds(end_tick, division, tempos)
    return {} if seconds is None else {"duration": seconds}


def _track(d: _Data, body: bytes, tempos: list[tuple[int, int]]) -> int:
    """Walk one track's events; collect its tempo changes; return its last tick. Every event
    takes at least one byte (its delta time), and events are counted against the probe's
    steps and deadline a batch at a time."""
    position, tick, status, events = 0, 0, 0, 0
    size = len(body)
    while position < size:
        events += 1
        if events % _EVENTS_PER_STEP == 0:
            d.step(_EVENTS_PER_STEP)
        delta, position = _varint(body, position)
        tick += delta
        if position >= size:
            break
        byte = body[position]
        if byte & 0x80:
            status = byte
            position += 1
        elif not status & 0x80:
            break  # data with no running status: the track is broken here
        if status == 0xFF:  # meta event: type, length, data
            if position >= size:
                break
            kind = body[position]
            length, position = _varint(body, position + 1)
            if kind == 0x51 and length == 3 and position + 3 <= size:
                tempos.append((tick, int.from_bytes(body[position : position + 3], "big")))
            position += length
            if kind == 0x2F:  # end of track
                break
            status = 0
        elif status in (0xF0, 0xF7):  # system exclusive: length, data
            length, position = _varint(body, position)
            position += length
            status = 0
        else:
            position += 1 if status & 0xF0 in (0xC0, 0xD0) else 2
    return tick


def _varint(body: bytes, position: int) -> tuple[int, int]:
    """A MIDI variable-length number (at most four bytes) and the position after it."""
    value = 0
    for _ in range(4):
        if position >= len(body):
            return value, position
        byte = body[position]
        position += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value, position


def _seconds(end_tick: int, division: int, tempos: list[tuple[int, int]]) -> float:
    """Seconds to ``end_tick`` with ``division`` ticks a quarter note under the tempo map."""
    seconds, tick, tempo = 0.0, 0, _DEFAULT_TEMPO
    for at, value in sorted(tempos):
        if at >= end_tick:
            break
        seconds += (at - tick) * tempo / (division * 1_000_000)
        tick, tempo = at, value or _DEFAULT_TEMPO
    return seconds + (end_tick - tick) * tempo / (division * 1_000_000)
