"""Signature checks for still images: JPEG, PNG, GIF, BMP, TIFF, ICO, PSD, JPEG 2000, JPEG XL."""

from __future__ import annotations

from ._common import _u16le, _u32be, _u32le

# -- images ----------------------------------------------------------------------------------------


def _jpeg(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "image/jpeg" if head.startswith(b"\xff\xd8\xff") else None


def _png(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # APNG is a PNG with extra chunks: image/png, which every decoder shows (first frame).
    return "image/png" if head.startswith(b"\x89PNG\r\n\x1a\n") else None


def _gif(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "image/gif" if head.startswith((b"GIF87a", b"GIF89a")) else None


_BMP_HEADER_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def _bmp(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # "BM" alone starts plenty of text: require a known DIB header size too.
    if head.startswith(b"BM") and len(head) >= 18 and _u32le(head, 14) in _BMP_HEADER_SIZES:
        return "image/bmp"
    return None


def _tiff(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if len(head) < 8:
        return None
    if head.startswith(b"II*\x00"):
        return "image/tiff" if _u32le(head, 4) >= 8 else None
    if head.startswith(b"MM\x00*"):
        return "image/tiff" if _u32be(head, 4) >= 8 else None
    if head.startswith((b"II+\x00\x08\x00\x00\x00", b"MM\x00+\x00\x08\x00\x00")):
        return "image/tiff"  # BigTIFF
    return None


def _ico(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # 00 00 01 00 is common in binary data: check the first directory entry as well.
    if not head.startswith(b"\x00\x00\x01\x00") or len(head) < 22:
        return None
    count = _u16le(head, 4)
    reserved, planes, bits = head[9], _u16le(head, 10), _u16le(head, 12)
    size, offset = _u32le(head, 14), _u32le(head, 18)
    if count == 0 or reserved != 0 or planes > 1 or bits not in (0, 1, 4, 8, 16, 24, 32):
        return None
    if size == 0 or offset < 6 + 16 * count:
        return None
    return "image/vnd.microsoft.icon"


def _psd(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return (
        "image/vnd.adobe.photoshop" if head.startswith((b"8BPS\x00\x01", b"8BPS\x00\x02")) else None
    )


def _jxl_codestream(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "image/jxl" if head.startswith(b"\xff\x0a") and len(head) > 2 else None


def _j2k_codestream(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "image/x-jp2-codestream" if head.startswith(b"\xff\x4f\xff\x51") else None


_JP2_BRANDS = {
    b"jp2 ": "image/jp2",
    b"jpx ": "image/jpx",
    b"jpm ": "image/jpm",
    b"mjp2": "video/mj2",
}


def _jpeg2000_or_jxl_box(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith(b"\x00\x00\x00\x0cJXL \r\n\x87\n"):
        return "image/jxl"
    if head.startswith(b"\x00\x00\x00\x0cjP  \r\n\x87\n"):
        brand = head[20:24] if head[16:20] == b"ftyp" else b"jp2 "
        return _JP2_BRANDS.get(brand, "image/jp2")
    return None
