"""Hostile inputs of issue 25, generated (never stored): each is a few KB that used to cost the
caller seconds of CPU or gigabytes of memory. Shared by the tests and
``benchmarks/bench_bombs.py``; every generator takes its size, so a benchmark can grow it."""

from __future__ import annotations

import io
import struct

from PIL import Image

LOOPING_EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n{ } loop\n"
"""An EPS that never ends: Ghostscript interprets ``{ } loop`` for ever."""


def mvex_mp4(size: int = 32 * 1024) -> bytes:
    """An MP4 whose ``moov`` holds nothing but empty ``mvex`` boxes (and no ``mvhd``)."""
    count = (size - 20 - 8) // 8
    ftyp = struct.pack(">I4s4sI4s", 20, b"ftyp", b"isom", 0, b"isom")
    moov = struct.pack(">I4s", 8 + 8 * count, b"moov") + struct.pack(">I4s", 8, b"mvex") * count
    return ftyp + moov


def object_stream_pdf(size: int = 1 << 20) -> bytes:
    """A PDF of nothing but object-stream headers, each followed by ``stream`` and no data."""
    unit = b"1 0 obj << /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode >>stream\n"
    return b"%PDF-1.5\n" + unit * (size // len(unit))


def repeated_scan_jpeg(scans: int, side: int = 2048) -> bytes:
    """A progressive JPEG of a flat ``side`` x ``side`` grey image with its smallest scan
    repeated ``scans`` times: each scan is a pass over every block, for a few bytes."""
    out = io.BytesIO()
    Image.new("L", (side, side), 128).save(out, "JPEG", progressive=True, quality=90)
    data = out.getvalue()
    pos = 2
    while data[pos + 1] != 0xDA:  # the segments before the first scan
        pos += 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    pieces: list[bytes] = []
    start = pos
    while data[start : start + 2] != b"\xff\xd9":
        end = start + 2
        while True:
            end = data.index(b"\xff", end)
            if data[end + 1] == 0 or 0xD0 <= data[end + 1] <= 0xD7:
                end += 2
                continue
            break
        pieces.append(data[start:end])
        start = end
    smallest = min((piece for piece in pieces if piece.startswith(b"\xff\xda")), key=len)
    return data[:pos] + b"".join(pieces) + smallest * scans + b"\xff\xd9"


def chained_tiff(images: int) -> bytes:
    """A TIFF of ``images`` one-pixel grey images, each IFD pointing at the next."""
    entries = 8
    ifd_size = 2 + 12 * entries + 4
    pixel_at = 8 + ifd_size * images
    out = bytearray(b"II*\x00\x08\x00\x00\x00")
    for index in range(images):
        following = 8 + ifd_size * (index + 1) if index + 1 < images else 0
        out += struct.pack("<H", entries)
        for tag, kind, value in (
            (256, 3, 1),
            (257, 3, 1),
            (258, 3, 8),
            (259, 3, 1),
            (262, 3, 1),
            (273, 4, pixel_at),
            (278, 3, 1),
            (279, 4, 1),
        ):
            if kind == 4:
                out += struct.pack("<HHII", tag, kind, 1, value)
            else:
                out += struct.pack("<HHIHH", tag, kind, 1, value, 0)
        out += struct.pack("<I", following)
    return bytes(out + b"\x80")


def flat_webp(side: int = 9000) -> bytes:
    """A lossless WebP of one colour declaring ``side`` x ``side`` pixels (81 MP at 9000): a few
    dozen bytes, since one colour costs no bits per pixel."""
    out = io.BytesIO()
    Image.new("RGB", (side, 16), (10, 200, 30)).save(out, "WEBP", lossless=True, method=0)
    data = bytearray(out.getvalue())
    bits = int.from_bytes(data[21:25], "little")  # VP8L: 14 bits width-1, 14 bits height-1
    bits = (bits & ~(0x3FFF << 14)) | ((side - 1) << 14)
    data[21:25] = bits.to_bytes(4, "little")
    return bytes(data)


def flat_jpeg2000(side: int = 9000) -> bytes:
    """A JPEG 2000 (JP2) of one grey level declaring ``side`` x ``side`` pixels: its packets are
    all empty, so the header's size is all that changes."""
    out = io.BytesIO()
    Image.new("L", (64, 64), 128).save(out, "JPEG2000", irreversible=False)
    data = bytearray(out.getvalue())
    siz = data.find(b"\xff\x51")
    struct.pack_into(">IIIIII", data, siz + 6, side, side, 0, 0, side, side)
    header = data.find(b"ihdr")
    struct.pack_into(">II", data, header + 4, side, side)
    return bytes(data)


def character_reference_svg(side: int = 6000) -> bytes:
    """An SVG whose size is written with character references (``&#54;000`` is ``6000``)."""
    digits = str(side)
    written = f"&#{ord(digits[0])};{digits[1:]}".encode()
    return (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="' + written + b'" height="'
        + written + b'"><rect width="100%" height="100%" fill="#c00"/></svg>'
    )  # fmt: skip
