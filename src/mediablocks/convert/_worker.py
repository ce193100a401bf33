"""The loop a conversion worker process runs (see `mediablocks.convert.isolation`).

A worker is ``python -c`` with a three-line bootstrap that registers ``mediablocks`` as a bare
package (its ``__init__`` with pydantic and httpx is not run: a worker needs only the converter
modules) and calls `main`. It then reads jobs from the parent, one at a time, each framed as an
8-byte length and a pickle: ``(module, function, args, keywords, limits)``. Before each job it
sets the resource limits (address space, CPU seconds past what it has used, stack); after it,
it lifts them again so that writing the reply cannot fail. The reply is ``("ok", result)``,
``("error", error class name, message)`` or ``("limit", limit name, message)``.

Native code can write to file descriptors 1 and 2 at will, so the protocol runs over duplicates
of stdin and stdout taken at start, and descriptors 0 and 1 then point at ``/dev/null`` and
stderr (a file the parent reads after a crash). Only modules under `MODULE_PREFIX` are
run. A worker idle for `IDLE_SECONDS` exits by itself; the parent starts another when needed.
"""

from __future__ import annotations

import importlib
import math
import os
import pickle
import sys
from typing import IO, Any

IDLE_SECONDS = 300.0
"""A worker with no job for this long exits (the parent replaces it on the next conversion)."""

MODULE_PREFIX = ("mediablocks.convert.", "mediablocks.images.", "mediablocks.probing.")
"""The packages whose functions a job may name: the converters, and the image fitting and
header reading that run in a worker for formats the caller does not decode."""


def read_message(stream: IO[bytes], limit: int) -> bytes | None:
    """One framed message, or None at end of stream."""
    head = _read_exactly(stream, 8)
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    if size > limit:
        raise ValueError(f"message of {size:,} bytes is over {limit:,}")
    body = _read_exactly(stream, size)
    if body is None:
        raise EOFError("stream ended inside a message")
    return body


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    parts: list[bytes] = []
    left = size
    while left:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def write_message(stream: IO[bytes], payload: bytes) -> None:
    stream.write(len(payload).to_bytes(8, "big"))
    stream.write(payload)
    stream.flush()


def _set_limits(limits: tuple[int | None, float | None, int | None]) -> None:
    """Address space and stack as given; CPU seconds counted from what the worker used so far."""
    try:
        import resource
    except ImportError:  # Windows: the parent's wall-time budget is the only limit
        return
    memory, cpu, stack = limits
    for kind, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_STACK, stack)):
        hard = resource.getrlimit(kind)[1]
        soft = hard if value is None else value
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(kind, (soft, hard))
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if cpu is None:
        soft = hard
    else:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + cpu)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _lift_limits() -> None:
    _set_limits((None, None, None))


def _run(request: bytes) -> tuple[Any, ...]:
    module_name, function, args, keywords, limits = pickle.loads(request)
    if not module_name.startswith(MODULE_PREFIX):
        return ("error", "DecodeError", f"refused job module {module_name!r}")
    job = getattr(importlib.import_module(module_name), function)
    errors = importlib.import_module("mediablocks.errors")
    _set_limits(limits)
    try:
        return ("ok", job(*args, **keywords))
    except errors.ConversionLimitError as exc:
        return ("limit", exc.limit or "", str(exc))
    except errors.MediaBlocksError as exc:
        return ("error", type(exc).__name__, str(exc))
    except MemoryError:
        return ("limit", "memory_bytes", "")
    except RecursionError:
        return ("limit", "stack_bytes", "")
    except BaseException as exc:  # a pyo3 PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        detail = str(exc).strip()[:200] or type(exc).__name__
        return ("error", "DecodeError", f"the converter failed: {detail}")
    finally:
        _lift_limits()


def _wait_for_input(fd: int) -> bool:
    """False when no job came within `IDLE_SECONDS` (POSIX; elsewhere, wait for ever)."""
    if os.name != "posix":
        return True
    import select

    ready, _, _ = select.select([fd], [], [], IDLE_SECONDS)
    return bool(ready)


def loaded_modules() -> tuple[str, ...]:
    """The modules imported in this process (a job: the tests check what a worker loads)."""
    return tuple(sorted(sys.modules))


def main() -> None:
    """Serve jobs until the parent closes the pipe (or `IDLE_SECONDS` pass without one)."""
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
    while _wait_for_input(requests.fileno()):
        request = read_message(requests, 1 << 40)
        if request is None:
            return
        reply = _run(request)
        try:
            payload = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a result that does not pickle is a bug, said as such
            payload = pickle.dumps(("error", "DecodeError", f"unsendable result: {exc}"))
        write_message(replies, payload)
