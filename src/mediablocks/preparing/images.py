"""`prepare`'s image steps: fit one image to the provider (`mediablocks.images.fit_image`), and
make all images together fit the request's byte budgets (planned before fitting, corrected
after).

Pillow loads with the first image (`mediablocks.images` is imported inside the functions), so
``import mediablocks`` stays free of it.
"""

from __future__ import annotations

from ..changes import Change
from ..errors import (
    BrokenMediaError,
    ConversionCrashedError,
    DecodeError,
    ImageBombError,
    MediaBlocksError,
)
from ..limits import measured_size
from .budget import SHARE_FLOOR_SIDE, image_budget, water_level
from .slots import _kind, _replaced, _Slot
from .state import _Preparation, _reason

_BrokenImageError = BrokenMediaError
"""An image whose bytes do not decode (truncated, corrupt): raised at once by `prepare`, naming
the message and block, like a decompression bomb (`ImageBombError`). The name other prepare
modules import; what callers see is the public `BrokenMediaError`."""


def fit_image_slot(
    run: _Preparation,
    slot: _Slot,
    data: bytes,
    image_count: int,
    max_bytes: int | None = None,
    min_side: int | None = None,
) -> None:
    if not run.limits.image_types:
        run.problem(slot, "unsupported_kind", f"{run.limits.provider} takes no image input")
        return
    from ..images import ImageTarget, fit_image  # Pillow loads with the first image

    planned = run.planned.get(id(slot)) if max_bytes is None else None
    if planned is not None:  # a share given before fitting (`plan_image_shares`)
        max_bytes = measured_size(planned[0], run.limits.image_bytes_measure)
        min_side = SHARE_FLOOR_SIDE
    target = ImageTarget.from_limits(
        run.limits,
        image_count=image_count,
        optimal_size=run.options.optimal_size,
        max_bytes=max_bytes,
        min_side=min_side,
    )
    try:
        fitted = fit_image(
            data,
            target,
            mime_type=slot.block.mime_type,
            strip_metadata=run.options.strip_metadata,
            convert=run.options.convert,
            max_image_pixels=run.options.max_image_pixels,
            what=slot.block.describe(),
        )
    except ConversionCrashedError as exc:  # raised at once, as the converter's crash
        raise ConversionCrashedError(
            f"{slot.where}: {_reason(exc, slot.block)}",
            signal=exc.signal,
            limit=exc.limit,
            block=slot.block,
        ) from None
    except DecodeError as exc:  # raised at once: the bytes are broken, not too large
        raise BrokenMediaError(
            f"{slot.where}: {_reason(exc, slot.block)}", block=slot.block
        ) from None
    if fitted.unchanged:
        return
    changes = fitted.changes
    if planned is not None:
        changes += (shared_change(run, *planned),)
    slot.result = _replaced(slot.block, fitted.data, fitted.mime_type, changes, run.limits.provider)
    slot.changes = changes
    slot.size = len(fitted.data)


def shared_change(run: _Preparation, cap: int, reason: str) -> Change:
    measure = run.limits.image_bytes_measure
    return Change(
        "shared", f"fitted to {measured_size(cap, measure):,} bytes ({measure}): {reason}"
    )


def plan_image_shares(run: _Preparation, slots: list[_Slot], image_count: int) -> None:
    """Before fitting: when the images are predicted to be over the request's budget, give
    the largest their share up front, so each is fitted (decoded, encoded) once.

    The prediction is each file's size scaled by the pixel limits it will be fitted to (from
    its header) and capped by the per-image limit. `share_image_bytes` corrects, after
    fitting, whatever the prediction missed. Any image that cannot be read leaves the plan
    to `fit`, which reports it.
    """
    images = [s for s in slots if _kind(s.block) == "image" and run.readable(s.block)]
    if not images or not run.limits.image_types:
        return
    from ..images import ImageTarget, image_size  # Pillow loads with the first image

    target = ImageTarget.from_limits(
        run.limits, image_count=image_count, optimal_size=run.options.optimal_size
    )
    predicted: list[int] = []
    others = 0
    try:
        for slot in images:
            data = slot.block.read(run.options.policy)
            width, height = image_size(
                data, what=slot.where, max_image_pixels=run.options.max_image_pixels
            )
            size = int(len(data) * min(1.0, target.scale_for(width, height)) ** 2)
            predicted.append(min(size, target.max_raw_bytes or size))
        for slot in slots:
            if _kind(slot.block) != "image" and run.readable(slot.block):
                others += len(slot.block.read(run.options.policy))
    except MediaBlocksError:
        return
    budget, reason = budget_for(
        run, measured_size(others, run.limits.request_bytes_measure), len(images)
    )
    if budget is None or sum(predicted) <= budget:
        return
    cap = water_level(predicted, budget)
    if cap < 1:
        return  # no room at all: fitting and then sharing say so
    over = [slot for slot, size in zip(images, predicted, strict=True) if size > cap]
    for slot in over:
        run.planned[id(slot)] = (cap, reason)
    measure = run.limits.image_bytes_measure
    run.notes.append(
        f"{len(images)} images, predicted at {measured_size(sum(predicted), measure):,} bytes "
        f"({measure}) once fitted, are over {reason}: the {len(over)} largest were fitted "
        f"to at most {measured_size(cap, measure):,} bytes each"
    )


