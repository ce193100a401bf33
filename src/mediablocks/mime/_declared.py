"""How a declared MIME type is judged against the detected one: twins, types the detector always
recognises, equivalent spellings and weak (heuristic) detections. Used by `media.MediaBlock`.
"""

from __future__ import annotations

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
