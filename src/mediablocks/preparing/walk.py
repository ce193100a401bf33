"""`prepare`'s walk over the messages: find every media block, fit each by its kind (images,
audio, video, documents), check the request totals, and report what changed.

The audio and video converters (`mediablocks.preparing.av`, PyAV) are imported only when a block
needs converting, so ``import mediablocks`` stays free of them.
"""

from __future__ import annotations

from ..blocks import ContentBlock, TextBlock
from ..changes import Change
from ..convert.budget import current_budget, use_budget
from ..errors import DecodeError, ImageBombError, MediaBlocksError
from ..limits import measured_size
from ..media import MediaBlock
from ..messages import Message
from ..sources import URLSource
from .budget import text_bytes
from .documents import fit_document
from .images import _BrokenImageError, fit_image_slot, plan_image_shares, share_image_bytes
from .report import BlockReport, PrepareReport
from .slots import _find_media, _kind, _rebuild, _Slot
from .state import _needed, _Preparation, _probe, decode_check
from .timing import block_budget, call_budget, fatal, size_by_duration
from .totals import check_totals


def walk(run: _Preparation, messages: list[Message]) -> tuple[list[Message], PrepareReport]:
    slots = list(_find_media(messages))
    image_count = sum(1 for slot in slots if _kind(slot.block) == "image")
    run.text_bytes = text_bytes(messages)
    run.image_count = image_count
    run.call_budget = call_budget(run.options)
    plan_image_shares(run, slots, image_count)
    from .parallel import start_documents, stop  # threads load only for several documents

    ahead = start_documents(run, slots)
    try:
        for slot in slots:
            fit(run, slot, image_count)
    except BaseException:
        run.call_budget.cancel()  # documents converting ahead stop too
        raise
    finally:
        stop(ahead, run)
    if run.stand_ins is not None:
        from .standins import apply_stand_ins

        apply_stand_ins(run, slots)
    if run.options.unsupported != "raise":
        drop_unsupported(run, slots)
    share_image_bytes(run, slots, image_count)
    check_totals(run, slots)
    run.raise_problems()
    prepared = _rebuild(messages, slots)
    for index, (before, after) in enumerate(zip(messages, prepared, strict=True)):
        if before.content and not after.content:
            run.notes.append(f"message {index} is empty: every block in it was dropped")
    report = PrepareReport(
        run.limits.provider,
        run.limits.model,
        tuple(report_entry(run, slot) for slot in slots),
        tuple(run.notes),
    )
    return prepared, report


def drop_unsupported(run: _Preparation, slots: list[_Slot]) -> None:
    """``unsupported="drop"`` or ``"note"``: each block with a problem that the provider takes
    in no form (`_Preparation.takes_in_no_form`) is removed, its problems with it, and reported
    as ``dropped``; with ``"note"`` a short text takes its place, telling the model what was left
    out (``[file report.pdf application/pdf: not readable by this model]``). Other problems
    (too big, broken) still raise."""
    for slot in slots:
        if not run.problems_for(slot):
            continue
        reason = run.takes_in_no_form(slot)
        if reason is None:
            continue
        run.problems = [p for p in run.problems if not p.startswith(slot.where)]
        if run.options.unsupported == "note":
            from .timed import label_of

            note = f"[{label_of(slot.block)} {slot.block.mime_type}: not readable by this model]"
            slot.replace_with([TextBlock(text=note)], [Change("noted", reason)])
        else:
            slot.replace_with([], [Change("dropped", reason)])


def report_entry(run: _Preparation, slot: _Slot) -> BlockReport:
    measure = run.measure_of(slot.block)
    before = slot.size_before
    after = slot.size
    return BlockReport(
        slot.message_index,
        slot.block_index,
        slot.item_index,
        slot.block.describe(),
        slot.changes,
        None if before is None else measured_size(before, measure),
        None if after is None else measured_size(after, measure),
        measure,
        tuple(_describe(block) for block in slot.replacement or ()),
    )


def fit(run: _Preparation, slot: _Slot, image_count: int) -> None:
    """Fit one block; its conversions run under the options' limits and on the block's budget
    (`timing`: everything the block costs, within the call's total)."""
    from ..convert.limits import use_conversion_limits

    if run.call_budget is None:
        run.call_budget = call_budget(run.options)
    budget = run.block_budgets.pop(id(slot), None)
    if budget is None:
        budget = block_budget(run.options, slot.block, run.call_budget)
    with use_conversion_limits(run.options.conversion_limits, None), use_budget(budget):
        _fit(run, slot, image_count)


