"""MIME types from magic bytes: an ordered table of small, named signature checks.

`detect_mime` looks at the first `HEADER_WINDOW` bytes only, however large the buffer, and never
copies more than a few KiB of it. Each check in the table is a cheap prefix compare followed, only
when the prefix matches, by a little parsing where the prefix alone cannot decide (the brands of an
ISO-BMFF ``ftyp`` box, the tracks of a Matroska file, the entries of a ZIP, a second MPEG frame...).
The table is indexed by first byte, so a call runs the few checks that can match, in table order;
checks that do not start at byte 0 (M2TS, tar, PDF after junk, text) run last for every input.

Answers are normalised MIME types (`normalize_mime`). `None` means the bytes say nothing we trust:
empty or truncated input, random or unknown binary, bytes that are not plausibly text in a common
encoding (UTF-8/16/32, Windows-1252, Latin-1: see `encodings`). Users add
their own formats with `register_signature`; those are checked before the built-in table.
"""

from __future__ import annotations

from ._common import HEADER_WINDOW
from .detect import detect_mime
from .names import mime_kind, normalize_mime
from .signatures import register_signature, unregister_signature

__all__ = [
    "HEADER_WINDOW",
    "detect_mime",
    "mime_kind",
    "normalize_mime",
    "register_signature",
    "unregister_signature",
]
