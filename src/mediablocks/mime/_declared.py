"""How a declared MIME type is judged against the detected one: twins, types the detector always
recognises, equivalent spellings and weak (heuristic) detections. Used by `media.MediaBlock`.
"""

from __future__ import annotations

import codecs
import re

# Containers that hold audio or video alike: the same file named as the other kind.
_KIND_TWINS = {
    "video/webm": "audio/webm",
    "audio/webm": "video/webm",
    "video/mp4": "audio/mp4",
    "audio/mp4": "video/mp4",
    "video/x-matroska": "audio/x-matroska",
    "audio/x-matroska": "video/x-matroska",
    "video/ogg": "audio/ogg",
    "audio/ogg": "video/ogg",
    "video/3gpp": "audio/3gpp",
    "audio/3gpp": "video/3gpp",
    "video/x-flv": "audio/x-flv",
    "audio/x-flv": "video/x-flv",
}

# Types whose signatures detect_mime always recognises: a declared one that the bytes do not show is
# wrong, not merely unknown to us.
_DEFINITE = frozenset(
    {
        "image/jpeg",
        "image/png",
        "image/gif",
        "image/webp",
        "image/bmp",
        "image/tiff",
        "image/heic",
        "image/heif",
        "image/avif",
        "application/pdf",
        "audio/wav",
        "audio/flac",
        "audio/ogg",
        "audio/mpeg",
        "audio/aiff",
        "video/mp4",
        "video/webm",
        "video/quicktime",
        "video/x-msvideo",
        "video/x-matroska",
        "video/x-flv",
        "image/jxl",
        "image/vnd.microsoft.icon",
        "audio/aac",
        "audio/basic",
        "audio/midi",
        "audio/x-caf",
        "application/zip",
        "application/gzip",
    }
)
# Declared types that are the same media as a detected one, spelt at another level of detail.
_EQUIVALENT = {
    "audio/opus": "audio/ogg",
    "audio/vorbis": "audio/ogg",
    "image/heif": "image/heic",
    "image/heic-sequence": "image/heic",
    "image/heif-sequence": "image/heic",
    "audio/x-matroska": "video/x-matroska",
    "audio/webm": "video/webm",
    "video/x-m4v": "video/mp4",
    "audio/mp4": "video/mp4",
    "audio/3gpp": "video/3gpp",
    "audio/3gpp2": "video/3gpp2",
    "audio/x-flv": "video/x-flv",
}
# Detected types that come from a content heuristic rather than a signature: a declared text-like
# type is more precise than the guess (a caller knows their .tsv or .yaml is not plain text).
_WEAK_DETECTIONS = frozenset(
    {
        "text/plain",
        "text/markdown",
        "text/csv",
        "text/tab-separated-values",
        "text/html",
        "application/json",
        "application/xml",
        "image/svg+xml",
    }
)


def _same_media(declared: str, detected: str) -> bool:
    if declared == detected:
        return True
    return _EQUIVALENT.get(declared, declared) == _EQUIVALENT.get(detected, detected)


def _is_text_like(mime: str) -> bool:
    return mime.startswith("text/") or mime.endswith(("+json", "+xml", "/json", "/xml"))


_TEXT_FORMATS = frozenset({"application/rtf", "application/postscript", "text/rtf"})
"""Detected formats that are text themselves: a text file starting like one is one."""
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_PDF_OBJECT = re.compile(rb"\d+\s+\d+\s+obj\b|\bxref\b|\bstartxref\b")


def _stays_text(declared: str, detected: str, header: bytes | memoryview) -> bool:
    """True when ``declared`` is ``text/*`` and the bytes are text that only starts like the
    ``detected`` binary format: valid UTF-8 with no control characters (no real GIF, WAV or
    MP4 is), and for PDF (which may be plain ASCII) no object or cross-reference table either.
    A note that begins ``%PDF-1.4 is the header of...`` declared ``text/plain`` stays text."""
    if not declared.startswith("text/") or _is_text_like(detected) or detected in _TEXT_FORMATS:
        return False
    data = bytes(header)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return False
    if _CONTROL.search(data):
        return False
    return not (detected == "application/pdf" and _PDF_OBJECT.search(data))
