"""`plan_image`: what `fit_image` would do to an image, read from its header alone.

`mediablocks inspect` asks every provider about every file; fitting a 12-megapixel HEIC for each
(decode, turn, resize, re-encode at several qualities) took half a minute. The plan reads the same
facts `fit_image` starts from (format, size, orientation, metadata, frames: `_inspect` on an image
opened lazily) and applies the same `_Plan`, so it names the same changes without decoding a
pixel. A JPEG or PNG still has its data checked at a bounded cost (`verify_decodes`: JPEG at 1/8
scale, PNG by its chunks), since fitting would fail on a truncated one; other formats are trusted
to their header (a HEIC is decoded whole, which is what this avoids).
"""

from __future__ import annotations

from dataclasses import replace

from ..probing.plugins import CALLER_FORMATS, WORKER_FORMATS
from .convert import _MIME_FORMAT, _mime_of
from .costs import check_jpeg_scans
from .fit import _check_verify_cost, _metadata_change, _Plan, _scaled
from .metadata import _inspect
from .opening import DecodeElsewhere, _open, pillow_errors
from .target import DEFAULT_MAX_IMAGE_PIXELS, Change, ImageTarget
from .verify import verify_decodes

__all__ = ["PLANNED_TYPES", "plan_here", "plan_image"]

PLANNED_TYPES = frozenset(
    {
        "image/jpeg",
        "image/png",
        "image/gif",
        "image/webp",
        "image/heic",
        "image/heif",
        "image/avif",
        "image/bmp",
    }
)
"""Types whose header Pillow (with pillow-heif for HEIF) reads without decoding pixels; other
types (SVG, JPEG XL, PSD, TIFF with its codecs...) are judged by the full path."""


def plan_image(
    data: bytes,
    target: ImageTarget,
    *,
    strip_metadata: bool = True,
    convert: bool = True,
    max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS,
    what: str = "image",
    verify: bool = True,
) -> tuple[Change, ...]:
    """The changes `fit_image` would make to ``data`` for ``target`` (empty: sent as it is).

    Raises as `fit_image` does for a decompression bomb, an unreadable file, or a format the
    provider refuses with ``convert=False``; with ``verify``, an image sent as it is whose data
    does not decode raises `DecodeError` (the check `fit_image` makes). A resize or conversion
    is named with the size and type it leads to, in `fit_image`'s words; the JPEG quality is not
    predicted. A format the caller does not open (HEIF, AVIF, TIFF...) is planned in a worker
    process, as `fit_image` fits it there.
    """
    args = (data, target, strip_metadata, convert, max_image_pixels, what, verify)
    try:
        return plan_here(*args, False)
    except DecodeElsewhere:
        pass
    from ..convert.isolation import run_isolated

    planned: tuple[Change, ...] = run_isolated(
        what, plan_here, *args, converter="image header reader (Pillow)"
    )
    return planned


def plan_here(
    data: bytes,
    target: ImageTarget,
    strip_metadata: bool,
    convert: bool,
    max_image_pixels: int | None,
    what: str,
    verify: bool,
    here: bool = True,
) -> tuple[Change, ...]:
    """`plan_image` with Pillow's `WORKER_FORMATS` (``here``: a worker's job), or in the caller
    with its `CALLER_FORMATS`, raising `DecodeElsewhere` for what only a worker opens or
    decodes at the cost its check would take."""
    formats = WORKER_FORMATS if here else CALLER_FORMATS
    with pillow_errors(what):
        image = _open(data, what, max_image_pixels, formats)
        with image:
            facts = _inspect(image, data)
            if facts.format in ("JPEG", "MPO"):  # a scan bomb is refused as fitting refuses it
                facts = replace(facts, scans=check_jpeg_scans(data, what))
            plan = _Plan.make(facts, target, len(data), strip_metadata)
            if plan.format_refused and not convert:
                from ..errors import UnsupportedBlockError

                raise UnsupportedBlockError(
                    f"{what}: the provider does not take {facts.mime} and convert=False"
                )
            alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
            if verify and facts.format in ("JPEG", "MPO", "PNG"):
                # What fitting would decode (or send) must decode: checked at a bounded cost.
                if not here:
                    _check_verify_cost(image, facts, data)  # a scan bomb: in a worker
                verify_decodes(image, data, facts.format, what)
            if plan.nothing_to_do:
                return ()
    changes: list[Change] = []
    if facts.frames > 1 and plan.animation_refused:
        changes.append(Change("first_frame", f"kept the first of {facts.frames} animation frames"))
    if facts.orientation != 1:
        changes.append(Change("orientation", f"applied EXIF orientation {facts.orientation}"))
    if facts.needs_mode_change is not None:
        changes.append(Change("converted", facts.needs_mode_change.replace(" to ", " -> ")))
    own = _MIME_FORMAT.get(facts.mime)
    if plan.format_refused or own is None:
        wanted = "PNG" if alpha and "image/png" in target.accepted_types else "JPEG"
        if wanted == "JPEG" and "image/jpeg" not in target.accepted_types:
            wanted = "PNG"
        changes.append(Change("converted", f"{facts.mime} -> {_mime_of(wanted)}"))
    if plan.scale < 1.0:
        final = _scaled(facts.width, facts.height, plan.scale, target)
        changes.append(Change("resized", f"{facts.width}x{facts.height} -> {final[0]}x{final[1]}"))
    if facts.private and strip_metadata:
        changes.append(_metadata_change(facts))
    if plan.bytes_over:
        changes.append(Change("re-encoded", "to fit the provider's byte limit"))
    if not changes:  # whatever the plan found, the image is written again
        changes.append(Change("re-encoded", facts.mime))
    return tuple(changes)
