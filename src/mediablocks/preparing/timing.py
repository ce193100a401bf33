"""The time budgets of one `prepare` call: a total for the call and one per block, sized by kind.

Every block gets a `Budget` (``mediablocks.convert.budget``) whose parent is the call's: the
block's probes, worker jobs and waits for a worker all draw on both, so neither one upload nor
one request can cost more than its budget, however many steps it takes. With
``time_budget="auto"`` (the default) a block's budget follows its kind
(`mediablocks.convert.budget.auto_seconds`): an SVG gets seconds, a PDF seconds per page it may
render, audio and video a base plus seconds per second of media read from the header (unknown:
the cap). Audio and video jobs run in the pool's long lane, everything else in the short one.

What ends the whole call rather than one block (the call's total spent, the caller cancelled,
no worker could start) is `fatal`: `prepare` raises it at once instead of listing it as that
block's problem.
"""

from __future__ import annotations

from ..convert.budget import Budget, BudgetCancelledError, auto_seconds, current_budget
from ..convert.limits import AUTO
from ..errors import ConversionTimeoutError, ConversionUnavailableError, MediaBlocksError
from ..media import MediaBlock
from .options import PrepareOptions
from .slots import _kind

__all__ = ["block_budget", "call_budget", "fatal", "size_by_duration"]


def call_budget(options: PrepareOptions) -> Budget:
    """The budget of one `prepare` call (``total_time_budget``), inside any budget already in
    force (`aprepare`'s, whose cancelling stops the call)."""
    return Budget(
        options.total_time_budget,
        cpu_seconds=None,
        limit="total_time_budget",
        scope="this prepare call (all its blocks)",
        parent=current_budget(),
    )


def block_budget(options: PrepareOptions, block: MediaBlock, parent: Budget | None) -> Budget:
    """A block's budget: ``time_budget`` seconds of wall and CPU time, or its kind's automatic
    budget (audio and video get their base until `size_by_duration` reads the header)."""
    kind = _kind(block)
    seconds = options.time_budget
    if seconds == AUTO:
        mime = block.mime_type
        pages = options.max_pages if mime == "application/pdf" else None
        seconds = auto_seconds(kind, mime, pages=pages, media_seconds=0.0)
    return Budget(
        seconds,
        limit="time_budget",
        scope="this block",
        parent=parent,
        lane="long" if kind in ("audio", "video") else "short",
    )


def size_by_duration(options: PrepareOptions, block: MediaBlock, budget: Budget) -> None:
    """Audio and video under the automatic budget: scale it to the duration in the header
    (read under the base budget; unreadable or absent: the cap)."""
    kind = _kind(block)
    if options.time_budget != AUTO or kind not in ("audio", "video"):
        return
    from ..probing import probe

    try:
        seconds = probe(block, options.policy).duration
    except MediaBlocksError as exc:
        if fatal(exc):
            raise
        seconds = None
    budget.extend_to(auto_seconds(kind, block.mime_type, media_seconds=seconds))


def fatal(exc: BaseException) -> bool:
    """True for what ends the call, not one block: the call's total budget spent, the caller
    cancelled, no worker or thread to convert in."""
    if isinstance(exc, (BudgetCancelledError, ConversionUnavailableError)):
        return True
    return isinstance(exc, ConversionTimeoutError) and exc.limit == "total_time_budget"
