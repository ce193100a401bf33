"""One budget for everything an upload costs: `Budget`, the scope that hands it to every step,
and the automatic budget of each kind of media.

A hostile upload is not one conversion: a video for Gemini costs header probes in this process,
up to three worker jobs and the wait for a free worker. Bounding each step alone lets it buy
every step's allowance in turn, so `prepare` gives each block one `Budget` (wall-clock seconds
and CPU seconds, spent by every probe, every worker job and every wait) under a budget for the
whole call, and whatever runs for a block draws on it:

- `mediablocks.convert.isolation.run_isolated` waits for a worker only as long as the budget
  has left, gives the job the wall time and CPU seconds left (the worker is killed past them),
  and charges the CPU the worker reports;
- in-process steps (header probes, Pillow) call `check_budget` between steps and may bound
  their own loops by `time_left`; the CPU they spend in this thread is counted too.

Cancelling a budget (`Budget.cancel`: `aprepare`'s task cancelled, `prepare` interrupted)
kills the worker job running for it at once.

Kept free of `subprocess` and the pool, so ``import mediablocks`` does not load them.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Literal

from ..errors import ConversionTimeoutError
from .limits import DEFAULT_TIME_BUDGET

__all__ = [
    "AUTO_AUDIO_SECONDS",
    "AUTO_DOCUMENT_SECONDS",
    "AUTO_IMAGE_SECONDS",
    "AUTO_PAGE_SECONDS",
    "AUTO_SVG_SECONDS",
    "AUTO_VIDEO_SECONDS",
    "Budget",
    "BudgetCancelledError",
    "auto_seconds",
    "check_budget",
    "current_budget",
    "time_left",
    "use_budget",
]

# -- the automatic budget of each kind ------------------------------------------------------------

AUTO_IMAGE_SECONDS = 20.0
"""A raster image: decode, orient, scale and encode one picture."""
AUTO_SVG_SECONDS = 10.0
"""An SVG: one render (resvg) at the provider's size."""
AUTO_DOCUMENT_SECONDS = 15.0
"""A document: its text read (DOCX, XLSX, EPUB, RTF...), or a PDF opened and counted."""
AUTO_PAGE_SECONDS = 2.0
"""Each PDF page `prepare` may render or read (``max_pages``), on top of the document's."""
AUTO_AUDIO_SECONDS = (10.0, 0.5)
"""Audio: a base, and seconds per second of sound (from the header)."""
AUTO_VIDEO_SECONDS = (15.0, 2.0)
"""Video: a base, and seconds per second of video (from the header)."""


def auto_seconds(
    kind: str,
    mime_type: str = "",
    *,
    media_seconds: float | None = None,
    pages: int | None = None,
    cap: float = DEFAULT_TIME_BUDGET,
) -> float:
    """The automatic budget (wall and CPU seconds) of one block: proportional to the work its
    kind implies, at most ``cap``. Audio and video scale with ``media_seconds`` from the header;
    unknown (or absurd) durations get the cap. PDFs scale with the ``pages`` to render."""
    if kind in ("audio", "video"):
        base, per_second = AUTO_AUDIO_SECONDS if kind == "audio" else AUTO_VIDEO_SECONDS
        if media_seconds is None or not math.isfinite(media_seconds) or media_seconds < 0:
            return cap
        return min(cap, base + per_second * media_seconds)
    if kind == "image":
        return min(cap, AUTO_SVG_SECONDS if mime_type == "image/svg+xml" else AUTO_IMAGE_SECONDS)
    seconds = AUTO_DOCUMENT_SECONDS
    if mime_type == "application/pdf" and pages:
        seconds += AUTO_PAGE_SECONDS * pages
    return min(cap, seconds)


# -- the budget ------------------------------------------------------------------------------------


class BudgetCancelledError(ConversionTimeoutError):
    """The budget was cancelled (its caller went away): the work for it stopped. Raised inside
    the abandoned call only; `aprepare` turns it into the task's own cancellation."""


