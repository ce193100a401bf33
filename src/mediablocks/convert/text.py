"""Any supported document as text: `document_text`, and the encodings of text-like files.

PDF (its text layer, pypdfium2), DOCX/XLSX/PPTX and ODT/ODS/ODP (`office`, standard library), RTF
and legacy ``.doc``/``.xls``/``.ppt`` (`legacy`), EPUB (`markup`) are read in a worker process
under the conversion limits and one wall-time budget (`mediablocks.convert.isolation`): a reader
that crashes or runs away on a crafted file ends in `ConversionCrashedError` or
`ConversionLimitError`, not in the caller's process. Text-like files (plain text, markdown,
CSV/TSV, JSON, HTML, XML...) are only decoded (byte-order mark, UTF-8, UTF-16 or cp1252), in
this process. This module imports no pydantic: the workers import it.
"""

from __future__ import annotations

from ..errors import DecodeError, InvalidOptionError, UnsupportedBlockError
from ..mime.encodings import declared_text, text_encoding
from ._extract import ExtractedText, require_installed
from .legacy import LEGACY_TYPES, legacy_text
from .limits import DEFAULT_MAX_TEXT_CHARS
from .markup import epub_text
from .office import ODF_TYPES, OOXML_TYPES, office_text
from .pdf import pdf_text_here

__all__ = [
    "EPUB",
    "PDF",
    "TEXT_TYPES",
    "decode_text",
    "document_text",
    "document_text_here",
    "text_convertible",
]

PDF = "application/pdf"
EPUB = "application/epub+zip"
TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/x-ndjson",
        "application/xml",
        "application/xhtml+xml",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/javascript",
        "application/sql",
    }
)
_TEXT_NAMES = {"text/csv": "CSV", "text/tab-separated-values": "TSV", "text/html": "HTML"}


def _is_text_like(mime: str) -> bool:
    return (mime.startswith("text/") and mime not in ("text/rtf",)) or mime in TEXT_TYPES


def _is_utf8(data: bytes) -> bool:
    """UTF-8 text (ASCII included), as providers read text documents: UTF-16 or UTF-32 without a
    byte-order mark is valid UTF-8 full of NULs, and is not."""
    return text_encoding(data) == "utf-8"


def text_convertible(mime: str) -> bool:
    """True when `document_text` can read this type."""
    return (
        mime in (PDF, EPUB)
        or mime in OOXML_TYPES
        or mime in ODF_TYPES
        or mime in LEGACY_TYPES
        or _is_text_like(mime)
    )


def decode_text(data: bytes, charset: str | None = None) -> tuple[str, str]:
    """``(text, encoding used)``: ``charset`` when given and valid, else the encoding the bytes
    are text in (`mediablocks.mime.encodings.detect_text`: a byte-order mark, UTF-8, UTF-16 or
    UTF-32 without a mark, Windows-1252). Bytes that are text in none of them raise
    `DecodeError`: they are never turned into replacement characters or NULs."""
    if charset:
        try:
            return data.decode(charset), charset
        except (UnicodeDecodeError, LookupError):
            pass
    found = declared_text(data)
    if found is None:
        raise DecodeError(
            "the bytes are not text in UTF-8, UTF-16, UTF-32 or Windows-1252 (binary data, or "
            "a declared text type that is wrong)"
        )
    return found


def document_text(
    data: bytes,
    mime: str,
    *,
    max_chars: int = DEFAULT_MAX_TEXT_CHARS,
    max_pages: int | None = None,
    charset: str | None = None,
    what: str = "document",
) -> ExtractedText:
    """The text of a document of type ``mime``, at most ``max_chars`` characters.

    Raises `UnsupportedBlockError` for a type with no text reader (or a missing extra),
    `DecodeError` (naming ``what``) for a file that cannot be read, `ConversionCrashedError` or
    `ConversionLimitError` for one that crashes its reader or goes past the conversion limits
    (those of the `use_conversion_limits` scope; `prepare` sets them).
    """
    if max_chars < 1:
        raise InvalidOptionError(f"max_chars must be at least 1, not {max_chars}")
    if _is_text_like(mime):
        return document_text_here(data, mime, max_chars, max_pages, charset, what)
    if not text_convertible(mime):
        raise UnsupportedBlockError(f"{what}: no text can be read from {mime}")
    extra = _EXTRAS.get(mime)
    if extra is not None:  # said here, at once: the worker would say it too, later
        require_installed(extra[0], extra[1], what, extra[2])
    reader = _READERS.get(mime, "document reader")
    args = (data, mime, max_chars, max_pages, charset, what)
    from .isolation import run_isolated  # the pool loads with the first conversion

    return run_isolated(what, document_text_here, *args, converter=reader)


_READERS = {PDF: "PDF engine (PDFium)", EPUB: "EPUB reader"}
_READERS.update(dict.fromkeys(OOXML_TYPES | ODF_TYPES, "Office reader"))
_READERS.update(dict.fromkeys(LEGACY_TYPES, "legacy Office reader"))


_EXTRAS = {
    PDF: ("pypdfium2", "pdf", "rendering or reading a PDF"),
    "application/rtf": ("striprtf", "office", "reading RTF"),
    "text/rtf": ("striprtf", "office", "reading RTF"),
    "application/msword": ("olefile", "office", "reading a .doc file"),
    "application/vnd.ms-excel": ("xlrd", "office", "reading a .xls file"),
    "application/vnd.ms-powerpoint": ("olefile", "office", "reading a .ppt file"),
}


def document_text_here(
    data: bytes,
    mime: str,
    max_chars: int,
    max_pages: int | None,
    charset: str | None,
    what: str,
) -> ExtractedText:
    """`document_text` in this process (what the worker runs)."""
    if mime == PDF:
        return pdf_text_here(data, max_chars, what, max_pages)
    if mime in OOXML_TYPES or mime in ODF_TYPES:
        return office_text(data, mime, max_chars, what)
    if mime in LEGACY_TYPES:
        return legacy_text(data, mime, max_chars, what)
    if mime == EPUB:
        return epub_text(data, max_chars, what)
    if _is_text_like(mime):
        text, codec = decode_text(data, charset)
        name = _TEXT_NAMES.get(mime, mime)
        source = f"{name} ({codec})"
        return ExtractedText(text[:max_chars], source, len(text) > max_chars)
    raise UnsupportedBlockError(f"{what}: no text can be read from {mime}")
