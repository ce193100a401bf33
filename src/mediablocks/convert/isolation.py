"""Native converters run in worker processes under limits, so a hostile upload cannot take the
caller's process down (DESIGN.md principle 6).

resvg (SVG), PDFium (PDF pages, text and page counts), the legacy Office readers (xlrd, olefile,
striprtf) and the other document readers can crash (a stack overflow in resvg from a few hundred
nested groups, PDFium aborting when a 1.5 MB stream inflates to gigabytes) or run away (a reader
looping for ever). No ``try`` catches a segfault, so `run_isolated` runs such a job in a worker
process that:

- runs under `ConversionLimits` set by the library (``RLIMIT_AS`` address space, ``RLIMIT_CPU``
  seconds, ``RLIMIT_STACK``, no core files), the way ImageMagick's resource policy bounds every
  decoder, with safe defaults the caller can tighten or widen;
- is killed when the conversion's wall-time budget (``time_budget``) runs out, so the budget
  stops work in progress, not only between steps;
- is reused: a small pool (at most `MAX_WORKERS`) is started on first use and kept, so the start
  cost (about 0.1 s) is paid once, not per file; a worker that crashed or blew a limit is
  replaced by a fresh one on the next call.

A crash becomes `ConversionCrashedError`, a blown limit `ConversionLimitError` (CPU seconds or
wall time: `ConversionTimeoutError`), each naming the block and the limit.

Workers are started with `subprocess` (``python -c``), not `multiprocessing`: its ``spawn`` and
``forkserver`` start methods import the caller's ``__main__`` module in the new process (running
a script's top-level code again when it has no ``if __name__ == "__main__"`` guard), and ``fork``
is unsafe once threads run. `subprocess` is safe from any thread, under asyncio, pytest and Ray,
and a worker imports only the converter modules it runs (not pydantic or httpx). A worker's reply
is unpickled with an allow-list of result classes: a worker is never trusted with more than data.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import io
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from typing import IO, Any, TypeVar

from ..errors import (
    ConversionCrashedError,
    ConversionLimitError,
    ConversionTimeoutError,
    DecodeError,
    DoesNotFitError,
    ImageBombError,
    InvalidOptionError,
    MediaBlocksError,
    TooLargeError,
    UnsupportedBlockError,
)
from ._worker import read_message, write_message
from .limits import KEEP, ConversionLimits, Keep, current_limits, describe_size

__all__ = ["MAX_WORKERS", "run_isolated", "shutdown_workers"]

T = TypeVar("T")

MAX_WORKERS = max(1, min(4, os.cpu_count() or 1))
"""Worker processes kept at most; more concurrent conversions wait for a free one."""

_MAX_REPLY_BYTES = 1 << 31
_JOBS_PER_WORKER = 500  # then a fresh worker: whatever a converter leaked is returned


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


# -- workers and their pool -----------------------------------------------------------------------


_BOOTSTRAP = (
    "import sys, types\n"
    "sys.path[:] = {path!r}\n"
    "package = types.ModuleType('mediablocks')\n"
    "package.__path__ = [{package!r}]\n"
    "sys.modules['mediablocks'] = package\n"
    "from mediablocks.convert._worker import main\n"
    "main()\n"
)


class _WorkerGone(Exception):
    """Internal: the worker died (or was killed) before replying."""

    def __init__(self, returncode: int | None, expired: bool, stderr: str) -> None:
        super().__init__(returncode)
        self.returncode = returncode
        self.expired = expired
        self.stderr = stderr


class _Worker:
    """One worker process and its two pipes; used by one thread at a time."""

    def __init__(self) -> None:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = _BOOTSTRAP.format(path=list(sys.path), package=package)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in `close`)
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            close_fds=True,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.requests: IO[bytes] = self.process.stdin
        self.replies: IO[bytes] = self.process.stdout
        self.jobs = 0
        self.expired = False

    def alive(self) -> bool:
        return self.process.poll() is None and self.jobs < _JOBS_PER_WORKER

    def call(self, request: bytes, seconds: float | None) -> bytes:
        """Send one job and wait for its reply; past ``seconds`` the worker is killed."""
        self.jobs += 1
        timer = None
        if seconds is not None:
            timer = threading.Timer(seconds, self._expire)
            timer.daemon = True
            timer.start()
        try:
            write_message(self.requests, request)
            reply = read_message(self.replies, _MAX_REPLY_BYTES)
        except (OSError, EOFError, ValueError):
            reply = None
        finally:
            if timer is not None:
                timer.cancel()
        if reply is None:
            self.kill()
            raise _WorkerGone(self.process.returncode, self.expired, self._stderr_tail())
        return reply  # (if the timer fired just after the reply, the killed worker is replaced)

    def _expire(self) -> None:
        self.expired = True
        self.kill()

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self.close()

    def close(self) -> None:
        for stream in (self.requests, self.replies, self.stderr):
            with contextlib.suppress(OSError):
                stream.close()

    def _stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 2048))
            return self.stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""


class _Pool:
    """At most `MAX_WORKERS` workers, started on demand and handed to one caller at a time."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Condition()
        self.idle: list[_Worker] = []
        self.busy = 0

    def acquire(self) -> _Worker:
        with self.lock:
            while True:
                while self.idle:
                    worker = self.idle.pop()
                    if worker.alive():
                        self.busy += 1
                        return worker
                    worker.kill()
                if self.busy < MAX_WORKERS:
                    self.busy += 1
                    break
                self.lock.wait()
        try:
            return _Worker()
        except BaseException:
            self.release(None)
            raise

    def release(self, worker: _Worker | None) -> None:
        with self.lock:
            self.busy -= 1
            if worker is not None:
                self.idle.append(worker)
            self.lock.notify()

    def close(self) -> None:
        with self.lock:
            workers, self.idle = self.idle, []
        for worker in workers:
            worker.close()  # end of input: the worker exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(timeout=1)
            if worker.process.poll() is None:
                worker.kill()


