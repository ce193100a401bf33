"""PDF pages as images, or as text, with pypdfium2 (``pip install 'mediablocks[pdf]'``).

pypdfium2 wraps PDFium, the PDF engine of Chrome, and ships it inside its wheels: no system
library, no ``pdftoppm`` on ``PATH``. Pages are rendered **one at a time**: memory holds the
document's structure, one page's bitmap and the encoded pages so far, never every bitmap. The
render scale is chosen from the page's size so that the image fits ``max_side`` and ``max_pixels``
whatever size the PDF declares (a 200-inch page is not a bomb). Every pypdfium2 error (a broken
file, a password) becomes `DecodeError` naming the block. PDFium runs in a worker process under
the conversion limits (`mediablocks.convert.isolation`): a PDF that makes it abort or run away
ends in `ConversionCrashedError` or `ConversionLimitError`, not in the caller's process.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from typing import Any, Literal

from typing_extensions import TypedDict, Unpack

from ..errors import DecodeError, InvalidOptionError
from ._extract import (
    ExtractedText,
    TextFull,
    TextSink,
    decoder_errors,
    require,
    require_installed,
)
from .limits import DEFAULT_MAX_PAGES

__all__ = [
    "DEFAULT_DPI",
    "PageImage",
    "RenderKeywords",
    "RenderedPages",
    "page_count",
    "pdf_text",
    "render_document",
    "render_pages",
]

DEFAULT_DPI = 150
"""The render resolution before the provider's size limits apply (legible body text)."""

_DEFAULT_MAX_SIDE = 2048
_CONVERTER = "PDF engine (PDFium)"
_JPEG_QUALITY = 85


@dataclass(frozen=True)
class PageImage:
    """One rendered page: ``number`` counts from 1."""

    number: int
    data: bytes
    mime_type: str
    width: int
    height: int


@dataclass(frozen=True)
class RenderedPages:
    """What `render_document` returns: the document's page count and the pages rendered."""

    total: int
    pages: tuple[PageImage, ...]


def _check_header(data: bytes, what: str) -> None:
    require_installed("pypdfium2", "pdf", what, "rendering or reading a PDF")
    if not data.lstrip()[:1024].find(b"%PDF-") >= 0:
        raise DecodeError(f"{what}: not a readable PDF: no %PDF- header")


def _open(data: bytes, what: str) -> Any:
    _check_header(data, what)
    pdfium = require("pypdfium2", "pdf", what, "rendering or reading a PDF")
    with decoder_errors(what, "PDF"):
        return pdfium.PdfDocument(data)


def page_count(data: bytes, what: str = "PDF") -> int:
    """The number of pages of a PDF (`DecodeError` when it cannot be read), counted by PDFium in
    a worker process (`mediablocks.convert.isolation`)."""
    _check_header(data, what)
    from .isolation import run_isolated  # the pool loads with the first conversion

    return run_isolated(what, _page_count, data, what, converter=_CONVERTER)


def _page_count(data: bytes, what: str) -> int:
    document = _open(data, what)
    try:
        with decoder_errors(what, "PDF"):
            return len(document)
    finally:
        document.close()


def render_scale(
    width: float, height: float, dpi: float, max_side: int, max_pixels: int | None
) -> float:
    """The scale (pixels per point) that renders a page at ``dpi`` within the size limits."""
    if not (math.isfinite(width) and math.isfinite(height)) or width <= 0 or height <= 0:
        raise ValueError(f"page size {width} x {height} points")
    scale = min(dpi / 72.0, max_side / max(width, height))
    if max_pixels is not None:
        scale = min(scale, math.sqrt(max_pixels / (width * height)))
    return scale


class RenderKeywords(TypedDict, total=False):
    """The keyword options of `render_pages`: those of `render_document`, written once."""

    what: str
    first: int
    max_pages: int
    dpi: float
    max_side: int | None
    max_pixels: int | None
    image_format: Literal["jpeg", "png"]


def render_pages(data: bytes, **options: Unpack[RenderKeywords]) -> Iterator[PageImage]:
    """Render pages ``first`` .. ``first + max_pages - 1`` one at a time, as JPEG or PNG.

    Each page is scaled to ``dpi`` and then down (never up past ``dpi``) to fit ``max_side``
    (default 2048 px) and ``max_pixels``. The pages are rendered in one conversion
    (`render_document`, which takes the same keywords and names their defaults) and then
    yielded. Raises `DecodeError` for a page or file that cannot be rendered,
    `ConversionCrashedError` or `ConversionLimitError` for one that kills PDFium.
    """
    yield from render_document(data, **options).pages


