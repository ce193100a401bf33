"""Small jobs about the worker itself, run through `run_isolated` like any converter (they sit
under ``mediablocks.convert.``, the only modules a worker runs).

`warm_up` uses none of them (a warmed worker preloads at start); the tests and the benchmarks
use them to see a worker from inside (`worker_facts`, `limits`), to time the round trip of a job
that does nothing (`reply`) and a PyAV header read in a worker (`read_headers`), and to stand
in for slow, greedy or crashing converters with tiny inputs (`sleep`, `spin`, `hold`, `reply`,
`mark_then_crash`) and send bytes both ways (`echo`), so the pool's scheduling, budgets,
recycling and transport are tested in seconds.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

_held: list[bytearray] = []


def worker_facts() -> dict[str, Any]:
    """Where and how this worker runs: pid, parent, working folder, ``sys.path``, flags."""
    from ._worker import resident_bytes

    return {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "cwd": os.getcwd(),
        "path": list(sys.path),
        "isolated": bool(sys.flags.isolated),
        "ignore_environment": bool(sys.flags.ignore_environment),
        "no_user_site": bool(sys.flags.no_user_site),
        "modules": sorted(sys.modules),
        "resident_bytes": resident_bytes(),
    }


def limits() -> dict[str, int]:
    """The soft resource limits this job runs under (address space, stack, CPU seconds)."""
    import resource

    return {
        "memory_bytes": resource.getrlimit(resource.RLIMIT_AS)[0],
        "stack_bytes": resource.getrlimit(resource.RLIMIT_STACK)[0],
        "cpu_seconds": resource.getrlimit(resource.RLIMIT_CPU)[0],
    }


def sleep(seconds: float, mark: str | None = None) -> float:
    """Wait ``seconds`` (a slow job that uses no CPU; first its pid is appended to the file
    ``mark``, when given: the lines count the runs); returns them."""
    if mark is not None:
        _mark(mark)
    time.sleep(seconds)
    return seconds


def spin(seconds: float) -> float:
    """Use ``seconds`` of CPU (a busy converter); returns the CPU seconds used."""
    start = time.process_time()
    while time.process_time() - start < seconds:
        sum(range(1000))
    return time.process_time() - start


def hold(megabytes: int) -> int:
    """Keep ``megabytes`` of touched memory in this worker after the job (a converter that
    grew and did not give back); returns the resident bytes."""
    from ._worker import resident_bytes

    block = bytearray(megabytes << 20)
    for offset in range(0, len(block), 4096):
        block[offset] = 1
    _held.append(block)
    return resident_bytes()


def reply(size: int) -> bytes:
    """A result of ``size`` bytes."""
    return b"r" * size


def read_headers(data: bytes) -> float:
    """PyAV opening ``data`` with its defaults and reading its first audio stream's duration
    and rate: what reading an upload's headers with FFmpeg costs run as it must be, in a worker
    (`benchmarks/bench_verify.py` compares the decode check with it)."""
    import io

    import av

    with av.open(io.BytesIO(data), metadata_errors="ignore") as container:
        stream = container.streams.audio[0]
        return float(stream.duration or 0) + float(stream.codec_context.sample_rate)


def echo(data: bytes, tail: bytes = b"") -> bytes:
    """``data`` reversed, then ``tail``: a result made of every byte the job was sent."""
    return data[::-1] + tail


def mark_then_crash(path: str) -> None:
    """Append a line to ``path``, then die by SIGSEGV (a converter crashing on its input): the
    lines count how often the job ran."""
    import signal

    _mark(path)
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(5)


def _mark(path: str) -> None:
    with open(path, "a", encoding="ascii") as marks:
        marks.write(f"{os.getpid()}\n")
