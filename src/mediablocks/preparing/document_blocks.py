"""Documents a provider cannot take, made into what it can: page images or text.

Two layers:

- `document_text` (`mediablocks.convert.text`) turns any supported document into text (an
  `ExtractedText`): PDF (its text layer, pypdfium2), DOCX/XLSX/PPTX and ODT/ODS/ODP (`office`,
  standard library), RTF and legacy ``.doc``/``.xls``/``.ppt`` (`legacy`), EPUB (`markup`), and
  text-like files (plain text, markdown, CSV/TSV, JSON, HTML, XML...: decoded with their
  byte-order mark, UTF-8, UTF-16 or cp1252, in that order). Every reader but the text decoding
  runs in a worker process under the conversion limits (`mediablocks.convert.isolation`).
- `convert_document` decides, for one block and one provider, what to send instead under a
  strategy (``"convert"``, ``"pages"``, ``"text"``, ``"raise"``: see `DocumentStrategy`) and budgets
  (pages, characters), and returns the blocks that take its place with every change described.
  `mediablocks.preparing` calls it; the blocks are spliced in where the document was.

Text is sent in a `TextBlock` that names the file, so the model knows what it reads::

    <document name="report.docx" type="DOCX">
    ...
    </document>
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ..blocks import TextBlock
from ..changes import Change
from ..convert._extract import ExtractedText
from ..convert.limits import (
    DEFAULT_MAX_PAGES,
    DEFAULT_MAX_TEXT_CHARS,
    KEEP,
    ConversionLimits,
    Keep,
    use_conversion_limits,
)
from ..convert.pdf import page_count, render_document
from ..convert.text import PDF, _is_text_like, _is_utf8, document_text, text_convertible
from ..errors import DoesNotFitError, InvalidOptionError
from ..limits import ProviderLimits
from ..media import ImageBlock, MediaBlock
from .options import DOCUMENT_STRATEGIES

__all__ = ["ConvertedDocument", "convert_document", "wrap_text"]


def wrap_text(
    extracted: ExtractedText,
    filename: str | None,
    mime: str,
    max_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> str:
    """The text as the model reads it: inside a ``<document>`` element naming the file."""
    name = f' name="{html.escape(filename)}"' if filename else ""
    kind = extracted.source.split(" ", 1)[0] if extracted.source else mime
    cut = f"\n[text cut at {max_chars:,} characters]" if extracted.truncated else ""
    return f'<document{name} type="{html.escape(kind)}">\n{extracted.text}{cut}\n</document>'


@dataclass(frozen=True)
class ConvertedDocument:
    """What takes a document's place: ``blocks`` in order, each change described in ``changes``.
    ``pages`` / ``pages_total``: PDF pages taken and held; ``chars``: characters of text sent."""

    blocks: tuple[TextBlock | ImageBlock, ...]
    changes: tuple[Change, ...]
    pages: int | None = None
    pages_total: int | None = None
    chars: int | None = None


def convert_document(
    block: MediaBlock,
    data: bytes,
    limits: ProviderLimits,
    *,
    strategy: str = "convert",
    image_count: int = 0,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_chars: int = DEFAULT_MAX_TEXT_CHARS,
    truncate: bool = True,
    conversion_limits: ConversionLimits | None = None,
    time_budget: float | Keep | None = KEEP,
) -> ConvertedDocument | None:
    """The blocks to send instead of document ``block`` (bytes ``data``) to ``limits.provider``.

    None: send it as it is (the provider takes its type and the strategy keeps it). Raises
    `DoesNotFitError` when the strategy forbids what would be needed or a budget would cut the
    document and ``truncate`` is False; `UnsupportedBlockError` when no converter reads the type
    (or its extra is missing); `DecodeError` for a broken file; `ConversionCrashedError` or
    `ConversionLimitError` when reading it crashes its reader or goes past
    ``conversion_limits`` or the ``time_budget`` (seconds of wall time for the conversion;
    ``None``: none). By default both are the `use_conversion_limits` scope's.
    """
    with use_conversion_limits(conversion_limits, time_budget):
        return _convert(block, data, limits, strategy, image_count, max_pages, max_chars, truncate)


def _convert(
    block: MediaBlock,
    data: bytes,
    limits: ProviderLimits,
    strategy: str,
    image_count: int,
    max_pages: int,
    max_chars: int,
    truncate: bool,
) -> ConvertedDocument | None:
    if strategy not in DOCUMENT_STRATEGIES:
        raise InvalidOptionError(f"documents={strategy!r}: one of {', '.join(DOCUMENT_STRATEGIES)}")
    if max_pages < 1 or max_chars < 1:
        raise InvalidOptionError("max_pages and max_text_chars must be at least 1")
    mime = block.mime_type
    what = block.describe()
    native = mime in limits.document_types
    if native and _is_text_like(mime) and strategy in ("convert", "pages"):
        native = _is_utf8(data)  # providers read text documents as UTF-8 (UTF-16 is converted)
    if strategy == "raise" or (native and strategy == "convert"):
        return None
    if native and strategy == "pages" and mime != PDF:
        return None
    if not text_convertible(mime):
        if native:
            return None
        raise DoesNotFitError(
            f"{what}: {limits.provider} does not take {mime}, and mediablocks cannot convert it "
            "to text or page images"
        )
    wants_pages = mime == PDF and strategy in ("convert", "pages")
    if wants_pages and limits.image_types:
        return _pages(block, data, limits, image_count, max_pages, truncate, what)
    if wants_pages and strategy == "pages":
        raise DoesNotFitError(f"{what}: documents='pages' but {limits.provider} takes no images")
    return _text(block, data, mime, max_pages, max_chars, truncate, what)


def _text(
    block: MediaBlock,
    data: bytes,
    mime: str,
    max_pages: int,
    max_chars: int,
    truncate: bool,
    what: str,
) -> ConvertedDocument:
    pages = max_pages if mime == PDF else None
    extracted = document_text(data, mime, max_chars=max_chars, max_pages=pages, what=what)
    if mime == PDF and not extracted.text.replace("## Page", "").strip(" \n0123456789"):
        raise DoesNotFitError(
            f"{what}: the PDF has no text layer (scanned?); send it as page images "
            "(documents='pages') to a provider that takes images"
        )
    if extracted.truncated and not truncate:
        raise DoesNotFitError(
            f"{what}: its text is longer than max_text_chars={max_chars:,} (or has more than "
            f"max_pages={max_pages} pages) and truncate_documents=False"
        )
    text = wrap_text(extracted, block.filename, mime, max_chars)
    detail = f"{mime} -> text ({extracted.source}, {len(extracted.text):,} characters"
    if extracted.pages is not None:
        taken = min(extracted.pages, max_pages)
        detail += f", {taken} of {extracted.pages} pages"
    if extracted.truncated:
        detail += f"; cut at max_text_chars={max_chars:,} or max_pages={max_pages}"
    change = Change("converted", detail + ")")
    taken_pages = None if extracted.pages is None else min(extracted.pages, max_pages)
    return ConvertedDocument(
        (TextBlock(text=text),), (change,), taken_pages, extracted.pages, len(extracted.text)
    )


def _pages(
    block: MediaBlock,
    data: bytes,
    limits: ProviderLimits,
    image_count: int,
    max_pages: int,
    truncate: bool,
    what: str,
) -> ConvertedDocument:
    room = max_pages
    if limits.max_images is not None:
        room = min(room, max(0, limits.max_images - image_count))  # room left for pages
    if room < 1:
        total = page_count(data, what)
        if not truncate:
            raise DoesNotFitError(
                f"{what}: {total} pages is more than the 0 page images allowed "
                f"(max_pages={max_pages}) and truncate_documents=False"
            )
        raise DoesNotFitError(f"{what}: the request has no room for page images")
    from ..images import ImageTarget, fit_image  # Pillow loads with the first page image

    # The target for `room` pages: the count-dependent pixel caps hold for what is sent.
    target = ImageTarget.from_limits(limits, image_count=image_count + room)
    side = min(target.optimal_side or 1568, target.max_side or 1568, 1568)
    rendered = render_document(
        data, what=what, max_pages=room, max_side=side, max_pixels=target.max_pixels
    )
    total = rendered.total
    taken = min(total, room)
    if taken < total and not truncate:
        raise DoesNotFitError(
            f"{what}: {total} pages is more than the {taken} page images allowed "
            f"(max_pages={max_pages}) and truncate_documents=False"
        )
    target = ImageTarget.from_limits(limits, image_count=image_count + taken)
    name = block.filename or "document.pdf"
    stem = name.rsplit(".", 1)[0]
    blocks: list[TextBlock | ImageBlock] = []
    for page in rendered.pages:
        fitted = fit_image(
            page.data, target, mime_type=page.mime_type, what=f"{what} page {page.number}"
        )
        blocks.append(TextBlock(text=f"Page {page.number} of {total} ({name})"))
        image = ImageBlock.from_bytes(
            fitted.data, fitted.mime_type, filename=f"{stem}-page-{page.number}.jpg"
        )
        metadata = {"prepared": {"provider": limits.provider, "from": what, "page": page.number}}
        blocks.append(image.model_copy(update={"metadata": metadata}))
    if taken < total:
        blocks.append(TextBlock(text=f"[pages {taken + 1}-{total} of {name} not included]"))
    images = f"{taken} page image{'s' if taken != 1 else ''}"
    detail = f"application/pdf -> {images} of {total} (JPEG, at most {side} px)"
    if taken < total:
        detail += f"; pages {taken + 1}-{total} cut (max_pages={max_pages})"
    return ConvertedDocument(tuple(blocks), (Change("converted", detail),), taken, total, None)
