"""Header parsers for video containers: MP4/MOV, Matroska/WebM, AVI."""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator

from ..errors import DecodeError
from ._data import (
    _child,
    _Data,
    _Fields,
    _iter_boxes,
    _need,
    _Truncated,
    _u16be,
    _u16le,
    _u32be,
    _u32le,
)
from .audio import _riff_chunks

# -- video containers -------------------------------------------------------------------------


def _full_box_times(body: bytes) -> tuple[int, int]:
    """(timescale, duration) from an mvhd or mdhd body."""
    if body[0] == 1:
        return _u32be(body, 20), int.from_bytes(_need(body, 32)[24:32], "big")
    return _u32be(body, 12), _u32be(body, 16)


def _mp4(d: _Data) -> _Fields:
    """Duration, picture size, sample rate and channels from the ``moov`` box.

    The ``moov`` children are walked once, one at a time: each ``trak`` and ``mvex`` is read
    within its own range, and the movie header (``mvhd``) is read once, not once per ``mvex``.
    """
    moov = _child(d, 0, d.size, b"moov")
    if moov is None:
        raise DecodeError("MP4/MOV without a moov box")
    out: _Fields = {}
    scale = 0
    mehd: tuple[int, int] | None = None  # a fragmented movie's length: the first one found
    for kind, payload, end in _iter_boxes(d, moov[0], moov[1]):
        if kind == b"mvhd":
            scale, duration = _full_box_times(d.at(payload, 32))
            if scale and duration and duration not in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF):
                out["duration"] = duration / scale
        elif kind == b"mvex" and mehd is None:
            mehd = _child(d, payload, end, b"mehd")
        elif kind == b"trak":
            _mp4_track(d, payload, end, out)
    if "duration" not in out and scale and mehd is not None:
        body = d.at(mehd[0], 12)
        length = int.from_bytes(body[4:12], "big") if body[0] == 1 else _u32be(body, 4)
        if length:
            out["duration"] = length / scale
    return out


def _mp4_track(d: _Data, start: int, end: int, out: _Fields) -> None:
    mdia = _child(d, start, end, b"mdia")
    if mdia is None:
        return
    hdlr = _child(d, mdia[0], mdia[1], b"hdlr")
    handler = d.at(hdlr[0] + 8, 4) if hdlr else b""
    if handler == b"vide" and "width" not in out:
        tkhd = _child(d, start, end, b"tkhd")
        if tkhd is not None and tkhd[1] - tkhd[0] >= 84:  # version 0 is 84 bytes, version 1 96
            tail = _need(d.at(tkhd[1] - 44, 44), 44)  # the matrix ends the box before the size
            width, height = _u32be(tail, 36) >> 16, _u32be(tail, 40) >> 16
            matrix_a, matrix_b = _u32be(tail), _u32be(tail, 4)
            if width and height:
                if matrix_a == 0 and matrix_b != 0:  # turned 90 or 270 degrees
                    width, height = height, width
                out["width"], out["height"] = width, height
    elif handler == b"soun" and "sample_rate" not in out:
        mdhd = _child(d, mdia[0], mdia[1], b"mdhd")
        if mdhd is not None:
            out["sample_rate"] = _full_box_times(d.at(mdhd[0], 32))[0]
        channels = _mp4_channels(d, mdia)
        if channels:
            out["channels"] = channels


def _mp4_channels(d: _Data, mdia: tuple[int, int]) -> int | None:
    """Channels of the first audio sample entry: the esds AudioSpecificConfig, else the entry.

    ISO MP4 writers often leave the entry's channel count at its template value 2 for AAC, so the
    AAC configuration (when present and explicit) wins.
    """
    minf = _child(d, mdia[0], mdia[1], b"minf")
    stbl = _child(d, minf[0], minf[1], b"stbl") if minf else None
    stsd = _child(d, stbl[0], stbl[1], b"stsd") if stbl else None
    if stsd is None:
        return None
    entry = next(_iter_boxes(d, stsd[0] + 8, stsd[1]), None)
    if entry is None:
        return None
    _, body, end = entry
    version = _u16be(d.at(body + 8, 2))
    if version == 2:  # QuickTime sound description v2: a 32-bit count further on
        channels: int | None = _u32be(d.at(body + 40, 4))
    else:
        channels = _u16be(d.at(body + 16, 2))
    esds = _child(d, body + {0: 28, 1: 44, 2: 64}.get(version, 28), end, b"esds")
    if esds is not None:
        configured = _esds_channels(d.at(esds[0], min(esds[1] - esds[0], 256)))
        if configured:
            channels = configured
    return channels


