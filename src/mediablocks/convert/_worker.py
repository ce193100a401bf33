"""The loop a conversion worker process runs (see `mediablocks.convert.isolation`).

A worker is ``python -I -c BOOTSTRAP``: isolated mode, so neither the current folder, nor the
user's site folder, nor any ``PYTHON*`` variable reaches it. The bootstrap imports nothing
before it sets ``sys.path`` to the list the parent wrote into it (the folder holding the
installed ``mediablocks`` first; never ``""`` or the caller's working folder), registers
``mediablocks`` as a bare package (its ``__init__`` with pydantic and httpx is not run: a worker
needs only the converter modules) and calls `main`.

The worker dies with its parent: on Linux by ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (the parent
starts workers from one long-lived thread, since the signal follows the thread that started the
process); elsewhere (or with it turned off), a watchdog thread kills it when the request pipe
reaches its end while a job runs (the parent is gone: it never writes during a job). Where
PDEATHSIG is set the watchdog is not started: it would wake twice per job for nothing.

Jobs come one at a time, each framed as an 8-byte length and a pickle:
``(module, function, args, keywords, limits, reply cap, trim above)``. Before each job the
worker sets the resource limits (address space, CPU seconds past what it has used, stack); after
it, it lifts them again so that writing the reply cannot fail. Each frame the worker writes
starts with a tag byte: ``W`` (started and ready), ``B`` (leaving after `idle` seconds without
a job: the parent's next request was not read, so it can go to another worker), or ``R``
(a reply: the CPU seconds the request cost the worker, from reading it to pickling the result,
and the worker's resident bytes after it, then the pickle of
``("ok", result)``, ``("error", error class name, message)`` or ``("limit", limit, message)``).
A reply over the cap is replaced by a ``"limit"`` one. After a job that left the worker large,
it returns freed memory to the system (``gc`` and glibc's ``malloc_trim``) before measuring,
when its heap holds enough freed memory to be worth it (`WORTH_TRIMMING`).

Native code can write to file descriptors 1 and 2 at will, so the protocol runs over duplicates
of stdin and stdout taken at start, and descriptors 0 and 1 then point at ``/dev/null`` and
stderr (a file the parent reads after a crash; `faulthandler` writes the fatal signal's name
there, which is how a crash is named when the parent cannot learn the exit status). Only modules
under `MODULE_PREFIX` are run. A worker idle for `IDLE_SECONDS` exits by itself (unless started
otherwise); the parent starts another when needed.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import pickle
import struct
import sys
import threading
from typing import IO, Any

from ._wire import REUSED_BYTES, pickled, write_framed

IDLE_SECONDS = 300.0
"""A worker with no job for this long exits, unless started otherwise (the parent replaces it)."""

MODULE_PREFIX = ("mediablocks.convert.", "mediablocks.images.", "mediablocks.probing.")
"""The packages whose functions a job may name: the converters, and the image fitting and
header reading that run in a worker for formats the caller does not decode."""

READY, BYE, REPLY = b"W", b"B", b"R"
STATS = struct.Struct("!dQ")  # CPU seconds of the job, resident bytes after it

PRELOAD = (
    "mediablocks.convert.raster",
    "mediablocks.convert.pdf",
    "mediablocks.convert.text",
    "mediablocks.convert.video",
    "mediablocks.convert.audio",
    "mediablocks.convert.verify",
)
"""The converter modules a warmed worker imports before its first job (with their libraries:
resvg, PDFium, Pillow, PyAV, where installed)."""

_PRELOAD_LIBRARIES = ("resvg_py", "pypdfium2", "PIL.Image", "av")


_spare = bytearray()


def read_message(stream: IO[bytes], limit: int) -> memoryview | None:
    """One framed message, or None at end of stream. The view is over a buffer the next
    message reuses (up to `REUSED_BYTES`): read what it holds (unpickle it) before then."""
    global _spare
    head = _read_exactly(stream, memoryview(bytearray(8)))
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    if size > limit:
        raise ValueError(f"message of {size:,} bytes is over {limit:,}")
    if size > REUSED_BYTES:
        buffer = bytearray(size)
    else:
        if len(_spare) < size:  # replaced, never resized: a view of the old one may live on
            _spare = bytearray(max(size, min(2 * len(_spare), REUSED_BYTES)))
        buffer = _spare
    body = _read_exactly(stream, memoryview(buffer)[:size])
    if body is None:
        raise EOFError("stream ended inside a message")
    return body


def _read_exactly(stream: IO[bytes], view: memoryview) -> memoryview | None:
    done, size = 0, len(view)
    while done < size:
        count = stream.readinto(view[done : done + (1 << 20)])  # type: ignore[attr-defined]
        if not count:
            return None
        done += count
    return view


def write_message(stream: IO[bytes], *parts: bytes) -> None:
    """``parts``, one after the other, as one framed message (`write_framed`)."""
    stream.flush()
    write_framed(stream.fileno(), parts)


# -- limits ---------------------------------------------------------------------------------------


_hard_limits: dict[int, int] = {}
"""The hard limit of each resource, read once: a process can lower its hard limits but never
raise them, and the worker never lowers them, so they stay what they were at start."""
_soft_limits: dict[int, int] = {}
"""The soft limit last set on each resource: setting it again to the same value is skipped."""


def _set_limits(limits: tuple[int | None, float | None, int | None]) -> None:
    """Address space and stack as given; CPU seconds counted from what the worker used so far.
    Only the limits that change are set (a system call each): before and after every job."""
    try:
        import resource
    except ImportError:  # Windows: the parent's wall-time budget is the only limit
        return
    memory, cpu, stack = limits
    cpu_soft = None if cpu is None else math.ceil(_cpu_used() + cpu)
    for kind, value in (
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_STACK, stack),
        (resource.RLIMIT_CPU, cpu_soft),
    ):
        hard = _hard_limits.get(kind)
        if hard is None:
            hard = _hard_limits[kind] = resource.getrlimit(kind)[1]
        soft = hard if value is None else value
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        if _soft_limits.get(kind) != soft:
            resource.setrlimit(kind, (soft, hard))
            _soft_limits[kind] = soft


def _lift_limits() -> None:
    _set_limits((None, None, None))


def _cpu_used() -> float:
    """CPU seconds this process (all its threads) used so far."""
    try:
        import resource
    except ImportError:
        import time

        return time.process_time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


_statm: int | None = None
"""``/proc/self/statm``, opened once and read again for each job (one system call, not seven)."""


def resident_bytes() -> int:
    """This process's resident memory now (Linux), else its peak (0: unknown)."""
    global _statm
    try:
        if _statm is None:
            _statm = os.open("/proc/self/statm", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        return int(os.pread(_statm, 128, 0).split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


WORTH_TRIMMING = 8 << 20
"""Freed bytes the heap must hold before a worker over its trim size gives memory back: a
full ``gc.collect()`` costs some 17 ms with PyAV and NumPy loaded, and what is returned is
faulted in again by the next job, so a worker whose size is its libraries keeps it."""


def _heap_free_bytes() -> int | None:
    """Bytes freed but kept by glibc's heap (``mallinfo2``), or None where that is unknown."""
    try:
        import ctypes

        class _MallInfo2(ctypes.Structure):
            _fields_ = [
                (name, ctypes.c_size_t)
                for name in (
                    "arena",
                    "ordblks",
                    "smblks",
                    "hblks",
                    "hblkhd",
                    "usmblks",
                    "fsmblks",
                    "uordblks",
                    "fordblks",
                    "keepcost",
                )
            ]

        mallinfo2 = ctypes.CDLL(None).mallinfo2
        mallinfo2.restype = _MallInfo2
        return int(mallinfo2().fordblks)
    except (OSError, AttributeError):  # not glibc, or older than 2.33
        return None


def _give_back_memory() -> bool:
    """Return freed memory to the system (the reused request buffer, cycles collected, then
    glibc's ``malloc_trim``) when the heap holds at least `WORTH_TRIMMING` of it (or how much
    is unknown); True when it did."""
    import gc

    global _spare
    held = _heap_free_bytes()
    if held is not None and held < WORTH_TRIMMING:
        return False
    _spare = bytearray()
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
    return True


# -- one job --------------------------------------------------------------------------------------


class _State:
    """Whether a job runs, shared with the watchdog thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.busy = False
        self.started = threading.Event()


def _run(request: memoryview, state: _State) -> tuple[tuple[Any, ...], int, int | None]:
    module_name, function, args, keywords, limits, reply_cap, trim_above = pickle.loads(request)
    if not module_name.startswith(MODULE_PREFIX):
        return ("error", "DecodeError", f"refused job module {module_name!r}"), 0, reply_cap
    job = getattr(importlib.import_module(module_name), function)
    errors = importlib.import_module("mediablocks.errors")
    with state.lock:
        state.busy = True
        state.started.set()
    _set_limits(limits)
    try:
        outcome: tuple[Any, ...] = ("ok", job(*args, **keywords))
    except errors.ConversionLimitError as exc:
        outcome = ("limit", exc.limit or "", str(exc))
    except errors.MediaBlocksError as exc:
        outcome = ("error", type(exc).__name__, str(exc))
    except MemoryError:
        outcome = ("limit", "memory_bytes", "")
    except RecursionError:
        outcome = ("limit", "stack_bytes", "")
    except BaseException as exc:  # a pyo3 PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        detail = str(exc).strip()[:200] or type(exc).__name__
        outcome = ("error", "DecodeError", f"the converter failed: {detail}")
    finally:
        _lift_limits()
        with state.lock:
            state.busy = False
            state.started.clear()
    del args, keywords  # the job's input, freed before the memory is measured
    resident = resident_bytes()
    if trim_above is not None and resident > trim_above and _give_back_memory():
        resident = resident_bytes()
    return outcome, resident, reply_cap


def _reply(outcome: tuple[Any, ...], started: float, resident: int, cap: int | None) -> list[bytes]:
    """The reply: its tag and figures, then its pickle (in chunks, `pickled`). The CPU seconds
    are the whole request's, from reading it (``started``) to the pickle of the result, not
    the job's alone: the budget and the benchmarks then see what a job costs the worker."""
    try:
        payload = pickled(outcome)
    except Exception as exc:  # a result that does not pickle is a bug, said as such
        payload = pickled(("error", "DecodeError", f"unsendable result: {exc}"))
    size = sum(len(part) for part in payload)
    if cap is not None and size + 1 + STATS.size > cap:
        message = f"sent a result of {size:,} bytes, over max_reply_bytes={cap:,}"
        payload = pickled(("limit", "max_reply_bytes", message))
    spent = _cpu_used() - started
    return [REPLY + STATS.pack(max(0.0, spent), max(0, resident)), *payload]


# -- staying tied to the parent -------------------------------------------------------------------


def _die_with_parent(parent: int, pdeathsig: bool) -> bool:
    """SIGKILL when the parent's starting thread ends (Linux): True when that is set; gone
    already: leave now."""
    tied = False
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            tied = libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if parent and os.getppid() != parent:
        os._exit(0)
    return tied


def _watchdog(fd: int, state: _State) -> None:
    """While a job runs the parent never writes: the request pipe turning readable then means
    its end, the parent is gone, and so goes this worker (where no PDEATHSIG exists)."""
    import select

    while True:
        state.started.wait()
        try:
            select.select([fd], [], [])
        except (OSError, ValueError):
            return
        with state.lock:
            if state.busy and select.select([fd], [], [], 0)[0]:
                os._exit(1)  # no reply is read by anyone; a clean exit is enough
        if not state.busy:
            threading.Event().wait(0.05)  # the job ended; wait for the next one to start


def _start_watchdog(fd: int, state: _State) -> None:
    if os.name != "posix":
        return
    with contextlib.suppress(RuntimeError):  # no thread: PDEATHSIG (Linux) is the guard left
        threading.Thread(target=_watchdog, args=(fd, state), daemon=True).start()


def _preload() -> None:
    for name in (*PRELOAD, *_PRELOAD_LIBRARIES):
        with contextlib.suppress(ImportError):  # an optional extra that is not installed
            importlib.import_module(name)


def _wait_for_input(fd: int, idle: float | None) -> bool:
    """False when no job came within ``idle`` seconds (POSIX; elsewhere, wait for ever)."""
    if os.name != "posix" or idle is None:
        return True
    import select

    ready, _, _ = select.select([fd], [], [], idle)
    return bool(ready)


def loaded_modules() -> tuple[str, ...]:
    """The modules imported in this process (a job: the tests check what a worker loads)."""
    return tuple(sorted(sys.modules))


def main(
    parent: int = 0,
    idle: float | None = IDLE_SECONDS,
    preload: bool = False,
    pdeathsig: bool = True,
) -> None:
    """Serve jobs until the parent closes the pipe (or ``idle`` seconds pass without one)."""
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file
    except (ImportError, ValueError, OSError):
        pass
    import faulthandler
    import signal

    faulthandler.enable(sys.stderr)  # a fatal signal's name reaches the parent
    if hasattr(faulthandler, "register") and hasattr(signal, "SIGXCPU"):
        # A traceback without "Fatal Python error" above it: the CPU limit ended the job.
        faulthandler.register(signal.SIGXCPU, file=sys.stderr, chain=True)
    state = _State()
    if not _die_with_parent(parent, pdeathsig):
        _start_watchdog(requests.fileno(), state)  # no PDEATHSIG here: the pipe's end is the sign
    if preload:
        _preload()
    write_message(replies, READY)
    while True:
        if not _wait_for_input(requests.fileno(), idle):
            write_message(replies, BYE)  # nothing was read: the parent may resend elsewhere
            return
        started = _cpu_used()
        request = read_message(requests, 1 << 40)
        if request is None:
            return
        outcome, resident, cap = _run(request, state)
        request.release()
        reply = _reply(outcome, started, resident, cap)
        del outcome
        write_message(replies, *reply)
