"""What an image must fit (`ImageTarget`), what came out (`FittedImage`) and what changed.

No Pillow here: `prepare` and the limits read these before any image is opened. Nor pydantic:
a worker process fitting an image (`mediablocks.images.fit.fit_here`) imports this module,
and the provider tables of `mediablocks.limits` are only a type here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..changes import DEFAULT_MAX_IMAGE_PIXELS, Change

if TYPE_CHECKING:
    from ..limits import ProviderLimits

ByteMeasure = Literal["raw", "base64"]  # as `mediablocks.limits` names it

__all__ = ["DEFAULT_MAX_IMAGE_PIXELS", "Change", "FittedImage", "ImageTarget"]


@dataclass(frozen=True)
class ImageTarget:
    """What an image must fit: accepted types, pixel and byte limits (``None``: no limit).

    ``optimal_side`` / ``optimal_pixels`` / ``short_side`` are sizes the provider scales down to
    anyway; targeting them saves upload and tokens without losing what the model sees.
    ``min_side`` is a floor for fitting the byte limit: the long edge is never scaled below it
    (`DoesNotFitError` instead); an image already smaller is never scaled for bytes.
    """

    accepted_types: frozenset[str]
    max_side: int | None = None
    max_pixels: int | None = None
    max_bytes: int | None = None
    bytes_measure: ByteMeasure = "raw"
    animation: bool = True
    optimal_side: int | None = None
    optimal_pixels: int | None = None
    short_side: int | None = None
    min_side: int | None = None

    @classmethod
    def from_limits(
        cls,
        limits: ProviderLimits,
        *,
        image_count: int = 1,
        optimal_size: bool = False,
        max_bytes: int | None = None,
        min_side: int | None = None,
    ) -> ImageTarget:
        """The target for one image of a request holding ``image_count`` images.

        ``max_bytes`` (counted like the provider counts) tightens the provider's per-image limit,
        e.g. to share a per-request total between images; ``min_side`` is then the floor.
        """
        byte_limit = limits.max_image_bytes
        if max_bytes is not None:
            byte_limit = max_bytes if byte_limit is None else min(byte_limit, max_bytes)
        return cls(
            accepted_types=limits.image_types,
            max_side=limits.max_side_for(image_count),
            max_pixels=limits.max_image_pixels,
            max_bytes=byte_limit,
            bytes_measure=limits.image_bytes_measure,
            animation=limits.animated_images,
            optimal_side=limits.optimal_image_side if optimal_size else None,
            optimal_pixels=limits.optimal_image_pixels if optimal_size else None,
            short_side=limits.server_short_side if optimal_size else None,
            min_side=min_side,
        )

    def scale_for(self, width: int, height: int) -> float:
        """The largest scale <= 1 at which ``width`` x ``height`` meets every pixel limit."""
        scale = 1.0
        long_edge, short_edge = max(width, height), min(width, height)
        for side in (self.max_side, self.optimal_side):
            if side is not None and long_edge > side:
                scale = min(scale, side / long_edge)
        for pixels in (self.max_pixels, self.optimal_pixels):
            if pixels is not None and width * height > pixels:
                scale = min(scale, math.sqrt(pixels / (width * height)))
        if self.short_side is not None and short_edge * scale > self.short_side:
            scale = min(scale, self.short_side / short_edge)
        return scale

    def fits_bytes(self, raw_size: int) -> bool:
        """True when a file of ``raw_size`` bytes is within the byte limit as counted."""
        if self.max_bytes is None:
            return True
        counted = 4 * ((raw_size + 2) // 3) if self.bytes_measure == "base64" else raw_size
        return counted <= self.max_bytes  # `mediablocks.limits.measured_size`'s rule

    @property
    def max_raw_bytes(self) -> int | None:
        """The largest file (raw bytes) that fits the byte limit."""
        if self.max_bytes is None:
            return None
        if self.bytes_measure == "base64":
            return (self.max_bytes // 4) * 3
        return self.max_bytes


@dataclass(frozen=True)
class FittedImage:
    """The result of `fit_image`: the bytes to send and what changed (nothing: ``unchanged``)."""

    data: bytes
    mime_type: str
    width: int
    height: int
    changes: tuple[Change, ...] = ()

    @property
    def unchanged(self) -> bool:
        """True when the input bytes are returned as they were."""
        return not self.changes
