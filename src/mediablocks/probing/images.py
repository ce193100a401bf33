"""Header parsers for images: PNG, GIF, WebP, JPEG (EXIF orientation), HEIF/AVIF."""

from __future__ import annotations

import itertools
from typing import Literal

from ..errors import DecodeError
from ._data import (
    _MAX_ITEMS,
    _child,
    _Data,
    _Fields,
    _iter_boxes,
    _need,
    _Truncated,
    _u16be,
    _u16le,
    _u24le,
    _u32be,
    _u32le,
)
from .video import _mp4

# -- images -----------------------------------------------------------------------------------


def _png(d: _Data) -> _Fields:
    ihdr = d.at(8, 25)
    if ihdr[4:8] != b"IHDR":
        raise DecodeError("PNG without an IHDR chunk")
    out: _Fields = {"width": _u32be(ihdr, 8), "height": _u32be(ihdr, 12), "frames": 1}
    offset, delays, animated = 8, 0.0, False
    for _ in range(_MAX_ITEMS):
        d.step()  # every chunk is at least 12 bytes
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
            d.step()  # every sub-block is at least its length byte
            length = d.at(pos, 1)
            if not length:
                raise _Truncated
            pos += 1 + length[0]
            if length[0] == 0:
                return pos
        raise _Truncated

    try:
        for _ in range(_MAX_ITEMS):
            d.step()
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
        d.step()  # every chunk is at least 8 bytes
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
        d.step()  # every marker is at least 2 bytes (a fill byte: 1)
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


def heif_has_transform(data: bytes | bytearray | memoryview) -> bool:
    """Whether a HEIF/AVIF image's primary item carries an ``irot`` or ``imir`` transform (the
    decoder then turns it; without one, an EXIF orientation is all that says how it stands, as in
    photos edited on iOS). False when the header cannot be read."""
    from ._data import _BufferData

    try:
        props = _primary_properties(_BufferData(data))
    except (_Truncated, DecodeError):
        return False
    return any(kind in (b"irot", b"imir") for kind, _, _ in props or ())


def _heif(d: _Data) -> _Fields:
    moov = _child(d, 0, d.size, b"moov")
    if moov is not None:  # an image sequence (avis, msf1): frames and timing from its track
        return _image_sequence(d, moov)
    chosen = _primary_properties(d)
    if not chosen:
        return {}  # no association for the primary item: do not guess among the ispe boxes
    out: _Fields = {"frames": 1}
    turned = False
    for kind, payload, _ in chosen:
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


def _primary_properties(d: _Data) -> list[tuple[bytes, int, int]] | None:
    """The property boxes (``ipco`` entries) associated with the primary item, in order."""
    meta = _child(d, 0, d.size, b"meta")
    if meta is None:
        return None
    start, end = meta[0] + 4, meta[1]  # meta is a full box: version and flags first
    primary = None
    pitm = _child(d, start, end, b"pitm")
    if pitm is not None:
        body = d.at(pitm[0], 8)
        primary = _u16be(body, 4) if body[0] == 0 else _u32be(body, 4)
    iprp = _child(d, start, end, b"iprp")
    if iprp is None:
        return None
    ipco = _child(d, iprp[0], iprp[1], b"ipco")
    if ipco is None:
        return None
    # ipma indexes properties with 7 or 15 bits: no more than 32,767 can be chosen
    props = list(itertools.islice(_iter_boxes(d, ipco[0], ipco[1]), 32_767))
    chosen: list[int] = []
    ipma = _child(d, iprp[0], iprp[1], b"ipma")
    if ipma is not None and primary is not None:
        body = d.at(ipma[0], min(ipma[1] - ipma[0], 1 << 20))
        version, flags = body[0], _u32be(body) & 0xFFFFFF
        pos, count = 8, _u32be(body, 4)
        for _ in range(min(count, 100_000)):
            d.step()  # every association is at least 3 bytes of a body of at most 1 MiB
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
    return [props[index] for index in chosen]


