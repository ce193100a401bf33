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
"""

from __future__ import annotations

import math
import re
import struct
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from PIL import Image, ImageCms, ImageSequence, UnidentifiedImageError
from PIL.ImageFile import ImageFile

from .errors import DecodeError, DoesNotFitError, ImageBombError, UnsupportedBlockError
from .limits import ByteMeasure, ProviderLimits, measured_size
from .probe import probe_bytes

__all__ = [
    "DEFAULT_MAX_IMAGE_PIXELS",
    "Change",
    "FittedImage",
    "ImageTarget",
    "fit_image",
    "image_size",
    "strip_jpeg_metadata",
    "strip_png_metadata",
]

DEFAULT_MAX_IMAGE_PIXELS = 100_000_000
"""Images with more pixels than this are refused as decompression bombs (about 100 MP: every
phone and most cameras are below it). Pass ``max_image_pixels`` to change it."""

_MIN_JPEG_QUALITY = 40
_START_JPEG_QUALITY = 90
_WEBP_QUALITY = 90

# Pillow format -> the MIME type providers use.
_FORMAT_MIME = {
    "JPEG": "image/jpeg",
    "MPO": "image/jpeg",  # a phone JPEG with extra frames (depth maps...); the first is the photo
    "PNG": "image/png",
    "GIF": "image/gif",
    "WEBP": "image/webp",
    "HEIF": "image/heic",
    "AVIF": "image/avif",
    "TIFF": "image/tiff",
    "BMP": "image/bmp",
    "DIB": "image/bmp",
    "ICO": "image/x-icon",
    "JPEG2000": "image/jp2",
    "PSD": "image/vnd.adobe.photoshop",
}
_MIME_FORMAT = {"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WEBP"}
_HEIF_MIMES = ("image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence")
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")

# EXIF tags that say nothing about the person, place, time or camera.
_HARMLESS_EXIF = frozenset(
    {
        0x0112,  # Orientation (only when 1)
        0x011A,  # XResolution
        0x011B,  # YResolution
        0x0128,  # ResolutionUnit
        0x0213,  # YCbCrPositioning
        0x0131,  # Software
        0x8769,  # ExifIFD pointer (its contents are checked)
        0xA001,  # ColorSpace
        0xA002,  # PixelXDimension
        0xA003,  # PixelYDimension
        0x9000,  # ExifVersion
        0xA000,  # FlashpixVersion
        0x9101,  # ComponentsConfiguration
    }
)
_PNG_METADATA_CHUNKS = frozenset({b"tEXt", b"zTXt", b"iTXt", b"eXIf", b"tIME"})
_BOMB_MESSAGE = re.compile(r"\((\d+) pixels\)")


@dataclass(frozen=True)
class Change:
    """One thing preprocessing changed: ``kind`` is a short tag, ``detail`` says what exactly.

    Kinds: ``orientation``, ``metadata``, ``converted``, ``first_frame``, ``resized``,
    ``re-encoded``, ``transcoded``.
    """

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(frozen=True)
class ImageTarget:
    """What an image must fit: accepted types, pixel and byte limits (``None``: no limit).

    ``optimal_side`` / ``optimal_pixels`` / ``short_side`` are sizes the provider scales down to
    anyway; targeting them saves upload and tokens without losing what the model sees.
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

    @classmethod
    def from_limits(
        cls,
        limits: ProviderLimits,
        *,
        image_count: int = 1,
        optimal_size: bool = False,
        max_bytes: int | None = None,
    ) -> ImageTarget:
        """The target for one image of a request holding ``image_count`` images.

        ``max_bytes`` (counted like the provider counts) tightens the provider's per-image limit,
        e.g. to share a per-request total between images.
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
        )

    def fits_bytes(self, raw_size: int) -> bool:
        """True when a file of ``raw_size`` bytes is within the byte limit as counted."""
        if self.max_bytes is None:
            return True
        return measured_size(raw_size, self.bytes_measure) <= self.max_bytes

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


def image_size(
    data: bytes, *, what: str = "image", max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS
) -> tuple[int, int]:
    """``(width, height)`` from the header only, after the bomb check (orientation not applied)."""
    with _open(data, what, max_image_pixels) as image:
        width, height = image.size
        return width, height


# -- opening --------------------------------------------------------------------------------------


def _open(data: bytes, what: str, max_pixels: int | None) -> ImageFile:
    """Open lazily (header only), with our bomb check and never Pillow's warning or error."""
    if _looks_like_heif(data):
        _register_heif(what)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(BytesIO(data))
    except Image.DecompressionBombError as exc:
        found = _BOMB_MESSAGE.search(str(exc))
        pixels = int(found.group(1)) if found else None
        raise _bomb(what, pixels, max_pixels) from None
    except UnidentifiedImageError:
        raise UnsupportedBlockError(f"{what}: {_unreadable_hint(data)}") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise DecodeError(f"{what}: not a readable image: {exc}") from None
    width, height = image.size
    if max_pixels is not None and width * height > max_pixels:
        image.close()
        raise _bomb(what, width * height, max_pixels, (width, height))
    return image


