"""Signature checks for documents: PDF, PostScript, RTF, ZIP and Office (OOXML, OLE2)."""

from __future__ import annotations

import re
import zlib

from ._common import _u16le, _u32le

# -- documents -------------------------------------------------------------------------------------


def _pdf(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "application/pdf" if head.startswith(b"%PDF-") else None


def _pdf_after_junk(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # Readers accept %PDF- within the first 1024 bytes; some generators put junk in front.
    at = head.find(b"%PDF-", 0, 1024)
    if at > 0 and head[at + 5 : at + 6] in (b"1", b"2"):
        return "application/pdf"
    return None


def _postscript(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith((b"%!PS", b"\xc5\xd0\xd3\xc6")):
        return "application/postscript"
    return None


def _rtf(head: bytes, window: memoryview, truncated: bool) -> str | None:
    return "application/rtf" if head.startswith(b"{\\rtf") else None


_OOXML_PARTS = (
    (b"word/", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    (b"xl/", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    (b"ppt/", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
)
_OOXML_MAIN_TYPES = (
    (b"wordprocessingml.document.main", _OOXML_PARTS[0][1]),
    (b"spreadsheetml.sheet.main", _OOXML_PARTS[1][1]),
    (b"presentationml.presentation.main", _OOXML_PARTS[2][1]),
)
_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_METHODS = frozenset({0, 1, 6, 8, 9, 12, 14, 19, 93, 95, 96, 97, 98, 99})
_MIME_VALUE = re.compile(rb"[a-z0-9.+-]+/[a-z0-9.+-]+\Z")


def _zip(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """ZIP, or the format built on it: OOXML, OpenDocument, EPUB, JAR, by the entry names."""
    if head.startswith((b"PK\x05\x06", b"PK\x07\x08")):
        return "application/zip"
    if not head.startswith(_ZIP_LOCAL):
        return None
    pos, content_types, blob = 0, None, b""
    n = len(window)
    for _ in range(64):
        if pos + 30 > n or window[pos : pos + 4] != _ZIP_LOCAL:
            break
        flags, method = _u16le(window, pos + 6), _u16le(window, pos + 8)
        packed = _u32le(window, pos + 18)
        name_length, extra_length = _u16le(window, pos + 26), _u16le(window, pos + 28)
        name = window[pos + 30 : pos + 30 + name_length].tobytes()
        if method not in _ZIP_METHODS or not name or len(name) < name_length or b"\x00" in name:
            break  # not a local file header we can read
        data = pos + 30 + name_length + extra_length
        if pos == 0 and name == b"mimetype" and method == 0:
            value = window[data : data + min(packed, 80)].tobytes().strip()
            if _MIME_VALUE.match(value):
                return value.decode("ascii")  # ODF, EPUB and friends say what they are
        for prefix, mime in _OOXML_PARTS:
            if name.startswith(prefix):
                return mime
        if name == b"META-INF/MANIFEST.MF":
            return "application/java-archive"
        if flags & 8:  # sizes follow the data: find the next entry by its signature
            blob = blob or window.tobytes()
            following = blob.find(_ZIP_LOCAL, data)
            packed = (following if following >= 0 else n) - data
        if name == b"[Content_Types].xml" and method == 8:
            content_types = (data, packed)
        pos = data + packed
    if pos == 0:
        return None  # not even the first entry made sense
    if content_types is not None:
        return _ooxml_from_content_types(window, *content_types) or "application/zip"
    return "application/zip"


def _ooxml_from_content_types(window: memoryview, start: int, packed: int) -> str | None:
    try:
        xml = zlib.decompressobj(-15).decompress(window[start : start + packed], 65536)
    except zlib.error:
        return None
    for marker, mime in _OOXML_MAIN_TYPES:
        if marker in xml:
            return mime
    return None


_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OLE_STREAMS = (
    ("WordDocument".encode("utf-16-le"), "application/msword"),
    ("PowerPoint Document".encode("utf-16-le"), "application/vnd.ms-powerpoint"),
    ("Workbook".encode("utf-16-le"), "application/vnd.ms-excel"),
    ("Book\x00".encode("utf-16-le"), "application/vnd.ms-excel"),
    ("VisioDocument".encode("utf-16-le"), "application/vnd.visio"),
)


# 56616700-C154-11CE-8553-00AA00A1F95B, as a compound file stores a CLSID (first fields LE).
_FLASHPIX_CLSID = bytes.fromhex("00676156 54c1 ce11 8553 00aa00a1f95b".replace(" ", ""))
_MIC_STORAGE = ".ACI\x00".encode("utf-16-le")


def _has_mic_storage(window: memoryview) -> bool:
    """A directory entry in the window named ``*.ACI`` (Image Composer's per-layer storages).

    Directory entries are 128 bytes at multiples of 128 in the file; the name (UTF-16, with its
    terminator) starts the entry and its byte length is at 0x40, so a match must agree with both.
    """
    data = window.tobytes()
    found = data.find(_MIC_STORAGE)
    for _ in range(64):
        if found < 0:
            return False
        entry = found - found % 128
        if _u16le(data, entry + 0x40) == found + len(_MIC_STORAGE) - entry:
            return True
        found = data.find(_MIC_STORAGE, found + 2)
    return False


def _ole2(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """Legacy Office files: a compound file whose directory names the main stream.

    The directory is read where it lies in the header window (files under ~60 KiB, and larger
    ones written with the directory first); failing that, the sectors in the window are checked
    for the first record of a Word, Excel or PowerPoint main stream. Other compound files (MSI,
    MSG, Office files whose main stream starts past the window) are ``application/x-ole-storage``.
    """
    if not head.startswith(_OLE2) or len(head) < 512:
        return None
    shift = _u16le(head, 30)
    if shift not in (9, 12):
        return None
    directory = (_u32le(head, 48) + 1) << shift
    if directory + 128 <= len(window):
        # The root entry's class id names FlashPix; Image Composer keeps "*.ACI" storages.
        if window[directory + 0x50 : directory + 0x60].tobytes() == _FLASHPIX_CLSID:
            return "image/vnd.fpx"
        # The directory's first sectors (usually contiguous) hold the main streams' entries.
        names = window[directory : min(len(window), directory + (4 << shift))].tobytes()
        for name, mime in _OLE_STREAMS:
            if name in names:
                return mime
    if _has_mic_storage(window):
        return "image/x-mic"
    # The directory is past the window (LibreOffice writes it last): a main stream's first
    # record at the start of a sector still says what the file is.
    sector = 1 << shift
    sectors = window[sector:].tobytes()
    for start in range(0, len(sectors) - 8, sector):
        first = sectors[start : start + 8]
        if first.startswith(b"\xec\xa5") and 0x65 <= _u16le(first, 2) <= 0x200:
            return "application/msword"  # a Word File Information Block
        if first.startswith(b"\x09\x08") and first[4:8] in (
            b"\x00\x06\x05\x00",
            b"\x00\x05\x05\x00",
        ):
            return "application/vnd.ms-excel"  # a BIFF5/8 workbook BOF record
        if first.startswith(b"\x0f\x00\xe8\x03"):
            return "application/vnd.ms-powerpoint"  # a PowerPoint DocumentContainer record
    return "application/x-ole-storage"
