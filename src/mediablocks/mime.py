"""MIME types from magic bytes: an ordered table of small, named signature checks.

`detect_mime` looks at the first `HEADER_WINDOW` bytes only, however large the buffer, and never
copies more than a few KiB of it. Each check in the table is a cheap prefix compare followed, only
when the prefix matches, by a little parsing where the prefix alone cannot decide (the brands of an
ISO-BMFF ``ftyp`` box, the tracks of a Matroska file, the entries of a ZIP, a second MPEG frame...).
The table is indexed by first byte, so a call runs the few checks that can match, in table order;
checks that do not start at byte 0 (M2TS, tar, PDF after junk, text) run last for every input.

Answers are normalised MIME types (`normalize_mime`). `None` means the bytes say nothing we trust:
empty or truncated input, random or unknown binary, text that is not valid UTF-8/UTF-16. Users add
their own formats with `register_signature`; those are checked before the built-in table.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import filetype

from .errors import MediaTypeError

__all__ = [
    "HEADER_WINDOW",
    "detect_mime",
    "mime_kind",
    "normalize_mime",
    "register_signature",
    "unregister_signature",
]

HEADER_WINDOW = 64 * 1024
"""How many leading bytes detection may look at (64 KiB).

Large enough to walk the local file headers of an Office document whose deciding entry is not
first, to step over a typical ID3v2 tag, to reach the ``moov`` box of a small faststart MP4 or the
``Tracks`` of a WebM, and to see many MPEG-TS / M2TS packets; small enough that reading it from a
file costs one system call. Sources read only this much from a file to pick a block type."""

_HEAD_SIZE = 4096
"""The leading bytes copied out as `bytes` for prefix compares and text analysis (cheap to copy)."""

_Check = Callable[[bytes, memoryview, bool], "str | None"]
"""A built-in check: (head, window, truncated) -> a MIME type or None.