def _bomb(
    what: str, pixels: int | None, limit: int | None, size: tuple[int, int] | None = None
) -> ImageBombError:
    dims = f" ({size[0]}x{size[1]})" if size else ""
    count = f"{pixels:,} pixels{dims}" if pixels is not None else "more pixels than Pillow allows"
    return ImageBombError(
        f"{what}: {count} exceeds the decompression-bomb limit of {limit or 0:,} pixels; pass a "
        "larger max_image_pixels if the image is trusted",
        limit=limit,
        size=pixels,
    )


def _looks_like_heif(data: bytes) -> bool:
    return data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS


def _heif_decoder() -> bool:
    """True when pillow-heif is installed (its opener is then registered with Pillow)."""
    try:
        import pillow_heif
    except ImportError:
        return False
    pillow_heif.register_heif_opener()
    return True


def _register_heif(what: str) -> None:
    if not _heif_decoder():
        raise UnsupportedBlockError(
            f"{what}: HEIC/HEIF needs pillow-heif to be decoded: pip install 'mediablocks[heif]'"
        )


def _heif_as_is(
    data: bytes, target: ImageTarget, strip_metadata: bool, max_pixels: int | None, what: str
) -> FittedImage:
    """HEIC/HEIF with no decoder installed: sent as it is when nothing needs decoding.

    That is when the provider takes HEIC/HEIF (Gemini), the header's size and the file's bytes are
    within its limits, and the caller turned metadata stripping off: a phone photo carries GPS
    tags, so by default it is never sent unread.
    """
    info = probe_bytes(data)
    width, height = info.width or 0, info.height or 0
    if max_pixels is not None and width * height > max_pixels:
        raise _bomb(what, width * height, max_pixels, (width, height))
    fits = (
        info.mime_type in target.accepted_types
        and width > 0
        and (target.max_side is None or max(width, height) <= target.max_side)
        and (target.max_pixels is None or width * height <= target.max_pixels)
        and target.fits_bytes(len(data))
    )
    if fits and not strip_metadata:
        return FittedImage(data, info.mime_type, width, height)
    need = "strip its metadata" if fits else "convert or resize it"
    hint = " (or strip_metadata=False to send it as it is)" if fits else ""
    raise UnsupportedBlockError(
        f"{what}: HEIC/HEIF needs pillow-heif to {need}: pip install 'mediablocks[heif]'{hint}"
    )


def _unreadable_hint(data: bytes) -> str:
    from .convert.raster import unreadable_hint

    return unreadable_hint(data)


