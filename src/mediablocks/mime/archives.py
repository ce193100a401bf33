"""Signature checks for archives and compressed streams, and the formats `filetype` adds."""

from __future__ import annotations

import functools
from typing import Any

# -- archives --------------------------------------------------------------------------------------


def _archive(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith(b"\x1f\x8b\x08"):
        return "application/gzip"
    if head.startswith(b"BZh") and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "application/x-bzip2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "application/x-xz"
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return "application/x-7z-compressed"
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return "application/zstd"
    if head.startswith((b"Rar!\x1a\x07\x00", b"Rar!\x1a\x07\x01\x00")):
        return "application/vnd.rar"
    return None


def _tar(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if len(head) < 512:
        return None
    if head[257:262] == b"ustar":
        return "application/x-tar"
    # Pre-POSIX tar has no magic: the header checksum (its own field counted as spaces) decides.
    field = head[148:156].strip(b" \x00")
    if not head[0] or not field or not field.isdigit() or b"8" in field or b"9" in field:
        return None
    checksum = sum(head[:148]) + 8 * 32 + sum(head[156:512])
    return "application/x-tar" if checksum == int(field, 8) else None


# Formats filetype recognises well and this table does not cover itself: its matcher's class name,
# our MIME. filetype itself loads on the first detection that gets this far.
_FILETYPE_NAMES = {
    "Woff": "font/woff",
    "Woff2": "font/woff2",
    "Ttf": "font/ttf",
    "Otf": "font/otf",
    "Sqlite": "application/vnd.sqlite3",
    "Wasm": "application/wasm",
    "Elf": "application/x-executable",
    "Xcf": "image/x-xcf",
    "Dwg": "image/vnd.dwg",
    "Dcm": "application/dicom",
    "Cab": "application/vnd.ms-cab-compressed",
    "Rpm": "application/x-rpm",
    "Deb": "application/vnd.debian.binary-package",
    "Ar": "application/x-archive",
    "Lz": "application/x-lzip",
    "Lz4": "application/x-lz4",
    "Lzop": "application/x-lzop",
    "Crx": "application/x-chrome-extension",
    "Nes": "application/x-nintendo-nes-rom",
}


@functools.cache
def _filetype_extras_table() -> tuple[tuple[Any, str], ...]:
    """filetype's matchers for the formats above, in the order filetype tries them."""
    import filetype

    return tuple(
        (matcher, _FILETYPE_NAMES[type(matcher).__name__])
        for matcher in filetype.types
        if type(matcher).__name__ in _FILETYPE_NAMES
    )


def _filetype_extras(head: bytes, window: memoryview, truncated: bool) -> str | None:
    for matcher, mime in _filetype_extras_table():
        if matcher.match(head):
            return mime
    return None
