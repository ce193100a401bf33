"""Knowing that an image sent untouched decodes, at a bounded cost.

`fit_image` returns an image's own bytes when nothing needs changing; a JPEG cut in half or a
PNG with a broken compressed stream would then go to the provider and come back as an HTTP 400.
`verify_decodes` checks the image data without holding the full-size pixels:

- JPEG: decoded at libjpeg's 1/8 DCT scale (every coefficient is read, the pixels cost 1/64);
- PNG: every chunk's CRC is checked and the compressed stream is inflated piece by piece and
  counted (one piece of 1 MiB at a time), then checked to end where the header says it must;
- other formats: the first frame is decoded (within the provider's pixel limits and the
  decompression-bomb limit).
"""

from __future__ import annotations

import struct
import zlib

from PIL.ImageFile import ImageFile

from ..errors import DecodeError

__all__ = ["verify_decodes"]

_PIECE = 1024 * 1024
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel


def verify_decodes(image: ImageFile, data: bytes, fmt: str, what: str) -> None:
    """Raise `DecodeError` naming ``what`` when the image data of ``data`` does not decode.

    ``image`` is ``data`` opened by Pillow (header only); it is decoded here (at a reduced
    scale for JPEG) and should not be used for anything else afterwards.
    """
    if fmt in ("JPEG", "MPO"):
        image.draft(image.mode, (max(1, image.width // 8), max(1, image.height // 8)))
        image.load()
    elif fmt == "PNG":
        _verify_png(data, what)
    else:
        image.load()


def _verify_png(data: bytes, what: str) -> None:
    pos, idat_seen, ended = 8, False, False
    inflate = zlib.decompressobj()
    inflated = 0
    width = height = depth = colour = interlace = 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        crc = data[pos + 8 + length : pos + 12 + length]
        if len(body) < length or len(crc) < 4:
            raise DecodeError(f"{what}: the PNG is truncated inside its {kind!r} chunk")
        if zlib.crc32(kind + body) != struct.unpack(">I", crc)[0]:
            raise DecodeError(f"{what}: the PNG's {kind!r} chunk fails its CRC check")
        if kind == b"IHDR" and length >= 13:
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"IDAT":
            idat_seen = True
            inflated += _inflate(inflate, body, what)
        elif kind == b"IEND":
            ended = True
            break
        pos += 12 + length
    if not (idat_seen and ended):
        raise DecodeError(f"{what}: the PNG is truncated (no image data or no end chunk)")
    if not inflate.eof:
        raise DecodeError(f"{what}: the PNG's compressed image data ends too early")
    expected = _png_raw_size(width, height, depth, _CHANNELS.get(colour, 1), interlace)
    if inflated < expected:
        raise DecodeError(
            f"{what}: the PNG holds {inflated:,} bytes of image data; its header needs {expected:,}"
        )


def _inflate(inflate: zlib._Decompress, body: bytes, what: str) -> int:
    """Feed ``body`` to the stream, counting its output one bounded piece at a time."""
    count = 0
    pending = body
    try:
        while pending and not inflate.eof:
            count += len(inflate.decompress(pending, _PIECE))
            pending = inflate.unconsumed_tail
    except zlib.error as exc:
        raise DecodeError(f"{what}: the PNG's compressed image data is broken: {exc}") from None
    return count


def _png_raw_size(width: int, height: int, depth: int, channels: int, interlace: int) -> int:
    """Bytes of filtered scanlines the header promises (Adam7 passes when interlaced)."""

    def rows(w: int, h: int) -> int:
        return 0 if w == 0 or h == 0 else h * (1 + (w * depth * channels + 7) // 8)

    if not interlace:
        return rows(width, height)
    return sum(
        rows((width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy) for x0, y0, dx, dy in _ADAM7
    )


# The Adam7 passes: first column, first row, column step, row step.
_ADAM7 = (
    (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
    (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
)  # fmt: skip