def _convert_refused_format(
    data: bytes,
    mime: str | None,
    target: ImageTarget,
    convert: bool,
    max_pixels: int | None,
    what: str,
) -> tuple[bytes, Change] | None:
    """The hook for formats Pillow cannot read alone (SVG, JPEG XL, 16-bit PSD): see
    `mediablocks.convert.raster`. New bytes and their `Change`, or None to open ``data``."""
    from .convert.raster import convert_refused_image

    side = min(target.optimal_side or 2048, target.max_side or 2048, 2048)
    done = convert_refused_image(
        data, mime, max_side=side, max_pixels=max_pixels, convert=convert, what=what
    )
    return None if done is None else (done[0], Change("converted", done[1]))


# -- inspecting -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Facts:
    format: str
    mime: str
    width: int  # as displayed (orientation applied)
    height: int
    orientation: int
    frames: int
    animated: bool
    private: tuple[str, ...]
    needs_mode_change: str | None
    lossless_webp: bool = False


def _inspect(image: ImageFile, data: bytes) -> _Facts:
    fmt = image.format or ""
    mime = _FORMAT_MIME.get(fmt) or image.get_format_mimetype() or f"image/{fmt.lower()}"
    exif = _exif(image)
    orientation = exif.get(0x0112, 1) if exif is not None else 1
    if not isinstance(orientation, int) or not 1 <= orientation <= 8:
        orientation = 1
    width, height = image.size
    if orientation >= 5:
        width, height = height, width
    frames = int(getattr(image, "n_frames", 1) or 1)
    animated = bool(getattr(image, "is_animated", False)) and fmt in ("GIF", "WEBP", "PNG")
    mode_change = None
    if image.mode == "CMYK":
        mode_change = "CMYK to RGB"
    elif fmt == "PNG" and len(data) > 24 and data[24] == 16:
        mode_change = "16-bit to 8-bit"
    return _Facts(
        format=fmt,
        mime=mime,
        width=width,
        height=height,
        orientation=orientation,
        frames=frames,
        animated=animated,
        private=tuple(_private_metadata(image, data, exif)),
        needs_mode_change=mode_change,
        lossless_webp=fmt == "WEBP" and _webp_is_lossless(data),
    )


def _webp_is_lossless(data: bytes) -> bool:
    """True when the WebP's image chunk is VP8L (lossless), walking the RIFF chunks."""
    pos = 12
    while pos + 8 <= len(data):
        kind = data[pos : pos + 4]
        if kind in (b"VP8L", b"VP8 "):
            return kind == b"VP8L"
        if kind == b"ANMF":  # an animation frame: its image chunk comes after 16 bytes of header
            pos += 8 + 16
            continue
        (size,) = struct.unpack("<I", data[pos + 4 : pos + 8])
        pos += 8 + size + (size & 1)
    return False


def _exif(image: Image.Image) -> Image.Exif | None:
    raw = image.info.get("exif")
    if not raw:
        return None
    exif = Image.Exif()
    try:
        exif.load(raw)
    except Exception:  # a broken EXIF block: treat it as private data to strip
        return None
    return exif


def _private_metadata(image: Image.Image, data: bytes, exif: Image.Exif | None) -> list[str]:
    found: list[str] = []
    if image.info.get("exif") and (exif is None or _exif_is_private(exif)):
        found.append("EXIF")
    for key, label in (
        ("xmp", "XMP"),
        ("XML:com.adobe.xmp", "XMP"),
        ("comment", "comment"),
        ("photoshop", "IPTC/Photoshop"),
        ("iptc", "IPTC"),
    ):
        if image.info.get(key) and label not in found:
            found.append(label)
    if image.format in ("JPEG", "MPO"):
        found.extend(_jpeg_extras(data))
    elif image.format == "PNG":
        # Walk the chunk headers: Pillow only reads the chunks before the image data.
        kinds = {kind for kind, _, _ in _png_chunks(data)}
        if kinds & {b"tEXt", b"zTXt", b"iTXt", b"tIME"}:
            found.append("PNG text/time chunks")
        if b"eXIf" in kinds and "EXIF" not in found and not image.info.get("exif"):
            found.append("EXIF")
    return found