``head`` is the first `_HEAD_SIZE` bytes as `bytes`; ``window`` a memoryview over the header
window; ``truncated`` is true when the data goes on past ``head``."""


# -- normalisation ---------------------------------------------------------------------------------

_ALIASES = {
    # images
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "image/jpe": "image/jpeg",
    "image/x-citrix-jpeg": "image/jpeg",
    "image/x-png": "image/png",
    "image/x-citrix-png": "image/png",
    "image/apng": "image/png",
    "image/vnd.mozilla.apng": "image/png",
    "image/x-ms-bmp": "image/bmp",
    "image/x-bmp": "image/bmp",
    "image/x-windows-bmp": "image/bmp",
    "image/ms-bmp": "image/bmp",
    "image/x-icon": "image/vnd.microsoft.icon",
    "image/ico": "image/vnd.microsoft.icon",
    "image/icon": "image/vnd.microsoft.icon",
    "image/x-ico": "image/vnd.microsoft.icon",
    "image/tif": "image/tiff",
    "image/x-tiff": "image/tiff",
    "image/x-heic": "image/heic",
    "image/x-heif": "image/heif",
    "image/x-webp": "image/webp",
    "image/x-jxl": "image/jxl",
    "image/jpeg2000": "image/jp2",
    "image/jpeg2000-image": "image/jp2",
    "image/x-jpeg2000-image": "image/jp2",
    "image/svg": "image/svg+xml",
    "image/psd": "image/vnd.adobe.photoshop",
    "image/x-psd": "image/vnd.adobe.photoshop",
    "image/photoshop": "image/vnd.adobe.photoshop",
    "image/x-photoshop": "image/vnd.adobe.photoshop",
    "application/photoshop": "image/vnd.adobe.photoshop",
    "application/x-photoshop": "image/vnd.adobe.photoshop",
    "application/psd": "image/vnd.adobe.photoshop",
    # audio
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/x-pn-wav": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "audio/mpeg3": "audio/mpeg",
    "audio/x-mp3": "audio/mpeg",
    "audio/x-mpeg": "audio/mpeg",
    "audio/x-mpeg-3": "audio/mpeg",
    "audio/mpg": "audio/mpeg",
    "audio/x-mpg": "audio/mpeg",
    "audio/x-mpegaudio": "audio/mpeg",
    "audio/x-m4a": "audio/mp4",
    "audio/m4a": "audio/mp4",
    "audio/x-mp4": "audio/mp4",
    "audio/x-m4b": "audio/mp4",
    "audio/x-flac": "audio/flac",
    "audio/x-aiff": "audio/aiff",
    "audio/aif": "audio/aiff",
    "audio/x-aif": "audio/aiff",
    "audio/aifc": "audio/aiff",
    "audio/x-aifc": "audio/aiff",
    "audio/x-aac": "audio/aac",
    "audio/aacp": "audio/aac",
    "audio/aac-adts": "audio/aac",
    "audio/x-hx-aac-adts": "audio/aac",
    "audio/x-ogg": "audio/ogg",
    "application/x-ogg": "application/ogg",
    "audio/x-opus": "audio/opus",
    "audio/x-midi": "audio/midi",
    "audio/mid": "audio/midi",
    "audio/x-mid": "audio/midi",
    "audio/x-au": "audio/basic",
    "audio/au": "audio/basic",
    "audio/x-ac3": "audio/ac3",
    "audio/x-amr": "audio/amr",
    "audio/x-amr-wb": "audio/amr-wb",
    "audio/x-mka": "audio/x-matroska",
    "audio/x-webm": "audio/webm",
    # video
    "video/x-mp4": "video/mp4",
    "video/mp4v-es": "video/mp4",
    "video/x-quicktime": "video/quicktime",
    "video/mov": "video/quicktime",
    "video/avi": "video/x-msvideo",
    "video/msvideo": "video/x-msvideo",
    "video/x-avi": "video/x-msvideo",
    "video/vnd.avi": "video/x-msvideo",
    "video/mkv": "video/x-matroska",
    "video/x-mkv": "video/x-matroska",
    "video/matroska": "video/x-matroska",
    "audio/matroska": "audio/x-matroska",
    "video/x-webm": "video/webm",
    "video/x-mpeg": "video/mpeg",
    "video/mpg": "video/mpeg",
    "video/x-mpg": "video/mpeg",
    "video/mpeg2": "video/mpeg",
    "video/3gp": "video/3gpp",
    "video/x-3gp": "video/3gpp",
    "video/flv": "video/x-flv",
    "video/x-mpegts": "video/mp2t",
    "video/mpegts": "video/mp2t",
    "video/vnd.dlna.mpeg-tts": "video/mp2t",
    "video/m4v": "video/x-m4v",
    # documents, archives, text
    "application/x-pdf": "application/pdf",
    "application/acrobat": "application/pdf",
    "application/vnd.pdf": "application/pdf",
    "text/pdf": "application/pdf",
    "text/x-pdf": "application/pdf",
    "text/xml": "application/xml",
    "application/x-xml": "application/xml",
    "text/json": "application/json",
    "application/x-json": "application/json",
    "text/x-json": "application/json",
    "text/x-markdown": "text/markdown",
    "text/x-csv": "text/csv",
    "application/csv": "text/csv",
    "application/x-csv": "text/csv",
    "text/comma-separated-values": "text/csv",
    "text/x-comma-separated-values": "text/csv",
    "text/rtf": "application/rtf",
    "application/x-rtf": "application/rtf",
    "application/x-zip-compressed": "application/zip",
    "application/x-zip": "application/zip",
    "application/zip-compressed": "application/zip",
    "multipart/x-zip": "application/zip",
    "application/x-gzip": "application/gzip",
    "application/x-gunzip": "application/gzip",
    "application/gzip-compressed": "application/gzip",
    "application/x-bzip": "application/x-bzip2",
    "application/x-zstd": "application/zstd",
    "application/x-rar-compressed": "application/vnd.rar",
    "application/x-rar": "application/vnd.rar",
    "application/x-sqlite3": "application/vnd.sqlite3",
    "application/x-msword": "application/msword",
    "application/doc": "application/msword",
    "application/excel": "application/vnd.ms-excel",
    "application/x-excel": "application/vnd.ms-excel",
    "application/x-msexcel": "application/vnd.ms-excel",
    "application/powerpoint": "application/vnd.ms-powerpoint",
    "application/mspowerpoint": "application/vnd.ms-powerpoint",
    "application/x-mspowerpoint": "application/vnd.ms-powerpoint",
    "application/x-postscript": "application/postscript",
    "application/font-woff": "font/woff",
    "application/x-font-ttf": "font/ttf",
    "application/x-font-otf": "font/otf",
}

_TOKEN = re.compile(r"[a-z0-9!#$&^_.+-]{1,127}\Z")


def normalize_mime(mime: str) -> str:
    """The canonical spelling of a MIME type: lower case, no parameters, aliases resolved.

    ``"Image/JPG; q=1"`` becomes ``"image/jpeg"``. Raises `MediaTypeError` (a `ValueError`) for a
    string that is not ``type/subtype`` made of MIME token characters.
    """
    base = mime.split(";", 1)[0].strip().lower()
    major, slash, minor = base.partition("/")
    if not slash or not _TOKEN.match(major) or not _TOKEN.match(minor):
        raise MediaTypeError(f"{mime!r} is not a MIME type (type/subtype)")
    return _ALIASES.get(base, base)


def mime_kind(mime: str) -> Literal["image", "audio", "video", "file"]:
    """The kind of block a MIME type belongs in: ``image``, ``audio``, ``video`` or ``file``."""
    major = mime.split("/", 1)[0].strip().lower()
    if major == "image":
        return "image"
    if major == "audio":
        return "audio"
    if major == "video":
        return "video"
    return "file"


# -- users' signatures -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _UserSignature:
    name: str
    mime: str
    prefix: bytes
    offset: int
    accept: Callable[[memoryview], bool] | None

    def matches(self, window: memoryview) -> bool:
        if self.prefix:
            end = self.offset + len(self.prefix)
            if len(window) < end or window[self.offset : end].tobytes() != self.prefix:
                return False
        return self.accept is None or bool(self.accept(window))


_user_signatures: tuple[_UserSignature, ...] = ()


def register_signature(
    mime: str,
    accept: Callable[[memoryview], bool] | None = None,
    *,
    prefix: bytes | None = None,
    offset: int = 0,
    name: str | None = None,
) -> None:
    """Teach `detect_mime` a format of your own; it is checked before the built-in table.

    ``accept(window)`` gets a read-only memoryview of the header window (at most `HEADER_WINDOW`
    bytes) and says whether the bytes are ``mime``. ``prefix`` (bytes expected at ``offset``) is a
    convenience that can replace or guard ``accept``: with both, both must agree. ``name``
    (default: the MIME type) identifies the signature; registering a name again replaces it.
    The most recently registered signature is checked first. Exceptions from ``accept`` propagate.
    """
    canonical = normalize_mime(mime)
    if accept is None and not prefix:
        raise MediaTypeError(f"register_signature({mime!r}): give accept, prefix, or both")
    if accept is not None and not callable(accept):
        raise MediaTypeError(f"register_signature({mime!r}): accept must be callable")
    if offset < 0 or offset + len(prefix or b"") > HEADER_WINDOW:
        raise MediaTypeError(
            f"register_signature({mime!r}): the prefix must lie within the first "
            f"{HEADER_WINDOW} bytes (offset={offset})"
        )
    global _user_signatures
    signature = _UserSignature(name or canonical, canonical, bytes(prefix or b""), offset, accept)
    kept = tuple(s for s in _user_signatures if s.name != signature.name)
    _user_signatures = (signature, *kept)


def unregister_signature(name: str) -> bool:
    """Forget a signature added by `register_signature` (by its name, default its MIME type).

    Returns whether one was removed. Built-in signatures cannot be removed; register your own to
    take precedence over them instead.
    """
    global _user_signatures
    try:
        key = normalize_mime(name)
    except MediaTypeError:
        key = name
    kept = tuple(s for s in _user_signatures if s.name not in (name, key))
    removed = len(kept) != len(_user_signatures)
    _user_signatures = kept
    return removed


# -- small readers ---------------------------------------------------------------------------------


def _u16be(buf: bytes | memoryview, pos: int) -> int:
    return (buf[pos] << 8) | buf[pos + 1]


def _u32be(buf: bytes | memoryview, pos: int) -> int:
    return (buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]


def _u16le(buf: bytes | memoryview, pos: int) -> int:
    return buf[pos] | (buf[pos + 1] << 8)


def _u32le(buf: bytes | memoryview, pos: int) -> int:
    return buf[pos] | (buf[pos + 1] << 8) | (buf[pos + 2] << 16) | (buf[pos + 3] << 24)


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


# -- ISO base media (MP4, MOV, 3GP, HEIF, AVIF) ----------------------------------------------------

_HEVC_BRANDS = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs"})
_AVIF_BRANDS = frozenset({b"avif", b"avis"})
_HEIF_BRANDS = frozenset({b"mif1", b"msf1", b"miaf", b"mif2"})
_M4A_BRANDS = frozenset({b"M4A ", b"M4B ", b"M4P ", b"F4A ", b"F4B "})
_M4V_BRANDS = frozenset({b"M4V ", b"M4VH", b"M4VP"})
_MP4_BRANDS = frozenset(
    {
        b"isom", b"iso2", b"iso3", b"iso4", b"iso5", b"iso6", b"iso7", b"iso8", b"iso9",
        b"mp41", b"mp42", b"mp71", b"avc1", b"av01", b"dash", b"mmp4", b"MSNV", b"NDAS",
        b"NDSC", b"NDSH", b"NDSM", b"NDSP", b"NDSS", b"NDXC", b"NDXH", b"NDXM", b"NDXP",
        b"NDXS", b"f4v ", b"f4p ", b"XAVC", b"cmfc", b"cmf2", b"hvc1", b"MP4 ",
    }
)  # fmt: skip
_BOX_HEADER = struct.Struct(">I4s")
# Boxes a classic QuickTime movie (no ftyp) may start with.
_QUICKTIME_FIRST_BOXES = frozenset({b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"})


def _ftyp(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head[4:8] != b"ftyp":
        return _classic_quicktime(head)
    size = _u32be(head, 0)
    if size < 16 or len(head) < 16:
        return None
    major = head[8:12]
    compatible = {head[i : i + 4] for i in range(16, min(size, len(head)) - 3, 4)}
    if major in _HEVC_BRANDS:
        return "image/heic"
    if major in _AVIF_BRANDS:
        return "image/avif"
    if major in _HEIF_BRANDS:
        if compatible & _HEVC_BRANDS:
            return "image/heic"
        if compatible & _AVIF_BRANDS:
            return "image/avif"
        return "image/heif"
    if major == b"jxl ":
        return "image/jxl"
    if major == b"crx ":
        return "image/x-canon-cr3"  # a raw photo in an ISO-BMFF container
    if major in _M4A_BRANDS:
        return "audio/mp4"
    if major in _M4V_BRANDS:
        return "video/x-m4v"
    if major == b"qt  ":
        return "video/quicktime"
    if major.startswith(b"3g2"):
        return _by_tracks(window, "video/3gpp2", "audio/3gpp2")
    if major.startswith(b"3g"):
        return _by_tracks(window, "video/3gpp", "audio/3gpp")
    if major in _MP4_BRANDS:
        return _by_tracks(window, "video/mp4", "audio/mp4")
    # An unfamiliar major brand: the compatible brands say what a reader may treat it as.
    if compatible & _HEVC_BRANDS:
        return "image/heic"
    if compatible & _AVIF_BRANDS:
        return "image/avif"
    if compatible & _M4A_BRANDS:
        return "audio/mp4"
    if compatible & _MP4_BRANDS:
        return _by_tracks(window, "video/mp4", "audio/mp4")
    if b"qt  " in compatible:
        return "video/quicktime"
    return None


def _classic_quicktime(head: bytes) -> str | None:
    if len(head) < 16 or head[4:8] not in _QUICKTIME_FIRST_BOXES:
        return None
    size = _u32be(head, 0)
    if head[4:8] == b"moov":
        return "video/quicktime" if head[12:16] in (b"mvhd", b"cmov", b"prfl") else None
    if size < 8 or size + 8 > len(head):
        return None  # cannot see the next box, so cannot confirm
    return "video/quicktime" if head[size + 4 : size + 8] in _QUICKTIME_FIRST_BOXES else None


def _boxes(buf: bytes | memoryview, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """(type, payload start, box end) of the ISO-BMFF boxes in [start, end) that begin in buf."""
    found = []
    pos, limit = start, min(end, len(buf))
    while pos + 8 <= limit:
        size, kind = _BOX_HEADER.unpack_from(buf, pos)
        header = 8
        if size == 1:
            if pos + 16 > limit:
                break
            size = int.from_bytes(buf[pos + 8 : pos + 16], "big")
            header = 16
        elif size == 0:
            size = end - pos
        if size < header:
            break
        found.append((kind, pos + header, pos + size))
        pos += size
    return found


def _by_tracks(window: memoryview, video: str, audio: str) -> str:
    """``audio`` when the moov box lies in the window and all its tracks are sound; else ``video``.

    An MP4 whose moov is past the window (not "faststart") stays ``video``: we cannot see inside.
    """
    for kind, start, end in _boxes(window, 0, len(window)):
        if kind != b"moov":
            continue
        if end > len(window):
            return video  # cannot see every track
        moov = window[start:end].tobytes()
        handlers = set()
        for trak, trak_start, trak_end in _boxes(moov, 0, len(moov)):
            if trak != b"trak":
                continue
            for mdia, mdia_start, mdia_end in _boxes(moov, trak_start, trak_end):
                if mdia != b"mdia":
                    continue
                for hdlr, hdlr_start, _ in _boxes(moov, mdia_start, mdia_end):
                    if hdlr == b"hdlr":
                        handlers.add(moov[hdlr_start + 8 : hdlr_start + 12])
        if b"soun" in handlers and b"vide" not in handlers:
            return audio
        return video
    return video


# -- RIFF, IFF and other chunked containers --------------------------------------------------------


def _riff(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if not head.startswith((b"RIFF", b"RF64", b"BW64")) or len(head) < 12:
        return None
    form = head[8:12]
    if form == b"WAVE":
        return "audio/wav"
    if form == b"AVI ":
        return "video/x-msvideo"
    if form == b"WEBP":
        return "image/webp" if head[12:16] in (b"VP8 ", b"VP8L", b"VP8X") else None
    if form == b"CDXA":
        return "video/mpeg"
    if form == b"RMID":
        return "audio/midi"
    return None


def _aiff(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith(b"FORM") and head[8:12] in (b"AIFF", b"AIFC"):
        return "audio/aiff"
    return None


def _flv(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith(b"FLV\x01") and len(head) >= 9 and _u32be(head, 5) >= 9:
        return "video/x-flv"
    return None


# -- Matroska / WebM -------------------------------------------------------------------------------

_EBML_HEADER = 0x1A45DFA3
_EBML_DOCTYPE = 0x4282
_SEGMENT = 0x18538067
_TRACKS = 0x1654AE6B
_TRACK_ENTRY = 0xAE
_TRACK_TYPE = 0x83
_CLUSTER = 0x1F43B675
_UNKNOWN_SIZE = -1


def _ebml_id(buf: bytes, pos: int) -> tuple[int, int]:
    """(element id, position after it); id -1 when malformed or out of the buffer."""
    if pos >= len(buf) or not buf[pos]:
        return -1, pos
    length = 9 - buf[pos].bit_length()  # the leading zero bits say how many bytes follow
    if length > 4 or pos + length > len(buf):
        return -1, pos
    return int.from_bytes(buf[pos : pos + length], "big"), pos + length


def _ebml_size(buf: bytes, pos: int) -> tuple[int, int]:
    """(data size, position after it); size -1 for "unknown", -2 when malformed."""
    if pos >= len(buf) or not buf[pos]:
        return -2, pos
    length = 9 - buf[pos].bit_length()
    if pos + length > len(buf):
        return -2, pos
    value = int.from_bytes(buf[pos : pos + length], "big") & ((1 << (7 * length)) - 1)
    if value == (1 << (7 * length)) - 1:
        return _UNKNOWN_SIZE, pos + length
    return value, pos + length


def _matroska(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if not head.startswith(b"\x1a\x45\xdf\xa3"):
        return None
    size, pos = _ebml_size(head, 4)
    if size < 0:
        return None
    header_end = pos + size
    doctype = b""
    while pos < min(header_end, len(head)):
        element, pos = _ebml_id(head, pos)
        length, pos = _ebml_size(head, pos)
        if element < 0 or length < 0:
            return None
        if element == _EBML_DOCTYPE:
            doctype = head[pos : pos + length].rstrip(b"\x00")
        pos += length
    if doctype == b"webm":
        video, audio = "video/webm", "audio/webm"
    elif doctype == b"matroska":
        video, audio = "video/x-matroska", "audio/x-matroska"
    else:
        return None
    kinds = _matroska_track_types(head, header_end)
    if kinds is None and len(window) > len(head):
        kinds = _matroska_track_types(window.tobytes(), header_end)
    if kinds is not None and 2 in kinds and 1 not in kinds:
        return audio
    return video


def _matroska_track_types(buf: bytes, pos: int) -> set[int] | None:
    """The TrackType of every track, or None when the Tracks element is not wholly in buf."""
    element, pos = _ebml_id(buf, pos)
    size, pos = _ebml_size(buf, pos)
    if element != _SEGMENT or size == -2:
        return None
    segment_end = len(buf) if size == _UNKNOWN_SIZE else min(pos + size, len(buf))
    while pos < segment_end:
        element, pos = _ebml_id(buf, pos)
        size, pos = _ebml_size(buf, pos)
        if element < 0 or size < 0 or element == _CLUSTER:
            return None
        if element == _TRACKS:
            if pos + size > len(buf):
                return None
            kinds = set()
            end = pos + size
            while pos < end:
                entry, pos = _ebml_id(buf, pos)
                entry_size, pos = _ebml_size(buf, pos)
                if entry < 0 or entry_size < 0:
                    return None
                if entry == _TRACK_ENTRY:
                    kinds.add(_track_type(buf, pos, pos + entry_size))
                pos += entry_size
            return kinds
        pos += size
    return None


def _track_type(buf: bytes, pos: int, end: int) -> int:
    while pos < end:
        element, pos = _ebml_id(buf, pos)
        size, pos = _ebml_size(buf, pos)
        if element < 0 or size < 0:
            return 0
        if element == _TRACK_TYPE:
            return int.from_bytes(buf[pos : pos + size], "big")
        pos += size
    return 0


# -- Ogg -------------------------------------------------------------------------------------------

_OGG_CODECS = (
    (b"\x01vorbis", "audio"),
    (b"OpusHead", "opus"),
    (b"\x7fFLAC", "audio"),
    (b"Speex   ", "audio"),
    (b"CELT    ", "audio"),
    (b"PCM     ", "audio"),
    (b"\x01audio\x00\x00\x00", "audio"),
    (b"\x80theora", "video"),
    (b"OVP80", "video"),
    (b"BBCD\x00", "video"),
    (b"\x01video\x00\x00\x00", "video"),
)


def _ogg(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if not head.startswith(b"OggS\x00"):
        return None
    kinds = set()
    pos = 0
    # Every logical stream starts with a beginning-of-stream page, and all of those come first.
    while pos + 27 <= len(head) and head.startswith(b"OggS", pos) and head[pos + 5] & 2:
        segments = head[pos + 26]
        body = pos + 27 + segments
        packet = head[body : body + 9]
        for magic, kind in _OGG_CODECS:
            if packet.startswith(magic):
                kinds.add(kind)
                break
        pos = body + sum(head[pos + 27 : body])
    if "video" in kinds:
        return "video/ogg"
    if kinds == {"opus"}:
        return "audio/opus"
    if kinds:
        return "audio/ogg"
    # An unknown codec: still Ogg if the first page is followed by another one.
    return "application/ogg" if pos and head.startswith(b"OggS\x00", pos) else None


# -- MPEG audio, AAC, AC-3 -------------------------------------------------------------------------

_MPEG_BITRATES = {
    # (MPEG-1?, layer bits) -> kbit/s by index; layer bits 3 = I, 2 = II, 1 = III
    (True, 3): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (True, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (True, 1): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (False, 3): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (False, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (False, 1): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_MPEG_SAMPLE_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def _mpeg_frame(buf: bytes | memoryview, pos: int) -> tuple[int, int] | None:
    """(frame length, stream key) of a valid MPEG audio frame header at ``pos``, else None.

    Checks the 11-bit sync, a version and layer that are not reserved, a bitrate index that is
    neither free nor bad, a sample-rate index that is not reserved and a non-reserved emphasis.
    """
    if pos + 4 > len(buf) or buf[pos] != 0xFF:
        return None
    b1, b2, b3 = buf[pos + 1], buf[pos + 2], buf[pos + 3]
    version, layer = (b1 >> 3) & 3, (b1 >> 1) & 3
    bitrate_index, rate_index = b2 >> 4, (b2 >> 2) & 3
    if b1 & 0xE0 != 0xE0 or version == 1 or layer == 0:
        return None
    if bitrate_index in (0, 15) or rate_index == 3 or b3 & 3 == 2:
        return None
    mpeg1 = version == 3
    bitrate = _MPEG_BITRATES[(mpeg1, layer)][bitrate_index] * 1000
    rate = _MPEG_SAMPLE_RATES[version][rate_index]
    padding = (b2 >> 1) & 1
    if layer == 3:
        length = (12 * bitrate // rate + padding) * 4
    elif layer == 1 and not mpeg1:
        length = 72 * bitrate // rate + padding
    else:
        length = 144 * bitrate // rate + padding
    return length, (b1 & 0xFE) << 8 | rate_index


def _adts_frame(buf: bytes | memoryview, pos: int) -> tuple[int, int] | None:
    """(frame length, stream key) of a valid ADTS (AAC) frame header at ``pos``, else None."""
    if pos + 7 > len(buf) or buf[pos] != 0xFF:
        return None
    b1, b2, b3, b4, b5 = buf[pos + 1], buf[pos + 2], buf[pos + 3], buf[pos + 4], buf[pos + 5]
    if b1 & 0xF6 != 0xF0:  # sync, and layer bits 00
        return None
    rate_index = (b2 >> 2) & 0xF
    if rate_index > 12:
        return None
    length = ((b3 & 3) << 11) | (b4 << 3) | (b5 >> 5)
    if length < (7 if b1 & 1 else 9):
        return None
    channels = ((b2 & 1) << 2) | (b3 >> 6)
    return length, (b1 << 8) | (rate_index << 4) | channels


_AC3_BITRATES = (
    32,
    40,
    48,
    56,
    64,
    80,
    96,
    112,
    128,
    160,
    192,
    224,
    256,
    320,
    384,
    448,
    512,
    576,
    640,
)


def _ac3_frame(buf: bytes | memoryview, pos: int) -> tuple[int, int] | None:
    """(frame length, stream key) of a valid AC-3 or E-AC-3 sync frame at ``pos``, else None."""
    if pos + 6 > len(buf) or buf[pos] != 0x0B or buf[pos + 1] != 0x77:
        return None
    bsid = buf[pos + 5] >> 3
    if bsid <= 10:
        rate_code, size_code = buf[pos + 4] >> 6, buf[pos + 4] & 0x3F
        if rate_code == 3 or size_code >= 38:
            return None
        kbps = _AC3_BITRATES[size_code >> 1]
        if rate_code == 0:  # 48 kHz
            words = kbps * 2
        elif rate_code == 1:  # 44.1 kHz
            words = kbps * 1536 * 1000 // 44100 // 16 + (size_code & 1)
        else:  # 32 kHz
            words = kbps * 3
        return words * 2, rate_code << 8 | bsid
    if 11 <= bsid <= 16:
        words = (((buf[pos + 2] & 7) << 8) | buf[pos + 3]) + 1
        return words * 2, bsid
    return None


_FrameReader = Callable[[bytes | memoryview, int], "tuple[int, int] | None"]


def _two_frames(buf: bytes | memoryview, pos: int, frame: _FrameReader) -> bool:
    """A valid frame at ``pos`` followed by a matching one right after it."""
    first = frame(buf, pos)
    if first is None:
        return False
    second = frame(buf, pos + first[0])
    return second is not None and second[1] == first[1]


def _mpeg_audio(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head[0] != 0xFF:
        return None
    if _two_frames(window, 0, _mpeg_frame):
        return "audio/mpeg"
    if _two_frames(window, 0, _adts_frame):
        return "audio/aac"
    return None


def _ac3(head: bytes, window: memoryview, truncated: bool) -> str | None:
    frame = _ac3_frame(head, 0)
    if frame is None or not _two_frames(window, 0, _ac3_frame):
        return None
    return "audio/ac3" if frame[1] & 0xFF <= 10 else "audio/eac3"


def _id3(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """MPEG audio behind an ID3v2 tag; AAC or FLAC when that is what follows the tag."""
    pos = 0
    for _ in range(4):  # a few tags may be chained
        if pos + 10 > len(window) or window[pos : pos + 3].tobytes() != b"ID3":
            break
        version, revision, flags = window[pos + 3], window[pos + 4], window[pos + 5]
        size_bytes = window[pos + 6 : pos + 10].tobytes()
        unused_flags = (0x3F, 0x1F, 0x0F)[version - 2] if version in (2, 3, 4) else 0xFF
        if revision == 0xFF or flags & unused_flags or max(size_bytes) >= 0x80:
            return None if pos == 0 else "audio/mpeg"
        size = (size_bytes[0] << 21) | (size_bytes[1] << 14) | (size_bytes[2] << 7) | size_bytes[3]
        pos += 10 + size + (10 if version == 4 and flags & 0x10 else 0)
    if pos == 0:
        return None
    if pos + 4 > len(window):
        return "audio/mpeg"  # the tag runs past the window; ID3v2 tags front MP3 files
    rest = window[pos : pos + 8192].tobytes()
    audio = rest.lstrip(b"\x00")  # some writers pad between the tag and the audio
    if audio.startswith(b"fLaC"):
        return "audio/flac"
    if _adts_frame(audio, 0) is not None:
        return "audio/aac"
    if _ac3_frame(audio, 0) is not None:
        return "audio/ac3"
    if _mpeg_frame(audio, 0) is not None:
        return "audio/mpeg"
    # Junk between the tag and the first frame: accept a pair of frames a little further on.
    sync = audio.find(b"\xff", 0, 4096)
    while sync >= 0:
        if _two_frames(audio, sync, _mpeg_frame):
            return "audio/mpeg"
        sync = audio.find(b"\xff", sync + 1, 4096)
    return None


def _flac(head: bytes, window: memoryview, truncated: bool) -> str | None:
    # "fLaC" then the STREAMINFO metadata block (type 0).
    return "audio/flac" if head.startswith(b"fLaC") and head[4:5] in (b"\x00", b"\x80") else None


def _small_audio(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith((b"#!AMR-WB\n", b"#!AMR-WB_MC1.0\n")):
        return "audio/amr-wb"
    if head.startswith((b"#!AMR\n", b"#!AMR_MC1.0\n")):
        return "audio/amr"
    if head.startswith(b".snd") and len(head) >= 8 and _u32be(head, 4) >= 24:
        return "audio/basic"
    if head.startswith(b"MThd\x00\x00\x00\x06"):
        return "audio/midi"
    if head.startswith(b"caff\x00\x01"):
        return "audio/x-caf"
    return None


# -- MPEG streams, ASF -----------------------------------------------------------------------------


def _mpeg_ts(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """MPEG-TS (sync byte every 188 bytes) or M2TS (every 192, after a 4-byte timestamp)."""
    for start, step in ((0, 188), (4, 192)):
        packets = min((len(head) - start) // step, 8)
        if packets >= 3 and all(head[start + i * step] == 0x47 for i in range(packets)):
            return "video/mp2t"
    return None


def _mpeg_ps(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if head.startswith(b"\x00\x00\x01\xba") and len(head) >= 20:
        # A pack header with its marker bits set, then the next start code.
        if head[4] >> 6 == 1:  # MPEG-2: 14 bytes plus stuffing
            markers = head[4] & 4 and head[6] & 4 and head[8] & 4 and head[9] & 1
            end = 14 + (head[13] & 7)
            markers = markers and head[12] & 3 == 3
        elif head[4] >> 4 == 2:  # MPEG-1: 12 bytes
            markers = head[4] & 1 and head[6] & 1 and head[8] & 1 and head[9] & 0x80
            end = 12
            markers = markers and head[11] & 1
        else:
            return None
        if markers and head[end : end + 3] == b"\x00\x00\x01" and head[end + 3] >= 0xB9:
            return "video/mpeg"
        return None
    if head.startswith(b"\x00\x00\x01\xb3") and len(head) >= 8:
        width, height = (_u16be(head, 4) >> 4), _u16be(head, 5) & 0xFFF
        return "video/mpeg" if width and height else None
    return None


_ASF_HEADER = bytes.fromhex("3026b2758e66cf11a6d900aa0062ce6c")
_ASF_VIDEO = bytes.fromhex("c0ef19bc4d5bcf11a8fd00805f5c442b")
_ASF_AUDIO = bytes.fromhex("409e69f84d5bcf11a8fd00805f5c442b")


def _asf(head: bytes, window: memoryview, truncated: bool) -> str | None:
    """WMV or WMA by the stream types of the stream properties objects in the header object."""
    if not head.startswith(_ASF_HEADER) or len(head) < 30:
        return None
    header_size = _u32le(head, 16) | (_u32le(head, 20) << 32)
    header = window[: min(header_size, len(window))].tobytes()
    if _ASF_VIDEO in header:
        return "video/x-ms-wmv"
    if _ASF_AUDIO in header:
        return "audio/x-ms-wma"
    return "video/x-ms-asf"


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
        # The directory's first sectors (usually contiguous) hold the main streams' entries.
        names = window[directory : min(len(window), directory + (4 << shift))].tobytes()
        for name, mime in _OLE_STREAMS:
            if name in names:
                return mime
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


# Formats filetype recognises well and this table does not cover itself: its matcher, our MIME.
_FILETYPE_EXTRAS = tuple(
    (matcher, mime)
    for matcher in filetype.types
    for name, mime in (
        ("Woff", "font/woff"),
        ("Woff2", "font/woff2"),
        ("Ttf", "font/ttf"),
        ("Otf", "font/otf"),
        ("Sqlite", "application/vnd.sqlite3"),
        ("Wasm", "application/wasm"),
        ("Elf", "application/x-executable"),
        ("Xcf", "image/x-xcf"),
        ("Dwg", "image/vnd.dwg"),
        ("Dcm", "application/dicom"),
        ("Cab", "application/vnd.ms-cab-compressed"),
        ("Rpm", "application/x-rpm"),
        ("Deb", "application/vnd.debian.binary-package"),
        ("Ar", "application/x-archive"),
        ("Lz", "application/x-lzip"),
        ("Lz4", "application/x-lz4"),
        ("Lzop", "application/x-lzop"),
        ("Crx", "application/x-chrome-extension"),
        ("Nes", "application/x-nintendo-nes-rom"),
    )
    if type(matcher).__name__ == name
)


def _filetype_extras(head: bytes, window: memoryview, truncated: bool) -> str | None:
    for matcher, mime in _FILETYPE_EXTRAS:
        if matcher.match(head):
            return mime
    return None


# -- text ------------------------------------------------------------------------------------------

# The bytes text may hold: tab, LF, FF, CR, printable ASCII and every byte of a UTF-8 sequence.
_TEXT_BYTES = b"\t\n\x0c\r" + bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))
# Control characters text may not hold: C0 but tab, LF, FF and CR; DEL; C1.
_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_CSV_DELIMITERS = ((",", "text/csv"), (";", "text/csv"), ("\t", "text/tab-separated-values"))
_HTML_ROOTS = frozenset(
    {
        "html", "head", "body", "title", "meta", "link", "script", "style", "div", "p", "table",
        "h1", "h2", "h3", "h4", "h5", "h6", "br", "a", "iframe", "font", "b", "i", "span", "ul",
        "ol", "form", "img", "section", "article", "header", "nav", "main", "footer", "center",
    }
)  # fmt: skip
_ELEMENT_NAME = re.compile(r"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)")
_DOCTYPE_NAME = re.compile(r"<!DOCTYPE\s+(?:[\w.-]+:)?([\w.-]+)", re.IGNORECASE)
# Markdown constructs: (a substring every match contains, the pattern, whether it is distinctive).
# The substring is a cheap test that skips the regex on text that cannot match. Headings alone and
# list items alone are not distinctive: YAML and shell comments look like them.
_MARKDOWN_FEATURES = (
    ("#", re.compile(r"^#{1,6}[ \t]+\S", re.M), False),  # ATX heading
    ("#", re.compile(r"^#{1,6}[ \t]+\S.*\n[ \t]*\n", re.M), True),  # ATX heading, blank line
    ("\n", re.compile(r"^\S.*\n(?:=+|-+)[ \t]*$", re.M), True),  # Setext heading
    ("", re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+\S", re.M), False),  # list item
    ("](", re.compile(r"\[[^\]\n]+\]\([^)\s]+(?:\s+\"[^\"\n]*\")?\)"), True),  # link, image
    ("``", re.compile(r"^(?:```|~~~)", re.M), True),  # fenced code
    ("> ", re.compile(r"^>[ \t]", re.M), False),  # block quote
    ("**", re.compile(r"\*\*[^*\n]+\*\*"), True),  # strong emphasis
    ("`", re.compile(r"`[^`\n]+`"), True),  # inline code
    ("--", re.compile(r"^\|?[ \t]*:?-{3,}:?[ \t]*\|", re.M), True),  # table rule
)


def _text(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if len(head) < 4:
        return None  # too short to tell text from a fragment of anything
    text = _decode_text(head, truncated)
    if text is None or not text.strip():
        return None
    return _classify_text(text, truncated)


def _decode_text(head: bytes, truncated: bool) -> str | None:
    """The head as text when it is UTF-8 or UTF-16 without stray control characters."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    elif head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return None  # UTF-32: not supported as text
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        return _decode_utf16(head[2:], codec, truncated)
    elif len(head) >= 8 and b"\x00" in head[:64]:
        return _utf16_without_bom(head, truncated)
    if head.translate(None, _TEXT_BYTES):
        return None  # a control character
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        # Only a multi-byte character cut by the end of the head is forgiven.
        if truncated and error.start >= len(head) - 3 and error.reason == "unexpected end of data":
            text = head[: error.start].decode("utf-8")
        else:
            return None
    if not text.isascii() and _TEXT_CONTROL.search(text):
        return None  # a C1 control character
    return text