def render_document(
    data: bytes,
    *,
    what: str = "PDF",
    first: int = 1,
    max_pages: int = DEFAULT_MAX_PAGES,
    dpi: float = DEFAULT_DPI,
    max_side: int | None = None,
    max_pixels: int | None = None,
    image_format: Literal["jpeg", "png"] = "jpeg",
) -> RenderedPages:
    """`render_pages` as one conversion: the page count and the pages, rendered by PDFium in a
    worker process under the conversion limits and one wall-time budget
    (`mediablocks.convert.isolation`)."""
    if max_pages < 1 or first < 1 or dpi <= 0:
        raise InvalidOptionError("render_pages needs first >= 1, max_pages >= 1 and dpi > 0")
    _check_header(data, what)
    side = max_side or _DEFAULT_MAX_SIDE
    args = (data, what, first, max_pages, dpi, side, max_pixels, image_format)
    from .isolation import run_isolated  # the pool loads with the first conversion

    return run_isolated(what, _render_document, *args, converter=_CONVERTER)


def _render_document(
    data: bytes,
    what: str,
    first: int,
    max_pages: int,
    dpi: float,
    side: int,
    max_pixels: int | None,
    image_format: str,
) -> RenderedPages:
    document = _open(data, what)
    try:
        with decoder_errors(what, "PDF"):
            total = len(document)
        pages = tuple(
            _render(document, index, dpi, side, max_pixels, image_format, what)
            for index in range(first - 1, min(total, first - 1 + max_pages))
        )
    finally:
        document.close()
    return RenderedPages(total, pages)


def _render(
    document: Any,
    index: int,
    dpi: float,
    max_side: int,
    max_pixels: int | None,
    image_format: str,
    what: str,
) -> PageImage:
    with decoder_errors(what, f"PDF (page {index + 1})"):
        page = document[index]
        try:
            width, height = page.get_size()
            scale = render_scale(width, height, dpi, max_side, max_pixels)
            bitmap = page.render(scale=scale, may_draw_forms=True, rev_byteorder=True)
            try:
                image = bitmap.to_pil()
                if image.mode not in ("RGB", "L"):
                    image = image.convert("RGB")
                out = BytesIO()
                if image_format == "png":
                    image.save(out, "PNG", optimize=False)
                else:
                    image.save(out, "JPEG", quality=_JPEG_QUALITY)
                size = image.size
            finally:
                bitmap.close()
        finally:
            page.close()
    mime = "image/png" if image_format == "png" else "image/jpeg"
    return PageImage(index + 1, out.getvalue(), mime, size[0], size[1])


def pdf_text(
    data: bytes, max_chars: int, what: str = "PDF", max_pages: int | None = None
) -> ExtractedText:
    """The text layer of a PDF, page by page under ``## Page N``, cut at ``max_chars``.

    A scanned PDF has no text layer: the result is then empty (`ExtractedText.text` is ``""``),
    and the page images are the way to send it. PDFium reads it in a worker process
    (`mediablocks.convert.isolation`).
    """
    _check_header(data, what)
    from .isolation import run_isolated  # the pool loads with the first conversion

    return run_isolated(what, pdf_text_here, data, max_chars, what, max_pages, converter=_CONVERTER)


def pdf_text_here(
    data: bytes, max_chars: int, what: str = "PDF", max_pages: int | None = None
) -> ExtractedText:
    """`pdf_text` in this process (the worker runs it; `document_text_here` calls it)."""
    document = _open(data, what)
    sink = TextSink(max_chars)
    try:
        with decoder_errors(what, "PDF"):
            total = len(document)
        last = total if max_pages is None else min(total, max_pages)
        for index in range(last):
            with decoder_errors(what, f"PDF (page {index + 1})"):
                page = document[index]
                try:
                    textpage = page.get_textpage()
                    try:
                        text = textpage.get_text_range().replace("\r\n", "\n")
                    finally:
                        textpage.close()
                finally:
                    page.close()
            sink.line(f"## Page {index + 1}")
            sink.line(text.strip())
            sink.line()
        truncated = last < total
    except TextFull:
        truncated = True
    finally:
        document.close()
    return ExtractedText(sink.text(), "PDF", truncated or sink.truncated, pages=total)
