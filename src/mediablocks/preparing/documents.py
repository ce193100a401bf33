"""`prepare`'s document step: a document as it is where the provider takes it, else page images
or text from `convert_document`, spliced in its place."""

from __future__ import annotations

from .slots import _Slot
from .state import _Preparation, _probe


def fit_document(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """A document as it is where the provider takes it (and the strategy keeps it); else
    page images or text from `convert_document`, spliced in its place."""
    options = run.options
    if options.convert and options.documents != "raise":
        from .document_blocks import convert_document

        converted = convert_document(
            slot.block,
            data,
            run.limits,
            strategy=options.documents,
            image_count=run.image_count,
            max_pages=options.max_pages,
            max_chars=options.max_text_chars,
            truncate=options.truncate_documents,
            conversion_limits=options.conversion_limits,
            time_budget=options.time_budget,
        )
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
