"""`fit_image`: the steps in order (see the package docstring), from bytes to `FittedImage`."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

from PIL import Image, ImageSequence
from PIL.ImageFile import ImageFile

from ..errors import DecodeError, UnsupportedBlockError
from ..probing.plugins import CALLER_FORMATS, WORKER_FORMATS
from .convert import (
    _MIME_FORMAT,
    _cmyk_to_rgb,
    _mime_of,
    _output_format,
    _resize,
    _to_8bit,
    _transposed,
    _upright_exif,
)
from .costs import CALLER_DECODE_BYTES, check_jpeg_scans, decode_cost
from .encoding import MIN_JPEG_QUALITY, _encode_to_fit, _relative_size
from .metadata import _Facts, _inspect, strip_jpeg_metadata, strip_png_metadata
from .opening import (
    _BOMB_MESSAGE,
    DecodeElsewhere,
    _bomb,
    _convert_refused_format,
    _heif_as_is,
    _heif_installed,
    _looks_like_heif,
    _open,
    pillow_errors,
)
from .strips import png_resized_in_strips
from .target import DEFAULT_MAX_IMAGE_PIXELS, Change, FittedImage, ImageTarget
from .verify import _FRAME_PIXELS, apng_problem, strip_animation, verify_decodes

# -- sizing ---------------------------------------------------------------------------------------


def _scale_for(width: int, height: int, target: ImageTarget) -> float:
    """The largest scale <= 1 at which ``width`` x ``height`` meets every pixel limit."""
    return target.scale_for(width, height)


def _scaled(width: int, height: int, scale: float, target: ImageTarget) -> tuple[int, int]:
    if scale >= 1.0:
        return width, height
    new_w = max(1, math.floor(width * scale))
    new_h = max(1, math.floor(height * scale))
    # Rounding must never leave a side or the pixel count over a hard limit.
    while (target.max_side is not None and max(new_w, new_h) > target.max_side) or (
        target.max_pixels is not None and new_w * new_h > target.max_pixels
    ):
        new_w, new_h = max(1, new_w - 1), max(1, new_h - 1)
    return new_w, new_h


# -- the main entry point -------------------------------------------------------------------------


def fit_image(
    data: bytes,
    target: ImageTarget,
    *,
    mime_type: str | None = None,
    strip_metadata: bool = True,
    convert: bool = True,
    max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS,
    what: str = "image",
) -> FittedImage:
    """Fit one image's bytes to ``target`` (see the module docstring for the steps).

    ``what`` names the image in errors (`prepare` passes the block's description). Raises
    `ImageBombError` for too many pixels, `UnsupportedBlockError` for a format that cannot be
    read or converted (with how to enable it), `DoesNotFitError` when no quality or size fits the
    byte limit, and `DecodeError` for a broken file: one that Pillow cannot read, or, when it
    would be returned untouched, one whose image data does not decode (see `verify_decodes`).
    Nothing else escapes: every Pillow call runs inside `pillow_errors`.

    Only JPEG, PNG, GIF, WebP and BMP are decoded in this process, and only when the header
    shows the decode is cheap (`mediablocks.images.costs`); any other image, or one that would
    cost more, is fitted the same way in a worker process under `ConversionLimits`
    (`fit_here`).
    """
    with pillow_errors(what):
        changes: list[Change] = []
        refused = _convert_refused_format(data, mime_type, target, convert, max_image_pixels, what)
        if refused is not None:
            data = refused[0]
            changes.append(refused[1])
        if _looks_like_heif(data) and not _heif_installed():
            return _heif_as_is(data, target, strip_metadata, max_image_pixels, what)
        try:
            return _fit(data, target, strip_metadata, convert, max_image_pixels, what, changes)
        except DecodeElsewhere:
            pass
        fitted = _fit_in_worker(data, target, strip_metadata, convert, max_image_pixels, what)
        if not changes:
            return fitted
        return FittedImage(
            fitted.data,
            fitted.mime_type,
            fitted.width,
            fitted.height,
            (*changes, *fitted.changes),
        )


def _fit_in_worker(
    data: bytes,
    target: ImageTarget,
    strip_metadata: bool,
    convert: bool,
    max_image_pixels: int | None,
    what: str,
) -> FittedImage:
    """`fit_image` of ``data`` in a worker process under the `ConversionLimits` in scope: only
    the fitted result comes back (the provider's byte limit bounds it)."""
    from ..convert.isolation import run_isolated

    fitted, mime, width, height, changes = run_isolated(
        what,
        fit_here,
        data,
        target,
        strip_metadata,
        convert,
        max_image_pixels,
        what,
        converter="image decoder (Pillow)",
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
    """A worker's job: `fit_image` decoding every format Pillow reads (`WORKER_FORMATS`) in this
    process, whatever it costs, bounded by the worker's `ConversionLimits`; the result as data
    (bytes, MIME type, size, changes). SVG, JPEG XL and PostScript are converted before this."""
    with pillow_errors(what):
        from ..convert.raster import is_psd, psd_composite, psd_needs_composite

        changes: list[Change] = []
        if is_psd(data) and psd_needs_composite(data):
            if not convert:
                raise UnsupportedBlockError(f"{what}: this PSD must be converted and convert=False")
            data = psd_composite(data, max_image_pixels, what)
            changes.append(Change("converted", "PSD (16-bit composite) -> PNG"))
        fitted = _fit(
            data, target, strip_metadata, convert, max_image_pixels, what, changes, here=True
        )
    return fitted.data, fitted.mime_type, fitted.width, fitted.height, fitted.changes


def _fit(
    data: bytes,
    target: ImageTarget,
    strip_metadata: bool,
    convert: bool,
    max_image_pixels: int | None,
    what: str,
    changes: list[Change],
    *,
    here: bool = False,
) -> FittedImage:
    """Fit ``data``; in the caller (``here`` False) `DecodeElsewhere` when the format or the
    decode it needs is not for the caller's process."""
    image = _open(data, what, max_image_pixels, WORKER_FORMATS if here else CALLER_FORMATS)
    with image:
        facts = _inspect(image, data)
        if facts.format in ("JPEG", "MPO"):
            facts = replace(facts, scans=check_jpeg_scans(data, what))
        plan = _Plan.make(facts, target, len(data), strip_metadata)
        if plan.nothing_to_do:  # as it is (after a conversion: the PNG it made, unchanged)
            problem = apng_problem(data) if facts.format == "PNG" else None
            if problem is not None:  # the still image is a plain PNG: send that
                return _still_of_broken_apng(data, facts, problem, what, max_image_pixels)
            if not here:
                _check_verify_cost(image, facts, data)
            verify_decodes(image, data, facts.format, what)
            return FittedImage(data, facts.mime, facts.width, facts.height, tuple(changes))
        if plan.format_refused and not convert:
            raise UnsupportedBlockError(
                f"{what}: the provider does not take {facts.mime} and convert=False"
            )
        if plan.lossless_strip is not None:
            stripped = plan.lossless_strip(data)
            if target.fits_bytes(len(stripped)):
                formats = WORKER_FORMATS if here else CALLER_FORMATS
                with _open(stripped, what, max_image_pixels, formats) as bare:  # it decodes
                    if not here:
                        _check_verify_cost(bare, replace(facts, scans=None), stripped)
                    verify_decodes(bare, stripped, facts.format, what)
                changes.append(_metadata_change(facts))
                return FittedImage(stripped, facts.mime, facts.width, facts.height, tuple(changes))
        return _reencode(
            image, facts, plan, target, strip_metadata, changes, what, max_image_pixels, data, here
        )


def _let_go(image: ImageFile, frames: list[Image.Image], animated: bool) -> None:
    """Free a still image's decoded pixels once the frames no longer are them."""
    if not animated and all(frame is not image for frame in frames):
        image.close()


def _check_verify_cost(image: ImageFile, facts: _Facts, data: bytes) -> None:
    """`DecodeElsewhere` when `verify_decodes` would cost the caller too much."""
    if facts.format == "PNG":
        return  # verified as a stream: CRCs and a counted inflate, no pixels held
    if facts.format in ("JPEG", "MPO"):
        size = (max(1, image.width // 8), max(1, image.height // 8))
        cost = decode_cost(image, facts, data, frames=1, jpeg_size=size)
    else:
        animated = facts.frames > 1 and facts.frames * image.width * image.height <= _FRAME_PIXELS
        cost = decode_cost(image, facts, data, frames=facts.frames if animated else 1, held=1)
    if not cost.fits_caller:
        raise DecodeElsewhere(cost.detail)


def _check_decode_cost(
    image: ImageFile, facts: _Facts, data: bytes, frames: int, jpeg_size: tuple[int, int] | None
) -> None:
    """`DecodeElsewhere` when decoding ``frames`` frames (all held) costs the caller too much."""
    cost = decode_cost(image, facts, data, frames=frames, jpeg_size=jpeg_size)
    if not cost.fits_caller:
        raise DecodeElsewhere(cost.detail)


def _still_of_broken_apng(
    data: bytes, facts: _Facts, problem: str, what: str, max_pixels: int | None
) -> FittedImage:
    """An animated PNG that breaks the APNG rules, sent as its still image (which decodes)."""
    still = strip_animation(data)
    with _open(still, what, max_pixels) as bare:
        verify_decodes(bare, still, "PNG", what)
    change = Change("first_frame", f"kept the still image of a malformed animated PNG: {problem}")
    return FittedImage(still, facts.mime, facts.width, facts.height, (change,))


@dataclass(frozen=True)
class _Plan:
    format_refused: bool
    animation_refused: bool
    scale: float
    bytes_over: bool
    strip: bool
    lossless_strip: Any  # Callable[[bytes], bytes] | None

    @property
    def nothing_to_do(self) -> bool:
        return not (
            self.format_refused
            or self.animation_refused
            or self.scale < 1.0
            or self.bytes_over
            or self.strip
        )

    @classmethod
    def make(cls, facts: _Facts, target: ImageTarget, size: int, strip_metadata: bool) -> _Plan:
        format_refused = facts.mime not in target.accepted_types
        animation_refused = facts.animated and not target.animation
        scale = _scale_for(facts.width, facts.height, target)
        bytes_over = not target.fits_bytes(size)
        reshape = facts.orientation != 1 or facts.needs_mode_change is not None
        strip = (strip_metadata and bool(facts.private)) or reshape
        lossless = None
        only_metadata = (
            strip_metadata
            and bool(facts.private)
            and not (format_refused or animation_refused or scale < 1.0 or reshape)
        )
        if only_metadata and facts.format in ("JPEG", "MPO"):
            lossless = strip_jpeg_metadata
        elif only_metadata and facts.format == "PNG":
            lossless = strip_png_metadata
        return cls(format_refused, animation_refused, scale, bytes_over, strip, lossless)


def _metadata_change(facts: _Facts) -> Change:
    return Change("metadata", "stripped " + ", ".join(facts.private) + " (ICC profile kept)")


def _reencode(
    image: ImageFile,
    facts: _Facts,
    plan: _Plan,
    target: ImageTarget,
    strip_metadata: bool,
    changes: list[Change],
    what: str,
    max_pixels: int | None,
    data: bytes,
    here: bool,
) -> FittedImage:
    keep_animation = facts.animated and not plan.animation_refused
    if keep_animation and max_pixels is not None:
        total = facts.frames * facts.width * facts.height
        if total > max_pixels:
            raise _bomb(what + f" ({facts.frames} frames)", total, max_pixels)
    final_w, final_h = _scaled(facts.width, facts.height, plan.scale, target)
    icc = image.info.get("icc_profile")
    exif_bytes = image.info.get("exif")
    if facts.format in ("JPEG", "MPO"):
        byte_scale = _byte_scale(image, facts, target, len(data), plan.scale)
        if byte_scale < 1.0:
            final_w, final_h = _scaled(facts.width, facts.height, plan.scale, target)
            # Decode at the smallest DCT scale within 20% of the predicted one: a full decode
            # to resize costs twice a 1/2-scale decode and four times its memory.
            smallest = (target.min_side or 0) / max(facts.width, facts.height)
            draft_scale = max(plan.scale * byte_scale / 1.25, smallest)
            draft = _scaled(facts.width, facts.height, min(plan.scale, draft_scale), target)
        else:
            draft = (final_w, final_h)
        if not here:
            stored = (draft[1], draft[0]) if facts.orientation >= 5 else draft
            _check_decode_cost(image, facts, data, 1, stored)
        _draft_jpeg(image, facts, target, draft)
    elif here and facts.format == "JPEG2000":
        _reduce_jpeg2000(image, facts, (final_w, final_h), data)
    frames = None
    if (
        facts.format == "PNG"
        and facts.frames == 1
        and (final_w, final_h) != (facts.width, facts.height)
    ):
        upright = (final_h, final_w) if facts.orientation >= 5 else (final_w, final_h)
        if not here and 4 * upright[0] * upright[1] > CALLER_DECODE_BYTES:
            raise DecodeElsewhere(f"a {upright[0]}x{upright[1]} output")
        strips = png_resized_in_strips(data, upright, what)  # memory: the output, not the input
        frames = None if strips is None else [strips]
    if frames is None:
        if not here and facts.format not in ("JPEG", "MPO"):
            _check_decode_cost(image, facts, data, facts.frames if keep_animation else 1, None)
        frames = _frames(image, keep_animation, what)
    if facts.frames > 1 and not keep_animation and facts.format != "MPO":
        label = "animation frames" if facts.animated else "pages"
        changes.append(Change("first_frame", f"kept the first of {facts.frames} {label}"))
    out_frames = frames
    del frames
    if facts.orientation != 1:
        changes.append(Change("orientation", f"applied EXIF orientation {facts.orientation}"))
    elif image.info.get("original_orientation") not in (None, 1):  # pillow-heif turns HEIF
        turned = image.info["original_orientation"]
        changes.append(Change("orientation", f"applied orientation {turned} (HEIF decoder)"))
    # Only ``out_frames`` holds pixels from here on: each step lets the previous copy go (the
    # decoded ones too, once a copy replaced them), so the caller holds at most two full-size
    # copies at once. The turn comes after the resize: it moves the fewer pixels.
    wide = out_frames[0].mode in ("I", "I;16", "I;16B", "F")
    if facts.needs_mode_change == "CMYK to RGB":
        out_frames = [_cmyk_to_rgb(frame, icc) for frame in out_frames]
        icc = None  # the pixels are sRGB now
        changes.append(Change("converted", "CMYK -> RGB"))
    elif facts.needs_mode_change == "16-bit to 8-bit" or wide:
        out_frames = [_to_8bit(frame) for frame in out_frames]
        changes.append(Change("converted", "16-bit -> 8-bit"))
    _let_go(image, out_frames, keep_animation)
    out_format = _output_format(facts, plan.format_refused, out_frames[0], target, keep_animation)
    if out_format != _MIME_FORMAT.get(facts.mime):
        changes.append(Change("converted", f"{facts.mime} -> {_mime_of(out_format)}"))
    if (final_w, final_h) != (facts.width, facts.height):
        stored = (final_h, final_w) if facts.orientation >= 5 else (final_w, final_h)
        decoded_w, decoded_h = out_frames[0].size  # as stored: not turned yet
        if decoded_w > stored[0] or decoded_h > stored[1]:  # else drafted smaller for bytes
            out_frames = [_resize(frame, stored) for frame in out_frames]
        changes.append(Change("resized", f"{facts.width}x{facts.height} -> {final_w}x{final_h}"))
    if facts.orientation != 1:
        out_frames = [_transposed(frame, facts.orientation) for frame in out_frames]
    _let_go(image, out_frames, keep_animation)
    if facts.private and strip_metadata:
        changes.append(_metadata_change(facts))
    keep_exif = None if strip_metadata or not exif_bytes else _upright_exif(exif_bytes)
    encoded, quality, out_frames, encoded_format = _encode_to_fit(
        out_frames, out_format, target, icc, keep_exif, what, keep_animation
    )
    problem = apng_problem(encoded) if encoded_format == "PNG" else None
    if problem is not None:  # never send what a strict decoder refuses
        raise DecodeError(f"{what}: the animated PNG made from it is malformed: {problem}")
    if encoded_format != out_format:
        changes.append(
            Change("converted", f"{_mime_of(out_format)} -> {_mime_of(encoded_format)} to fit")
        )
        out_format = encoded_format
    changes.append(
        Change("re-encoded", f"{out_format} quality {quality}" if quality else out_format)
    )
    width, height = out_frames[0].size
    if (width, height) != (final_w, final_h):
        changes.append(
            Change(
                "resized",
                f"{final_w}x{final_h} -> {width}x{height} to fit the byte limit",
            )
        )
    return FittedImage(encoded, _mime_of(out_format), width, height, tuple(changes))


def _jpeg_quality(image: Image.Image) -> float | None:
    """The IJG quality a JPEG was saved at, estimated from its luminance quantisation table."""
    tables = getattr(image, "quantization", None)
    if not tables or 0 not in tables or len(tables[0]) != 64:
        return None
    # IJG scales every entry of its base table alike, so sorted entries compare in any order.
    pairs = zip(sorted(tables[0]), sorted(_IJG_LUMINANCE), strict=True)
    scale = float(sum(q * 100 / b for q, b in pairs)) / 64
    return (200 - scale) / 2 if scale <= 100 else 5000 / scale


_IJG_LUMINANCE = (
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
)  # fmt: skip


def _byte_scale(
    image: Image.Image, facts: _Facts, target: ImageTarget, size: int, scale: float
) -> float:
    """How much smaller than the pixel limits a JPEG must be decoded to fit the byte limit.

    Predicted from the file before decoding, so libjpeg can decode at 1/2, 1/4 or 1/8 scale
    instead of a full decode that is then resized: the file's size at the quality it was saved
    at, moved to `MIN_JPEG_QUALITY` and to the pixel-limit scale (the encoder's search makes the
    fine decision on what is decoded); 1.0 when nothing is predicted.
    """
    limit = target.max_raw_bytes
    quality = _jpeg_quality(image)
    if limit is None or quality is None or facts.animated or target.fits_bytes(size):
        return 1.0
    predicted = size * _relative_size(MIN_JPEG_QUALITY) / _relative_size(quality) * scale**2
    if predicted <= limit:
        return 1.0
    return min(1.0, math.sqrt(limit / predicted))


def _draft_jpeg(
    image: ImageFile, facts: _Facts, target: ImageTarget, final: tuple[int, int]
) -> None:
    """Let libjpeg do part of the work: decode at 1/2, 1/4 or 1/8 scale when the target is that
    small, and stay in YCbCr (no colour conversion either way) when the output is a JPEG too."""
    mode = image.mode
    if mode == "RGB" and "image/jpeg" in target.accepted_types:
        mode = "YCbCr"
    size = None
    if final != (facts.width, facts.height):
        size = (final[1], final[0]) if facts.orientation >= 5 else final
    if mode != image.mode or size is not None:
        image.draft(mode, size)


def _reduce_jpeg2000(image: ImageFile, facts: _Facts, final: tuple[int, int], data: bytes) -> None:
    """Let OpenJPEG decode at 1/2, 1/4... of the size when the output is that small: memory
    and time follow the reduced size (the decoder skips the finer resolution levels, of which
    the codestream's COD marker says how many there are)."""
    factor = 0
    while (
        factor < _jpeg2000_levels(data)
        and facts.width >> (factor + 1) >= final[0]
        and facts.height >> (factor + 1) >= final[1]
    ):
        factor += 1
    if factor:
        image.reduce = factor  # type: ignore[assignment,method-assign]


def _jpeg2000_levels(data: bytes) -> int:
    """Decomposition levels of a JPEG 2000 codestream (its COD marker), 0 when not found: the
    main header's markers are walked by their lengths, 64 of them at most."""
    pos = data.find(b"\xff\x4f\xff\x51")
    if pos < 0:
        return 0
    pos += 2
    for _ in range(64):
        marker, length = data[pos : pos + 2], int.from_bytes(data[pos + 2 : pos + 4], "big")
        if marker == b"\xff\x52" and len(data) > pos + 9:
            return data[pos + 9]  # Lcod, Scod, SGcod (4 bytes), then the levels
        if marker[:1] != b"\xff" or marker == b"\xff\x90" or length < 2:
            return 0  # a tile part: the main header ended without a COD
        pos += 2 + length
    return 0


def _frames(image: Image.Image, all_frames: bool, what: str) -> list[Image.Image]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            if not all_frames:
                image.seek(0)
                image.load()
                return [image]
            frames = [frame.copy() for frame in ImageSequence.Iterator(image)]
            # A GIF frame may reach past the logical screen; Pillow then grows the image. The
            # screen is the canvas (GIF clips to it), and every frame of the output must fit it.
            canvas = frames[0].size
            return [f if f.size == canvas else f.crop((0, 0, *canvas)) for f in frames]
    except Image.DecompressionBombError as exc:  # a frame larger than the canvas said
        found = _BOMB_MESSAGE.search(str(exc))
        raise _bomb(what, int(found.group(1)) if found else None, None) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise DecodeError(f"{what}: the image data is broken: {exc}") from None
