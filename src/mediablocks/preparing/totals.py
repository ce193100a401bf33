"""`prepare`'s request totals: what the request holds across its blocks (images, documents, PDF
pages, seconds of audio and video, bytes) against the provider's per-request limits."""

from __future__ import annotations

from typing import Any

from ..limits import measured_size
from .slots import _counted, _kind, _Slot
from .state import _Preparation


def check_totals(run: _Preparation, slots: list[_Slot]) -> None:
    slots = _counted(slots)
    limits = run.limits
    name = limits.provider
    by_kind: dict[str, list[_Slot]] = {"image": [], "audio": [], "video": [], "document": []}
    for slot in slots:
        by_kind.setdefault(_kind(slot.block), []).append(slot)
    images = by_kind["image"]
    if limits.max_images is not None and len(images) > limits.max_images:
        run.problem(
            None,
            "too_many",
            f"the request holds {len(images)} images; {name} takes at most {limits.max_images}",
        )
    documents = by_kind["document"]
    if limits.max_documents is not None and len(documents) > limits.max_documents:
        run.problem(
            None,
            "too_many",
            f"the request holds {len(documents)} documents; {name} takes at most "
            f"{limits.max_documents}",
        )
    check_total(
        run,
        by_kind["image"],
        lambda s: measured_size(s.size, limits.image_bytes_measure) if s.size else None,
        limits.max_total_image_bytes,
        f"bytes of images ({limits.image_bytes_measure})",
    )
    check_total(run, documents, lambda s: s.pages, limits.max_document_pages, "PDF pages")
    check_total(
        run, by_kind["audio"], lambda s: s.seconds, limits.max_audio_seconds, "seconds of audio"
    )
    check_total(
        run, by_kind["video"], lambda s: s.seconds, limits.max_video_seconds, "seconds of video"
    )
    inline = [s for s in slots if s.size is not None]
    check_total(
        run,
        inline,
        lambda s: measured_size(s.size or 0, limits.request_bytes_measure),
        limits.max_request_bytes,
        f"request bytes of media ({limits.request_bytes_measure})",
    )


def check_total(
    run: _Preparation, slots: list[_Slot], amount: Any, limit: float | None, unit: str
) -> None:
    if limit is None:
        return
    counted = [(slot, amount(slot)) for slot in slots]
    counted = [(slot, value) for slot, value in counted if value is not None]
    total = sum(value for _, value in counted)
    if total > limit:
        parts = ", ".join(f"{slot.where} ({_number(value)})" for slot, value in counted)
        code = "too_long" if "seconds" in unit else "too_many" if "pages" in unit else "too_large"
        run.problem(
            None,
            code,
            f"{_number(total)} {unit} in one request is over {run.limits.provider}'s limit "
            f"of {_number(limit)}: {parts}",
        )


def _number(value: float) -> str:
    return (
        f"{value:,.1f}" if isinstance(value, float) and not value.is_integer() else f"{value:,.0f}"
    )