def _utf16_without_bom(head: bytes, truncated: bool) -> str | None:
    sample = head[:512]
    even_zero, odd_zero = sample[0::2].count(0), sample[1::2].count(0)
    pairs = len(sample) // 2
    # Latin-script UTF-16: many high bytes are NUL, and never the low one (nor a whole pair).
    if even_zero == 0 and odd_zero * 4 >= pairs:
        return _decode_utf16(head, "utf-16-le", truncated)
    if odd_zero == 0 and even_zero * 4 >= pairs:
        return _decode_utf16(head, "utf-16-be", truncated)
    return None


def _decode_utf16(body: bytes, codec: str, truncated: bool) -> str | None:
    body = body[: len(body) & ~1]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as error:
        if not truncated or error.start < len(body) - 2:
            return None
        text = body[: error.start].decode(codec)  # a surrogate pair cut by the end of the head
    return None if _TEXT_CONTROL.search(text) else text


def _classify_text(text: str, truncated: bool) -> str:
    start = text.lstrip()
    first = start[:1]
    if first == "<":
        return _markup(start) or "text/plain"
    if first in ("{", "[") and _is_json(start, truncated):
        return "application/json"
    table = _csv_type(text, truncated)
    if table is not None:
        return table
    if _is_markdown(text):
        return "text/markdown"
    return "text/plain"