def share_image_bytes(run: _Preparation, slots: list[_Slot], image_count: int) -> None:
    """Make all images together fit the request: its media bytes and the image total.

    The budgets are the provider's request limit (less the other media and a reserve for
    the text and JSON around them, `REQUEST_RESERVE`) and its all-images limit, both in raw
    bytes. When the images are over, the largest are capped at one share each (water
    filling: images under the share stay as they are) and fitted again from their prepared
    bytes: quality first, then resolution, never below `SHARE_FLOOR_SIDE` px long edge or
    JPEG quality 40. A round that lands over (the sizes are predicted) shares again. Every
    refitted block gets a ``shared`` change; what happened is in `PrepareReport.notes`.
    """
    images = [s for s in slots if _kind(s.block) == "image" and s.size is not None]
    budget, reason = images_budget(run, slots, images)
    if budget is None or not images:
        return
    measure = run.limits.image_bytes_measure
    for _ in range(3):
        sizes = [slot.size or 0 for slot in images]
        total = sum(sizes)
        if total <= budget:
            return
        cap = water_level(sizes, budget)
        over = [slot for slot in images if (slot.size or 0) > cap]
        if cap < 1 or not over:
            run.problem(
                None,
                "too_large",
                f"{len(images)} images do not fit {reason}: {budget:,} raw bytes are left for them",
            )
            return
        run.notes.append(
            f"{len(images)} images, {measured_size(total, measure):,} bytes ({measure}), are "
            f"over {reason}: the {len(over)} largest were fitted to at most "
            f"{measured_size(cap, measure):,} bytes each"
        )
        for slot in over:
            if not refit_to_share(run, slot, image_count, cap, reason):
                return  # a problem is recorded; check_totals reports the total too


def images_budget(
    run: _Preparation, slots: list[_Slot], images: list[_Slot]
) -> tuple[int | None, str]:
    """The raw bytes all read images may take together, and which limit says so."""
    measure = run.limits.request_bytes_measure
    others = sum(
        measured_size(slot.size or 0, measure)
        for slot in slots
        if slot.size is not None and all(slot is not image for image in images)
    )
    return budget_for(run, others, len(images))


def budget_for(run: _Preparation, others: int, count: int) -> tuple[int | None, str]:
    """The raw bytes ``count`` images may take beside ``others`` (see `images_budget`)."""
    return image_budget(run.limits, others, count, run.text_bytes)


def refit_to_share(run: _Preparation, slot: _Slot, image_count: int, cap: int, reason: str) -> bool:
    """Fit one image again under ``cap`` raw bytes; False (and a problem) if it cannot."""
    measure = run.limits.image_bytes_measure
    try:
        data = slot.result.read(run.options.policy)
        earlier = tuple(c for c in slot.changes if c.kind not in ("re-encoded", "shared"))
        refit = _Slot(slot.message_index, slot.block_index, slot.item_index, slot.result)
        fit_image_slot(
            run,
            refit,
            data,
            image_count,
            max_bytes=measured_size(cap, measure),
            min_side=SHARE_FLOOR_SIDE,
        )
    except (ImageBombError, _BrokenImageError):
        raise
    except MediaBlocksError as exc:
        run.problem_from(slot, exc, f"does not fit its share of {reason}: ")
        return False
    changes = earlier + refit.changes + (shared_change(run, cap, reason),)
    fitted = refit.result
    slot.result = _replaced(
        slot.block, fitted.read(), fitted.mime_type, changes, run.limits.provider
    )
    slot.size, slot.changes = refit.size, changes
    return True
