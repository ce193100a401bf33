"""Encoding to a byte limit: the quality search, then smaller scales."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from io import BytesIO
from typing import Any

from PIL import Image

from ..errors import DoesNotFitError
from .convert import _has_alpha, _prepared_for, _resize
from .target import ImageTarget

MIN_JPEG_QUALITY = 40
"""The lowest JPEG/WebP quality a fit goes to before it lowers the resolution."""
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
    """Encode within the byte limit: quality first, then resolution.

    A still JPEG/WebP goes through `_fit_lossy` (quality predicted on a sample, one full encode
    to confirm). A PNG photo (no transparency) that is too large becomes a JPEG first; other
    PNGs, GIFs and animations are scaled down until they fit. Returns the bytes, the quality used
    (None for PNG/GIF), the frames encoded and the format.
    """
    frames = [_prepared_for(frame, fmt) for frame in frames]
    durations = [frame.info.get("duration", 100) for frame in frames] if animated else None
    if icc and fmt == "JPEG" and frames[0].mode not in ("RGB", "L", "YCbCr"):
        icc = None
    lossy = fmt in ("JPEG", "WEBP") and not animated
    if lossy and target.max_bytes is not None:
        encoded, quality, frame = _fit_lossy(frames[0], fmt, target, icc, exif, what)
        return encoded, quality, [frame], fmt
    encoded = _save(frames, fmt, None, icc, exif, durations)
    if target.fits_bytes(len(encoded)):
        return encoded, _default_quality(fmt), frames, fmt
    photo_png = fmt == "PNG" and not animated and not _has_alpha(frames[0])
    if photo_png and "image/jpeg" in target.accepted_types:
        frame = _prepared_for(frames[0], "JPEG")
        encoded, quality, frame = _fit_lossy(frame, "JPEG", target, icc, exif, what)
        return encoded, quality, [frame], "JPEG"
    limit = target.max_raw_bytes or len(encoded)
    for _ in range(12):
        # Scale down by the square root of the excess (bytes follow the pixel count).
        factor = max(0.25, min(0.9, math.sqrt(limit / len(encoded)) * 0.95))
        size = _smaller(frames[0].size, factor, target, what)
        frames = [_prepared_for(_resize(frame, size), fmt) for frame in frames]
        encoded = _save(frames, fmt, None, icc, exif, durations)
        if target.fits_bytes(len(encoded)):
            return encoded, _default_quality(fmt), frames, fmt
    raise _does_not_fit(target, what)


def _does_not_fit(target: ImageTarget, what: str) -> DoesNotFitError:
    floor = f", long edge {target.min_side} px" if target.min_side else ""
    return DoesNotFitError(
        f"{what}: cannot be made smaller than the limit of {target.max_bytes or 0:,} bytes "
        f"({target.bytes_measure}) above the floor (JPEG quality {MIN_JPEG_QUALITY}{floor})",
        [f"{what}: no quality or size fits {target.max_bytes or 0:,} bytes"],
    )


def _smaller(
    size: tuple[int, int], factor: float, target: ImageTarget, what: str
) -> tuple[int, int]:
    """``size`` times ``factor``, refusing to go below 16 px or the target's ``min_side``."""
    width, height = size
    floor = max(16, target.min_side or 0)
    if max(width, height) <= floor or min(width, height) <= 16:
        raise _does_not_fit(target, what)
    factor = max(factor, floor / max(width, height))
    return max(1, int(width * factor)), max(1, int(height * factor))


def _default_quality(fmt: str) -> int | None:
    return {"JPEG": _START_JPEG_QUALITY, "WEBP": _WEBP_QUALITY}.get(fmt)


# Size of a libjpeg 4:2:0 file at a quality, relative to quality 75 (typical photos).
_RELATIVE_SIZE: tuple[tuple[int, float], ...] = (
    (40, 0.6), (50, 0.68), (60, 0.78), (70, 0.9), (75, 1.0),
    (80, 1.12), (85, 1.32), (90, 1.65), (95, 2.4), (100, 5.0),
)  # fmt: skip


def _relative_size(quality: float) -> float:
    for (q0, r0), (q1, r1) in itertools.pairwise(_RELATIVE_SIZE):
        if quality <= q1:
            return r0 + (r1 - r0) * (max(quality, q0) - q0) / (q1 - q0)
    return _RELATIVE_SIZE[-1][1]


_SAMPLE_PIXELS = 262_144
"""Below four times this many pixels the whole frame is the sample (its sizes are exact)."""
_BAND = 16  # sample bands are whole JPEG MCU rows (16 px with 4:2:0 chroma), so they code alike
_MARGIN = 0.97  # aim this far under the limit: a prediction from a sample is a few % off


