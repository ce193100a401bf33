"""Knowing that an image sent untouched decodes, at a bounded cost.

`fit_image` returns an image's own bytes when nothing needs changing; a JPEG cut in half or a
PNG with a broken compressed stream would then go to the provider and come back as an HTTP 400.
`verify_decodes` checks the image data without holding the full-size pixels:

- JPEG: decoded at libjpeg's 1/8 DCT scale (every coefficient is read, the pixels cost 1/64);
- PNG: every chunk's CRC is checked and the compressed stream is inflated piece by piece and
  counted (one piece of 1 MiB at a time, and no further than a piece past what the header
  needs: a zlib bomb in the image data costs its header's size, not its own), then checked to
  end where the header says it must;
- other formats: the first frame is decoded (within the provider's pixel limits and the
  decompression-bomb limit).
"""

from __future__ import annotations

import struct
import zlib

from PIL.ImageFile import ImageFile

from ..errors import DecodeError

__all__ = ["apng_problem", "strip_animation", "verify_decodes"]

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
        frames = getattr(image, "n_frames", 1) if getattr(image, "is_animated", False) else 1
        if frames > 1 and frames * image.width * image.height <= _FRAME_PIXELS:
            for index in range(1, frames):  # a broken later frame breaks the animation too
                image.seek(index)
                image.load()


_FRAME_PIXELS = 64_000_000
"""Pixels of all frames together up to which an animation sent untouched is decoded whole."""


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
            enough = _png_raw_size(width, height, depth, _CHANNELS.get(colour, 1), interlace)
            if inflated <= enough + _PIECE:  # past that, more data is not less decodable
                inflated += _inflate(inflate, body, what, enough + _PIECE - inflated)
        elif kind == b"IEND":
            ended = True
            break
        pos += 12 + length
    if not (idat_seen and ended):
        raise DecodeError(f"{what}: the PNG is truncated (no image data or no end chunk)")
    expected = _png_raw_size(width, height, depth, _CHANNELS.get(colour, 1), interlace)
    if not inflate.eof and inflated <= expected + _PIECE:
        raise DecodeError(f"{what}: the PNG's compressed image data ends too early")
    if inflated < expected:
        raise DecodeError(
            f"{what}: the PNG holds {inflated:,} bytes of image data; its header needs {expected:,}"
        )


def _inflate(inflate: zlib._Decompress, body: bytes, what: str, room: int) -> int:
    """Feed ``body`` to the stream, counting its output one bounded piece at a time, until it
    is fed or the count passes ``room``."""
    count = 0
    pending = body
    try:
        while pending and not inflate.eof and count <= room:
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


# -- animated PNG structure -----------------------------------------------------------------------

_ANIMATION_CHUNKS = (b"acTL", b"fcTL", b"fdAT")


def _png_chunks(data: bytes) -> list[tuple[bytes, int, int]]:
    """(type, body start, body end) of each whole chunk after the signature."""
    chunks, pos = [], 8
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        if pos + 12 + length > len(data):
            break
        chunks.append((data[pos + 4 : pos + 8], pos + 8, pos + 8 + length))
        pos += 12 + length
    return chunks


def apng_problem(data: bytes) -> str | None:
    """Why a PNG's animation chunks break the APNG rules (what browsers and providers' decoders
    refuse), or None when they keep them or there are none.

    Checked: acTL before the image data and its frame count; every frame's region inside the
    canvas; a first frame that is the default image covers the canvas; sequence numbers in order;
    every frame after the default image has data.
    """
    chunks = _png_chunks(data)
    if not any(kind == b"acTL" for kind, _, _ in chunks):
        return None
    width = height = declared = 0
    frames, sequence, idat_seen, frame_open = 0, 0, False, False
    for kind, start, end in chunks:
        body = data[start:end]
        if kind == b"IHDR" and len(body) >= 8:
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"acTL":
            if idat_seen or len(body) < 8:
                return "acTL after the image data"
            declared = struct.unpack(">I", body[:4])[0]
        elif kind in (b"fcTL", b"fdAT"):
            if len(body) < (26 if kind == b"fcTL" else 4):
                return f"a {kind.decode()} chunk is too short"
            if struct.unpack(">I", body[:4])[0] != sequence:
                return "frame sequence numbers out of order"
            sequence += 1
            if kind == b"fdAT":
                frame_open = False
                continue
            if frame_open:
                return f"frame {frames} has no image data"
            w, h, x, y = struct.unpack(">IIII", body[4:20])
            if not w or not h or x + w > width or y + h > height:
                return (
                    f"frame {frames} ({w}x{h} at {x},{y}) lies outside the {width}x{height} canvas"
                )
            if not idat_seen and (w, h, x, y) != (width, height, 0, 0):
                return f"the first frame ({w}x{h}) is the still image but not the canvas size"
            frames += 1
            frame_open = idat_seen
        elif kind == b"IDAT":
            idat_seen = True
    if frame_open:
        return f"frame {frames - 1} has no image data"
    if frames != declared:
        return f"acTL declares {declared} frames, the file holds {frames}"
    return None


def strip_animation(data: bytes) -> bytes:
    """The still image of an animated PNG: every chunk but acTL, fcTL and fdAT."""
    kept = [data[:8]]
    for kind, start, end in _png_chunks(data):
        if kind not in _ANIMATION_CHUNKS:
            kept.append(data[start - 8 : end + 4])
    return b"".join(kept)
