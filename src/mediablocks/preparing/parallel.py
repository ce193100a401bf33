"""Documents of one `prepare` call converted side by side.

Converting one document does not depend on another (each reads the request's image count, set
before the walk, and nothing else the walk changes), so when a call holds several, they start
at once on a few threads, at most as many as the worker pool runs jobs (`WorkerSettings`), and
the walk takes each result when it reaches the block, recording problems in the blocks' order
as before. Each document's budget starts when its thread takes it up, under the call's total;
cancelling the call (an error elsewhere, an interrupt, `aprepare` cancelled) stops them. Where
no thread can be started, the rest convert in order, in the walk.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor

from ..convert.budget import use_budget
from ..convert.limits import use_conversion_limits, worker_settings
from .document_blocks import ConvertedDocument
from .documents import convert, converts
from .slots import _kind, _Slot
from .state import _Preparation
from .timing import block_budget

__all__ = ["start_documents", "stop"]


def start_documents(run: _Preparation, slots: list[_Slot]) -> ThreadPoolExecutor | None:
    """Start converting the call's documents beside the walk (two or more of them); their
    futures go to ``run.documents``. Returns the executor to shut down after the walk."""
    if not converts(run):
        return None
    chosen = [s for s in slots if _kind(s.block) == "document" and run.readable(s.block)]
    if len(chosen) < 2:
        return None
    width = min(len(chosen), worker_settings().capacity)
    executor = ThreadPoolExecutor(width, thread_name_prefix="mediablocks-documents")
    for slot in chosen:
        try:
            future = executor.submit(contextvars.copy_context().run, _convert, run, slot)
        except RuntimeError:  # no thread could be started: the walk converts the rest
            break
        run.documents[id(slot)] = future
    return executor


def _convert(run: _Preparation, slot: _Slot) -> ConvertedDocument | None:
    """One document, on its own budget (kept for the walk's later steps on the block)."""
    budget = block_budget(run.options, slot.block, run.call_budget)
    run.block_budgets[id(slot)] = budget
    what = slot.block.describe()
    with use_conversion_limits(run.options.conversion_limits, None), use_budget(budget):
        budget.check(what, "starting")
        return convert(run, slot, slot.block.read(run.options.policy))


def stop(executor: ThreadPoolExecutor | None, run: _Preparation) -> None:
    """After the walk: drop what was not taken (the call failed) and let the threads go."""
    if executor is None:
        return
    for future in run.documents.values():
        future.cancel()
    run.documents.clear()
    executor.shutdown(wait=False, cancel_futures=True)
