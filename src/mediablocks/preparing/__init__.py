"""Fit the media of a conversation to one provider's limits, and say what changed.

`prepare` returns new messages (the inputs are frozen and stay untouched) whose every media block
the provider accepts, or raises `DoesNotFitError` listing every block that cannot be made to fit.
`prepare_with_report` also returns a `PrepareReport`; `prepare_block` fits a single block.

What is read: blocks over bytes or a local path. Blocks over a URL or a provider file id are
counted (image count, the many-images pixel cap) but not read unless ``read_urls=True``: the
provider fetches them and applies its own limits.

The order (details in ``docs/preparation.md``):

1. Kinds and types the provider cannot carry at all (a video for Anthropic) are problems.
2. Images go through `mediablocks.images.fit_image` with the request's image count, so the
   count-dependent pixel caps apply (Anthropic: 2000 px with more than 20 images).
3. Audio and video the provider refuses, or that is over its limits, is converted with PyAV
   (the ``[av]`` extra; ``docs/conversion.md``): audio re-encoded, resampled or split into
   timestamped chunks; video transcoded to H.264 MP4, or sampled as timestamped JPEG frames
   for providers taking no video. A block that becomes several goes through `_Slot.replace_with`.
4. Durations (audio, video) and PDF page counts come from `mediablocks.probing.probe`; sizes are
   counted the way the provider counts them (raw or base64).
5. Request totals: image count, all images' bytes, documents, pages, seconds, request bytes.

The package's modules, one step each: `options` (`PrepareOptions`), `report` (`PrepareReport`),
`slots` (finding blocks and putting results back), `state` (one run's state and shared checks),
`walk` (the walk and the dispatch by kind), `images`, `av`, `documents` and `totals`.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import Unpack

# ``X as X``: names importable from `mediablocks.preparing` since it was one module stay so.
from .._checks import check_size
from ..changes import DEFAULT_MAX_FRAMES as DEFAULT_MAX_FRAMES
from ..changes import DEFAULT_MAX_IMAGE_PIXELS as DEFAULT_MAX_IMAGE_PIXELS
from ..changes import Change
from ..convert.limits import DEFAULT_MAX_PAGES as DEFAULT_MAX_PAGES
from ..convert.limits import DEFAULT_MAX_TEXT_CHARS as DEFAULT_MAX_TEXT_CHARS
from ..errors import DoesNotFitError, InvalidOptionError
from ..fetching.policy import fetch_budget
from ..limits import ProviderLimits
from ..media import MediaBlock
from ..message_input import MessagesLike, as_messages
from ..messages import Message
from ..providers.registry import limits_for, provider_entry
from ..standins.cache import StandInCache, default_stand_in_cache
from ..standins.types import Describer, Transcriber
from .accept import check_accepted
from .budget import SHARE_FLOOR_SIDE as SHARE_FLOOR_SIDE
from .options import AUTO as AUTO
from .options import BLOCK_OPTIONS, PREPARE_OPTIONS, options_from
from .options import DEFAULT_TIME_BUDGET as DEFAULT_TIME_BUDGET
from .options import DEFAULT_TOTAL_TIME_BUDGET as DEFAULT_TOTAL_TIME_BUDGET
from .options import AudioStrategy as AudioStrategy
from .options import BlockKeywords as BlockKeywords
from .options import DocumentStrategy as DocumentStrategy
from .options import PrepareKeywords as PrepareKeywords
from .options import PrepareOptions as PrepareOptions
from .options import UnsupportedStrategy as UnsupportedStrategy
from .options import VideoStrategy as VideoStrategy
from .report import BlockReport as BlockReport
from .report import PrepareReport as PrepareReport
from .report import assumed_in
from .slots import _counted as _counted
from .slots import _find_media as _find_media
from .slots import _rebuild as _rebuild
from .slots import _Slot
from .standins import StandIns, check_stand_in
from .state import _Preparation
from .totals import check_totals
from .walk import fit, walk

__all__ = [
    "AUTO",
    "DEFAULT_TIME_BUDGET",
    "DEFAULT_TOTAL_TIME_BUDGET",
    "AudioStrategy",
    "BlockReport",
    "PrepareOptions",
    "PrepareReport",
    "UnsupportedStrategy",
    "VideoStrategy",
    "aprepare",
    "aprepare_with_report",
    "prepare",
    "prepare_block",
    "prepare_with_report",
]


# -- public entry points --------------------------------------------------------------------------


def prepare(
    messages: MessagesLike,
    provider: str,
    *,
    model: str | None = None,
    **options: Unpack[PrepareKeywords],
) -> list[Message]:
    """New messages whose media every limit of ``provider`` (and ``model``) accepts.

    Raises `DoesNotFitError` listing every block that cannot be fitted (``.problems``),
    `ImageBombError` at once for an image (or video frames) over the pixel limit and `DecodeError`
    at once for an image whose bytes do not decode (even one that would be sent untouched). Images
    together are fitted to the request's byte limits (see `PrepareReport.notes`). Audio and video
    are converted as ``audio`` and ``video`` say; a video may become timestamped frames and an
    audio block ordered chunks (see `PrepareOptions` and ``docs/conversion.md``). A document the
    provider does not take becomes page images (PDF) or text, as ``documents`` says. SVG and
    documents are converted in worker processes under ``conversion_limits`` (`ConversionLimits`)
    and ``time_budget``: a file that crashes or exhausts its converter is a problem naming the
    block and the limit (``docs/isolation.md``), and the caller's process lives. With
    ``unsupported="drop"`` a block the provider takes in no form (audio for Anthropic) is removed
    and reported (`PrepareReport.dropped`) instead of raising; ``"note"`` leaves a short text
    in its place saying what was left out.

    Stand-ins, the last rung (``docs/stand-ins.md``): ``transcriber`` and ``describer`` are
    your callables (sync or ``async``; `mediablocks.standins` has ready-made ones). A block the
    provider takes in no form, even converted, becomes a timestamped transcript
    (``[audio voice.m4a 0:00-0:42, transcript] ...``, an en dash between the times), else a
    description; a video sent as frames gets its speech transcript between the frames. Answers
    are cached by content hash in ``stand_in_cache`` (default: one in-memory cache per
    process), so preparing a saved history again calls neither.

    ``messages`` are taken as every entry point takes them (a string, ``(role, content)`` pairs,
    dicts...). ``accept`` (kinds such as ``"image"`` or MIME types such as ``"application/pdf"``,
    ``"image/*"``) refuses every other block with `NotAcceptedError` before anything is decoded.
    Without ``model``, the provider's most restrictive current model is assumed where its models
    differ (OpenAI Chat: a model without audio input), and the report says so.
    """
    prepared, _ = prepare_with_report(messages, provider, model=model, **options)
    return prepared


def prepare_with_report(
    messages: MessagesLike,
    provider: str,
    *,
    model: str | None = None,
    **options: Unpack[PrepareKeywords],
) -> tuple[list[Message], PrepareReport]:
    """`prepare`, plus a `PrepareReport` of what changed in each media block."""
    chosen: dict[str, Any] = dict(options)
    transcriber = chosen.pop("transcriber", None)
    describer = chosen.pop("describer", None)
    stand_in_cache = chosen.pop("stand_in_cache", None)
    accept = chosen.pop("accept", None)
    listed = as_messages(messages, "prepare")
    limits, assumed = _limits(provider, model)
    check_accepted(list(_find_media(listed)), accept)
    run = _Preparation(limits, options_from(chosen, "prepare", PREPARE_OPTIONS))
    run.stand_ins = stand_ins_for(transcriber, describer, stand_in_cache)
    with fetch_budget():  # one FetchPolicy.max_total_bytes for every URL this call reads
        prepared, report = walk(run, listed)
    if assumed is not None:
        report = assumed_in(report, assumed)
    return prepared, report


def _limits(provider: str, model: str | None) -> tuple[ProviderLimits, str | None]:
    """The limits to fit to, and the model assumed when none was given (None: not assumed)."""
    if model is not None:
        return limits_for(provider, model), None
    assumed = provider_entry(provider).assumed_model()
    if assumed is None:
        return limits_for(provider), None
    return limits_for(provider, assumed), assumed


def prepare_block(
    block: MediaBlock,
    provider: str,
    *,
    model: str | None = None,
    image_count: int = 1,
    **options: Unpack[BlockKeywords],
) -> tuple[MediaBlock, list[Change]]:
    """Fit one block (as if its request held ``image_count`` images); the same block if it fits.

    Request totals (image count, pages, seconds across blocks) are not checked here. Raises
    `DoesNotFitError` (with one problem), `ImageBombError` or `DecodeError` (a broken image);
    also `DoesNotFitError` when the block would become several (video frames, audio chunks) or a
    document would become page images or text: `prepare` splices those in.
    """
    check_size("prepare_block", "image_count", image_count)
    limits = limits_for(provider, model)
    chosen = options_from(options, "prepare_block", BLOCK_OPTIONS, read_urls=True)
    run = _Preparation(limits, chosen)
    run.image_count = image_count
    slot = _Slot(0, 0, None, block)
    fit(run, slot, image_count)
    check_totals(run, [slot])
    run.raise_problems()
    if slot.replacement is not None:
        raise DoesNotFitError(
            f"{block.describe()}: becomes {len(slot.replacement)} blocks for "
            f"{limits.provider} ({'; '.join(map(str, slot.changes))}); prepare_block returns "
            "one block: use prepare or prepare_with_report, or video='raise' / documents='raise'"
        )
    return slot.result, list(slot.changes)


def stand_ins_for(
    transcriber: Transcriber | None,
    describer: Describer | None,
    cache: StandInCache | None,
) -> StandIns | None:
    """The stand-ins of one `prepare` call (None when it has neither callable)."""
    check_stand_in(transcriber, "transcriber")
    check_stand_in(describer, "describer")
    if cache is not None and not isinstance(cache, StandInCache):
        raise InvalidOptionError(
            f"stand_in_cache must have get() and put(), not be a {type(cache).__name__}"
        )
    if transcriber is None and describer is None:
        return None
    return StandIns(transcriber, describer, default_stand_in_cache() if cache is None else cache)


# -- from asyncio ---------------------------------------------------------------------------------


async def aprepare(
    messages: MessagesLike,
    provider: str,
    *,
    model: str | None = None,
    **options: Unpack[PrepareKeywords],
) -> list[Message]:
    """`prepare` for asyncio: runs in a thread of the loop's default executor, and cancelling
    the awaiting task stops the conversions in flight (their workers are killed) instead of
    leaving them to run out their budget. Takes `prepare`'s keywords."""
    prepared, _ = await aprepare_with_report(messages, provider, model=model, **options)
    return prepared


async def aprepare_with_report(
    messages: MessagesLike,
    provider: str,
    *,
    model: str | None = None,
    **options: Unpack[PrepareKeywords],
) -> tuple[list[Message], PrepareReport]:
    """`prepare_with_report` for asyncio; cancelling the task stops its conversions (see
    `aprepare`)."""
    import asyncio
    import contextvars
    import functools

    from ..convert.budget import Budget, use_budget

    caller = Budget(None, cpu_seconds=None, limit="cancelled", scope="the awaiting task")

    def run() -> tuple[list[Message], PrepareReport]:
        with use_budget(caller):
            return prepare_with_report(messages, provider, model=model, **options)

    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(None, functools.partial(context.run, run))
    try:
        return await future
    except asyncio.CancelledError:
        caller.cancel()  # the thread's job is killed; the thread ends soon after
        raise
