"""Races and files that never end: how often a read escapes its root, and how long refusals take.

Issue 25's reproducers, measured (not timed for speed: each figure is a count or a bound):

- ``race``: reads of ``root/dir/photo.png`` under ``FetchPolicy(allowed_roots=[root])`` while a
  thread swaps ``root/dir`` for a symbolic link to a folder outside and back (each state held
  0.5 ms). Counted: reads that returned the outside bytes (escapes), refusals, and anything that
  is not a mediablocks error (a raw ``OSError``);
- ``fifo``: a FIFO that a writer keeps open, read through ``from_path(...).read()`` and
  ``read_batch_results``: the time to refuse it (a read that has not returned after 2 s counts as
  hung and is abandoned);
- ``resolver``: ``fetch`` with ``FetchPolicy(timeout=0.5)`` while ``getaddrinfo`` hangs for 5 s;
- ``depth``: ``decode`` / ``decode_request`` / ``decode_response`` of a 2 KB body nested 1,000
  deep, for every provider: how many raise a raw ``RecursionError``.

Run from the repository root (``--src`` measures another checkout's ``src`` the same way)::

    python benchmarks/bench_untrusted_files.py --reads 500
    python benchmarks/bench_untrusted_files.py --src /tmp/old/src
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HUNG = 2.0


def _bounded(call: Callable[[], Any]) -> tuple[str, float]:
    """``(outcome, seconds)`` of ``call()``; ``hung`` when it has not returned in `HUNG` s."""
    outcome: list[str] = []

    def run() -> None:
        try:
            call()
            outcome.append("returned")
        except Exception as exc:
            outcome.append(type(exc).__name__)

    started = time.perf_counter()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HUNG)
    return (outcome[0] if outcome else "hung"), time.perf_counter() - started


def race(mb: Any, reads: int) -> None:
    with tempfile.TemporaryDirectory() as base:
        root, outside = Path(base, "root"), Path(base, "outside")
        (root / "dir").mkdir(parents=True)
        outside.mkdir()
        (root / "dir" / "photo.png").write_bytes(b"inside")
        (outside / "photo.png").write_bytes(b"SECRET")
        folder, moved = root / "dir", root / "dir.real"
        stop = threading.Event()

        def swap() -> None:
            while not stop.is_set():
                os.rename(folder, moved)
                os.symlink(outside, folder)
                time.sleep(0.0005)
                os.unlink(folder)
                os.rename(moved, folder)
                time.sleep(0.0005)

        thread = threading.Thread(target=swap, daemon=True)
        thread.start()
        policy = mb.FetchPolicy(allowed_roots=[str(root)])
        counts: Counter[str] = Counter()
        for _ in range(reads):
            try:
                data = mb.FileBlock.from_path(folder / "photo.png").read(policy)
                counts["ESCAPED" if data == b"SECRET" else "inside"] += 1
            except mb.MediaBlocksError as exc:
                counts[type(exc).__name__] += 1
            except Exception as exc:
                counts[f"raw {type(exc).__name__}"] += 1
        stop.set()
        thread.join()
    print(f"race: {reads} reads under allowed_roots while a folder is swapped for a link")
    print(f"  escapes: {counts['ESCAPED']}   outcomes: {dict(counts)}")


def fifo(mb: Any) -> None:
    with tempfile.TemporaryDirectory() as base:
        path = Path(base, "results.jsonl")
        os.mkfifo(path)
        writer = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # a writer that keeps it open
        policy = mb.FetchPolicy(allowed_roots=[base])
        cases: dict[str, Callable[[], Any]] = {
            "from_path(fifo).read()": lambda: mb.FileBlock.from_path(path).read(),
            "... under allowed_roots": lambda: mb.FileBlock.from_path(path).read(policy),
            "read_batch_results(fifo)": lambda: mb.read_batch_results(path, "openai"),
        }
        print("fifo: a FIFO a writer keeps open")
        for name, call in cases.items():
            outcome, seconds = _bounded(call)
            print(f"  {name:28} {outcome:20} {seconds * 1000:8.2f} ms")
        os.close(writer)


def resolver(mb: Any) -> None:
    # The fetcher's modules (httpx...) are imported on the first fetch: not timed below.
    with contextlib.suppress(mb.MediaBlocksError):
        mb.fetch("http://127.0.0.1:9/", mb.FetchPolicy())
    release = threading.Event()
    real = socket.getaddrinfo

    def hang(*args: Any, **kwargs: Any) -> Any:
        release.wait(5)
        raise socket.gaierror(socket.EAI_AGAIN, "temporary failure")

    socket.getaddrinfo = hang  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        try:
            mb.fetch("http://slow.example/x.png", mb.FetchPolicy(timeout=0.5))
            outcome = "returned"
        except Exception as exc:
            outcome = type(exc).__name__
        took = time.perf_counter() - started
    finally:
        release.set()
        socket.getaddrinfo = real
    print(f"resolver: fetch(timeout=0.5), getaddrinfo hanging 5 s: {outcome} after {took:.2f} s")


def depth(mb: Any) -> None:
    from mediablocks.providers.registry import REGISTRY

    body = '{"messages":' + "[" * 1000 + "]" * 1000 + "}"
    counts: Counter[str] = Counter()
    for entry in REGISTRY:
        for call in (mb.decode, mb.decode_request, mb.decode_response):
            try:
                call(body, entry.name)
                counts["returned"] += 1
            except RecursionError:
                counts["raw RecursionError"] += 1
            except mb.MediaBlocksError as exc:
                counts[type(exc).__name__] += 1
    print(f"depth: {len(body)}-byte body nested 1,000 deep, {len(REGISTRY)} providers x 3 entries")
    print(f"  outcomes: {dict(counts)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parent.parent / "src"))
    args = parser.parse_args()
    sys.path.insert(0, args.src)
    import mediablocks as mb

    print(f"mediablocks from {Path(mb.__file__).parent}")
    race(mb, args.reads)
    fifo(mb)
    resolver(mb)
    depth(mb)


if __name__ == "__main__":
    main()
