"""What an opened image holds (`_Facts`) and private metadata, stripped without re-encoding.

JPEG segments and PNG chunks are walked as bytes: the lossless strip keeps every pixel exactly.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from PIL import Image
from PIL.ImageFile import ImageFile

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
    # Formats no provider takes, converted: named as `detect_mime` names them (Pillow's own
    # names differ or are missing).
    "TGA": "image/x-tga",
    "DDS": "image/vnd.ms-dds",
    "SGI": "image/x-sgi",
    "PCX": "image/vnd.zbrush.pcx",
    "DCX": "image/x-dcx",
    "ICNS": "image/x-icns",
    "CUR": "image/x-win-bitmap",
    "XPM": "image/x-xpixmap",
    "XBM": "image/x-xbitmap",
    "SUN": "image/x-sun-raster",
    "QOI": "image/qoi",
    "FITS": "image/fits",
    "EPS": "image/x-eps",
    "FLI": "video/x-flic",
    "FPX": "image/vnd.fpx",
    "MIC": "image/x-mic",
    "BLP": "image/x-blp",
    "MSP": "image/x-msp",
    "GBR": "image/x-gimp-gbr",
}

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
    scans: int | None = None  # a JPEG's, once `check_jpeg_scans` counted them


def _inspect(image: ImageFile, data: bytes) -> _Facts:
    fmt = image.format or ""
    mime = _FORMAT_MIME.get(fmt) or image.get_format_mimetype() or f"image/{fmt.lower()}"
    exif = _exif(image)
    orientation = exif.get(0x0112, 1) if exif is not None else 1
    if orientation == 1 and fmt in ("HEIF", "AVIF"):
        orientation = _heif_orientation(image, data)
    if not isinstance(orientation, int) or not 1 <= orientation <= 8:
        orientation = 1
    width, height = image.size
    if orientation >= 5:
        width, height = height, width
    frames = _tiff_images(data) if fmt == "TIFF" else int(getattr(image, "n_frames", 1) or 1)
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


def _heif_orientation(image: ImageFile, data: bytes) -> int:
    """The EXIF orientation a HEIF decoder did not apply. pillow-heif turns the image by the
    container's ``irot``/``imir`` and reports the EXIF value as ``original_orientation`` (setting
    the EXIF one to 1); a photo edited on iOS has the EXIF value and no transform box, so nothing
    turned it, and it is applied here like a JPEG's (1 when the decoder did the work)."""
    original = image.info.get("original_orientation")
    if not isinstance(original, int) or original == 1:
        return 1
    from ..probing.images import heif_has_transform

    return 1 if heif_has_transform(data) else original


def _tiff_images(data: bytes) -> int:
    """The images of a TIFF, counted by a linear walk of its IFD chain: Pillow's ``n_frames``
    checks each IFD against a list of those seen, quadratic in their number."""
    from ..probing._data import _BufferData
    from ..probing.images import TIFF_PROBE_IMAGES, tiff_directories

    walk = _BufferData(data)
    walk.start_walk()
    try:
        return max(1, min(tiff_directories(walk, TIFF_PROBE_IMAGES)[1], TIFF_PROBE_IMAGES))
    except Exception:  # a chain Pillow opened but the walk cannot follow: the first image
        return 1


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