def _markup(text: str) -> str | None:
    """SVG, HTML or XML by the root element, after the prolog (declaration, comments, doctype)."""
    pos = 0
    declared_xml = text.startswith("<?xml")
    while True:
        if text.startswith("<?", pos):
            end = text.find("?>", pos)
            if end < 0:
                return "application/xml" if declared_xml else None
            pos = end + 2
        elif text.startswith("<!--", pos):
            end = text.find("-->", pos + 4)
            if end < 0:
                return "application/xml" if declared_xml else None
            pos = end + 3
        elif text[pos : pos + 9].upper() == "<!DOCTYPE":
            doctype = _DOCTYPE_NAME.match(text, pos)
            name = doctype.group(1).lower() if doctype else ""
            if name == "html":
                return "text/html"
            if name == "svg":
                return "image/svg+xml"
            bracket, close = text.find("[", pos), text.find(">", pos)
            if 0 <= bracket < close:
                close = text.find("]>", bracket)
                close = close + 1 if close >= 0 else -1
            if close < 0:
                return "application/xml" if declared_xml else None
            pos = close + 1
        else:
            break
        while pos < len(text) and text[pos].isspace():
            pos += 1
    element = _ELEMENT_NAME.match(text, pos)
    if element is None:
        return "application/xml" if declared_xml else None
    name = element.group(2)
    if name == "svg":
        return "image/svg+xml"
    if name.lower() in _HTML_ROOTS and not declared_xml:
        return "text/html"
    if name == "html":
        return "text/html"
    if declared_xml:
        return "application/xml"
    first_tag = text[pos : text.find(">", pos) + 1]
    if "xmlns" in first_tag or f"</{element.group(1) or ''}{name}>" in text:
        return "application/xml"
    return None