class _SizeModel:
    """Predicts the encoded size of a frame at a quality from encodes of a small sample.

    The sample is evenly spaced full-width bands of the frame at its own resolution, so bytes
    per pixel are the frame's; the body is scaled by the pixel ratio, the header (tables, ICC,
    EXIF) is counted once. ``correction`` absorbs the error a full encode reveals.
    """

    def __init__(self, frame: Image.Image, fmt: str, icc: bytes | None, exif: bytes | None) -> None:
        self.frame, self.fmt, self.icc, self.exif = frame, fmt, icc, exif
        self.exact = frame.width * frame.height <= 4 * _SAMPLE_PIXELS
        self.sample = frame if self.exact else _bands(frame)
        self.ratio = (frame.width * frame.height) / (self.sample.width * self.sample.height)
        self.sizes: dict[int, int] = {}
        self.full: dict[int, bytes] = {}
        self.correction = 1.0

    def predict(self, quality: int) -> int:
        if self.exact:
            return len(self.encode(quality))
        if quality not in self.sizes:
            body = len(_save([self.sample], self.fmt, quality, None, None, None))
            corner = self.sample.crop((0, 0, 8, 8))
            header = len(_save([corner], self.fmt, quality, None, None, None))
            extra = len(self.icc or b"") + len(self.exif or b"")
            self.sizes[quality] = int(max(0, body - header) * self.ratio) + header + extra
        return int(self.sizes[quality] * self.correction)

    def encode(self, quality: int) -> bytes:
        if quality not in self.full:
            self.full = {quality: _save([self.frame], self.fmt, quality, self.icc, self.exif, None)}
        return self.full[quality]

    def best_quality(self, limit: int) -> int | None:
        """The highest quality in [MIN_JPEG_QUALITY, 90] predicted to fit ``limit`` raw bytes."""
        return _highest_fitting(self.predict, limit if self.exact else int(limit * _MARGIN))


def _highest_fitting(size_at: Callable[[int], int], aim: int) -> int | None:
    """The highest quality in [MIN_JPEG_QUALITY, 90] whose ``size_at`` is at most ``aim``, None
    when none is; ``size_at`` must grow with quality.

    Sizes follow the typical curve `_RELATIVE_SIZE` closely: the logarithm of a size is nearly a
    line in the logarithm of the curve. Each guess is where that line, through the measured size
    nearest the aim (with the curve's own slope until two sizes give one), meets the aim; the
    bracket [fits, too large] closes at width 1, by halves after five guesses. A photo takes two
    to four calls where a log-linear search from 40 and 90 took five to seven.
    """
    high = _START_JPEG_QUALITY
    size = size_at(high)
    if size <= aim:
        return high
    low, low_fits, goal = MIN_JPEG_QUALITY, False, math.log(max(aim, 1))
    points = [(_curve(high), math.log(size))]
    slope = 1.0
    for step in range(12):
        if step < 5:
            near_x, near_y = min(points, key=lambda point: abs(point[1] - goal))
            guess = _quality_at(near_x + (goal - near_y) / slope, low, high - 1)
        else:
            guess = (low + high) // 2
        if low_fits:
            guess = max(guess, low + 1)
        size = size_at(guess)
        if size <= aim:
            low, low_fits = guess, True
        elif guess == MIN_JPEG_QUALITY:
            return None
        else:
            high = guess
        if low_fits and high - low <= 1:
            return low
        points.append((_curve(guess), math.log(max(size, 1))))
        (x1, y1), (x2, y2) = points[-2:]
        if x2 != x1:
            slope = max(0.2, (y2 - y1) / (x2 - x1))
    return low if low_fits else None  # not reached: the bracket halves from the sixth call


def _curve(quality: int) -> float:
    return math.log(_relative_size(quality))


def _quality_at(curve: float, low: int, high: int) -> int:
    """The highest quality in [low, high] whose `_curve` is at most ``curve`` (else low)."""
    for quality in range(high, low, -1):
        if _curve(quality) <= curve:
            return quality
    return low


def _bands(frame: Image.Image) -> Image.Image:
    """Evenly spaced full-width bands of ``frame`` stacked into one image of about
    `_SAMPLE_PIXELS` pixels (at least 8 bands)."""
    count = max(8, math.ceil(_SAMPLE_PIXELS / (frame.width * _BAND)))
    count = min(count, frame.height // _BAND)
    sample = Image.new(frame.mode, (frame.width, count * _BAND))
    rows = frame.height // _BAND
    for index in range(count):
        top = (index * (rows - 1) // max(1, count - 1)) * _BAND
        sample.paste(frame.crop((0, top, frame.width, top + _BAND)), (0, index * _BAND))
    return sample


def _fit_lossy(
    frame: Image.Image,
    fmt: str,
    target: ImageTarget,
    icc: bytes | None,
    exif: bytes | None,
    what: str,
) -> tuple[bytes, int, Image.Image]:
    """The highest quality (then the largest size) whose JPEG/WebP fits the byte limit.

    The quality is predicted on a sample and confirmed by one full encode (a second when the
    prediction was a little off). When even `MIN_JPEG_QUALITY` is predicted too large, the frame
    is scaled by the square root of the excess and the search runs again.
    """
    limit = target.max_raw_bytes
    assert limit is not None
    for _ in range(12):
        model = _SizeModel(frame, fmt, icc, exif)
        for _ in range(4):
            quality = model.best_quality(limit)
            if quality is None:
                break
            encoded = model.encode(quality)
            if target.fits_bytes(len(encoded)):
                return encoded, quality, frame
            model.correction *= len(encoded) / max(1, model.predict(quality))
        predicted = model.predict(MIN_JPEG_QUALITY)
        factor = max(0.25, min(0.95, math.sqrt(limit * 0.92 / max(1, predicted))))
        frame = _prepared_for(_resize(frame, _smaller(frame.size, factor, target, what)), fmt)
    raise _does_not_fit(target, what)
