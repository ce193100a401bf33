"""The header of an image format the caller does not open, read by Pillow in a worker.

ICO, TGA, PSD, JPEG 2000, HEIF and the long tail of rasters have no walker of this package:
Pillow's plugins read their headers, and those plugins are not walkers whose cost is proven
here, so they run only in a worker process (`mediablocks.convert.isolation`), with the plugins
of `mediablocks.probing.plugins.WORKER_FORMATS` and nothing else (never EPS: no Ghostscript).
"""

from __future__ import annotations

import warnings
from io import BytesIO

from ..errors import DecodeError, MediaBlocksError

__all__ = ["HEADER_BYTES", "pillow_header", "pillow_header_in_worker"]

HEADER_BYTES = 4 * 1024 * 1024
"""What a header read is given at most: the rest of a file is pixel data."""


def pillow_header_in_worker(data: bytes, what: str) -> tuple[int, int, int, int]:
    """``(width, height, frames, orientation)`` of ``data``'s header, read by Pillow in a worker
    process: the stored size (EXIF orientation, 1 to 8, not applied). `DecodeError` (or another
    `MediaBlocksError` naming the worker's limit) when Pillow cannot read it."""
    from ..convert.isolation import run_isolated

    head = data[:HEADER_BYTES] if len(data) > HEADER_BYTES else data
    return run_isolated(what, pillow_header, head, what, converter="image header reader (Pillow)")


def pillow_header(data: bytes, what: str) -> tuple[int, int, int, int]:
    """See `pillow_header_in_worker` (a worker's job: Pillow reads the header, no pixel)."""
    from PIL import Image

    from ._data import _BufferData
    from .images import TIFF_PROBE_IMAGES, tiff_directories
    from .plugins import WORKER_FORMATS

    if data[4:8] == b"ftyp":  # HEIF: pillow-heif's opener, when installed
        try:
            import pillow_heif
        except ImportError:
            pass
        else:
            pillow_heif.register_heif_opener()
    Image.preinit()
    Image.init()
    formats = [name for name in WORKER_FORMATS if name in Image.OPEN]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow warns about each odd tag of a bad file
            with Image.open(BytesIO(data), formats=formats) as image:
                width, height = image.size
                if image.format == "TIFF":  # counted by the linear walk, never n_frames
                    walk = _BufferData(data)
                    walk.start_walk()
                    frames = min(tiff_directories(walk, TIFF_PROBE_IMAGES)[1], TIFF_PROBE_IMAGES)
                else:
                    frames = int(getattr(image, "n_frames", 1) or 1)
                orientation = image.getexif().get(0x0112, 1)
    except MediaBlocksError:
        raise
    except Exception as exc:  # any plugin failure on bytes we do not control
        raise DecodeError(f"{what}: Pillow cannot read this image's header ({exc})") from None
    if not isinstance(orientation, int) or not 1 <= orientation <= 8:
        orientation = 1
    return width, height, frames, orientation