_pool: _Pool | None = None
_pool_lock = threading.Lock()


def _the_pool() -> _Pool:
    global _pool
    with _pool_lock:
        if _pool is None or _pool.pid != os.getpid():
            _pool = _Pool()
        return _pool


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
        for worker in _pool.idle:
            worker.close()
    _pool = None


atexit.register(shutdown_workers)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


# -- running one job ------------------------------------------------------------------------------


def run_isolated(
    what: str,
    job: Callable[..., T],
    *args: Any,
    limits: ConversionLimits | None = None,
    time_budget: float | Keep | None = KEEP,
    converter: str = "converter",
    keywords: Mapping[str, Any] | None = None,
) -> T:
    """``job(*args, **keywords)`` in a worker process under ``limits`` and a wall-time budget of
    ``time_budget`` seconds (``None``: none; both default to the `use_conversion_limits`
    scope's).

    ``job`` is a module-level function of a ``mediablocks.convert`` module (or of
    ``mediablocks.images`` or ``mediablocks.probing``: `_worker.MODULE_PREFIX`) whose arguments
    pickle; its result is built of builtin values, `Change`, `Fraction` and dataclasses of
    ``mediablocks.convert`` modules (the reply is unpickled with that allow-list). ``what``
    (the block) and ``converter`` (``"SVG renderer"``, ``"PDF engine (PDFium)"``...) name the
    culprit in errors:
    `ConversionCrashedError`, `ConversionLimitError`, `ConversionTimeoutError`, or the
    `MediaBlocksError` the job raised.
    """
    scope_limits, scope_budget = current_limits()
    limits = limits or scope_limits
    budget = scope_budget if isinstance(time_budget, Keep) else time_budget
    named = dict(keywords or {})
    if not limits.isolate:
        return job(*args, **named)
    request = pickle.dumps(
        (
            job.__module__,
            job.__name__,
            args,
            named,
            (limits.memory_bytes, limits.cpu_seconds, limits.stack_bytes),
        ),
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    pool = _the_pool()
    for attempt in range(2):
        try:
            worker = pool.acquire()
        except OSError as exc:  # no interpreter to start (an embedded Python), no processes left
            raise ConversionCrashedError(
                f"{what}: no worker process could be started for the {converter} ({exc}); "
                "ConversionLimits(isolate=False) converts in this process, for trusted input"
            ) from None
        try:
            reply = worker.call(request, budget)
        except _WorkerGone as gone:
            pool.release(None)
            if gone.returncode == 0 and not gone.expired and attempt == 0:
                continue  # it had just left on its idle timer: once more with a fresh one
            raise _gone_error(gone, what, converter, limits, budget) from None
        except BaseException:
            worker.kill()  # interrupted mid-job: its state is unknown
            pool.release(None)
            raise
        pool.release(worker)
        return _result(reply, what, converter, limits)  # type: ignore[no-any-return]
    raise AssertionError("unreachable")


def _result(reply: bytes, what: str, converter: str, limits: ConversionLimits) -> Any:
    try:
        outcome = _Unpickler(io.BytesIO(reply)).load()
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
    gone: _WorkerGone, what: str, converter: str, limits: ConversionLimits, budget: float | None
) -> MediaBlocksError:
    if gone.expired:
        return ConversionTimeoutError(
            f"{what}: the {converter} ran past the wall-time budget time_budget={budget:g} s and "
            "was stopped",
            limit="time_budget",
            value=budget,
        )
    code = gone.returncode
    name = _signal_name(code)
    if name == "SIGXCPU":
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
    how = name or f"exit status {code}"
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


def _signal_name(code: int | None) -> str | None:
    if code is None or code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"