def _is_json(text: str, truncated: bool) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        if not truncated:
            return False
        # A cut-off document is a valid prefix when parsing fails only at the cut.
        return error.msg.startswith("Unterminated string") or error.pos >= len(text.rstrip()) - 8
    except RecursionError:
        return False
    return True


def _csv_type(text: str, truncated: bool) -> str | None:
    """text/csv (comma or semicolon) or TSV when several lines split into the same number of
    fields (two or more lines with at least two delimiters, or three or more with one)."""
    delimiters = [(d, mime) for d, mime in _CSV_DELIMITERS if d in text]
    if not delimiters:
        return None
    lines = text.splitlines()
    if truncated and len(lines) > 1:
        lines.pop()  # the last line may be cut short
    lines = [line for line in lines[:50] if line.strip()]
    if len(lines) < 2:
        return None
    for delimiter, mime in delimiters:
        if any(line.startswith(delimiter) for line in lines):
            continue  # indentation, not an empty first field on every line
        counts = {_count_outside_quotes(line, delimiter) for line in lines}
        if len(counts) == 1:
            count = counts.pop()
            if count >= 2 or (count == 1 and len(lines) >= 3):
                return mime
    return None


def _count_outside_quotes(line: str, delimiter: str) -> int:
    if '"' not in line:
        return line.count(delimiter)
    count, quoted = 0, False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif char == delimiter and not quoted:
            count += 1
    return count