def _fit(run: _Preparation, slot: _Slot, image_count: int) -> None:
    block = slot.block
    kind = _kind(block)
    if not run.readable(block):
        if not run.limits.types_for(kind):
            hint = _needed(kind)
            if kind == "video" and run.limits.image_types and isinstance(block.source, URLSource):
                hint = " (read_urls=True lets prepare fetch it and send frames)"
            elif kind == "document" and isinstance(block.source, URLSource):
                hint = " (read_urls=True lets prepare fetch it and send page images or text)"
            run.problem(
                slot, "unsupported_kind", f"{run.limits.provider} takes no {kind} input{hint}"
            )
        return
    try:
        budget = current_budget()
        if budget is not None:
            budget.check(block.describe(), "starting")
        data = block.read(run.options.policy)
        if budget is not None:
            size_by_duration(run.options, block, budget)
        slot.size_before = slot.size = len(data)
        if kind == "image":
            fit_image_slot(run, slot, data, image_count)
        elif kind == "audio":
            fit_audio(run, slot, data)
        elif kind == "video":
            fit_video(run, slot, data)
        else:
            fit_document(run, slot, data)
        if kind != "image":
            _verify(run, slot, data)
    except (ImageBombError, _BrokenImageError) as exc:
        if exc.block is None:
            exc.block = block
        raise
    except MediaBlocksError as exc:
        if fatal(exc):  # the call's total spent, the caller gone, no worker: not this block's
            raise
        if isinstance(exc, DecodeError):
            run.broken.add(id(slot))  # no stand-in is asked to read what cannot be decoded
        run.problem_from(slot, exc)


def _verify(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """Nothing leaves `prepare` that its own decoders cannot open: audio, video and PDFs sent
    as they are (or only remuxed) are decoded once (`mediablocks.convert.verify`); what the
    converters just encoded is not. A `DecodeError` becomes this block's problem."""
    if slot.checked:  # checked where it was made, in the job that made it
        return
    result = slot.result
    kind = _kind(result)
    remuxed = any(change.kind == "remuxed" for change in slot.changes)
    if slot.replacement is not None:  # only copied audio among new blocks is unverified
        for part in slot.parts if remuxed else []:
            if _kind(part.block) == "audio":
                decode_check("check_audio_decodes", part.block.read(), slot.block.describe())
        return
    if result is not slot.block and not remuxed:
        return
    if result.mime_type not in run.limits.types_for(kind) or run.problems_for(slot):
        return  # refused already
    payload = data if result is slot.block else result.read()
    what = slot.block.describe()
    if kind == "audio":
        decode_check("check_audio_decodes", payload, what)
    elif kind == "video":
        decode_check("check_video_decodes", payload, what)
    elif result.mime_type == "application/pdf":
        decode_check("check_pdf_opens", payload, what)


def fit_audio(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """Audio as it is when it fits; else re-encoded, resampled or split (`av`)."""
    if run.options.audio == "raise" or not run.options.convert or not run.limits.audio_types:
        run.fit_timed(slot, "audio")
        return
    if run.fits_as_is(slot, "audio", run.options.max_audio_seconds):
        run.fit_timed(slot, "audio")
        return
    from . import av

    av.convert_audio_slot(run, slot, data)


def fit_video(run: _Preparation, slot: _Slot, data: bytes) -> None:
    """Video as it is when it fits; else transcoded (providers taking video) or frames."""
    strategy: str = run.options.video if run.options.convert else "raise"
    if strategy != "raise":
        from . import av

        if av.audio_only(slot, data):
            av.audio_only_slot(run, slot, data)
            return
    if strategy == "convert" and run.limits.video_types:
        if run.fits_as_is(slot, "video", run.options.max_video_seconds):
            from . import av

            _probe(slot.block, run.options.policy)  # a broken header: its own message

            if av.codec_is_safe(run, slot, data):
                run.fit_timed(slot, "video")
                return
        strategy = "transcode"
    elif strategy == "convert":
        strategy = "frames"
    if strategy == "frames" and not run.limits.video_frames and not run.limits.video_types:
        strategy = "raise"  # the endpoint declared it takes no video, not even as frames
    if strategy == "raise":
        run.fit_timed(slot, "video")
        return
    from . import av

    if strategy == "transcode":
        av.transcode_video_slot(run, slot, data)
    else:
        av.video_frames_slot(run, slot, data)


def _describe(block: ContentBlock) -> str:
    if isinstance(block, MediaBlock):
        return block.describe()
    text = getattr(block, "text", "")
    return f"TextBlock({text!r})" if text else type(block).__name__
