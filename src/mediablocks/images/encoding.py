"""Encoding to a byte limit: the quality search, then smaller scales."""

from __future__ import annotations

import math
from io import BytesIO
from typing import Any

from PIL import Image

from ..errors import DoesNotFitError
from .convert import _has_alpha, _prepared_for, _resize
from .target import ImageTarget

_MIN_JPEG_QUALITY = 40
_START_JPEG_QUALITY = 90
_WEBP_QUALITY = 90


def _save(
    frames: list[Image.Image],
    fmt: str,
    quality: int | None,
    icc: bytes | None,
    exif: bytes | None,
    durations: Any,
) -> bytes:
    buffer = BytesIO()
    options: dict[str, Any] = {}
    if icc:
        options["icc_profile"] = icc
    if exif:
        options["exif"] = exif
    if fmt == "JPEG":
        options.update(quality=quality or _START_JPEG_QUALITY, optimize=False)
    elif fmt == "WEBP":
        options.update(quality=quality or _WEBP_QUALITY, method=4)
    elif fmt == "PNG":
        options.update(compress_level=6)
    first = frames[0]
    if len(frames) > 1:
        options.update(save_all=True, append_images=frames[1:], loop=0)
        if durations is not None:
            options["duration"] = durations
    first.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def _encode_to_fit(
    frames: list[Image.Image],
    fmt: str,
    target: ImageTarget,
    icc: bytes | None,
    exif: bytes | None,
    what: str,
    animated: bool,
) -> tuple[bytes, int | None, list[Image.Image], str]:
    """Encode; if too large, binary-search the JPEG/WebP quality, then scale down and repeat.

    A PNG photo (no transparency) that is too large becomes a JPEG first. Returns the bytes, the
    quality used (None for PNG/GIF), the frames encoded and the format.
    """
    frames = [_prepared_for(frame, fmt) for frame in frames]
    durations = [frame.info.get("duration", 100) for frame in frames] if animated else None
    if icc and fmt == "JPEG" and frames[0].mode not in ("RGB", "L", "YCbCr"):
        icc = None
    encoded = _save(frames, fmt, None, icc, exif, durations)
    if target.fits_bytes(len(encoded)):
        return encoded, _default_quality(fmt), frames, fmt
    lossy = fmt in ("JPEG", "WEBP") and not animated
    photo_png = fmt == "PNG" and not animated and not _has_alpha(frames[0])
    if photo_png and "image/jpeg" in target.accepted_types:
        fmt, lossy = "JPEG", True
        frames = [_prepared_for(frame, fmt) for frame in frames]
        encoded = _save(frames, fmt, None, icc, exif, None)
        if target.fits_bytes(len(encoded)):
            return encoded, _default_quality(fmt), frames, fmt
    limit = target.max_raw_bytes or len(encoded)
    for _ in range(12):
        if lossy and target.fits_bytes(len(_save(frames, fmt, _MIN_JPEG_QUALITY, icc, exif, None))):
            found = _quality_search(frames[0], fmt, target, icc, exif)
            if found is not None:
                return found[0], found[1], frames, fmt
        # Even the lowest quality is too large: scale down by the square root of the excess
        # (bytes follow the pixel count), then try the default quality again.
        width, height = frames[0].size
        if width <= 16 or height <= 16:
            break
        factor = max(0.25, min(0.9, math.sqrt(limit / len(encoded)) * 0.95))
        size = (max(1, int(width * factor)), max(1, int(height * factor)))
        frames = [_prepared_for(_resize(frame, size), fmt) for frame in frames]
        encoded = _save(frames, fmt, None, icc, exif, durations)
        if target.fits_bytes(len(encoded)):
            return encoded, _default_quality(fmt), frames, fmt
    raise DoesNotFitError(
        f"{what}: cannot be made smaller than the limit of {target.max_bytes or 0:,} bytes "
        f"({target.bytes_measure})",
        [f"{what}: no quality or size fits {target.max_bytes or 0:,} bytes"],
    )


def _default_quality(fmt: str) -> int | None:
    return {"JPEG": _START_JPEG_QUALITY, "WEBP": _WEBP_QUALITY}.get(fmt)


def _quality_search(
    frame: Image.Image, fmt: str, target: ImageTarget, icc: bytes | None, exif: bytes | None
) -> tuple[bytes, int] | None:
    """The highest quality in [40, 89] whose file fits, by binary search; None if none does."""
    low, high = _MIN_JPEG_QUALITY, _START_JPEG_QUALITY - 1
    best: tuple[bytes, int] | None = None
    while low <= high:
        quality = (low + high) // 2
        encoded = _save([frame], fmt, quality, icc, exif, None)
        if target.fits_bytes(len(encoded)):
            best = (encoded, quality)
            low = quality + 1
        else:
            high = quality - 1
    return best