def _is_markdown(text: str) -> bool:
    """Markdown when it is evident: three or more constructs of two or more kinds, at least one
    of them distinctive (a link, code, a table, emphasis, a heading set off by a blank line)."""
    if text.startswith("#!"):
        return False  # a script, whose comments look like headings
    found = kinds = 0
    distinctive = False
    for marker, pattern, strong in _MARKDOWN_FEATURES:
        hits = len(pattern.findall(text)) if marker in text else 0
        if hits:
            kinds += 1
            found += hits
            distinctive = distinctive or strong
    return distinctive and kinds >= 2 and found >= 3


# -- the table -------------------------------------------------------------------------------------

_TABLE: tuple[tuple[str, bytes, _Check], ...] = (
    # (name, the first bytes it can start with; b"" = any, check), most frequent first
    ("jpeg", b"\xff", _jpeg),
    ("png", b"\x89", _png),
    ("iso-bmff", b"\x00", _ftyp),
    ("riff", b"RB", _riff),
    ("pdf", b"%", _pdf),
    ("gif", b"G", _gif),
    ("id3", b"I", _id3),
    ("mpeg-audio", b"\xff", _mpeg_audio),
    ("matroska", b"\x1a", _matroska),
    ("ogg", b"O", _ogg),
    ("flac", b"f", _flac),
    ("zip", b"P", _zip),
    ("tiff", b"IM", _tiff),
    ("bmp", b"B", _bmp),
    ("jp2-jxl-box", b"\x00", _jpeg2000_or_jxl_box),
    ("jxl-codestream", b"\xff", _jxl_codestream),
    ("j2k-codestream", b"\xff", _j2k_codestream),
    ("ico", b"\x00", _ico),
    ("psd", b"8", _psd),
    ("aiff", b"F", _aiff),
    ("ole2", b"\xd0", _ole2),
    ("mpeg-ts", b"G", _mpeg_ts),
    ("mpeg-ps", b"\x00", _mpeg_ps),
    ("asf", b"0", _asf),
    ("flv", b"F", _flv),
    ("small-audio", b"#.Mc", _small_audio),
    ("ac3", b"\x0b", _ac3),
    ("postscript", b"%\xc5", _postscript),
    ("rtf", b"{", _rtf),
    ("archive", b"\x1fB\xfd7(R", _archive),
    # Checks that do not start at byte 0, for every input:
    ("m2ts", b"", _mpeg_ts),
    ("tar", b"", _tar),
    ("pdf-after-junk", b"", _pdf_after_junk),
    ("text", b"", _text),
    ("filetype-extras", b"", _filetype_extras),
)


