"""Native converters run in worker processes under limits, so a hostile upload cannot take the
caller's process down (DESIGN.md principles 6 and 7).

resvg (SVG), PDFium (PDF pages, text and page counts), FFmpeg (PyAV), the legacy Office readers
(xlrd, olefile, striprtf) and the other document readers can crash (a stack overflow in resvg
from a few hundred nested groups, PDFium aborting when a 1.5 MB stream inflates to gigabytes) or
run away (a reader looping for ever). No ``try`` catches a segfault, so `run_isolated` runs such
a job in a worker process that:

- runs under `ConversionLimits` set by the library (``RLIMIT_AS`` address space, ``RLIMIT_CPU``
  seconds, ``RLIMIT_STACK``, no core files), the way ImageMagick's resource policy bounds every
  decoder, with safe defaults the caller can tighten or widen;
- draws on the budget of the block it works for (`mediablocks.convert.budget`): the wait for a
  free worker, the job's wall time (the worker is killed at the deadline) and its CPU seconds
  all come out of one budget per block and one per `prepare` call; cancelling the budget kills
  the job;
- comes from a small pool (`mediablocks.convert._pool`): started isolated (``python -I``, no
  current folder) and tied to this process (it dies with it), reused across conversions, in two
  lanes so a short job never waits behind long ones, retired when a job left it large, and
  replaced after a crash or a blown limit. `configure_workers` sizes it, `warm_up` starts it
  ahead of the first upload.

A crash becomes `ConversionCrashedError`, a blown limit `ConversionLimitError` (CPU seconds or
wall time: `ConversionTimeoutError`), each naming the block and the limit; no worker or thread to
run in, `ConversionUnavailableError`.

Workers are started with `subprocess`, not `multiprocessing`: its ``spawn`` and ``forkserver``
start methods import the caller's ``__main__`` module in the new process (running a script's
top-level code again when it has no ``if __name__ == "__main__"`` guard), and ``fork`` is unsafe
once threads run. `subprocess` is safe from any thread, under asyncio, pytest and Ray, and a
worker imports only the converter modules it runs (not pydantic or httpx). A worker's reply is
bounded in size before it is read and unpickled with an allow-list of result classes: a worker is
never trusted with more than data.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import os
import pickle
import re
import signal
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..errors import (
    ConversionCrashedError,
    ConversionLimitError,
    ConversionTimeoutError,
    ConversionUnavailableError,
    DecodeError,
    DoesNotFitError,
    ImageBombError,
    InvalidOptionError,
    MediaBlocksError,
    TooLargeError,
    UnsupportedBlockError,
)
from ._pool import PAYLOAD, Pool, ReplyTooLarge, WaitExpired, Worker, WorkerGone
from ._wire import pickled
from .budget import Budget, BudgetCancelledError, current_budget
from .limits import (
    DEFAULT_WORKERS,
    KEEP,
    ConversionLimits,
    Keep,
    WorkerSettings,
    current_limits,
    describe_size,
    worker_settings,
)

__all__ = ["MAX_WORKERS", "apply_settings", "run_isolated", "shutdown_workers", "warm_pool"]

T = TypeVar("T")

MAX_WORKERS = DEFAULT_WORKERS
"""Long jobs running at once by default (`WorkerSettings.workers`): the CPUs, at most 4."""

_ATTEMPTS = 3  # a worker that left on its idle timer did not run the job: try another


# -- the reply: data only -------------------------------------------------------------------------

_RESULT_MODULES = "mediablocks.convert."
_RESULT_EXTRAS = {("mediablocks.changes", "Change"), ("fractions", "Fraction")}
_ERRORS: dict[str, type[MediaBlocksError]] = {
    cls.__name__: cls
    for cls in (
        DecodeError,
        DoesNotFitError,
        ImageBombError,
        InvalidOptionError,
        TooLargeError,
        UnsupportedBlockError,
    )
}


class _Unpickler(pickle.Unpickler):
    """Builtin values, dataclasses of the converter modules (`PageImage`, `ExtractedText`...),
    `Change` and `Fraction`; nothing else (no function, no other class), so a reply cannot run
    code in this process."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _RESULT_EXTRAS:
            return super().find_class(module, name)
        if module.startswith(_RESULT_MODULES) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and dataclasses.is_dataclass(found):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a conversion result")


# -- the pool of this process ---------------------------------------------------------------------

_pool: Pool | None = None
_pool_lock = threading.Lock()


def _the_pool() -> Pool:
    global _pool
    with _pool_lock:
        if _pool is None or _pool.pid != os.getpid():
            _pool = Pool(worker_settings())
        return _pool


