"""Media facts from headers: image size and frames, audio/video duration, PDF page count.

`probe` and `probe_bytes` parse container headers themselves (no ffprobe, no pixel decoding), so
they are fast and safe on hostile input. What a header does not say is ``None``, never a guess.

Rules (see ``docs/probe.md``):

* Image ``width``/``height`` are the *display* size: a JPEG whose EXIF orientation is 5-8 (or a
  HEIF/AVIF with a 90/270 degree ``irot``, or an MP4 track whose matrix turns 90 degrees) has its
  stored width and height swapped.
* Damaged input never leaks ``IndexError``/``struct.error``: a header that is truncated or
  contradicts itself where the basic facts should be raises `DecodeError` naming the block; a fact
  that is simply absent (an MP3 without a bitrate, a live WebM without a duration) is ``None``.
* A path is read by random access: box, chunk and page headers, and the file's tail for Ogg and
  ``moov``-at-the-end MP4; only PDFs are read whole (their page tree can be anywhere).
"""

from __future__ import annotations

import io
import math
import os
import re
import struct
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import DecodeError, SourceError
from .mime import detect_mime, normalize_mime
from .policy import FetchPolicy
from .sources import PathSource

if TYPE_CHECKING:
    from .media import MediaBlock

__all__ = ["MediaInfo", "probe", "probe_bytes"]


@dataclass(frozen=True)
class MediaInfo:
    """What the headers say about a piece of media; ``None`` where they say nothing.

    ``width``/``height`` are display dimensions (EXIF/irot/track rotation applied). ``frames`` is
    the number of animation frames of an image (1 for a still image). ``duration`` is in seconds
    (audio, video, and animated images whose frame delays are known). ``pages`` is a PDF's count.
    """

    mime_type: str
    width: int | None = None
    height: int | None = None
    frames: int | None = None
    duration: float | None = None
    sample_rate: int | None = None
    channels: int | None = None
    pages: int | None = None


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
    def __init__(self, handle: io.BufferedReader, size: int, whole: Callable[[], bytes]) -> None:
        self.handle = handle
        self.size = size
        self._whole = whole

    def at(self, offset: int, n: int) -> bytes:
        if offset < 0 or n <= 0 or offset >= self.size:
            return b""
        self.handle.seek(offset)
        return self.handle.read(n)

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


# -- format sniffing ------------------------------------------------------------------------------

_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis", b"hevc"}


