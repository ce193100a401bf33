"""Small thumbnails of older session images, made the same way every time and remembered.

`thumbnail` decodes only the web formats every vision API takes (JPEG, PNG, GIF, WebP: Pillow's
own decoders, no external program), after checking the pixel count in the header against the
limit `MAX_PIXELS`; a JPEG is decoded at a reduced DCT scale, a large PNG a strip of rows at a
time. The thumbnail is the first frame, upright
(EXIF orientation applied), flattened on white, at most ``side`` pixels on its long edge, saved as
baseline JPEG (quality `QUALITY`) or, for a provider without JPEG, PNG: the same bytes for the same
input, so a fitted session encodes byte for byte the same each time and a prompt cache keeps
hitting. Anything else (another format, a broken file, a bomb) raises `MediaBlocksError` and
`fit_session` turns that image into a text reference instead.

Results are kept in a small in-process cache (`CACHE_ENTRIES` thumbnails, keyed by the source's
SHA-256, the side and the format), so fitting a long session again each turn decodes only the
images that became thumbnails since the last turn.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from io import BytesIO

from ..errors import UnsupportedBlockError
from ..images import pillow_errors

__all__ = ["CACHE_ENTRIES", "MAX_PIXELS", "QUALITY", "thumbnail", "thumbnail_size"]

QUALITY = 70
"""JPEG quality of thumbnails: text in a 256 px screenshot stays legible as shapes."""
MAX_PIXELS = 40_000_000
"""The most pixels a thumbnail decodes whole (160 MB as RGBA); a large 8-bit PNG is instead
decoded a strip at a time, whatever its size, and a JPEG at a reduced scale."""
CACHE_ENTRIES = 4096
"""Thumbnails kept in memory (about 10 KB each at 256 px)."""
_FORMATS = ("JPEG", "PNG", "GIF", "WEBP")

_cache: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
_lock = threading.Lock()


def thumbnail(data: bytes, digest: str, *, side: int, jpeg: bool, what: str) -> bytes:
    """A thumbnail of the image ``data`` (SHA-256 ``digest``): JPEG when ``jpeg``, else PNG."""
    key = (digest, side, "JPEG" if jpeg else "PNG")
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    made = _make(data, side, key[2], what)
    with _lock:
        _cache[key] = made
        _cache.move_to_end(key)
        while len(_cache) > CACHE_ENTRIES:
            _cache.popitem(last=False)
    return made


def thumbnail_size(width: int, height: int, side: int) -> tuple[int, int]:
    """The size `thumbnail` gives an image of ``width`` x ``height`` (Pillow's rounding, which
    keeps the aspect ratio closest), from the header alone."""
    if width <= side and height <= side:
        return width, height
    aspect = width / height
    if aspect >= 1:
        candidates = (math.floor(side / aspect), math.ceil(side / aspect))
        short = min(candidates, key=lambda n: 0 if n == 0 else abs(aspect - side / n))
        return side, max(short, 1)
    candidates = (math.floor(side * aspect), math.ceil(side * aspect))
    return max(min(candidates, key=lambda n: abs(aspect - n / side)), 1), side


def _make(data: bytes, side: int, fmt: str, what: str) -> bytes:
    from PIL import Image, ImageOps, UnidentifiedImageError

    from ..images.strips import png_resized_in_strips

    with pillow_errors(what):
        try:
            image = Image.open(BytesIO(data), formats=_FORMATS)
        except UnidentifiedImageError:
            raise UnsupportedBlockError(
                f"{what}: thumbnails are made of JPEG, PNG, GIF and WebP images only"
            ) from None
        with image:
            width, height = image.size
            frame: Image.Image | None = None
            if image.format == "PNG" and not getattr(image, "is_animated", False):
                frame = png_resized_in_strips(data, thumbnail_size(width, height, side), what)
            if frame is None:
                if width * height > MAX_PIXELS:
                    raise UnsupportedBlockError(
                        f"{what}: {width}x{height} pixels is more than a thumbnail decodes "
                        f"({MAX_PIXELS:,})"
                    )
                if image.format == "JPEG":
                    image.draft("RGB", (side, side))  # decoded at 1/2, 1/4 or 1/8 scale
                image.seek(0)
                frame = ImageOps.exif_transpose(image) or image
            clear = frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info
            if frame.mode not in ("RGB", "RGBA", "L"):  # palette, 16-bit, CMYK...: resample well
                frame = frame.convert("RGBA" if clear else "RGB")
            frame.thumbnail((side, side), Image.Resampling.LANCZOS, reducing_gap=3.0)
            if clear:
                frame = frame.convert("RGBA")
                flat = Image.new("RGB", frame.size, (255, 255, 255))
                flat.paste(frame, mask=frame.getchannel("A"))
            else:
                flat = frame.convert("RGB")
            out = BytesIO()
            if fmt == "JPEG":
                flat.save(out, "JPEG", quality=QUALITY, optimize=False, progressive=False)
            else:
                flat.save(out, "PNG", optimize=False)
            return out.getvalue()
