"""What decoding an image will cost, known from its header before any pixel is decoded.

The pixel count alone does not bound a decoder: an 81 MP image is 6 KB as JPEG 2000 and 40 bytes
as a lossless WebP of one colour, and decodes to hundreds of megabytes; a progressive JPEG of
300 KB can repeat one scan 20,000 times, each scan a pass over every block of the image. So
before decoding in the caller's process, `decode_cost` estimates from the header:

- **memory**: the pixels decoded (at the JPEG DCT scale that will be used) x 4 bytes (what
  Pillow stores per pixel of RGB, RGBA, CMYK, I and F, and the widest mode the fitting steps
  convert to) x the frames held at once, plus, for a progressive JPEG, libjpeg's whole-image
  coefficient buffer (2 bytes per coefficient, at full size whatever the scale);
- **work**: pixels x passes over them: the scans of a JPEG (counted by `jpeg_scans`, one pass
  over the bytes), the frames of an animation decoded.

An image over `CALLER_DECODE_BYTES` or `CALLER_PIXEL_PASSES` is fitted in a worker process
instead (`mediablocks.images.fit.fit_here`), under `ConversionLimits`.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from PIL.ImageFile import ImageFile

from ..errors import ImageBombError
from .metadata import _Facts, _jpeg_segments

__all__ = [
    "CALLER_DECODE_BYTES",
    "CALLER_PIXEL_PASSES",
    "CALLER_TEXT_BYTES",
    "MAX_JPEG_SCANS",
    "DecodeCost",
    "check_jpeg_scans",
    "decode_cost",
    "jpeg_scans",
    "png_text_bytes",
]

CALLER_DECODE_BYTES = 64 * 1024 * 1024
"""Memory one image's decode may take in the caller (its pixels as Pillow stores them, every
frame held, and decoder buffers). The fitting steps after the decode hold about two more copies,
so the caller stays under 300 MB with the interpreter."""

CALLER_PIXEL_PASSES = 600_000_000
"""Pixels x passes one decode may take in the caller: a 24 MP progressive JPEG of 10 scans is
240 million, 100 frames of 1 MP are 100 million. About a second of decoding."""


MAX_JPEG_SCANS = 1000
"""Scans a JPEG may hold anywhere (caller or worker). Encoders write 1 (baseline) to about 20
(a progressive script) per image; each scan is a pass over every block of the image, so a file
repeating one small scan thousands of times is a decompression bomb in time."""


@dataclass(frozen=True)
class DecodeCost:
    """Estimated peak bytes and pixel passes of one decode, and what they come from."""

    memory: int
    passes: int
    detail: str

    @property
    def fits_caller(self) -> bool:
        """Cheap enough to decode in the caller's process."""
        return self.memory <= CALLER_DECODE_BYTES and self.passes <= CALLER_PIXEL_PASSES


def jpeg_scans(data: bytes) -> int:
    """How many scans (SOS markers) a JPEG holds, counted in one pass over its bytes.

    The segments before the first scan are walked by their lengths (so an EXIF thumbnail's
    scan is not counted); after it, entropy-coded data never holds ``FF DA`` (a data ``FF`` is
    always followed by ``00``), so every ``FF DA`` is a scan marker. Scans of frames appended
    after the image (an MPO's) count too: an overcount only sends the file to a worker.

    The first `_FEW_SCANS` markers are found by a literal search that skips from one ``FF`` to
    the next (a third of the time of ``bytes.count``'s two-byte search on a photo); a file with
    more is counted exactly by ``bytes.count``, one more linear pass.
    """
    for marker, start, _ in _jpeg_segments(data):
        if marker == 0xDA:
            found = sum(1 for _ in itertools.islice(_SCAN_MARKER.finditer(data, start), _FEW_SCANS))
            return found if found < _FEW_SCANS else data.count(b"\xff\xda", start)
    return 0


_SCAN_MARKER = re.compile(b"\xff\xda")
_FEW_SCANS = 64
"""Scans counted one by one; encoders write at most a few dozen."""


_PIXEL_BYTES = 4
"""Bytes per pixel counted for every mode: what Pillow stores for RGB, RGBA, CMYK, YCbCr, I and
F, and what the fitting steps convert narrower modes to (P to RGBA for a resize, 16-bit to I on
the way to 8 bits): the widest copy the pipeline may hold."""