def _sniff(d: _Data) -> str | None:
    head = d.at(0, 64)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:4] in (b"RIFF", b"RF64", b"BW64") and head[8:12] == b"WAVE":
        return "wav"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi"
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "aiff"
    if head[:4] == b"fLaC":
        return "flac"
    if head[:4] == b".snd":
        return "au"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "matroska"
    if head[:5] == b"%PDF-" or b"%PDF-" in d.at(0, 1024):
        return "pdf"
    if head[4:8] == b"ftyp":
        brands = {head[8:12]} | {head[i : i + 4] for i in range(16, min(len(head), 64), 4)}
        major = head[8:12]
        if major in _HEIF_BRANDS or (b"mif1" in brands and b"isom" not in brands):
            return "heif"
        return "mp4"
    if head[4:8] in (b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"):
        return "mp4"
    if head[:3] == b"ID3":
        after = _id3_end(d)
        head = d.at(after, 4)
        if head == b"fLaC":
            return "flac"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0:
        return "adts"
    if head[:3] == b"ID3" or (len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "mpeg-audio"
    return None


_FORMAT_MIME = {
    "png": "image/png",
    "gif": "image/gif",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "heif": "image/heic",
    "wav": "audio/wav",
    "avi": "video/x-msvideo",
    "aiff": "audio/aiff",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "matroska": "video/x-matroska",
    "pdf": "application/pdf",
    "mp4": "video/mp4",
    "mpeg-audio": "audio/mpeg",
    "adts": "audio/aac",
    "au": "audio/basic",
}


# -- images -----------------------------------------------------------------------------------


def _png(d: _Data) -> _Fields:
    ihdr = d.at(8, 25)
    if ihdr[4:8] != b"IHDR":
        raise DecodeError("PNG without an IHDR chunk")
    out: _Fields = {"width": _u32be(ihdr, 8), "height": _u32be(ihdr, 12), "frames": 1}
    offset, delays, animated = 8, 0.0, False
    for _ in range(_MAX_ITEMS):
        header = d.at(offset, 34)
        if len(header) < 8:
            break
        length, kind = _u32be(header), header[4:8]
        if kind == b"acTL":
            out["frames"] = _u32be(header, 8)
            animated = True
        elif kind == b"fcTL" and animated:
            num, den = _u16be(header, 28), _u16be(header, 30)
            delays += num / (den or 100)
        elif kind == b"IEND" or (kind == b"IDAT" and not animated):
            break
        offset += 12 + length
    if animated:
        out["duration"] = delays
    return out


def _gif(d: _Data) -> _Fields:
    head = _need(d.at(0, 13), 13)
    width, height, flags = _u16le(head, 6), _u16le(head, 8), head[10]
    offset = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    frames, delay, complete = 0, 0, False

    def skip_sub_blocks(pos: int) -> int:
        for _ in range(d.size + 1):
            length = d.at(pos, 1)
            if not length:
                raise _Truncated
            pos += 1 + length[0]
            if length[0] == 0:
                return pos
        raise _Truncated

    try:
        for _ in range(_MAX_ITEMS):
            marker = d.at(offset, 1)
            if marker == b"\x2c":
                desc = _need(d.at(offset, 10), 10)
                offset += 10 + (3 * 2 ** ((desc[9] & 7) + 1) if desc[9] & 0x80 else 0)
                offset = skip_sub_blocks(offset + 1)
                frames += 1
            elif marker == b"\x21":
                ext = _need(d.at(offset, 8), 2)
                if ext[1] == 0xF9 and len(ext) >= 8:
                    delay += _u16le(ext, 4)
                offset = skip_sub_blocks(offset + 2)
            elif marker == b"\x3b" or marker == b"":
                complete = True
                break
            else:
                break
    except _Truncated:
        pass
    if not complete:
        return {"width": width, "height": height}
    return {
        "width": width,
        "height": height,
        "frames": frames,
        "duration": delay / 100 if frames > 1 else None,
    }


def _webp(d: _Data) -> _Fields:
    chunk = d.at(12, 30)
    kind, payload = chunk[:4], chunk[8:]
    if kind == b"VP8 ":
        if payload[3:6] != b"\x9d\x01\x2a":
            raise DecodeError("WebP VP8 frame without its start code")
        return {
            "width": _u16le(payload, 6) & 0x3FFF,
            "height": _u16le(payload, 8) & 0x3FFF,
            "frames": 1,
        }
    if kind == b"VP8L":
        bits = _u32le(payload, 1)
        return {"width": (bits & 0x3FFF) + 1, "height": ((bits >> 14) & 0x3FFF) + 1, "frames": 1}
    if kind != b"VP8X":
        raise DecodeError(f"WebP with an unknown first chunk {bytes(kind)!r}")
    out: _Fields = {"width": _u24le(payload, 4) + 1, "height": _u24le(payload, 7) + 1}
    if not _need(payload, 1)[0] & 0x02:
        out["frames"] = 1
        return out
    offset, frames, duration = 12, 0, 0
    end = min(d.size, 8 + _u32le(d.at(4, 4)))
    for _ in range(_MAX_ITEMS):
        header = d.at(offset, 24)
        if len(header) < 8 or offset >= end:
            break
        if header[:4] == b"ANMF":
            frames += 1
            duration += _u24le(header, 20)
        offset += 8 + _u32le(header, 4) + (_u32le(header, 4) & 1)
    out["frames"] = frames
    out["duration"] = duration / 1000
    return out


def _exif_orientation(tiff: bytes) -> int | None:
    order = tiff[:2]
    if order not in (b"II", b"MM"):
        return None
    endian: Literal["little", "big"] = "little" if order == b"II" else "big"
    ifd = int.from_bytes(_need(tiff, 8)[4:8], endian)
    count = int.from_bytes(_need(tiff, ifd + 2)[ifd : ifd + 2], endian)
    for i in range(min(count, 1000)):
        entry = tiff[ifd + 2 + 12 * i : ifd + 14 + 12 * i]
        if len(entry) < 12:
            return None
        if int.from_bytes(entry[:2], endian) == 0x0112:
            return int.from_bytes(entry[8:10], endian)
    return None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(d: _Data) -> _Fields:
    offset, orientation = 2, None
    for _ in range(_MAX_ITEMS):
        header = d.at(offset, 4)
        if len(header) < 2:
            raise _Truncated
        if header[0] != 0xFF:
            raise DecodeError(f"JPEG marker expected at byte {offset}")
        marker = header[1]
        if marker == 0xFF:  # fill byte
            offset += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            offset += 2
            continue
        length = _u16be(header, 2)
        if marker in _SOF:
            sof = _need(d.at(offset + 4, 5), 5)
            height, width = _u16be(sof, 1), _u16be(sof, 3)
            if height == 0 or width == 0:
                return {"frames": 1}  # height given later by a DNL marker: not read here
            if orientation in (5, 6, 7, 8):
                width, height = height, width
            return {"width": width, "height": height, "frames": 1}
        if marker == 0xE1 and orientation is None:
            app1 = d.at(offset + 4, length - 2)
            if app1.startswith(b"Exif\0\0"):
                try:
                    orientation = _exif_orientation(app1[6:])
                except _Truncated:
                    orientation = None
        if marker in (0xDA, 0xD9):
            break
        offset += 2 + length
    raise DecodeError("JPEG without a frame header (SOF) before the image data")


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


def _heif(d: _Data) -> _Fields:
    moov = _child(d, 0, d.size, b"moov")
    if moov is not None:  # an image sequence (avis, msf1): frames and timing from its track
        return _image_sequence(d, moov)
    meta = _child(d, 0, d.size, b"meta")
    if meta is None:
        return {}
    start, end = meta[0] + 4, meta[1]  # meta is a full box: version and flags first
    primary = None
    pitm = _child(d, start, end, b"pitm")
    if pitm is not None:
        body = d.at(pitm[0], 8)
        primary = _u16be(body, 4) if body[0] == 0 else _u32be(body, 4)
    iprp = _child(d, start, end, b"iprp")
    if iprp is None:
        return {}
    ipco = _child(d, iprp[0], iprp[1], b"ipco")
    if ipco is None:
        return {}
    props = _boxes(d, ipco[0], ipco[1])
    chosen: list[int] = []
    ipma = _child(d, iprp[0], iprp[1], b"ipma")
    if ipma is not None and primary is not None:
        body = d.at(ipma[0], min(ipma[1] - ipma[0], 1 << 20))
        version, flags = body[0], _u32be(body) & 0xFFFFFF
        pos, count = 8, _u32be(body, 4)
        for _ in range(min(count, 100_000)):
            item = _u16be(body, pos) if version < 1 else _u32be(body, pos)
            pos += 2 if version < 1 else 4
            n = _need(body, pos + 1)[pos]
            pos += 1
            indices = []
            for _ in range(n):
                if flags & 1:
                    indices.append(_u16be(body, pos) & 0x7FFF)
                    pos += 2
                else:
                    indices.append(_need(body, pos + 1)[pos] & 0x7F)
                    pos += 1
            if item == primary:
                chosen = [i - 1 for i in indices if 0 < i <= len(props)]
                break
    if not chosen:
        return {}  # no association for the primary item: do not guess among the ispe boxes
    out: _Fields = {"frames": 1}
    turned = False
    for index in chosen:
        kind, payload, _ = props[index]
        if kind == b"ispe":
            body = d.at(payload, 12)
            out["width"], out["height"] = _u32be(body, 4), _u32be(body, 8)
        elif kind == b"clap":  # the clean aperture: the coded size cropped to what is shown
            body = _need(d.at(payload, 16), 16)
            width_n, width_d, height_n, height_d = (_u32be(body, i) for i in (0, 4, 8, 12))
            if width_d and height_d and width_n and height_n:
                out["width"], out["height"] = width_n // width_d, height_n // height_d
        elif kind == b"irot":
            turned = bool(_need(d.at(payload, 1), 1)[0] & 1)
    if turned and "width" in out:
        out["width"], out["height"] = out["height"], out["width"]
    return out


def _image_sequence(d: _Data, moov: tuple[int, int]) -> _Fields:
    out = _mp4(d)
    for kind, payload, end in _boxes(d, moov[0], moov[1]):
        mdia = _child(d, payload, end, b"mdia") if kind == b"trak" else None
        hdlr = _child(d, mdia[0], mdia[1], b"hdlr") if mdia else None
        if mdia is None or hdlr is None or d.at(hdlr[0] + 8, 4) not in (b"pict", b"vide"):
            continue
        if "width" not in out:  # a pict track: its size is in the tkhd too
            tkhd = _child(d, payload, end, b"tkhd")
            if tkhd is not None and tkhd[1] - tkhd[0] >= 84:
                tail = _need(d.at(tkhd[1] - 44, 44), 44)  # ... matrix, width, height
                out["width"], out["height"] = _u32be(tail, 36) >> 16, _u32be(tail, 40) >> 16
        minf = _child(d, mdia[0], mdia[1], b"minf")
        stbl = _child(d, minf[0], minf[1], b"stbl") if minf else None
        stsz = _child(d, stbl[0], stbl[1], b"stsz") if stbl else None
        stz2 = _child(d, stbl[0], stbl[1], b"stz2") if stbl and not stsz else None
        if stsz or stz2:
            out["frames"] = _u32be(d.at((stsz or stz2 or (0, 0))[0] + 8, 4))
        break
    return {k: v for k, v in out.items() if k in ("width", "height", "frames", "duration")}


# -- audio ------------------------------------------------------------------------------------


def _riff_chunks(
    d: _Data, start: int, end: int, *, big_endian: bool = False
) -> list[tuple[bytes, int, int]]:
    """RIFF chunks in ``[start, end)``: (id, payload offset, declared payload size).

    ``big_endian`` reads the sizes the way IFF/AIFF writes them; the layout is the same.
    """
    size_of = _u32be if big_endian else _u32le
    found: list[tuple[bytes, int, int]] = []
    offset = start
    while offset + 8 <= end and len(found) < 100_000:
        header = d.at(offset, 8)
        if len(header) < 8:
            break
        size = size_of(header, 4)
        found.append((header[:4], offset + 8, size))
        offset += 8 + size + (size & 1)
    return found


def _wav(d: _Data) -> _Fields:
    out: _Fields = {}
    fmt_tag, byte_rate, data_size, fact_samples, big_size = 0, 0, None, None, None
    for kind, payload, size in _riff_chunks(d, 12, d.size):
        if kind == b"ds64":
            big_size = int.from_bytes(_need(d.at(payload + 8, 8), 8), "little")
        elif kind == b"fmt ":
            fmt = _need(d.at(payload, 40), 16)
            fmt_tag = _u16le(fmt)
            out["channels"], out["sample_rate"] = _u16le(fmt, 2), _u32le(fmt, 4)
            byte_rate = _u32le(fmt, 8)
            if fmt_tag == 0xFFFE and len(fmt) >= 26:
                fmt_tag = _u16le(fmt, 24)  # WAVE_FORMAT_EXTENSIBLE: the sub-format GUID
        elif kind == b"fact":
            fact_samples = _u32le(d.at(payload, 4))
        elif kind == b"data":
            declared = big_size if size == 0xFFFFFFFF and big_size is not None else size
            data_size = min(declared, d.size - payload)
            break
    if "sample_rate" not in out:
        raise DecodeError("WAV without a fmt chunk before its data")
    if fmt_tag in (1, 3) and byte_rate and data_size is not None:
        out["duration"] = data_size / byte_rate
    elif fact_samples is not None and out["sample_rate"]:
        out["duration"] = fact_samples / out["sample_rate"]
    elif byte_rate and data_size is not None:
        out["duration"] = data_size / byte_rate  # average byte rate of a compressed format
    return out


def _extended80(b: bytes) -> float:
    exponent = _u16be(b) & 0x7FFF
    mantissa = int.from_bytes(_need(b, 10)[2:10], "big")
    if exponent == 0 and mantissa == 0:
        return 0.0
    return float(mantissa * 2.0 ** (exponent - 16383 - 63))


def _aiff(d: _Data) -> _Fields:
    for kind, payload, _size in _riff_chunks(d, 12, d.size, big_endian=True):
        if kind == b"COMM":
            comm = _need(d.at(payload, 18), 18)
            channels, frames = _u16be(comm), _u32be(comm, 2)
            rate = _extended80(comm[8:18])
            out: _Fields = {"channels": channels, "sample_rate": round(rate)}
            if rate > 0:
                out["duration"] = frames / rate
            return out
    raise DecodeError("AIFF without a COMM chunk")


_AU_SAMPLE_BYTES = {1: 1, 2: 1, 3: 2, 4: 3, 5: 4, 6: 4, 7: 8, 27: 1}


def _au(d: _Data) -> _Fields:
    """Sun/NeXT .au: data offset, size, encoding, rate and channels in a 24-byte header."""
    head = _need(d.at(0, 24), 24)
    offset, size, encoding, rate, channels = (_u32be(head, i) for i in (4, 8, 12, 16, 20))
    out: _Fields = {"sample_rate": rate, "channels": channels}
    width = _AU_SAMPLE_BYTES.get(encoding)
    if size == 0xFFFFFFFF:  # "unknown size": the data runs to the end of the file
        size = d.size - offset
    if width and rate and channels:
        out["duration"] = min(size, d.size - offset) / (width * rate * channels)
    return out


def _streaminfo(info: bytes) -> _Fields:
    packed = int.from_bytes(_need(info, 18)[10:18], "big")
    rate = packed >> 44
    channels = ((packed >> 41) & 7) + 1
    total = packed & 0xFFFFFFFFF
    out: _Fields = {"sample_rate": rate, "channels": channels}
    if rate and total:
        out["duration"] = total / rate
    return out


def _flac(d: _Data) -> _Fields:
    start = _id3_end(d) if d.at(0, 3) == b"ID3" else 0
    block = d.at(start + 4, 4 + 34)
    if d.at(start, 4) != b"fLaC" or len(block) < 4 or block[0] & 0x7F != 0:
        raise DecodeError("FLAC without a STREAMINFO block")
    return _streaminfo(block[4:])


def _ogg_page(d: _Data, offset: int) -> tuple[int, int, int, bytes] | None:
    """(granule, serial, page length, first segment bytes) of the page at ``offset``."""
    header = d.at(offset, 27)
    if len(header) < 27 or header[:4] != b"OggS":
        return None
    segments = header[26]
    table = d.at(offset + 27, segments)
    if len(table) < segments:
        return None
    body = sum(table)
    granule = int.from_bytes(header[6:14], "little", signed=True)
    serial = _u32le(header, 14)
    first = d.at(offset + 27 + segments, min(body, 64))
    return granule, serial, 27 + segments + body, first


def _ogg(d: _Data) -> _Fields:
    """Ogg: the audio stream's header and last granule position; Theora gives the picture size.

    A file may multiplex streams: each starts with a beginning-of-stream page at the front.
    """
    out: _Fields = {}
    audio: tuple[int, int, int] | None = None  # serial, rate, pre-skip
    video: tuple[int, int, int, int] | None = None  # serial, granule shift, fps num, fps den
    offset = 0
    for _ in range(64):
        page = _ogg_page(d, offset)
        if page is None or not d.at(offset + 5, 1)[0] & 0x02:  # not a beginning-of-stream page
            break
        _, serial, length, packet = page
        offset += length
        if audio is None and packet.startswith(b"\x01vorbis"):
            out["channels"], out["sample_rate"] = _need(packet, 16)[11], _u32le(packet, 12)
            audio = serial, out["sample_rate"], 0
        elif audio is None and packet.startswith(b"OpusHead"):
            out["channels"], out["sample_rate"] = _need(packet, 12)[9], 48000
            audio = serial, 48000, _u16le(packet, 10)
        elif audio is None and packet.startswith(b"\x7fFLAC") and packet[9:13] == b"fLaC":
            info = _streaminfo(packet[17:])
            out["channels"], out["sample_rate"] = info["channels"], info["sample_rate"]
            audio = serial, info["sample_rate"], 0
        elif video is None and packet.startswith(b"\x80theora"):
            out["width"], out["height"] = _u24be(packet, 14), _u24be(packet, 17)
            shift = (_u16be(packet, 40) >> 5) & 0x1F
            video = serial, shift, _u32be(packet, 22), _u32be(packet, 26)
    if offset == 0:
        raise DecodeError("Ogg without a beginning-of-stream page")
    if audio is not None:
        granule = _last_granule(d, audio[0])
        if granule is not None and audio[1]:
            out["duration"] = max(granule - audio[2], 0) / audio[1]
    elif video is not None:
        granule = _last_granule(d, video[0])
        serial, shift, num, den = video
        if granule is not None and num:
            frames = (granule >> shift) + (granule & ((1 << shift) - 1))
            out["duration"] = frames * den / num
    return out


def _last_granule(d: _Data, serial: int) -> int | None:
    for window in (65536, 1 << 20):
        start = max(0, d.size - window)
        tail = d.at(start, d.size - start)
        pos = tail.rfind(b"OggS")
        while pos >= 0:
            page = _ogg_page(d, start + pos)
            if page is not None and page[1] == serial and page[0] >= 0:
                return page[0]
            pos = tail.rfind(b"OggS", 0, pos)
        if start == 0:
            break
    return None


def _id3_end(d: _Data) -> int:
    head = d.at(0, 10)
    if len(head) < 10 or head[:3] != b"ID3":
        return 0
    size = (head[6] & 0x7F) << 21 | (head[7] & 0x7F) << 14 | (head[8] & 0x7F) << 7 | head[9] & 0x7F
    return 10 + size + (10 if head[5] & 0x10 else 0)


_MP3_BITRATES = {
    (1, 1): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    (1, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    (1, 3): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    (2, 1): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    (2, 2): [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
_MP3_RATES = {1: (44100, 48000, 32000), 2: (22050, 24000, 16000), 25: (11025, 12000, 8000)}


def _mp3_header(h: bytes) -> tuple[int, int, int, int, int, int] | None:
    """(version 1/2/25, layer, bitrate kbps, sample rate, frame bytes, channels) or None."""
    if len(h) < 4 or h[0] != 0xFF or h[1] & 0xE0 != 0xE0:
        return None
    version = {0: 25, 2: 2, 3: 1}.get((h[1] >> 3) & 3)
    layer = {1: 3, 2: 2, 3: 1}.get((h[1] >> 1) & 3)
    bitrate_index, rate_index = h[2] >> 4, (h[2] >> 2) & 3
    if version is None or layer is None or bitrate_index in (0, 15) or rate_index == 3:
        return None
    table = _MP3_BITRATES[(1, layer)] if version == 1 else _MP3_BITRATES[(2, min(layer, 2))]
    bitrate, rate = table[bitrate_index], _MP3_RATES[version][rate_index]
    padding = (h[2] >> 1) & 1
    if layer == 1:
        length = (12 * bitrate * 1000 // rate + padding) * 4
    else:
        per = 72 if layer == 3 and version != 1 else 144
        length = per * bitrate * 1000 // rate + padding
    channels = 1 if h[3] >> 6 == 3 else 2
    return version, layer, bitrate, rate, length, channels


def _mpeg_audio(d: _Data) -> _Fields:
    start = _id3_end(d)
    window = d.at(start, 65536)
    frame = None
    pos = 0
    for pos in range(max(len(window) - 3, 0)):
        if window[pos] != 0xFF:
            continue
        parsed = _mp3_header(window[pos : pos + 4])
        if parsed is None:
            continue
        following = d.at(start + pos + parsed[4], 4)
        if len(following) == 4 and _mp3_header(following) is None:
            continue  # a false sync: the next frame must follow straight after
        frame = parsed
        break
    if frame is None:
        raise DecodeError("no MPEG audio frame in the first 64 KiB")
    version, layer, bitrate, rate, _length, channels = frame
    out: _Fields = {"sample_rate": rate, "channels": channels}
    spf = 384 if layer == 1 else 1152 if layer == 2 or version == 1 else 576
    offset = start + pos
    first = d.at(offset, 200)
    side = (32 if channels == 2 else 17) if version == 1 else (17 if channels == 2 else 9)
    tag = first[4 + side : 8 + side]
    if tag in (b"Xing", b"Info"):
        flags = _u32be(first, 8 + side)
        if flags & 1:
            out["duration"] = _u32be(first, 12 + side) * spf / rate
            return out
    if first[36:40] == b"VBRI":
        out["duration"] = _u32be(first, 50) * spf / rate
        return out
    audio_end = d.size - (128 if d.at(d.size - 128, 3) == b"TAG" else 0)
    if bitrate:
        out["duration"] = (audio_end - offset) * 8 / (bitrate * 1000)
    return out


_AAC_RATES = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000)


def _adts(d: _Data) -> _Fields:
    offset, frames, rate, channels = _id3_end(d), 0, 0, 0
    for _ in range(_MAX_ITEMS):
        h = d.at(offset, 7)
        if len(h) < 7 or h[0] != 0xFF or h[1] & 0xF6 != 0xF0:
            break
        index = (h[2] >> 2) & 0xF
        if index >= len(_AAC_RATES):
            raise DecodeError(f"ADTS frame at byte {offset} has a reserved sample rate index")
        rate = _AAC_RATES[index]
        channels = ((h[2] & 1) << 2) | (h[3] >> 6)
        length = ((h[3] & 3) << 11) | (h[4] << 3) | (h[5] >> 5)
        if length < 7:
            raise DecodeError(f"ADTS frame at byte {offset} is shorter than its header")
        frames += (h[6] & 3) + 1
        offset += length
    if frames == 0:
        raise DecodeError("no ADTS frame")
    out: _Fields = {"sample_rate": rate, "duration": frames * 1024 / rate}
    if channels:
        out["channels"] = channels
    return out


# -- video containers -------------------------------------------------------------------------


def _full_box_times(body: bytes) -> tuple[int, int]:
    """(timescale, duration) from an mvhd or mdhd body."""
    if body[0] == 1:
        return _u32be(body, 20), int.from_bytes(_need(body, 32)[24:32], "big")
    return _u32be(body, 12), _u32be(body, 16)


def _mp4(d: _Data) -> _Fields:
    moov = _child(d, 0, d.size, b"moov")
    if moov is None:
        raise DecodeError("MP4/MOV without a moov box")
    out: _Fields = {}
    for kind, payload, end in _boxes(d, moov[0], moov[1]):
        if kind == b"mvhd":
            scale, duration = _full_box_times(d.at(payload, 32))
            if scale and duration and duration not in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF):
                out["duration"] = duration / scale
        elif kind == b"mvex" and "duration" not in out:
            mehd = _child(d, payload, end, b"mehd")
            mvhd = _child(d, moov[0], moov[1], b"mvhd")
            if mehd and mvhd:
                body = d.at(mehd[0], 12)
                length = int.from_bytes(body[4:12], "big") if body[0] == 1 else _u32be(body, 4)
                scale = _full_box_times(d.at(mvhd[0], 32))[0]
                if scale and length:
                    out["duration"] = length / scale
        elif kind == b"trak":
            _mp4_track(d, payload, end, out)
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
    entries = _boxes(d, stsd[0] + 8, stsd[1])
    if not entries:
        return None
    _, body, end = entries[0]
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
    tag, pos, _ = _descriptor(b, pos + 13)
    if tag != 0x05:
        return None
    bits = int.from_bytes(_need(b, pos + 6)[pos : pos + 6], "big")  # 48 bits of the config
    shift = 48 - 5
    if bits >> shift == 31:  # escaped object type: 6 more bits
        shift -= 6
    shift -= 4
    if (bits >> shift) & 0xF == 15:  # explicit 24-bit sample rate
        shift -= 24
    shift -= 4
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


def _ebml_children(d: _Data, start: int, end: int) -> list[tuple[int, int, int]]:
    """EBML elements in ``[start, end)``: (id, payload offset, payload end)."""
    found: list[tuple[int, int, int]] = []
    offset = start
    while offset < end and len(found) < 100_000:
        try:
            element, id_len = _ebml_vint(d, offset, strip=False)
            size, size_len = _ebml_vint(d, offset + id_len, strip=True)
        except _Truncated:
            break
        payload = offset + id_len + size_len
        stop = end if size < 0 else min(payload + size, end)
        found.append((element, payload, stop))
        if element == _EBML_CLUSTER:
            break  # media data follows: Info and Tracks come before it in practice
        offset = stop
    return found


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
    children = _ebml_children(d, start, end)
    codec = next((d.at(s, min(e - s, 16)) for i, s, e in children if i == 0x86), b"")
    for element, c_start, c_end in children:
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
    chunks = {kind: payload for kind, payload, _ in _riff_chunks(d, start, end)}
    if "sample_rate" in out or b"strh" not in chunks or b"strf" not in chunks:
        return
    if d.at(chunks[b"strh"], 4) == b"auds":
        fmt = _need(d.at(chunks[b"strf"], 8), 8)
        out["channels"], out["sample_rate"] = _u16le(fmt, 2), _u32le(fmt, 4)


# -- PDF --------------------------------------------------------------------------------------

_OBJ_REF = rb"(\d+)\s+(\d+)\s+R"
_MAX_INFLATE = 64 * 1024 * 1024


def _pdf(d: _Data) -> _Fields:
    text = d.whole()
    objects = _pdf_object_streams(text)
    count = _pdf_root_count(text, objects)
    if count is None:
        pattern = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
        found = len(pattern.findall(text)) + sum(
            len(pattern.findall(body)) for body in objects.values()
        )
        count = found or None
    return {"pages": count}


def _pdf_object(text: bytes | memoryview, objects: dict[int, bytes], number: int) -> bytes | None:
    matches = list(re.finditer(rb"(?<!\d)%d\s+\d+\s+obj\b" % number, text))
    if matches:
        start = matches[-1].end()  # the latest revision of an incrementally updated file
        end = bytes(text[start : start + 65536]).find(b"endobj")
        return bytes(text[start : start + (end if end >= 0 else 65536)])
    return objects.get(number)


def _pdf_root_count(text: bytes | memoryview, objects: dict[int, bytes]) -> int | None:
    roots = re.findall(rb"/Root\s+" + _OBJ_REF, text)
    if not roots:
        return None
    catalog = _pdf_object(text, objects, int(roots[-1][0]))
    pages_ref = re.search(rb"/Pages\s+" + _OBJ_REF, catalog) if catalog else None
    if pages_ref is None:
        return None
    pages = _pdf_object(text, objects, int(pages_ref.group(1)))
    count = re.search(rb"/Count\s+(\d+)\b(?!\s+\d+\s+R)", pages) if pages else None
    return int(count.group(1)) if count else None


def _pdf_object_streams(text: bytes | memoryview) -> dict[int, bytes]:
    """Objects stored in Flate-compressed object streams (PDF 1.5+), by object number."""
    objects: dict[int, bytes] = {}
    budget = _MAX_INFLATE
    for match in re.finditer(rb"/Type\s*/ObjStm", text):
        head_start = max(0, match.start() - 1024)
        head = bytes(text[head_start : match.start() + 1024])
        stream_at = head.find(b"stream", match.start() - head_start)
        dict_start = head.rfind(b"<<", 0, match.start() - head_start)
        if stream_at < 0 or dict_start < 0 or b"/FlateDecode" not in head[dict_start:stream_at]:
            continue
        first = re.search(rb"/First\s+(\d+)", head[dict_start:stream_at])
        number = re.search(rb"/N\s+(\d+)", head[dict_start:stream_at])
        if first is None or number is None:
            continue
        begin = head_start + stream_at + 6
        while bytes(text[begin : begin + 1]) in (b"\r", b"\n"):
            begin += 1
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(bytes(text[begin : begin + _MAX_INFLATE]), budget)
        except zlib.error:
            continue
        budget -= len(body)
        numbers = body[: int(first.group(1))].split()
        offsets = [(int(numbers[i]), int(numbers[i + 1])) for i in range(0, len(numbers) - 1, 2)]
        base = int(first.group(1))
        for i, (obj, offset) in enumerate(offsets[: int(number.group(1))]):
            stop = offsets[i + 1][1] if i + 1 < len(offsets) else len(body) - base
            objects[obj] = body[base + offset : base + stop]
        if budget <= 0:
            break
    return objects


# -- dispatch ---------------------------------------------------------------------------------

_PARSERS: dict[str, Callable[[_Data], _Fields]] = {
    "png": _png,
    "gif": _gif,
    "jpeg": _jpeg,
    "webp": _webp,
    "heif": _heif,
    "wav": _wav,
    "aiff": _aiff,
    "flac": _flac,
    "ogg": _ogg,
    "mpeg-audio": _mpeg_audio,
    "adts": _adts,
    "au": _au,
    "mp4": _mp4,
    "matroska": _matroska,
    "avi": _avi,
    "pdf": _pdf,
}


def _pillow_image(d: _Data) -> _Fields:
    """Other image formats (BMP, TIFF, ICO...): Pillow reads only the header, never the pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow warns about each odd tag of a bad file
            with Image.open(io.BufferedReader(_DataFile(d))) as image:
                width, height = image.size
                frames = int(getattr(image, "n_frames", 1))
                orientation = image.getexif().get(0x0112)
    except (UnidentifiedImageError, Image.DecompressionBombError):
        return {}
    except Exception:  # a third-party parser on hostile bytes: "unknown", never a crash
        return {}
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    return {"width": width, "height": height, "frames": frames}


class _DataFile(io.RawIOBase):
    """A read-only file over `_Data`, so Pillow can open it without a copy of the whole buffer."""

    def __init__(self, d: _Data) -> None:
        self.d, self.position = d, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.position, 2: self.d.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def tell(self) -> int:
        return self.position

    def readinto(self, buffer: Any) -> int:
        chunk = self.d.at(self.position, len(buffer))
        buffer[: len(chunk)] = chunk
        self.position += len(chunk)
        return len(chunk)


def _probe(d: _Data, mime: str | None, what: str) -> MediaInfo:
    kind = _sniff(d)
    if mime == "application/octet-stream":
        mime = None  # "unknown" to the caller: our own signatures may know better
    if mime is None:
        mime = detect_mime(memoryview(d.at(0, 8192)) if isinstance(d, _FileData) else d.whole())
    mime = (
        normalize_mime(mime) if mime else _FORMAT_MIME.get(kind or "", "application/octet-stream")
    )
    parser = _PARSERS.get(kind or "")
    if parser is None and mime.startswith("image/"):
        parser = _pillow_image
    if parser is None:
        return MediaInfo(mime_type=mime)
    try:
        fields = parser(d)
    except DecodeError as exc:
        raise DecodeError(f"{what}: cannot read the {kind} header: {exc}") from None
    except (_Truncated, struct.error, IndexError, ValueError, OverflowError, ZeroDivisionError):
        raise DecodeError(f"{what}: the {kind} header is truncated or malformed") from None
    if not fields.get("width") or not fields.get("height"):  # a zero size says nothing
        fields.pop("width", None)
        fields.pop("height", None)
    return MediaInfo(mime_type=mime, **fields)


def probe_bytes(data: bytes | bytearray | memoryview, mime: str | None = None) -> MediaInfo:
    """Media facts from bytes in memory. ``mime`` defaults to what `detect_mime` says.

    Raises `DecodeError` when a recognised format's header is truncated or malformed.
    """
    return _probe(_BufferData(data), mime, f"{len(data)} bytes")


def probe(block: MediaBlock, policy: FetchPolicy | None = None) -> MediaInfo:
    """Media facts for a block, read from its headers.

    Bytes in memory are parsed in place. A local file is read by random access (headers, and the
    tail where the facts live there), except PDFs, which are read whole through ``block.read``
    (cached, so sending the block later does not read it again). A URL is fetched through
    ``block.read(policy)``. A provider file id raises `SourceError`: its bytes are not here.
    """
    source = block.source
    what = block.describe()
    if isinstance(source, PathSource) and not source.loaded:
        path = source._checked_path(policy)  # the policy's allowed roots apply as for read()
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed in the finally below
        except OSError as exc:
            raise SourceError(f"{what}: cannot read: {exc.strerror or exc}") from None
        try:
            size = os.fstat(handle.fileno()).st_size
            data: _Data = _FileData(handle, size, lambda: block.read(policy))
            return _probe(data, block.mime_type, what)
        finally:
            handle.close()
    return _probe(_BufferData(block.read(policy)), block.mime_type, what)