def _descriptor(b: bytes, pos: int) -> tuple[int, int, int]:
    """(tag, payload offset, payload length) of an MPEG-4 descriptor at ``pos``."""
    tag, length, pos = _need(b, pos + 1)[pos], 0, pos + 1
    for _ in range(4):
        byte = _need(b, pos + 1)[pos]
        pos += 1
        length = (length << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return tag, pos, length


def _esds_channels(b: bytes) -> int | None:
    """Channels from the AudioSpecificConfig inside an esds box body, when it says them.

    Descriptor lengths may be written compact (one byte, as GPAC and Apple write them) or padded
    with 0x80 bytes (as ffmpeg writes them): each descriptor is read within its own length, so a
    short config at the very end of the box is never read past.
    """
    tag, pos, _ = _descriptor(b, 4)  # after the full box's version and flags
    if tag != 0x03:
        return None
    flags = _need(b, pos + 3)[pos + 2]
    pos += 3 + (2 if flags & 0x80 else 0) + (2 if flags & 0x20 else 0)
    if flags & 0x40:
        pos += 1 + _need(b, pos + 1)[pos]
    tag, pos, _ = _descriptor(b, pos)
    if tag != 0x04:
        return None
    tag, pos, length = _descriptor(b, pos + 13)
    if tag != 0x05 or length < 2:
        return None
    config = _need(b, pos + 2)[pos : pos + min(length, 6)]
    bits = int.from_bytes(config.ljust(6, b"\x00"), "big")  # 48 bits of the config
    available = 8 * len(config)
    shift = 48 - 5
    if bits >> shift == 31:  # escaped object type: 6 more bits
        shift -= 6
    shift -= 4
    if (bits >> shift) & 0xF == 15:  # explicit 24-bit sample rate
        shift -= 24
    shift -= 4
    if 48 - shift > available:
        return None  # the config ends before its channel field
    return (bits >> shift) & 0xF or None


_EBML_SEGMENT, _EBML_CLUSTER = 0x18538067, 0x1F43B675
_EBML_INFO, _EBML_TRACKS, _EBML_TRACK = 0x1549A966, 0x1654AE6B, 0xAE


def _ebml_vint(d: _Data, offset: int, strip: bool) -> tuple[int, int]:
    """(value, length) of the EBML variable-length integer at ``offset``."""
    first = d.at(offset, 1)
    if not first or first[0] == 0:
        raise _Truncated
    length = 9 - first[0].bit_length()
    raw = _need(d.at(offset, length), length)
    value = int.from_bytes(raw, "big")
    if strip:
        value &= (1 << (7 * length)) - 1
        if value == (1 << (7 * length)) - 1:
            value = -1  # unknown size
    return value, length


def _ebml_children(d: _Data, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """EBML elements in ``[start, end)``, one at a time: (id, payload offset, payload end)."""
    offset = start
    while offset < end:
        d.step()  # every element is at least 2 bytes (an id and a size)
        try:
            element, id_len = _ebml_vint(d, offset, strip=False)
            size, size_len = _ebml_vint(d, offset + id_len, strip=True)
        except _Truncated:
            return
        payload = offset + id_len + size_len
        stop = end if size < 0 else min(payload + size, end)
        yield element, payload, stop
        if element == _EBML_CLUSTER:
            return  # media data follows: Info and Tracks come before it in practice
        offset = stop


def _ebml_uint(d: _Data, start: int, end: int) -> int:
    return int.from_bytes(d.at(start, min(end - start, 8)), "big")


def _ebml_float(d: _Data, start: int, end: int) -> float | None:
    raw = d.at(start, end - start)
    if len(raw) == 4:
        return float(struct.unpack(">f", raw)[0])
    if len(raw) == 8:
        return float(struct.unpack(">d", raw)[0])
    return None


def _matroska(d: _Data) -> _Fields:
    segment = next((c for c in _ebml_children(d, 0, d.size) if c[0] == _EBML_SEGMENT), None)
    if segment is None:
        raise DecodeError("Matroska/WebM without a Segment")
    out: _Fields = {}
    scale, ticks = 1_000_000, None
    for element, start, end in _ebml_children(d, segment[1], segment[2]):
        if element == _EBML_INFO:
            for child, c_start, c_end in _ebml_children(d, start, end):
                if child == 0x2AD7B1:
                    scale = _ebml_uint(d, c_start, c_end)
                elif child == 0x4489:
                    ticks = _ebml_float(d, c_start, c_end)
        elif element == _EBML_TRACKS:
            for track, t_start, t_end in _ebml_children(d, start, end):
                if track == _EBML_TRACK:
                    _matroska_track(d, t_start, t_end, out)
    if ticks is not None and math.isfinite(ticks) and ticks > 0:
        out["duration"] = ticks * scale / 1e9
    return out


def _matroska_track(d: _Data, start: int, end: int, out: _Fields) -> None:
    codec = next(
        (d.at(s, min(e - s, 16)) for i, s, e in _ebml_children(d, start, end) if i == 0x86), b""
    )
    for element, c_start, c_end in _ebml_children(d, start, end):  # walked again, not kept
        if element == 0xE0 and "width" not in out:
            for child, v_start, v_end in _ebml_children(d, c_start, c_end):
                if child == 0xB0:
                    out["width"] = _ebml_uint(d, v_start, v_end)
                elif child == 0xBA:
                    out["height"] = _ebml_uint(d, v_start, v_end)
        elif element == 0xE1 and "sample_rate" not in out:
            for child, a_start, a_end in _ebml_children(d, c_start, c_end):
                if child == 0xB5:
                    rate = _ebml_float(d, a_start, a_end)
                    if rate is not None and math.isfinite(rate) and rate > 0:
                        out["sample_rate"] = round(rate)
                elif child == 0x9F:
                    out["channels"] = _ebml_uint(d, a_start, a_end)
            if codec == b"A_OPUS" and "sample_rate" in out:
                out["sample_rate"] = 48000  # Opus always decodes at 48 kHz


def _avi(d: _Data) -> _Fields:
    hdrl = next(
        (
            (payload + 4, payload + size)
            for kind, payload, size in _riff_chunks(d, 12, d.size)
            if kind == b"LIST" and d.at(payload, 4) == b"hdrl"
        ),
        None,
    )
    if hdrl is None:
        raise DecodeError("AVI without an hdrl list")
    chunks = _riff_chunks(d, hdrl[0], hdrl[1])
    avih = next((payload for kind, payload, _ in chunks if kind == b"avih"), None)
    chunks = _riff_chunks(d, hdrl[0], hdrl[1])  # walked again, not kept
    if avih is None:
        raise DecodeError("AVI without an avih header")
    header = _need(d.at(avih, 40), 40)
    per_frame, frames = _u32le(header), _u32le(header, 16)
    out: _Fields = {"width": _u32le(header, 32), "height": _u32le(header, 36)}
    if per_frame and frames:
        out["duration"] = frames * per_frame / 1e6
    for kind, payload, size in chunks:
        if kind == b"LIST" and d.at(payload, 4) == b"strl":
            _avi_audio(d, payload + 4, payload + size, out)
    return out


def _avi_audio(d: _Data, start: int, end: int, out: _Fields) -> None:
    """Sample rate and channels of the first audio stream (its strf WAVEFORMATEX)."""
    if "sample_rate" in out:
        return
    chunks: dict[bytes, int] = {}  # the first strh and strf
    for kind, payload, _ in _riff_chunks(d, start, end):
        if kind in (b"strh", b"strf") and kind not in chunks:
            chunks[kind] = payload
        if len(chunks) == 2:
            break
    if b"strh" not in chunks or b"strf" not in chunks:
        return
    if d.at(chunks[b"strh"], 4) == b"auds":
        fmt = _need(d.at(chunks[b"strf"], 8), 8)
        out["channels"], out["sample_rate"] = _u16le(fmt, 2), _u32le(fmt, 4)