def apply_settings(settings: WorkerSettings) -> None:
    """`configure_workers` changed the settings: the pool follows them; its idle workers retire
    (new ones start under the new settings)."""
    with _pool_lock:
        pool = _pool
    if pool is None or pool.pid != os.getpid():
        return
    with pool.cond:
        pool.settings = settings
        idle, pool.idle = pool.idle, []
        pool.cond.notify_all()
    for worker in idle:
        pool._retire(worker)
    pool._top_up()


def warm_pool(count: int, timeout: float) -> int:
    """`warm_up`'s work: ``count`` workers started and ready (see `warm_up`)."""
    try:
        return _the_pool().warm_up(count, timeout)
    except (OSError, RuntimeError) as exc:
        raise _unavailable("warm_up", "the worker pool", exc) from None


def shutdown_workers() -> None:
    """Stop the idle worker processes (new ones start on the next conversion). Run at exit."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None and pool.pid == os.getpid():
        pool.close()


def _forget_pool_in_child() -> None:
    """After ``os.fork`` the workers belong to the parent: the child starts its own."""
    global _pool, _pool_lock
    _pool_lock = threading.Lock()
    if _pool is not None:
        _pool.forget()
    _pool = None


atexit.register(shutdown_workers)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


# -- running one job ------------------------------------------------------------------------------


class _Limit:
    """The limit that bounds one job's wall time or CPU: a per-conversion number
    (``time_budget`` of the scope, ``cpu_seconds``) or a block's or call's `Budget`."""

    def __init__(self, name: str, value: float | None, budget: Budget | None = None) -> None:
        self.name = name
        self.value = value
        self.budget = budget


def run_isolated(
    what: str,
    job: Callable[..., T],
    *args: Any,
    limits: ConversionLimits | None = None,
    time_budget: float | Keep | None = KEEP,
    converter: str = "converter",
    keywords: Mapping[str, Any] | None = None,
    lane: str | None = None,
) -> T:
    """``job(*args, **keywords)`` in a worker process under ``limits`` and a wall-time budget of
    ``time_budget`` seconds for this conversion (``None``: none; both default to the
    `use_conversion_limits` scope's), and under the current block's `Budget` (in `prepare`):
    the wait for a worker, the job's wall time and its CPU seconds all come out of it.

    ``job`` is a module-level function of a ``mediablocks.convert`` module (or of
    ``mediablocks.images`` or ``mediablocks.probing``: `_worker.MODULE_PREFIX`) whose arguments
    pickle; its result is built of builtin values, `Change`, `Fraction` and dataclasses of
    ``mediablocks.convert`` modules (the reply is unpickled with that allow-list). ``what``
    (the block) and ``converter`` (``"SVG renderer"``, ``"PDF engine (PDFium)"``...) name the
    culprit in errors: `ConversionCrashedError`, `ConversionLimitError`,
    `ConversionTimeoutError`, `ConversionUnavailableError`, or the `MediaBlocksError` the job
    raised. ``lane``: ``"long"`` or ``"short"`` (default: the block budget's, else short).
    """
    scope_limits, scope_seconds = current_limits()
    limits = limits or scope_limits
    per_job = scope_seconds if isinstance(time_budget, Keep) else time_budget
    budget = current_budget()
    named = dict(keywords or {})
    if budget is not None:
        budget.check(what, f"starting the {converter}")
    if not limits.isolate:
        return job(*args, **named)
    start = time.monotonic()
    deadline, wall = _wall_limit(start, per_job, budget)
    cpu = _cpu_limit(limits, budget)
    settings = worker_settings()
    request = pickled(
        (
            job.__module__,
            job.__name__,
            args,
            named,
            (limits.memory_bytes, cpu.value, limits.stack_bytes),
            settings.max_reply_bytes,
            None if settings.recycle_rss_bytes is None else settings.recycle_rss_bytes // 2,
        )
    )
    chosen_lane = lane or (budget.lane if budget is not None else "short")
    for _ in range(_ATTEMPTS):
        pool = _the_pool()
        worker = _acquire(pool, chosen_lane, deadline, wall, budget, what, converter)
        forget = budget.on_cancel(functools.partial(worker.kill, "cancelled")) if budget else None
        try:
            spent, _, frame = worker.call(request, deadline, pool.settings.max_reply_bytes)
        except WorkerGone as gone:
            pool.release(worker, chosen_lane, keep=False)
            if gone.why == "left":
                continue  # it left on its idle timer before reading the job: another one
            raise _gone_error(gone, what, converter, limits, wall, cpu) from None
        except ReplyTooLarge as large:
            pool.release(worker, chosen_lane, keep=False)
            cap = pool.settings.max_reply_bytes
            raise ConversionLimitError(
                f"{what}: the {converter} sent a reply of {large.size:,} bytes, over "
                f"max_reply_bytes={describe_size(cap)} (WorkerSettings)",
                limit="max_reply_bytes",
                value=cap,
            ) from None
        except RuntimeError as exc:  # Windows: no thread for the deadline's timer
            pool.release(worker, chosen_lane, keep=False)
            raise _unavailable(what, f"the {converter}", exc) from None
        except BaseException:
            pool.release(worker, chosen_lane, keep=False)
            raise
        finally:
            if forget is not None:
                forget()
        try:  # read before the worker goes back: the frame is in its buffer
            return _result(frame, what, converter, limits, PAYLOAD)  # type: ignore[no-any-return]
        finally:
            with contextlib.suppress(BufferError):  # a stale read of it then fails loudly
                frame.release()
            pool.release(worker, chosen_lane, keep=True)
            if budget is not None:
                budget.charge(spent)
    raise ConversionCrashedError(
        f"{what}: {_ATTEMPTS} workers in a row left before taking the {converter} job"
    )


def _wall_limit(
    start: float, per_job: float | None, budget: Budget | None
) -> tuple[float | None, _Limit]:
    """The job's deadline: the earlier of this conversion's own budget and the block's."""
    deadline = None if per_job is None else start + per_job
    wall = _Limit("time_budget", per_job)
    if budget is not None:
        ends, owner = budget.wall_limit()
        if ends is not None and (deadline is None or ends < deadline):
            deadline = ends
            wall = _Limit(owner.limit if owner else "time_budget", None, owner)
    return deadline, wall


def _cpu_limit(limits: ConversionLimits, budget: Budget | None) -> _Limit:
    """The job's CPU seconds: the less of ``cpu_seconds`` and what the block has left."""
    cpu = _Limit("cpu_seconds", limits.cpu_seconds)
    if budget is not None:
        left, owner = budget.cpu_limit()
        if left is not None and (cpu.value is None or left < cpu.value):
            cpu = _Limit(owner.limit if owner else "time_budget", max(left, 0.01), owner)
    return cpu


def _acquire(
    pool: Pool,
    lane: str,
    deadline: float | None,
    wall: _Limit,
    budget: Budget | None,
    what: str,
    converter: str,
) -> Worker:
    """A worker, waited for no longer than the deadline; cancelling the budget stops the wait."""
    forget = budget.on_cancel(pool.wake) if budget is not None else None
    try:
        return pool.acquire(lane, deadline, lambda: budget is not None and budget.cancelled)
    except WaitExpired as waited:
        if waited.cancelled:
            raise BudgetCancelledError(
                f"{what}: stopped, its caller was cancelled", limit="cancelled"
            ) from None
        doing = f"waiting for a free worker ({waited.busy} jobs running, {lane} lane)"
        if wall.budget is not None:
            raise wall.budget.exhausted(what, doing) from None
        raise ConversionTimeoutError(
            f"{what}: no worker became free for the {converter} within the wall-time budget "
            f"time_budget={wall.value:g} s ({waited.busy} jobs running)",
            limit="time_budget",
            value=wall.value,
        ) from None
    except (OSError, RuntimeError) as exc:  # no interpreter, no process, no thread left
        raise _unavailable(what, f"the {converter}", exc) from None
    finally:
        if forget is not None:
            forget()


def _unavailable(what: str, converter: str, exc: BaseException) -> ConversionUnavailableError:
    thing = "thread" if isinstance(exc, RuntimeError) else "worker process"
    return ConversionUnavailableError(
        f"{what}: no {thing} could be started for {converter} ({exc}); retry later, or "
        "ConversionLimits(isolate=False) converts in this process, for trusted input"
    )


class _FrameReader:
    """A reply's pickle read in place from the frame's buffer: the results' bytes are copied
    once, into the objects they become, never the whole reply. A frame is bytes, a bytearray,
    or a view from the start of one (`Worker.call`)."""

    def __init__(self, frame: bytes | bytearray | memoryview, start: int = 0) -> None:
        self.view = memoryview(frame)
        self.buffer: bytes | bytearray = self.view.obj  # type: ignore[assignment]
        self.position = start

    def read(self, size: int = -1) -> bytes:
        end = len(self.view) if size < 0 else min(len(self.view), self.position + size)
        chunk = self.view[self.position : end].tobytes()
        self.position = end
        return chunk

    def readinto(self, target: bytearray | memoryview) -> int:
        chunk = self.view[self.position : self.position + len(target)]
        target[: len(chunk)] = chunk
        self.position += len(chunk)
        return len(chunk)

    def readline(self) -> bytes:
        end = self.buffer.find(b"\n", self.position, len(self.view))
        return self.read(-1 if end < 0 else end + 1 - self.position)


def _result(
    reply: bytes | bytearray | memoryview,
    what: str,
    converter: str,
    limits: ConversionLimits,
    start: int = 0,
) -> Any:
    try:
        outcome = _Unpickler(_FrameReader(reply, start)).load()
        kind = outcome[0]
    except Exception as exc:
        raise ConversionCrashedError(
            f"{what}: the {converter} worker sent an unreadable reply ({exc})"
        ) from None
    if kind == "ok":
        return outcome[1]
    if kind == "limit":
        raise _limit_error(what, converter, outcome[1], outcome[2], limits)
    error = _ERRORS.get(str(outcome[1]), DecodeError)
    message = str(outcome[2])
    raise error(message if message.startswith(what) else f"{what}: {message}")


def _limit_error(
    what: str, converter: str, limit: str, message: str, limits: ConversionLimits
) -> ConversionLimitError:
    if limit == "max_reply_bytes":
        cap = worker_settings().max_reply_bytes
        return ConversionLimitError(
            f"{what}: the {converter} {message} (WorkerSettings)", limit=limit, value=cap
        )
    if message:
        return ConversionLimitError(message, limit=limit or None)
    value = getattr(limits, limit, None)
    shown = describe_size(value) if limit != "cpu_seconds" else f"{value:g} s"
    return ConversionLimitError(
        f"{what}: the {converter} went past the conversion limit {limit}={shown}",
        limit=limit,
        value=value,
    )


def _gone_error(
    gone: WorkerGone,
    what: str,
    converter: str,
    limits: ConversionLimits,
    wall: _Limit,
    cpu: _Limit,
) -> MediaBlocksError:
    if gone.why == "cancelled":
        return BudgetCancelledError(f"{what}: stopped, its caller was cancelled", limit="cancelled")
    if gone.why == "expired":
        if wall.budget is not None:
            return wall.budget.exhausted(what, f"the {converter} was running")
        return ConversionTimeoutError(
            f"{what}: the {converter} ran past the wall-time budget time_budget={wall.value:g} s "
            "and was stopped",
            limit="time_budget",
            value=wall.value,
        )
    code = gone.returncode
    name = _signal_name(code) or _signal_from_stderr(gone.stderr)
    if name == "SIGXCPU":
        if cpu.budget is not None:
            return cpu.budget.exhausted(what, f"the {converter} was running", cpu=True)
        return ConversionTimeoutError(
            f"{what}: the {converter} used more than the CPU limit cpu_seconds="
            f"{limits.cpu_seconds:g} s and was stopped",
            limit="cpu_seconds",
            value=limits.cpu_seconds,
        )
    if "overflowed its stack" in gone.stderr:
        return ConversionLimitError(
            f"{what}: the {converter} overflowed its stack (stack_bytes="
            f"{describe_size(limits.stack_bytes)}): the input nests too deeply",
            limit="stack_bytes",
            value=limits.stack_bytes,
        )
    if name is not None:
        how = name
    elif code is None or code == 0:
        how = "it ended without replying; its exit status is unknown here"
    else:
        how = f"exit status {code}"
    likely = _LIKELY_LIMIT.get(name or "")
    if likely is not None:
        shown = describe_size(getattr(limits, likely))
        how += f", typical of {_LIKELY_CAUSE[likely]}: {likely}={shown}"
    return ConversionCrashedError(
        f"{what}: the {converter} crashed on this input ({how}) in its worker process, which ran "
        f"under {limits.describe()}; the file is crafted, broken or needs more than those limits",
        signal=name,
        limit=likely,
    )


# What a native converter's death by signal most often means under the worker's limits.
_LIKELY_LIMIT = {"SIGSEGV": "stack_bytes", "SIGABRT": "memory_bytes", "SIGBUS": "memory_bytes"}
_LIKELY_CAUSE = {
    "stack_bytes": "a stack overflow from deep nesting",
    "memory_bytes": "an allocation refused by the memory limit",
}
# What `faulthandler` writes for each fatal signal (the name when the exit status is unknown).
_FAULTS = {
    "Segmentation fault": "SIGSEGV",
    "Aborted": "SIGABRT",
    "Bus error": "SIGBUS",
    "Floating point exception": "SIGFPE",
    "Illegal instruction": "SIGILL",
}
_FATAL = re.compile(r"Fatal Python error: ([A-Za-z ]+)")


def _signal_name(code: int | None) -> str | None:
    if code is None or code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def _signal_from_stderr(text: str) -> str | None:
    """The fatal signal `faulthandler` reported in the worker's stderr (a caller ignoring
    SIGCHLD cannot read the exit status); a bare traceback is its SIGXCPU handler's."""
    found = _FATAL.search(text)
    if found is not None:
        return _FAULTS.get(found.group(1).strip())
    if "(most recent call first)" in text:
        return "SIGXCPU"
    return None