CALLER_TEXT_BYTES = 16 * 1024 * 1024
"""Text Pillow may inflate from a PNG's text chunks in the caller (it inflates each zTXt and
iTXt chunk to as much as ``PngImagePlugin.MAX_TEXT_CHUNK``, 1 MiB, while reading the header):
a PNG whose chunks could hold more is read in a worker."""


def png_text_bytes(data: bytes) -> int:
    """What Pillow may hold of a PNG's text chunks: their bodies, each compressed one counted
    at the most it may inflate to. One walk over the chunk headers."""
    from PIL import PngImagePlugin

    total, pos = 0, 8
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        if kind == b"tEXt":
            total += length
        elif kind in (b"zTXt", b"iTXt"):
            total += max(length, PngImagePlugin.MAX_TEXT_CHUNK)
        elif kind == b"IEND":
            break
        pos += 12 + length
    return total


def check_jpeg_scans(data: bytes, what: str) -> int:
    """The scans of a JPEG (`jpeg_scans`); `ImageBombError` for more than `MAX_JPEG_SCANS`."""
    scans = jpeg_scans(data)
    if scans > MAX_JPEG_SCANS:
        raise ImageBombError(
            f"{what}: a JPEG of {scans:,} scans (encoders write at most a few dozen; each is a "
            f"pass over the whole image): over the limit of {MAX_JPEG_SCANS:,} scans",
            limit=MAX_JPEG_SCANS,
            size=scans,
        )
    return scans


def _jpeg_scale(width: int, height: int, size: tuple[int, int] | None) -> int:
    """The DCT scale denominator (1, 2, 4 or 8) libjpeg uses for a draft to ``size``."""
    if size is None:
        return 1
    scale = 1
    for denominator in (2, 4, 8):
        if width // denominator >= size[0] and height // denominator >= size[1]:
            scale = denominator
    return scale


def _coefficient_bytes(image: ImageFile) -> int:
    """libjpeg's whole-image coefficient buffer of a progressive JPEG: 2 bytes x 64 per block
    of each component, at full size."""
    layers = getattr(image, "layer", None) or [("", 1, 1, 0)]
    most_h = max(h for _, h, _, _ in layers) or 1
    most_v = max(v for _, _, v, _ in layers) or 1
    total = 0
    for _, h, v, _ in layers:
        blocks_w = math.ceil(image.width * h / most_h / 8)
        blocks_h = math.ceil(image.height * v / most_v / 8)
        total += blocks_w * blocks_h * 64 * 2
    return total


def decode_cost(
    image: ImageFile,
    facts: _Facts,
    data: bytes,
    *,
    frames: int,
    held: int | None = None,
    jpeg_size: tuple[int, int] | None = None,
) -> DecodeCost:
    """The cost of decoding ``frames`` frames of ``image`` (opened on ``data``, header read),
    ``held`` of them in memory at once (default: all).

    ``jpeg_size`` is the size a JPEG will be drafted to (None: full size). A JPEG's scans are
    those in ``facts`` when counted already (`check_jpeg_scans`), else they are counted here.
    """
    width, height = image.size
    pixels = width * height
    each = _PIXEL_BYTES
    if facts.format in ("JPEG", "MPO"):
        scale = _jpeg_scale(width, height, jpeg_size)
        decoded = math.ceil(width / scale) * math.ceil(height / scale) * each
        scans = jpeg_scans(data) if facts.scans is None else facts.scans
        progressive = bool(image.info.get("progressive"))
        buffer = _coefficient_bytes(image) if progressive else 0
        return DecodeCost(
            decoded + buffer,
            pixels * max(scans, 1),
            f"{width}x{height} JPEG, {scans} scans, decoded at 1/{scale}"
            + (", progressive" if progressive else ""),
        )
    kept = frames if held is None else held
    return DecodeCost(
        pixels * each * max(kept, 1) + pixels * each,  # the frames kept, the one being decoded
        pixels * max(frames, 1),
        f"{width}x{height} {facts.format} {image.mode}, {frames} frame(s)",
    )
