"""`detect_mime`: the ordered signature table, indexed by first byte.

The table below is the one place that says which checks run and in which order; each check lives
in the module of its format family."""

from __future__ import annotations

import struct
import zlib

from . import signatures
from ._common import _HEAD_SIZE, HEADER_WINDOW, _Check
from .archives import _archive, _filetype_extras, _tar
from .audio import _ac3, _flac, _id3, _lossless, _mpeg_audio, _ogg, _small_audio
from .documents import _ole2, _pdf, _pdf_after_junk, _postscript, _rtf, _zip
from .images import (
    _bmp,
    _gif,
    _ico,
    _j2k_codestream,
    _jpeg,
    _jpeg2000_or_jxl_box,
    _jxl_codestream,
    _png,
    _psd,
    _tiff,
)
from .rasters import (
    _blp,
    _cur,
    _dcx,
    _dds,
    _eps,
    _fits,
    _fli,
    _gbr,
    _icns,
    _msp,
    _pcx,
    _pnm,
    _qoi,
    _sgi,
    _sun_raster,
    _tga,
    _xbm,
    _xpm,
)
from .text import _text
from .video import _aiff, _asf, _flv, _ftyp, _matroska, _mpeg_ps, _mpeg_ts, _riff

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
    ("lossless-audio", b"wMtDF", _lossless),
    ("eps", b"%\xc5", _eps),
    ("postscript", b"%\xc5", _postscript),
    ("dds", b"D", _dds),
    ("sgi", b"\x01", _sgi),
    ("pcx", b"\x0a", _pcx),
    ("dcx", b"\xb1", _dcx),
    ("icns", b"i", _icns),
    ("pnm", b"P", _pnm),
    ("xpm", b"/ \t\r\n", _xpm),
    ("xbm", b"# \t\r\n", _xbm),
    ("qoi", b"q", _qoi),
    ("sun-raster", b"\x59", _sun_raster),
    ("cur", b"\x00", _cur),
    ("fits", b"S", _fits),
    ("blp", b"B", _blp),
    ("msp", b"DL", _msp),
    ("gbr", b"\x00", _gbr),
    ("rtf", b"{", _rtf),
    ("archive", b"\x1fB\xfd7(R", _archive),
    # Checks that do not start at byte 0, for every input:
    ("m2ts", b"", _mpeg_ts),
    ("tar", b"", _tar),
    ("pdf-after-junk", b"", _pdf_after_junk),
    ("fli", b"", _fli),
    ("tga", b"", _tga),  # no magic: after every check that has one
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


_UNPARSABLE = (
    ValueError,  # UnicodeDecodeError and json's errors too
    LookupError,  # IndexError, KeyError
    OverflowError,
    RecursionError,
    EOFError,
    struct.error,
    zlib.error,
)
"""What a built-in check may raise on bytes it cannot parse: for detection, a no-match."""


def _as_bytes_view(view: memoryview) -> memoryview:
    """A flat unsigned-byte view of any buffer; copies only a strided one (its window, if 1-D)."""
    if view.c_contiguous:
        return view.cast("B")
    if view.ndim == 1:
        return memoryview(view[:HEADER_WINDOW].tobytes())
    return memoryview(view.tobytes())


PREFIX_DECIDED: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
"""Signatures whose first bytes alone decide `detect_mime`, whatever follows: each check is the
first the table runs for its first byte and looks at nothing else (a test pins both)."""
PREFIX_SIZE = 8
"""Bytes enough for `decided_by_prefix`."""


def decided_by_prefix(prefix: bytes) -> str | None:
    """What `detect_mime` says of any bytes starting with ``prefix`` (at least `PREFIX_SIZE`
    bytes) when their first bytes alone decide it (JPEG, PNG, GIF); else None, and None while
    user signatures are registered (they may look further). Lets a caller holding base64 text
    skip decoding a whole header window for the commonest images."""
    if signatures._user_signatures:
        return None
    for signature, mime in PREFIX_DECIDED:
        if prefix.startswith(signature):
            return mime
    return None


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
    if signatures._user_signatures:
        readonly = window.toreadonly()
        for signature in signatures._user_signatures:
            if signature.matches(readonly):
                return signature.mime
    truncated = size > len(head)
    for check in _BY_FIRST_BYTE[head[0]]:
        try:
            mime = check(head, window, truncated)
        except _UNPARSABLE:
            continue  # bytes a check cannot parse say nothing to it (never an error to the caller)
        if mime is not None:
            return mime
    return None
