"""Signature checks for the long tail of raster formats Pillow reads: TGA, DDS, SGI, PCX/DCX,
ICNS, the PNM family, XPM, XBM, FLI/FLC, QOI, Sun raster, CUR, FITS and EPS.

No provider takes these; `prepare` converts them (Pillow decodes them all; EPS needs Ghostscript).
TGA has no magic number: its check is strict about every header field and runs after all the
checks that have one, so it never takes another format's bytes.
"""

from __future__ import annotations

import re

from ._common import _u16be, _u16le, _u32be, _u32le


def _dds(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # "DDS " then the DDS_HEADER, whose size field is always 124.
    return "image/vnd.ms-dds" if head.startswith(b"DDS |\x00\x00\x00") else None


def _sgi(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """SGI image: magic 474, storage 0/1 (raw/RLE), 1 or 2 bytes per channel, 1 to 3 dimensions."""
    if len(head) < 12 or _u16be(head, 0) != 474:
        return None
    storage, bpc, dimension = head[2], head[3], _u16be(head, 4)
    if storage > 1 or bpc not in (1, 2) or not 1 <= dimension <= 3:
        return None
    return "image/x-sgi" if _u16be(head, 6) and _u16be(head, 8) and _u16be(head, 10) else None


def _pcx(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """PCX: manufacturer 10, a known version, RLE encoding, a sane window and plane count."""
    if len(head) < 128 or head[0] != 0x0A or head[1] not in (0, 2, 3, 4, 5) or head[2] != 1:
        return None
    if head[3] not in (1, 2, 4, 8) or head[64] != 0 or not 1 <= head[65] <= 4:
        return None
    xmin, ymin, xmax, ymax = (_u16le(head, i) for i in (4, 6, 8, 10))
    return "image/vnd.zbrush.pcx" if xmax >= xmin and ymax >= ymin else None


def _dcx(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # A multi-page PCX: magic, then offsets of PCX pages (the first right after the table).
    if len(head) < 8 or _u32le(head, 0) != 0x3ADE68B1:
        return None
    return "image/x-dcx" if _u32le(head, 4) >= 8 else None


def _icns(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # "icns" then the file length, then (icon type, length) elements.
    if not head.startswith(b"icns") or len(head) < 16:
        return None
    return "image/x-icns" if _u32be(head, 4) >= 16 and head[8:12].isalnum() else None


_PNM = {
    b"P1": "image/x-portable-bitmap",
    b"P2": "image/x-portable-graymap",
    b"P3": "image/x-portable-pixmap",
    b"P4": "image/x-portable-bitmap",
    b"P5": "image/x-portable-graymap",
    b"P6": "image/x-portable-pixmap",
}
_PNM_SPACE = rb"(?:\s|#[^\n]*\n)+"  # whitespace, and comments to the end of their line
_PNM_HEADER = re.compile(
    rb"(P[1-6])" + _PNM_SPACE + rb"([1-9]\d{0,5})" + _PNM_SPACE + rb"([1-9]\d{0,5})"
    rb"(?:" + _PNM_SPACE + rb"([1-9]\d{0,4}))?\s"
)


def _pnm(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Netpbm, plain (P1-P3) or raw (P4-P6): the magic, then width, height and (except for
    bitmaps) a maximum value of 1 to 65535; a plain bitmap's pixels are 0s and 1s."""
    header = _PNM_HEADER.match(head) if head[:1] == b"P" else None
    if header is None:
        return None
    magic, maxval = header.group(1), header.group(4)
    if magic in (b"P1", b"P4"):
        if magic == b"P1" and head[header.end(3) :].translate(None, b"01 \t\r\n"):
            return None  # not cut at the head: a plain bitmap holds 0 and 1 only
    elif maxval is None or int(maxval) > 65535:
        return None
    return _PNM[magic]


def _xpm(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "image/x-xpixmap" if head.lstrip().startswith(b"/* XPM */") else None


_XBM_HEADER = re.compile(
    rb"\s*#define[ \t]+\S*_width[ \t]+\d+\s*#define[ \t]+\S*_height[ \t]+\d+\s*"
    rb"(?:#define[ \t]+\S*_[xy]_hot[ \t]+\d+\s*){0,2}static\s"
)


def _xbm(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "image/x-xbitmap" if _XBM_HEADER.match(head) else None


def _fli(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Autodesk FLI/FLC animation: magic AF11/AF12 at byte 4, 8-bit depth, a frame size."""
    if len(head) < 16 or _u16le(head, 4) not in (0xAF11, 0xAF12):
        return None
    frames, width, height, depth = (_u16le(head, i) for i in (6, 8, 10, 12))
    if depth not in (0, 8) or not width or not height or _u16le(head, 14) not in (0, 3):
        return None
    return "video/x-flic" if frames else None


def _qoi(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # "qoif", width, height (non-zero), channels 3/4, colour space 0/1.
    if not head.startswith(b"qoif") or len(head) < 14:
        return None
    if not _u32be(head, 4) or not _u32be(head, 8) or head[12] not in (3, 4) or head[13] > 1:
        return None
    return "image/qoi"


def _sun_raster(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if not head.startswith(b"\x59\xa6\x6a\x95") or len(head) < 32:
        return None
    depth = _u32be(head, 12)
    return "image/x-sun-raster" if depth in (1, 8, 24, 32) and _u32be(head, 4) else None


def _cur(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Windows cursor: an ICO directory of type 2 whose first entry is sane."""
    if not head.startswith(b"\x00\x00\x02\x00") or len(head) < 22:
        return None
    count, reserved, size, offset = _u16le(head, 4), head[9], _u32le(head, 14), _u32le(head, 18)
    # Cursor writers put the first image right after the directory: stricter than ICO's check,
    # as "00 00 02 00" starts more binary data than "00 00 01 00" does.
    if not 0 < count <= 64 or reserved != 0 or size < 40 or offset != 6 + 16 * count:
        return None
    return "image/x-win-bitmap"


def _fits(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # Flexible Image Transport System: 80-column ASCII cards, the first "SIMPLE  = T".
    if head.startswith(b"SIMPLE  =") and head[10:30].strip() == b"T":
        return "image/fits"
    return None


_EPS_FIRST_LINE = re.compile(rb"%!PS-Adobe-\d\.\d+ EPSF-\d\.\d+\s")


def _eps(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Encapsulated PostScript: a DSC first line naming EPSF, or the DOS EPS binary header."""
    if head.startswith(b"\xc5\xd0\xd3\xc6") and len(head) >= 30:
        start = _u32le(head, 4)
        return "image/x-eps" if window[start : start + 4].tobytes() == b"%!PS" else None
    return "image/x-eps" if _EPS_FIRST_LINE.match(head) else None


_TGA_IMAGE_TYPES = frozenset({1, 2, 3, 9, 10, 11})


def _tga(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Truevision TGA, which has no magic: every field of the 18-byte header must be possible.

    Colour-map type 0 or 1 and agreeing with the image type, a colour-mapped, true-colour or
    grey image type, a colour-map entry size and pixel depth TGA defines, a non-zero size,
    reserved descriptor bits clear, and (for a file smaller than the head) room for the pixels.
    """
    if len(head) < 18:
        return None
    id_length, cmap_type, image_type = head[0], head[1], head[2]
    cmap_length, cmap_entry = _u16le(head, 5), head[7]
    width, height, depth, descriptor = _u16le(head, 12), _u16le(head, 14), head[16], head[17]
    if image_type not in _TGA_IMAGE_TYPES or not width or not height or descriptor & 0xC0:
        return None
    if cmap_type == 1:
        if image_type not in (1, 9) or not cmap_length or cmap_entry not in (15, 16, 24, 32):
            return None
        if depth != 8:
            return None
    elif cmap_type == 0:
        if image_type in (1, 9) or cmap_length or _u16le(head, 3) or cmap_entry:
            return None
        grey = image_type in (3, 11)
        if (grey and depth not in (8, 16)) or (not grey and depth not in (15, 16, 24, 32)):
            return None
    else:
        return None
    if descriptor & 0x0F > depth:
        return None  # more alpha bits than bits per pixel
    if not truncated:
        palette = cmap_length * ((cmap_entry + 7) // 8)
        pixels = width * height * ((depth + 7) // 8) if image_type < 9 else 1
        if 18 + id_length + palette + pixels > len(head):
            return None  # an uncompressed image must hold its pixels
    return "image/x-tga"


def _blp(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Blizzard texture: BLP1 (JPEG or palette content) or BLP2 (type 1, a known encoding)."""
    if len(head) < 20:
        return None
    if head.startswith(b"BLP1") and _u32le(head, 4) in (0, 1):
        return "image/x-blp"
    if head.startswith(b"BLP2") and _u32le(head, 4) == 1 and head[8] in (1, 2, 3):
        return "image/x-blp"
    return None


def _msp(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # Microsoft Paint 1.x/2.x: "DanM" or "LinS", then a non-zero size.
    if head[:4] in (b"DanM", b"LinS") and len(head) >= 32 and _u16le(head, 4) and _u16le(head, 6):
        return "image/x-msp"
    return None


def _gbr(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # GIMP brush, version 2: header size, version, size, 1 or 4 bytes per pixel, "GIMP".
    if len(head) < 28 or head[20:24] != b"GIMP" or _u32be(head, 4) != 2:
        return None
    if _u32be(head, 0) < 28 or _u32be(head, 16) not in (1, 4):
        return None
    return "image/x-gimp-gbr" if _u32be(head, 8) and _u32be(head, 12) else None