class Budget:
    """Wall-clock and CPU seconds for one block (or one whole call), shared by its every step.

    ``seconds``: wall time from creation (``None``: none); ``cpu_seconds``: CPU time, this
    process's threads inside `use_budget` plus what worker jobs report (``"wall"``, the
    default: as many as ``seconds``). A
    ``parent`` (the call's budget) bounds its children: what is left is the least along the
    chain, and spending charges the whole chain. ``limit`` is the option name errors cite
    (``"time_budget"``, ``"total_time_budget"``); ``lane`` the worker lane its jobs use
    (``"long"`` for audio and video, else ``"short"``).
    """

    def __init__(
        self,
        seconds: float | None,
        *,
        cpu_seconds: float | Literal["wall"] | None = "wall",
        limit: str = "time_budget",
        scope: str = "this block",
        parent: Budget | None = None,
        lane: str = "short",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self.started = clock()
        self.seconds = seconds
        self.cpu_seconds = seconds if cpu_seconds == "wall" else cpu_seconds
        self.limit = limit
        self.scope = scope
        self.parent = parent
        self.lane = lane
        self.worker_cpu = 0.0
        self._here_cpu = 0.0  # this process's CPU, summed over finished `use_budget` spans
        self._spans: dict[int, float] = {}  # thread id -> thread_time at the span's start
        self._lock = threading.Lock()
        self._cancelled = False
        self._on_cancel: list[Callable[[], None]] = []
        self._children: list[Budget] = []
        if parent is not None:
            parent._adopt(self)

    # -- what is left --

    @property
    def deadline(self) -> float | None:
        """The clock time the wall budget ends (``None``: no wall budget of its own)."""
        return None if self.seconds is None else self.started + self.seconds

    def extend_to(self, seconds: float | None) -> None:
        """Set the budget to ``seconds`` from its start (wall, and CPU when it follows the wall):
        the automatic budget of audio and video is known once the header gave the duration."""
        if self.cpu_seconds == self.seconds:
            self.cpu_seconds = seconds
        self.seconds = seconds

    def spent_cpu(self) -> float:
        """CPU seconds spent so far: worker jobs plus this process's threads inside the budget."""
        with self._lock:
            start = self._spans.get(threading.get_ident())
            running = 0.0 if start is None else max(0.0, time.thread_time() - start)
            return self.worker_cpu + self._here_cpu + running

    def time_left(self) -> float | None:
        """Wall seconds left along the chain (``None``: unbounded)."""
        left, _ = self._least_time()
        return left

    def cpu_left(self) -> float | None:
        """CPU seconds left along the chain (``None``: unbounded)."""
        left, _ = self._least_cpu()
        return left

    def _least_time(self) -> tuple[float | None, Budget | None]:
        best: tuple[float | None, Budget | None] = (None, None)
        now = self.clock()
        for budget in self.chain():
            if budget.seconds is not None:
                left = budget.started + budget.seconds - now
                if best[0] is None or left < best[0]:
                    best = (left, budget)
        return best

    def _least_cpu(self) -> tuple[float | None, Budget | None]:
        best: tuple[float | None, Budget | None] = (None, None)
        for budget in self.chain():
            if budget.cpu_seconds is not None:
                left = budget.cpu_seconds - budget.spent_cpu()
                if best[0] is None or left < best[0]:
                    best = (left, budget)
        return best

    def chain(self) -> Iterator[Budget]:
        """This budget and its parents, innermost first."""
        budget: Budget | None = self
        while budget is not None:
            yield budget
            budget = budget.parent

    def wall_limit(self) -> tuple[float | None, Budget | None]:
        """The earliest deadline along the chain (clock time) and whose it is."""
        left, owner = self._least_time()
        return (None if left is None else self.clock() + left), owner

    def cpu_limit(self) -> tuple[float | None, Budget | None]:
        """The CPU seconds left along the chain and whose budget they are."""
        return self._least_cpu()

    # -- spending --

    def charge(self, cpu_seconds: float) -> None:
        """Add CPU a worker job spent for this budget (and its parents)."""
        if not math.isfinite(cpu_seconds) or cpu_seconds < 0:
            return
        for budget in self.chain():
            with budget._lock:
                budget.worker_cpu += cpu_seconds

    def check(self, what: str, doing: str = "") -> None:
        """Raise `ConversionTimeoutError` naming ``what`` and the budget when one along the
        chain is spent (wall or CPU), `BudgetCancelledError` when it was cancelled."""
        if self.cancelled:
            raise BudgetCancelledError(
                f"{what}: stopped, its caller was cancelled", limit="cancelled"
            )
        left, owner = self._least_time()
        if left is not None and left <= 0 and owner is not None:
            raise owner.exhausted(what, doing)
        left, owner = self._least_cpu()
        if left is not None and left <= 0 and owner is not None:
            raise owner.exhausted(what, doing, cpu=True)

    def exhausted(self, what: str, doing: str = "", *, cpu: bool = False) -> ConversionTimeoutError:
        """The error for this budget running out while ``doing`` something for ``what``."""
        value = self.cpu_seconds if cpu else self.seconds
        kind = "CPU" if cpu else "wall-time"
        during = f" while {doing}" if doing else ""
        return ConversionTimeoutError(
            f"{what}: ran past the {kind} budget {self.limit}={value:g} s of {self.scope} "
            f"(probes, conversions and the wait for a worker together){during}, and was stopped",
            limit=self.limit,
            value=value,
        )

    # -- spans of work in this process --

    def enter(self) -> None:
        """Count this thread's CPU from now (see `use_budget`)."""
        with self._lock:
            self._spans[threading.get_ident()] = time.thread_time()

    def leave(self) -> None:
        with self._lock:
            start = self._spans.pop(threading.get_ident(), None)
            if start is not None:
                self._here_cpu += max(0.0, time.thread_time() - start)

    # -- cancellation --

    @property
    def cancelled(self) -> bool:
        return any(budget._cancelled for budget in self.chain())

    def cancel(self) -> None:
        """Stop everything spending this budget (and its children): each registered callback
        runs once (killing the worker job in flight); later checks raise."""
        with self._lock:
            self._cancelled = True
            callbacks, self._on_cancel = self._on_cancel, []
            children = list(self._children)
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()
        for child in children:
            child.cancel()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` when this budget (or a parent) is cancelled; at once if it is.
        Returns the function that unregisters it."""
        with self._lock:
            self._on_cancel.append(callback)
        if self.cancelled:
            callback()

        def forget() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._on_cancel.remove(callback)

        return forget

    def _adopt(self, child: Budget) -> None:
        with self._lock:
            self._children.append(child)


_current: ContextVar[Budget | None] = ContextVar("mediablocks_budget", default=None)


def current_budget() -> Budget | None:
    """The budget of the block being prepared (``None`` outside `prepare`)."""
    return _current.get()


@contextlib.contextmanager
def use_budget(budget: Budget | None) -> Iterator[Budget | None]:
    """Make ``budget`` the one every step inside the ``with`` block draws on, and count this
    thread's CPU against it meanwhile."""
    token = _current.set(budget)
    if budget is not None:
        budget.enter()
    try:
        yield budget
    finally:
        if budget is not None:
            budget.leave()
        _current.reset(token)


def check_budget(what: str, doing: str = "") -> None:
    """Between two in-process steps: raise when the current block's budget is spent (no-op
    outside a budget)."""
    budget = _current.get()
    if budget is not None:
        budget.check(what, doing)


def time_left() -> float | None:
    """Wall seconds the current block has left (``None``: no budget), for a loop that bounds
    itself: stop and raise (`check_budget`) once it is at or below 0."""
    budget = _current.get()
    return None if budget is None else budget.time_left()
