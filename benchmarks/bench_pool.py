"""What the conversion worker pool costs a server: start, small jobs beside slow ones, idle
memory, and hostile uploads against their budget.

1. **Worker start**: the first SVG conversion after `shutdown_workers` (a new worker process:
   interpreter and converter modules), median of N; and `mb.warm_up()` where it exists.
2. **A small SVG beside two slow jobs**: a 238-byte SVG through `mb.prepare` alone, then while
   two threads transcode a 1080p video each (`mb.prepare` for Gemini with ``max_video_seconds``
   forcing a transcode) — the latency a server's quick upload sees behind slow ones.
3. **Idle memory after a job**: the resident memory (``VmRSS``) of every worker process one
   second after a 1080p transcode, and (where the test jobs exist) after a job that kept
   200 MiB: kept idle, or recycled.
4. **Hostile uploads against their budget**: the wall time `prepare` takes on a 245-byte SVG
   filter (feTurbulence, 1,000 octaves) with ``time_budget=2``, alone and while two slow jobs
   hold the workers, and on four such SVGs in one call with ``total_time_budget=3`` (where the
   option exists).

Linux only (``/proc``). Run by hand from the repository root::

    python benchmarks/bench_pool.py [--rounds 5] [--src OTHER/src]

``--src`` imports mediablocks from another source tree (an export of an older commit), so the
same script measures before and after a change.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

SMALL_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">'
    b'<rect x="4" y="4" width="112" height="72" rx="8" fill="#2a6"/>'
    b'<circle cx="60" cy="40" r="22" fill="#fff"/>'
    b'<path d="M48 40 l8 8 l16 -16" stroke="#2a6" stroke-width="5" fill="none"/></svg>'
)
HOSTILE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><filter id="f">'
    b'<feTurbulence baseFrequency="0.05" numOctaves="1000"/></filter>'
    b'<rect width="400" height="400" filter="url(#f)"/></svg>'
)


def video_1080p(seconds: float = 4.0, fps: int = 30) -> bytes:
    """An MPEG-4 Part 2 MP4 at 1920x1080 with moving detail (the encoder and decoder work)."""
    import io

    import av
    import numpy as np

    out = io.BytesIO()
    with av.open(out, "w", format="mp4") as container:
        stream = container.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 1920, 1080, "yuv420p"
        stream.bit_rate = 8_000_000
        rows = np.arange(1080, dtype=np.uint16)[:, None]
        cols = np.arange(1920, dtype=np.uint16)[None, :]
        for index in range(int(seconds * fps)):
            shade = ((rows * 3 + cols * 5 + index * 7) % 256).astype(np.uint8)
            rgb = np.stack([shade, np.roll(shade, index, axis=1), shade[::-1]], axis=2)
            frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


def children_rss() -> dict[int, int]:
    """Resident bytes of each child process of this one (the conversion workers)."""
    me = os.getpid()
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            if parent != me:
                continue
            with open(f"/proc/{entry}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        found[int(entry)] = int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return found


def timed(call: Callable[[], Any]) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        call()
        outcome = "converted"
    except Exception as exc:
        text = " ".join(str(exc).split())
        if " ran past " in text:
            text = "ran past " + text.split(" ran past ", 1)[1]
        outcome = f"{type(exc).__name__}: {text[:120]}"
    return time.perf_counter() - start, outcome


class SlowJobs:
    """Two threads transcoding a 1080p video each, through `prepare`, until stopped."""

    def __init__(self, mb: Any, video: bytes) -> None:
        self.mb = mb
        self.video = video
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(2)]
        self.done = 0

    def _loop(self) -> None:
        mb = self.mb
        while not self.stop.is_set():
            block = mb.VideoBlock.from_bytes(self.video, "video/mp4", filename="clip.mp4")
            try:
                mb.prepare(
                    [mb.UserMessage(content=[block])],
                    "gemini",
                    max_video_seconds=3.5,
                    time_budget=300,
                )
                self.done += 1
            except Exception as exc:
                print(f"  (slow job failed: {type(exc).__name__}: {str(exc)[:100]})")

    def __enter__(self) -> SlowJobs:
        for thread in self.threads:
            thread.start()
        time.sleep(1.5)  # both transcodes are under way
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()


def svg_prepare(mb: Any, data: bytes, **options: Any) -> Callable[[], Any]:
    def call() -> Any:
        block = mb.ImageBlock.from_bytes(data, "image/svg+xml", filename="small.svg")
        return mb.prepare([mb.UserMessage(content=[block])], "anthropic", **options)

    return call


def start_cost(mb: Any, isolation: Any, rounds: int) -> None:
    print(f"\n## Worker start (median of {rounds})\n")
    print("| how | ms |")
    print("| --- | ---: |")
    firsts, warms = [], []
    for _ in range(rounds):
        isolation.shutdown_workers()
        firsts.append(timed(svg_prepare(mb, SMALL_SVG))[0])
        if hasattr(mb, "warm_up"):
            isolation.shutdown_workers()
            warms.append(timed(mb.warm_up)[0])
    bare, loaded = _ready_times(isolation, rounds)
    again = statistics.median(timed(svg_prepare(mb, SMALL_SVG))[0] for _ in range(rounds))
    print(f"| first small SVG after shutdown_workers (starts a worker) | {_ms(firsts)} |")
    if warms:
        print(f"| mb.warm_up() (workers started and converters loaded) | {_ms(warms)} |")
    if bare:
        print(f"| a worker started until it is ready (python -I, bootstrap) | {_ms(bare)} |")
        print(f"| the same with the converters preloaded (warm_up's workers) | {_ms(loaded)} |")
    print(f"| the same SVG again (worker warm) | {again * 1000:.1f} |")


def _ready_times(isolation: Any, rounds: int) -> tuple[list[float], list[float]]:
    """Start to ready of one worker, bare and preloaded (where the pool says when it is ready)."""
    if not hasattr(isolation, "warm_pool"):
        return [], []
    pool = isolation._the_pool()
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(rounds):
        for preload in (False, True):
            start = time.perf_counter()
            worker = pool.start_worker(preload=preload)
            worker.wait_ready(time.monotonic() + 60)
            times[preload].append(time.perf_counter() - start)
            pool._retire(worker)
    return times[False], times[True]


def beside_slow_jobs(mb: Any, video: bytes, rounds: int) -> None:
    alone = [timed(svg_prepare(mb, SMALL_SVG))[0] for _ in range(rounds)]
    print(f"\n## A {len(SMALL_SVG)}-byte SVG beside two 1080p transcodes (median of {rounds})\n")
    print("| case | latency ms | ratio to alone |")
    print("| --- | ---: | ---: |")
    with SlowJobs(mb, video) as slow:
        busy = []
        for _ in range(rounds):
            busy.append(timed(svg_prepare(mb, SMALL_SVG))[0])
            time.sleep(0.3)
    base = statistics.median(alone)
    print(f"| alone | {_ms(alone)} | 1.00x |")
    print(f"| two 1080p transcodes running | {_ms(busy)} | {statistics.median(busy) / base:.1f}x |")
    print(f"| worst beside them | {max(busy) * 1000:.1f} | {max(busy) / base:.1f}x |")
    print(f"\n({slow.done} transcodes finished meanwhile; load {os.getloadavg()[0]:.1f})")


def idle_memory(mb: Any, isolation: Any, video: bytes) -> None:
    isolation.shutdown_workers()
    mb.prepare([mb.UserMessage(content=[svg_block(mb)])], "anthropic")
    rows = [("after one small SVG", children_rss())]
    block = mb.VideoBlock.from_bytes(video, "video/mp4", filename="clip.mp4")
    spent, outcome = timed(
        lambda: mb.prepare(
            [mb.UserMessage(content=[block])], "gemini", max_video_seconds=3.5, time_budget=300
        )
    )
    time.sleep(1.0)
    rows.append(("one second after the 1080p transcode", children_rss()))
    try:
        from mediablocks.convert import _jobs
    except ImportError:  # an older tree: no test jobs
        _jobs = None
    if _jobs is not None:
        isolation.run_isolated("big", _jobs.hold, 200)
        time.sleep(1.0)
        rows.append(("one second after a job that kept 200 MiB", children_rss()))
    print("\n## Idle workers after a job\n")
    print(f"transcode: {spent:.1f} s, {outcome}")
    if hasattr(mb, "configure_workers"):
        limit = mb.configure_workers().recycle_rss_bytes
        print(f"recycle_rss_bytes: {limit / 2**20:.0f} MiB")
    print("| when | workers | largest RSS MiB | all RSS MiB |")
    print("| --- | ---: | ---: | ---: |")
    for name, found in rows:
        largest = max(found.values(), default=0) / 2**20
        print(f"| {name} | {len(found)} | {largest:.0f} | {sum(found.values()) / 2**20:.0f} |")


def svg_block(mb: Any) -> Any:
    return mb.ImageBlock.from_bytes(SMALL_SVG, "image/svg+xml", filename="small.svg")


def hostile(mb: Any, video: bytes) -> None:
    import inspect

    print("\n## Hostile uploads against their budget\n")
    print("| case | budget s | wall s | outcome |")
    print("| --- | ---: | ---: | --- |")
    name = f"{len(HOSTILE_SVG)}-byte feTurbulence SVG"
    row(f"{name}, time_budget=2", 2, svg_prepare(mb, HOSTILE_SVG, time_budget=2))
    with SlowJobs(mb, video):
        busy = ", two 1080p transcodes running"
        row(f"{name}, time_budget=3{busy}", 3, svg_prepare(mb, HOSTILE_SVG, time_budget=3))
        row(f"small SVG, time_budget=3{busy}", 3, svg_prepare(mb, SMALL_SVG, time_budget=3))
    if "total_time_budget" in inspect.signature(mb.prepare).parameters:
        blocks = [
            mb.ImageBlock.from_bytes(HOSTILE_SVG, "image/svg+xml", filename=f"{n}.svg")
            for n in range(4)
        ]
        messages = [mb.UserMessage(content=blocks)]
        row(
            f"four such SVGs in one call, total_time_budget=3 (each {name} auto budget)",
            3,
            lambda: mb.prepare(messages, "anthropic", total_time_budget=3),
        )
        row(f"{name}, the automatic budget", "auto", svg_prepare(mb, HOSTILE_SVG))


def row(case: str, budget: object, call: Callable[[], Any]) -> None:
    spent, outcome = timed(call)
    print(f"| {case} | {budget} | {spent:.2f} | {outcome} |")


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    import mediablocks as mb
    from mediablocks.convert import isolation

    print(f"mediablocks from {Path(mb.__file__).parent}; {os.cpu_count()} CPUs")
    video = video_1080p()
    print(f"1080p test video: {len(video):,} bytes")
    start_cost(mb, isolation, args.rounds)
    beside_slow_jobs(mb, video, args.rounds)
    idle_memory(mb, isolation, video)
    hostile(mb, video)
    isolation.shutdown_workers()


if __name__ == "__main__":
    main()
