"""`prepare`'s document step: a document as it is where the provider takes it, else page images
or text from `convert_document`, spliced in its place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .slots import _Slot
from .state import _Preparation, _probe

if TYPE_CHECKING:
    from .document_blocks import ConvertedDocument


def converts(run: _Preparation) -> bool:
    """True when the options let documents be converted at all."""
    return run.options.convert and run.options.documents != "raise"


def convert(run: _Preparation, slot: _Slot, data: bytes) -> ConvertedDocument | None:
    """What `convert_document` makes of the block (``None``: it
    goes as it is), under the conversion limits and budget in scope."""
    from .document_blocks import convert_document

    options = run.options
    return convert_document(
        slot.block,
        data,
        run.limits,
        strategy=options.documents,
        image_count=run.image_count,
        max_pages=options.max_pages,
        max_chars=options.max_text_chars,
        truncate=options.truncate_documents,
        conversion_limits=options.conversion_limits,
    )


def fit_document(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """A document as it is where the provider takes it (and the strategy keeps it); else
    page images or text from `convert_document`, spliced in its place (converted
    here, or beforehand beside the other documents: `mediablocks.preparing.parallel`)."""
    if converts(run):
        ahead = run.documents.pop(id(slot), None)
        converted = ahead.result() if ahead is not None else convert(run, slot, data)
        if converted is not None:
            slot.replace_with(converted.blocks, converted.changes)
            return
    if run.refuse_type(slot, "document"):
        return
    run.check_bytes(
        slot, run.limits.max_document_bytes, run.limits.document_bytes_measure, "document"
    )
    if slot.result.mime_type == "application/pdf":
        info = _probe(slot.result, run.options.policy)
        slot.pages = None if info is None else info.pages
