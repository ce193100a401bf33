"""Large PNGs decoded and resized a strip of rows at a time.

A PNG of 9990x9990 pixels can be a few hundred KB on disk (flat colour compresses well) yet
decode to 300 MB of pixels, and then to more for the converted and resized copies. When such a
PNG must be made smaller anyway, `png_resized_in_strips` never holds the whole decode: the
compressed stream is inflated a piece at a time, each run of rows is decoded by Pillow (wrapped
as a small PNG of its own, the row above carried over unfiltered so the PNG filters that look
upwards still work), resized into its band of the output and dropped.

Peak memory is the output image plus a constant (`STRIP_BYTES` of raw rows and a few copies of
them), whatever size the header declares. Interlaced, 16-bit and low-bit-depth PNGs, and
animations, take the ordinary path (a full decode, bounded by the decompression-bomb limit).
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Iterator
from io import BytesIO

from PIL import Image

from ..errors import DecodeError

__all__ = ["STRIP_BYTES", "png_resized_in_strips"]

STRIP_BYTES = 4 * 1024 * 1024
"""Raw (filtered) bytes of PNG rows decoded at a time."""

_MIN_PIXELS = 4_000_000  # below this a full decode is cheap enough
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = struct.pack(">I", zlib.crc32(kind + body))
    return struct.pack(">I", len(body)) + kind + body + crc


class _Png:
    """The chunks of a PNG that decoding its rows needs."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.header = b""
        self.extra: list[bytes] = []  # PLTE and tRNS, copied into every strip
        self.idat: list[tuple[int, int]] = []  # (start, end) of each IDAT body
        pos = 8
        while pos + 12 <= len(data):
            (length,) = struct.unpack(">I", data[pos : pos + 4])
            kind = data[pos + 4 : pos + 8]
            body = (pos + 8, min(len(data), pos + 8 + length))
            if kind == b"IHDR":
                self.header = data[body[0] : body[1]]
            elif kind in (b"PLTE", b"tRNS"):
                self.extra.append(_chunk(kind, data[body[0] : body[1]]))
            elif kind == b"IDAT":
                self.idat.append(body)
            elif kind == b"IEND":
                break
            pos += 12 + length

    def fields(self) -> tuple[int, int, int, int, int]:
        if len(self.header) < 13:
            return 0, 0, 0, 0, 1
        width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", self.header[:13])
        return width, height, depth, colour, interlace

    def strips(self, rows: int, what: str) -> Iterator[Image.Image]:
        """The image as consecutive strips of ``rows`` rows (the last may be shorter)."""
        width, height, _, colour, _ = self.fields()
        row_bytes = 1 + width * _CHANNELS[colour]
        inflate = zlib.decompressobj()
        pending = bytearray()
        above: bytes | None = None
        done = 0
        want = rows * row_bytes
        try:
            for start, end in self.idat:
                tail = self.data[start:end]
                while tail and not inflate.eof:
                    pending += inflate.decompress(tail, want)
                    tail = inflate.unconsumed_tail
                    while len(pending) >= want and done < height:
                        count = min(rows, height - done)
                        strip, above = self.decode(pending, count, row_bytes, above)
                        del pending[: count * row_bytes]
                        done += count
                        yield strip
        except zlib.error as exc:
            raise DecodeError(f"{what}: the PNG's compressed image data is broken: {exc}") from None
        while done < height and len(pending) >= row_bytes:
            count = min(rows, height - done, len(pending) // row_bytes)
            strip, above = self.decode(pending, count, row_bytes, above)
            del pending[: count * row_bytes]
            done += count
            yield strip
        if done < height:
            raise DecodeError(f"{what}: the PNG's image data ends after {done} of {height} rows")

    def decode(
        self, pending: bytearray, count: int, row_bytes: int, above: bytes | None
    ) -> tuple[Image.Image, bytes]:
        """Rows ``pending[:count]`` (still filtered) as an image, and its last row unfiltered."""
        width, _, depth, colour, _ = self.fields()
        rows = bytes(pending[: count * row_bytes])
        if above is not None:  # the row above, filter type None, so Up/Average/Paeth work
            rows = b"\x00" + above + rows
        height = count + (above is not None)
        header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
        png = b"".join(
            [
                _SIGNATURE,
                _chunk(b"IHDR", header),
                *self.extra,
                _chunk(b"IDAT", zlib.compress(rows, 0)),
                _chunk(b"IEND", b""),
            ]
        )
        with Image.open(BytesIO(png), formats=["PNG"]) as image:
            image.load()
            strip = image.crop((0, height - count, width, height))
        last = strip.crop((0, count - 1, width, count)).tobytes()
        return strip, last


def png_resized_in_strips(data: bytes, size: tuple[int, int], what: str) -> Image.Image | None:
    """The PNG in ``data`` resized to ``size`` (smaller), decoded a strip at a time; None when
    this PNG takes the ordinary path (small, interlaced, not 8-bit, or not smaller)."""
    png = _Png(data)
    width, height, depth, colour, interlace = png.fields()
    out_w, out_h = size
    if (
        interlace
        or depth != 8
        or colour not in _CHANNELS
        or width * height < _MIN_PIXELS
        or out_w >= width
        or out_h >= height
        or not png.idat
    ):
        return None
    rows = max(16, STRIP_BYTES // (1 + width * _CHANNELS[colour]))
    scale = height / out_h
    margin = math.ceil(scale * 3) + 2  # rows the filter (and reducing_gap) reach past a band
    output: Image.Image | None = None
    window: Image.Image | None = None
    top = 0  # the first source row in ``window``
    next_row = 0  # the first output row not written yet
    for strip in png.strips(rows, what):
        if strip.mode == "P":
            strip = strip.convert("RGBA" if "transparency" in strip.info else "RGB")
        window = strip if window is None else _stacked(window, strip)
        bottom = top + window.height
        last = out_h if bottom >= height else min(out_h, math.floor((bottom - margin) / scale))
        if last > next_row:
            box = (0.0, next_row * scale - top, float(width), last * scale - top)
            band = window.resize(
                (out_w, last - next_row), Image.Resampling.HAMMING, box=box, reducing_gap=3.0
            )
            if output is None:
                output = Image.new(band.mode, size)
            output.paste(band, (0, next_row))
            next_row = last
        keep = max(0, min(window.height, math.floor(next_row * scale) - margin - top))
        window = window.crop((0, keep, width, window.height))
        top += keep
    return output


def _stacked(upper: Image.Image, lower: Image.Image) -> Image.Image:
    joined = Image.new(lower.mode, (lower.width, upper.height + lower.height))
    joined.paste(upper if upper.mode == lower.mode else upper.convert(lower.mode), (0, 0))
    joined.paste(lower, (0, upper.height))
    return joined
