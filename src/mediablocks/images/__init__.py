"""Image preprocessing with Pillow: fit one image to a provider's limits.

`fit_image` does, in this order:

1. **Bomb guard.** The pixel count is read from the header (nothing decoded) and checked against
   ``max_image_pixels`` (`DEFAULT_MAX_IMAGE_PIXELS`); too many pixels raise `ImageBombError`.
   Pillow's own decompression-bomb warning and error never escape. Only JPEG, PNG, GIF, WebP
   and BMP are decoded in this process (`plugins`), and only when the header shows the decode
   is cheap (`costs`: memory and pixel passes); the rest is fitted by the same steps in a
   worker process (`fit.fit_here`).
2. **Nothing to do?** An image in an accepted format, within every limit, not animated where the
   provider refuses animation, upright (EXIF orientation 1 or none) and holding no private
   metadata is returned unchanged: the same bytes (`FittedImage.unchanged`).
3. **Lossless strip.** When only private metadata is in the way, JPEG and PNG files lose their
   metadata segments/chunks without being re-encoded (pixels identical).
4. Otherwise the image is decoded (a JPEG at a reduced DCT scale via ``draft`` when the target,
   or the byte limit, needs it much smaller; a large 8-bit PNG a strip of rows at a time, resized
   band by band, so memory follows the output), **EXIF orientation** is applied to the pixels,
   CMYK becomes RGB (through the ICC profile when there is one), 16-bit becomes 8-bit, formats
   the provider refuses are **converted** (PNG for transparency and graphics, JPEG for photos),
   an animation the provider refuses is reduced to its **first frame**, the image is **scaled
   down** (never up) to the pixel limits, and **re-encoded** to fit the byte limit as the
   provider counts bytes: quality first (predicted on a sample of the image, confirmed by one
   full encode), then resolution, never below quality `MIN_JPEG_QUALITY` or the target's
   ``min_side``. The ICC profile is kept; EXIF (GPS, serial numbers, dates), XMP, IPTC and
   comments are not.

Images returned untouched are checked to decode first (`verify_decodes`, at bounded cost), and
every Pillow call runs inside one error boundary (`pillow_errors`): a broken file gives
`DecodeError`, never Pillow's own exceptions.

Every step taken is recorded as a `Change`.

The steps live in small modules: `target` (what to fit), `plugins` (which Pillow plugins run
where), `costs` (what a decode will cost, from the header), `opening` (bomb guard, error
boundary), `metadata` (facts and the lossless strip), `verify` (untouched images decode),
`strips` (large PNGs in bands), `convert` (pixels), `encoding` (the byte-limit search) and `fit`
(the order). Everything public is imported from here.
"""

from __future__ import annotations

from .encoding import MIN_JPEG_QUALITY
from .fit import fit_image
from .metadata import strip_jpeg_metadata, strip_png_metadata
from .opening import _convert_refused_format as _convert_refused_format  # the format hook
from .opening import _unreadable_hint as _unreadable_hint
from .opening import image_size, pillow_errors
from .target import DEFAULT_MAX_IMAGE_PIXELS, Change, FittedImage, ImageTarget
from .verify import verify_decodes

__all__ = [
    "DEFAULT_MAX_IMAGE_PIXELS",
    "MIN_JPEG_QUALITY",
    "Change",
    "FittedImage",
    "ImageTarget",
    "fit_image",
    "image_size",
    "pillow_errors",
    "strip_jpeg_metadata",
    "strip_png_metadata",
    "verify_decodes",
]
