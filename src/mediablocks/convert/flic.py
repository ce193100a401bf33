"""FLI/FLC animations (``video/x-flic``) as sampled frames, through Pillow.

PyAV opens a FLIC file but its decoder gives no frame of many real ones (Pillow's test file
among them) and only the first frame of others; Pillow reads them all. `sample_frames` takes
FLIC frames from `sample_flic_frames` (PyAV only for what Pillow refuses), with the same bounds:
the frame size is checked against the pixel limit from the header before anything is decoded,
at most ``max_frames`` frames are kept (one decoded frame held at a time), and the deadline is
checked on every frame, since FLIC frames are deltas decoded in order.
"""

from __future__ import annotations

import io
import struct
import warnings
from typing import TYPE_CHECKING, Any

from ..errors import DecodeError, ImageBombError, MediaBlocksError
from ._frames import Frame, FrameChoice, SampledVideo, check_pixels, fitted_size, wanted_times

if TYPE_CHECKING:
    from ._av import Deadline

__all__ = ["is_flic", "sample_flic_frames"]

_MAGICS = (0xAF11, 0xAF12)  # FLI (speed in 1/70 s), FLC (speed in ms)
_DEFAULT_FRAME_SECONDS = 1 / 70  # a speed of 0: the fastest FLI speed


def is_flic(data: bytes) -> bool:
    """Whether ``data`` starts with a FLI or FLC header (its magic at offset 4)."""
    return len(data) >= 128 and struct.unpack_from("<H", data, 4)[0] in _MAGICS


def sample_flic_frames(
    data: bytes, what: str, choice: FrameChoice, deadline: Deadline
) -> SampledVideo:
    """Up to ``choice.max_frames`` JPEG frames of a FLIC animation, as `sample_frames` gives them
    (a `SampledVideo` with codec ``flic``). Raises `ImageBombError` for frames over
    ``max_pixels``, `DecodeError` when not even the first frame decodes."""
    width, height = struct.unpack_from("<HH", data, 8)
    check_pixels(width, height, choice.max_pixels, what)
    image = _open(data, what)
    try:
        count = max(1, int(getattr(image, "n_frames", 1)))
        seconds = float(image.info.get("duration") or 0) / 1000 or _DEFAULT_FRAME_SECONDS
        duration = count * seconds
        wanted = wanted_times(duration, choice.max_frames, choice.interval)
        picks = sorted({min(count - 1, int(t / seconds + 1e-6)) for t in wanted})
        size = fitted_size(width, height, choice.max_side)
        frames: list[Frame] = []
        current = 0
        for pick in picks:
            try:
                while current < pick:  # frames are deltas: each one decoded in order
                    deadline.check()
                    current += 1
                    image.seek(current)
                deadline.check()
                frames.append(_jpeg(image, pick * seconds, size, choice.quality))
            except MediaBlocksError:
                raise
            except Exception as exc:  # a frame past a truncated or damaged point
                if not frames:
                    detail = str(exc).strip() or type(exc).__name__
                    raise DecodeError(
                        f"{what}: FLIC frame {current} cannot be decoded: {detail}"
                    ) from None
                break
    finally:
        image.close()
    return SampledVideo(tuple(frames), duration, width, height, "flic", False)


def _open(data: bytes, what: str) -> Any:
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=["FLI"])
    except Image.DecompressionBombError as exc:
        raise ImageBombError(f"{what}: {exc}") from None
    except Exception as exc:  # Pillow raises SyntaxError, OSError, struct.error...
        raise DecodeError(f"{what}: not a FLIC animation Pillow reads: {exc}") from None
    return image


def _jpeg(image: Any, time: float, size: tuple[int, int], quality: int) -> Frame:
    frame = image.convert("RGB")
    if frame.size != size:
        frame = frame.resize(size)
    buffer = io.BytesIO()
    frame.save(buffer, "JPEG", quality=quality, optimize=True)
    return Frame(buffer.getvalue(), max(time, 0.0), frame.width, frame.height)