def _exif_is_private(exif: Image.Exif) -> bool:
    for tag, value in exif.items():
        if tag not in _HARMLESS_EXIF or (tag == 0x0112 and value != 1):
            return True
    if any(tag not in _HARMLESS_EXIF for tag in exif.get_ifd(0x8769)):
        return True
    gps, thumbnail = 0x8825, -1  # the GPS IFD; IFD1 (a thumbnail of the uncropped original)
    return bool(exif.get_ifd(gps)) or bool(exif.get_ifd(thumbnail))


# -- JPEG and PNG structure (for the lossless strip) ---------------------------------------------


def _jpeg_segments(data: bytes) -> Iterator[tuple[int, int, int]]:
    """``(marker, start, end)`` of each segment before the scan; the last is SOS with end=-1."""
    pos = 2
    size = len(data)
    while pos + 4 <= size:
        if data[pos] != 0xFF:
            return
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xDA:
            yield marker, pos, -1
            return
        if 0xD0 <= marker <= 0xD8 or marker == 0x01:
            yield marker, pos, pos + 2
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        yield marker, pos, pos + 2 + length
        pos += 2 + length


def _jpeg_keeps(marker: int, data: bytes, start: int) -> bool:
    if marker == 0xFE:  # COM
        return False
    if 0xE0 <= marker <= 0xEF:
        if marker == 0xE0 or marker == 0xEE:  # JFIF, Adobe (colour transform)
            return True
        if marker == 0xE2:
            return data[start + 4 : start + 16] == b"ICC_PROFILE\x00"
        return False
    return True


def _jpeg_end(data: bytes, sos: int) -> int:
    end = data.find(b"\xff\xd9", sos)
    return len(data) if end < 0 else end + 2


def _jpeg_extras(data: bytes) -> list[str]:
    extras: list[str] = []
    multi_picture = False
    for marker, start, end in _jpeg_segments(data):
        if end == -1:
            # A file ending in EOI without an MPF index has nothing after the image: skip the scan.
            ends_clean = data.endswith(b"\xff\xd9") and not multi_picture
            if not ends_clean and _jpeg_end(data, start) < len(data):
                extras.append("data after the image (extra frames or appended files)")
            break
        if marker == 0xE2 and data[start + 4 : start + 8] == b"MPF\x00":
            multi_picture = True
        if not _jpeg_keeps(marker, data, start) and marker not in (0xE1, 0xED, 0xFE):
            extras.append(f"APP{marker - 0xE0} segment")
    return extras


def strip_jpeg_metadata(data: bytes) -> bytes:
    """A JPEG without EXIF, XMP, IPTC, comments, other APPn segments and trailing data.

    The ICC profile, JFIF and Adobe segments and every coding segment are kept, so the pixels
    are exactly the same: nothing is decoded or re-encoded.
    """
    parts = [data[:2]]
    for marker, start, end in _jpeg_segments(data):
        if end == -1:
            parts.append(data[start : _jpeg_end(data, start)])
            break
        if _jpeg_keeps(marker, data, start):
            parts.append(data[start:end])
    return b"".join(parts)


def _png_chunks(data: bytes) -> Iterator[tuple[bytes, int, int]]:
    """``(type, start, end)`` of each PNG chunk (end includes the CRC)."""
    pos = 8
    size = len(data)
    while pos + 8 <= size:
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        yield kind, pos, end
        if kind == b"IEND":
            return
        pos = end


def strip_png_metadata(data: bytes) -> bytes:
    """A PNG without text (tEXt/zTXt/iTXt, which hold XMP too), eXIf and tIME chunks.

    Image data, palette, transparency, colour (iCCP, sRGB, gAMA...) and animation chunks are
    kept byte for byte.
    """
    parts = [data[:8]]
    for kind, start, end in _png_chunks(data):
        if kind not in _PNG_METADATA_CHUNKS:
            parts.append(data[start:end])
    return b"".join(parts)


# -- sizing ---------------------------------------------------------------------------------------


