"""Image preprocessing with Pillow: fit one image to a provider's limits.

`fit_image` does, in this order:

1. **Bomb guard.** The pixel count is read from the header (nothing decoded) and checked against
   ``max_image_pixels`` (`DEFAULT_MAX_IMAGE_PIXELS`); too many pixels raise `ImageBombError`.
   Pillow's own decompression-bomb warning and error never escape.
2. **Nothing to do?** An image in an accepted format, within every limit, not animated where the
   provider refuses animation, upright (EXIF orientation 1 or none) and holding no private
   metadata is returned unchanged: the same bytes (`FittedImage.unchanged`).
3. **Lossless strip.** When only private metadata is in the way, JPEG and PNG files lose their
   metadata segments/chunks without being re-encoded (pixels identical).
4. Otherwise the image is decoded (a JPEG at a reduced DCT scale via ``draft`` when the target
   is much smaller), **EXIF orientation** is applied to the pixels, CMYK becomes RGB (through the
   ICC profile when there is one), 16-bit becomes 8-bit, formats the provider refuses are
   **converted** (PNG for transparency and graphics, JPEG for photos), an animation the provider
   refuses is reduced to its **first frame**, the image is **scaled down** (never up) to the
   pixel limits, and **re-encoded** to fit the byte limit as the provider counts bytes: a binary
   search on JPEG quality, then a smaller scale. The ICC profile is kept; EXIF (GPS, serial
   numbers, dates), XMP, IPTC and comments are not.

Every step taken is recorded as a `Change`.

The steps live in small modules: `target` (what to fit), `opening` (bomb guard, error
boundary), `metadata` (facts and the lossless strip), `convert` (pixels), `encoding` (the byte-limit
search) and `fit` (the order). Everything public is imported from here.
"""

from __future__ import annotations

from .fit import fit_image
from .metadata import strip_jpeg_metadata, strip_png_metadata
from .opening import _rasterise_svg, _unreadable_hint, image_size
from .target import DEFAULT_MAX_IMAGE_PIXELS, Change, FittedImage, ImageTarget

__all__ = [
    "DEFAULT_MAX_IMAGE_PIXELS",
    "Change",
    "FittedImage",
    "ImageTarget",
    "_rasterise_svg",
    "_unreadable_hint",
    "fit_image",
    "image_size",
    "strip_jpeg_metadata",
    "strip_png_metadata",
]
