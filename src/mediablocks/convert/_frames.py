"""What every way of sampling frames shares: the `Frame` and `SampledVideo` results, the pixel
check on a frame size, the times frames are taken at and their scaled size (used by
`convert.video` for PyAV and `convert.flic` for Pillow)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DoesNotFitError, ImageBombError

__all__ = [
    "Frame",
    "FrameChoice",
    "SampledVideo",
    "check_pixels",
    "fitted_size",
    "wanted_times",
]


@dataclass(frozen=True)
class Frame:
    """One sampled frame: JPEG bytes and the time in seconds from the start of the video."""

    data: bytes
    time: float
    width: int
    height: int


@dataclass(frozen=True)
class FrameChoice:
    """Which frames `sample_frames` takes and how large (its keywords, handed to whichever
    reader samples the file: PyAV, or Pillow for FLIC)."""

    max_frames: int
    interval: float | None
    max_side: int
    max_pixels: int | None
    quality: int


@dataclass(frozen=True)
class SampledVideo:
    """`sample_frames`' result: the frames in time order and facts about the source."""

    frames: tuple[Frame, ...]
    duration: float | None
    width: int
    height: int
    codec: str
    has_audio: bool

    def describe(self) -> str:
        length = "" if self.duration is None else f", {self.duration:.1f} s"
        return f"{self.codec} {self.width}x{self.height}{length}"


def check_pixels(width: int, height: int, max_pixels: int | None, what: str) -> None:
    if width <= 0 or height <= 0:
        raise DoesNotFitError(f"{what}: the video stream has no frame size")
    if max_pixels is not None and width * height > max_pixels:
        raise ImageBombError(
            f"{what}: video frames of {width}x{height} ({width * height} pixels) are over the "
            f"limit of {max_pixels} pixels",
            limit=max_pixels,
            size=width * height,
        )


def wanted_times(duration: float | None, max_frames: int, interval: float | None) -> list[float]:
    """Times (from the start) to take frames at; for an unknown duration, one a second."""
    if interval is not None:
        count = max_frames if duration is None else min(max_frames, int(duration / interval) + 1)
        return [i * interval for i in range(max(count, 1))]
    if duration is None or duration <= 0:
        return [float(i) for i in range(max_frames)]
    step = duration / max_frames
    return [(i + 0.5) * step for i in range(max_frames)]


def fitted_size(width: int, height: int, max_side: int) -> tuple[int, int]:
    scale = min(1.0, max_side / max(width, height))
    return max(1, round(width * scale)), max(1, round(height * scale))
