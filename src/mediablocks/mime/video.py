"""Signature checks for containers: ISO-BMFF (MP4, MOV, HEIF, AVIF), RIFF/IFF, FLV, Matroska,
MPEG-TS/PS and ASF."""

from __future__ import annotations

import struct

from ._common import _u16be, _u32be, _u32le

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
        return _by_tracks(window, "video/mp4", "audio/mp4", bool(compatible & _M4A_BRANDS))
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


def _by_tracks(window: memoryview, video: str, audio: str, audio_brand: bool = False) -> str:
    """``audio`` when the tracks seen in the window are all sound; else ``video``.

    The moov box is walked as far as the window reaches: a moov that runs past the window (an
    audiobook's cover art or chapter list in ``udta``) still shows its tracks, which writers put
    before ``udta``. A ``vide`` track makes it video. When the tracks cannot all be seen (the moov
    is past the window, as in a file that is not "faststart"), ``audio_brand`` (an M4A-family
    compatible brand) decides; without it the answer stays ``video``.
    """
    handlers, complete = _moov_handlers(window)
    if b"vide" in handlers:
        return video
    if b"soun" in handlers and (complete or audio_brand):
        return audio
    return audio if audio_brand and not handlers else video


_AFTER_TRACKS = frozenset({b"udta", b"meta", b"free", b"skip"})


def _moov_handlers(window: memoryview) -> tuple[set[bytes], bool]:
    """The handler types of the moov's tracks within the window, and whether that is all of them.

    All of them when the moov ends in the window, or when the box the window ends in is one that
    follows the tracks (``udta``, ``meta``, padding).
    """
    for kind, start, end in _boxes(window, 0, len(window)):
        if kind != b"moov":
            continue
        handlers: set[bytes] = set()
        children = _boxes(window, start, end)
        for trak, trak_start, trak_end in children:
            if trak != b"trak":
                continue
            for mdia, mdia_start, mdia_end in _boxes(window, trak_start, trak_end):
                if mdia != b"mdia":
                    continue
                for hdlr, hdlr_start, _ in _boxes(window, mdia_start, mdia_end):
                    if hdlr == b"hdlr" and hdlr_start + 12 <= len(window):
                        handlers.add(window[hdlr_start + 8 : hdlr_start + 12].tobytes())
        if end <= len(window):
            return handlers, True
        last = children[-1] if children else None
        seen_all = last is not None and last[0] in _AFTER_TRACKS and last[2] > len(window)
        return handlers, seen_all
    return set(), False


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
    """FLV; ``audio/x-flv`` when no video is in it: the header's flags say none, or the first
    tags in the window are audio only (some writers set the video flag regardless)."""
    if not head.startswith(b"FLV\x01") or len(head) < 9 or _u32be(head, 5) < 9:
        return None
    kinds: list[int] = []
    pos = _u32be(head, 5) + 4  # after the header and PreviousTagSize0
    while len(kinds) < 32 and pos + 11 <= len(window):
        kinds.append(window[pos] & 0x1F)
        pos += 11 + ((window[pos + 1] << 16) | (window[pos + 2] << 8) | window[pos + 3]) + 4
    has_audio = 8 in kinds or head[4] & 4
    if 9 not in kinds and has_audio and (not head[4] & 1 or kinds.count(8) >= 8):
        return "audio/x-flv"
    return "video/x-flv"


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