def _image_sequence(d: _Data, moov: tuple[int, int]) -> _Fields:
    out = _mp4(d)
    for kind, payload, end in _iter_boxes(d, moov[0], moov[1]):
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


_TIFF_WIDTH, _TIFF_HEIGHT, _TIFF_ORIENTATION = 256, 257, 274
_TIFF_TYPE_BYTES = {3: 2, 4: 4, 16: 8}  # SHORT, LONG, LONG8: the types a size is written in


def tiff_directories(d: _Data, limit: int) -> tuple[_Fields, int]:
    """The first image's size and orientation, and how many images (IFDs) the chain holds, at
    most ``limit`` (a count past it is reported as ``limit + 1``).

    One step per IFD: two small reads each (its entry count, its next pointer); only the first
    IFD's entries are read. A pointer back to an IFD already seen ends the chain (a loop).
    """
    head = _need(d.at(0, 16), 8)
    order = head[:2]
    if order not in (b"II", b"MM"):
        raise DecodeError("TIFF without a byte order")
    endian: Literal["little", "big"] = "little" if order == b"II" else "big"
    big = int.from_bytes(head[2:4], endian) == 43
    count_size, entry_size, pointer_size = (8, 20, 8) if big else (2, 12, 4)
    offset = int.from_bytes(_need(head, 16)[8:16] if big else head[4:8], endian)
    fields: _Fields = {}
    seen: set[int] = set()
    images = 0
    while offset and offset not in seen and images <= limit:
        d.step()
        seen.add(offset)
        raw_count = d.at(offset, count_size)
        if len(raw_count) < count_size and images:
            break  # a later IFD cut short: the images before it still count
        count = int.from_bytes(_need(raw_count, count_size), endian)
        if images == 0:
            fields = _tiff_first_directory(d, offset + count_size, min(count, 4096), big, endian)
        images += 1
        pointer = d.at(offset + count_size + count * entry_size, pointer_size)
        if len(pointer) < pointer_size:
            break  # no readable next pointer: the chain ends here
        offset = int.from_bytes(pointer, endian)
    if not images:
        raise DecodeError("TIFF without an image directory")
    return fields, images


def _tiff_first_directory(
    d: _Data, start: int, count: int, big: bool, endian: Literal["little", "big"]
) -> _Fields:
    entry_size = 20 if big else 12
    entries = d.at(start, count * entry_size)
    found: dict[int, int] = {}
    for i in range(len(entries) // entry_size):
        entry = entries[i * entry_size : (i + 1) * entry_size]
        tag = int.from_bytes(entry[:2], endian)
        width = _TIFF_TYPE_BYTES.get(int.from_bytes(entry[2:4], endian))
        if tag in (_TIFF_WIDTH, _TIFF_HEIGHT, _TIFF_ORIENTATION) and width is not None:
            value_at = 12 if big else 8
            found[tag] = int.from_bytes(entry[value_at : value_at + width], endian)
    width, height = found.get(_TIFF_WIDTH, 0), found.get(_TIFF_HEIGHT, 0)
    if found.get(_TIFF_ORIENTATION) in (5, 6, 7, 8):
        width, height = height, width
    return {"width": width, "height": height}


TIFF_PROBE_IMAGES = 100_000
"""Images (IFDs) of a TIFF that `probe` counts; a longer chain is reported as that many."""


def _tiff(d: _Data) -> _Fields:
    fields, images = tiff_directories(d, TIFF_PROBE_IMAGES)
    return {**fields, "frames": min(images, TIFF_PROBE_IMAGES)}


def _bmp(d: _Data) -> _Fields:
    """BMP: the DIB header's size (a negative height is a top-down image)."""
    head = _need(d.at(0, 26), 18)
    if _u32le(head, 14) == 12:  # BITMAPCOREHEADER: 16-bit sizes
        return {"width": _u16le(head, 18), "height": _u16le(head, 20), "frames": 1}
    width = int.from_bytes(_need(head, 26)[18:22], "little", signed=True)
    height = int.from_bytes(head[22:26], "little", signed=True)
    return {"width": abs(width), "height": abs(height), "frames": 1}