def _scale_for(width: int, height: int, target: ImageTarget) -> float:
    """The largest scale <= 1 at which ``width`` x ``height`` meets every pixel limit."""
    scale = 1.0
    long_edge, short_edge = max(width, height), min(width, height)
    for side in (target.max_side, target.optimal_side):
        if side is not None and long_edge > side:
            scale = min(scale, side / long_edge)
    for pixels in (target.max_pixels, target.optimal_pixels):
        if pixels is not None and width * height > pixels:
            scale = min(scale, math.sqrt(pixels / (width * height)))
    if target.short_side is not None and short_edge * scale > target.short_side:
        scale = min(scale, target.short_side / short_edge)
    return scale


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
    byte limit, and `DecodeError` for a broken file.
    """
    changes: list[Change] = []
    refused = _convert_refused_format(data, mime_type, target, convert, max_image_pixels, what)
    if refused is not None:
        data = refused[0]
        changes.append(refused[1])
    if _looks_like_heif(data) and not _heif_decoder():
        return _heif_as_is(data, target, strip_metadata, max_image_pixels, what)
    image = _open(data, what, max_image_pixels)
    with image:
        facts = _inspect(image, data)
        plan = _Plan.make(facts, target, len(data), strip_metadata)
        if plan.nothing_to_do and not changes:
            return FittedImage(data, facts.mime, facts.width, facts.height)
        if plan.format_refused and not convert:
            raise UnsupportedBlockError(
                f"{what}: the provider does not take {facts.mime} and convert=False"
            )
        if plan.lossless_strip is not None:
            stripped = plan.lossless_strip(data)
            if target.fits_bytes(len(stripped)):
                changes.append(_metadata_change(facts))
                return FittedImage(stripped, facts.mime, facts.width, facts.height, tuple(changes))
        return _reencode(
            image, facts, plan, target, strip_metadata, changes, what, max_image_pixels
        )


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
        _draft_jpeg(image, facts, target, (final_w, final_h))
    frames = _frames(image, keep_animation, what)
    if facts.frames > 1 and not keep_animation and facts.format != "MPO":
        label = "animation frames" if facts.animated else "pages"
        changes.append(Change("first_frame", f"kept the first of {facts.frames} {label}"))
    out_frames: list[Image.Image] = []
    for frame in frames:
        if facts.orientation != 1:
            frame = _transposed(frame, facts.orientation)
        out_frames.append(frame)
    if facts.orientation != 1:
        changes.append(Change("orientation", f"applied EXIF orientation {facts.orientation}"))
    elif image.info.get("original_orientation") not in (None, 1):  # pillow-heif turns HEIF
        turned = image.info["original_orientation"]
        changes.append(Change("orientation", f"applied orientation {turned} (HEIF decoder)"))
    first = out_frames[0]
    if facts.needs_mode_change == "CMYK to RGB":
        out_frames = [_cmyk_to_rgb(frame, icc) for frame in out_frames]
        icc = None  # the pixels are sRGB now
        changes.append(Change("converted", "CMYK -> RGB"))
    elif facts.needs_mode_change == "16-bit to 8-bit" or first.mode in ("I", "I;16", "I;16B", "F"):
        out_frames = [_to_8bit(frame) for frame in out_frames]
        changes.append(Change("converted", "16-bit -> 8-bit"))
    first = out_frames[0]
    out_format = _output_format(facts, plan, first, target, keep_animation)
    if out_format != _MIME_FORMAT.get(facts.mime):
        changes.append(Change("converted", f"{facts.mime} -> {_mime_of(out_format)}"))
    if (final_w, final_h) != (facts.width, facts.height):
        out_frames = [_resize(frame, (final_w, final_h)) for frame in out_frames]
        changes.append(Change("resized", f"{facts.width}x{facts.height} -> {final_w}x{final_h}"))
    if facts.private and strip_metadata:
        changes.append(_metadata_change(facts))
    keep_exif = None if strip_metadata or not exif_bytes else _upright_exif(exif_bytes)
    encoded, quality, out_frames, encoded_format = _encode_to_fit(
        out_frames, out_format, target, icc, keep_exif, what, keep_animation
    )
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


def _frames(image: Image.Image, all_frames: bool, what: str) -> list[Image.Image]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            if not all_frames:
                image.seek(0)
                image.load()
                return [image]
            return [frame.copy() for frame in ImageSequence.Iterator(image)]
    except Image.DecompressionBombError as exc:  # a frame larger than the canvas said
        found = _BOMB_MESSAGE.search(str(exc))
        raise _bomb(what, int(found.group(1)) if found else None, None) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise DecodeError(f"{what}: the image data is broken: {exc}") from None


def _transposed(frame: Image.Image, orientation: int) -> Image.Image:
    method = {
        2: Image.Transpose.FLIP_LEFT_RIGHT,
        3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM,
        5: Image.Transpose.TRANSPOSE,
        6: Image.Transpose.ROTATE_270,
        7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_90,
    }[orientation]
    return frame.transpose(method)


def _cmyk_to_rgb(frame: Image.Image, icc: bytes | None) -> Image.Image:
    if icc:
        try:
            source = ImageCms.ImageCmsProfile(BytesIO(icc))
            srgb = ImageCms.createProfile("sRGB")
            converted = ImageCms.profileToProfile(frame, source, srgb, outputMode="RGB")
            if converted is not None:
                return converted
        except (OSError, ValueError, ImageCms.PyCMSError):
            pass
    return frame.convert("RGB")


def _to_8bit(frame: Image.Image) -> Image.Image:
    if frame.mode in ("I;16", "I;16B", "I;16L", "I"):
        return frame.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    if frame.mode == "F":
        return frame.convert("L")
    return frame


def _has_alpha(frame: Image.Image) -> bool:
    if frame.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        return frame.getextrema()[-1][0] < 255  # type: ignore[index]
    return frame.mode == "P" and "transparency" in frame.info


def _is_graphic(frame: Image.Image) -> bool:
    if frame.mode in ("1", "P"):
        return True
    small = frame if frame.width * frame.height <= 250_000 else frame.resize((400, 400))
    return small.getcolors(maxcolors=256) is not None


def _output_format(
    facts: _Facts, plan: _Plan, frame: Image.Image, target: ImageTarget, animated: bool
) -> str:
    own = _MIME_FORMAT.get(facts.mime)
    keeps_own = own != "GIF" or animated or frame.mode in ("P", "L", "1")
    if own == "WEBP" and facts.lossless_webp and not animated:
        keeps_own = False  # re-encoding would be lossy: a lossless WebP becomes a PNG
    if own is not None and not plan.format_refused and keeps_own:
        return own
    if "image/png" in target.accepted_types and (_has_alpha(frame) or _is_graphic(frame)):
        return "PNG"
    if "image/jpeg" in target.accepted_types:
        return "JPEG"
    if "image/png" in target.accepted_types:
        return "PNG"
    raise UnsupportedBlockError("the provider takes neither JPEG nor PNG images")


def _mime_of(fmt: str) -> str:
    return _FORMAT_MIME[fmt]


def _resize(frame: Image.Image, size: tuple[int, int]) -> Image.Image:
    if frame.mode in ("P", "1"):
        frame = frame.convert("RGBA" if "transparency" in frame.info else "RGB")
    # Hamming: an antialiased filter as sharp as bilinear's cost allows (Lanczos costs 2.3x the
    # time for a difference no model sees); reducing_gap shrinks by whole factors first.
    return frame.resize(size, Image.Resampling.HAMMING, reducing_gap=3.0)


def _upright_exif(raw: bytes) -> bytes:
    exif = Image.Exif()
    exif.load(raw)
    exif[0x0112] = 1
    return exif.tobytes()


def _prepared_for(frame: Image.Image, fmt: str) -> Image.Image:
    if fmt == "JPEG":
        if frame.mode in ("RGBA", "LA", "PA", "P"):
            frame = frame.convert("RGBA")
            background = Image.new("RGB", frame.size, (255, 255, 255))
            background.paste(frame, mask=frame.getchannel("A"))
            return background
        if frame.mode not in ("RGB", "L", "YCbCr"):
            return frame.convert("RGB")
    elif fmt == "PNG" and frame.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
        return frame.convert("RGBA" if "A" in frame.mode else "RGB")
    elif fmt == "WEBP" and frame.mode not in ("RGB", "RGBA"):
        return frame.convert("RGBA" if "A" in frame.mode or "transparency" in frame.info else "RGB")
    return frame


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
    """Encode; if too large, binary-search the JPEG/WebP quality, then scale down and repeat.

    A PNG photo (no transparency) that is too large becomes a JPEG first. Returns the bytes, the
    quality used (None for PNG/GIF), the frames encoded and the format.
    """
    frames = [_prepared_for(frame, fmt) for frame in frames]
    durations = [frame.info.get("duration", 100) for frame in frames] if animated else None
    if icc and fmt == "JPEG" and frames[0].mode not in ("RGB", "L", "YCbCr"):
        icc = None
    encoded = _save(frames, fmt, None, icc, exif, durations)
    if target.fits_bytes(len(encoded)):
        return encoded, _default_quality(fmt), frames, fmt
    lossy = fmt in ("JPEG", "WEBP") and not animated
    photo_png = fmt == "PNG" and not animated and not _has_alpha(frames[0])
    if photo_png and "image/jpeg" in target.accepted_types:
        fmt, lossy = "JPEG", True
        frames = [_prepared_for(frame, fmt) for frame in frames]
        encoded = _save(frames, fmt, None, icc, exif, None)
        if target.fits_bytes(len(encoded)):
            return encoded, _default_quality(fmt), frames, fmt
    limit = target.max_raw_bytes or len(encoded)
    for _ in range(12):
        if lossy and target.fits_bytes(len(_save(frames, fmt, _MIN_JPEG_QUALITY, icc, exif, None))):
            found = _quality_search(frames[0], fmt, target, icc, exif)
            if found is not None:
                return found[0], found[1], frames, fmt
        # Even the lowest quality is too large: scale down by the square root of the excess
        # (bytes follow the pixel count), then try the default quality again.
        width, height = frames[0].size
        if width <= 16 or height <= 16:
            break
        factor = max(0.25, min(0.9, math.sqrt(limit / len(encoded)) * 0.95))
        size = (max(1, int(width * factor)), max(1, int(height * factor)))
        frames = [_prepared_for(_resize(frame, size), fmt) for frame in frames]
        encoded = _save(frames, fmt, None, icc, exif, durations)
        if target.fits_bytes(len(encoded)):
            return encoded, _default_quality(fmt), frames, fmt
    raise DoesNotFitError(
        f"{what}: cannot be made smaller than the limit of {target.max_bytes or 0:,} bytes "
        f"({target.bytes_measure})",
        [f"{what}: no quality or size fits {target.max_bytes or 0:,} bytes"],
    )


def _default_quality(fmt: str) -> int | None:
    return {"JPEG": _START_JPEG_QUALITY, "WEBP": _WEBP_QUALITY}.get(fmt)


def _quality_search(
    frame: Image.Image, fmt: str, target: ImageTarget, icc: bytes | None, exif: bytes | None
) -> tuple[bytes, int] | None:
    """The highest quality in [40, 89] whose file fits, by binary search; None if none does."""
    low, high = _MIN_JPEG_QUALITY, _START_JPEG_QUALITY - 1
    best: tuple[bytes, int] | None = None
    while low <= high:
        quality = (low + high) // 2
        encoded = _save([frame], fmt, quality, icc, exif, None)
        if target.fits_bytes(len(encoded)):
            best = (encoded, quality)
            low = quality + 1
        else:
            high = quality - 1
    return best
