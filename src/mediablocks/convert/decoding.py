"""Images decoded in a worker process: every format but the five the caller decodes itself, and
any image whose decode the header shows to be costly.

The caller's process runs Pillow only for JPEG, PNG, GIF, WebP and BMP, and only when the
header shows the decode is cheap (`mediablocks.images.costs`). Everything else (TIFF, JPEG 2000,
HEIF and AVIF, PSD, ICO and the long tail of rasters, an 81 MP WebP, a JPEG of 20,000 scans)
is fitted here, by the same `fit_image` steps, in a worker under `ConversionLimits`: memory,
CPU seconds and the wall-time budget bound what no header check can. Only the fitted result
comes back (the provider's byte limit bounds it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..changes import Change
from .isolation import run_isolated

if TYPE_CHECKING:
    from ..images.target import FittedImage, ImageTarget

__all__ = ["fit_here", "fit_in_worker", "image_header_here", "image_header_in_worker"]

_CONVERTER = "image decoder (Pillow)"
_HEADER_BYTES = 4 * 1024 * 1024  # what a header read needs at most (the rest is pixel data)


def fit_in_worker(
    data: bytes,
    target: ImageTarget,
    strip_metadata: bool,
    convert: bool,
    max_image_pixels: int | None,
    what: str,
) -> FittedImage:
    """`mediablocks.images.fit_image`'s result for ``data``, fitted in a worker process."""
    from ..images.target import FittedImage

    fitted, mime, width, height, changes = run_isolated(
        what,
        fit_here,
        data,
        target,
        strip_metadata,
        convert,
        max_image_pixels,
        what,
        converter=_CONVERTER,
    )
    return FittedImage(fitted, mime, width, height, changes)


def fit_here(
    data: bytes,
    target: ImageTarget,
    strip_metadata: bool,
    convert: bool,
    max_image_pixels: int | None,
    what: str,
) -> tuple[bytes, str, int, int, tuple[Change, ...]]:
    """Fit ``data`` to ``target`` decoding it in this process (a worker's job): the fitted
    bytes, MIME type, size and changes."""
    from ..images.fit import fit_decoding_here

    fitted = fit_decoding_here(
        data,
        target,
        strip_metadata=strip_metadata,
        convert=convert,
        max_image_pixels=max_image_pixels,
        what=what,
    )
    return fitted.data, fitted.mime_type, fitted.width, fitted.height, fitted.changes


def image_header_in_worker(
    data: bytes, what: str, max_image_pixels: int | None
) -> tuple[int, int, int, int]:
    """``(width, height, frames, orientation)`` from the header, read in a worker process
    (stored size: the EXIF orientation, 1 to 8, is not applied)."""
    return run_isolated(
        what,
        image_header_here,
        data[:_HEADER_BYTES] if len(data) > _HEADER_BYTES else data,
        what,
        max_image_pixels,
        converter=_CONVERTER,
    )


def image_header_here(
    data: bytes, what: str, max_image_pixels: int | None
) -> tuple[int, int, int, int]:
    """See `image_header_in_worker` (a worker's job: Pillow reads the header, no pixel)."""
    from ..images.metadata import _tiff_images
    from ..images.opening import _open, pillow_errors
    from ..images.plugins import WORKER_FORMATS

    with pillow_errors(what), _open(data, what, max_image_pixels, WORKER_FORMATS) as image:
        width, height = image.size
        if image.format == "TIFF":
            frames = _tiff_images(data)
        else:
            frames = int(getattr(image, "n_frames", 1) or 1)
        orientation = image.getexif().get(0x0112, 1)
    if not isinstance(orientation, int) or not 1 <= orientation <= 8:
        orientation = 1
    return width, height, frames, orientation