def _index_by_first_byte() -> tuple[tuple[_Check, ...], ...]:
    index: list[list[_Check]] = [[] for _ in range(256)]
    for _, leads, check in _TABLE:
        for byte in leads or range(256):
            if check not in index[byte]:
                index[byte].append(check)
    return tuple(tuple(checks) for checks in index)


_BY_FIRST_BYTE = _index_by_first_byte()


def _as_bytes_view(view: memoryview) -> memoryview:
    """A flat unsigned-byte view of any buffer; copies only a strided one (its window, if 1-D)."""
    if view.c_contiguous:
        return view.cast("B")
    if view.ndim == 1:
        return memoryview(view[:HEADER_WINDOW].tobytes())
    return memoryview(view.tobytes())


def detect_mime(data: bytes | bytearray | memoryview) -> str | None:
    """The MIME type the bytes say, from their first `HEADER_WINDOW` bytes; None when they say
    nothing (empty, truncated, random or unknown binary). Never copies the buffer.
    """
    if isinstance(data, bytes):
        head = data[:_HEAD_SIZE]
        window = memoryview(data)[:HEADER_WINDOW]
        size = len(data)
    else:
        view = memoryview(data)
        if view.format != "B" or view.ndim != 1 or not view.c_contiguous:
            view = _as_bytes_view(view)
        window = view[:HEADER_WINDOW]
        head = window[:_HEAD_SIZE].tobytes()
        size = len(view)
    if not head:
        return None
    if _user_signatures:
        readonly = window.toreadonly()
        for signature in _user_signatures:
            if signature.matches(readonly):
                return signature.mime
    truncated = size > len(head)
    for check in _BY_FIRST_BYTE[head[0]]:
        mime = check(head, window, truncated)
        if mime is not None:
            return mime
    return None
