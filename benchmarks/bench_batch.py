"""Batch files at scale: N requests each with a 1 MiB image -> peak memory growth and speed.

`mb.write_batch` must keep memory bounded by one request, however many requests: 10,000 requests
with a 1 MiB image each (about 14 GB of JSONL) should need under 100 MB more than the process
held before. The requests come from a generator of `ImageBlock.from_path` blocks, each reading
the image file when it is written, as a real job over a folder would.

Measured in one run:

- peak RSS growth: the highest RSS sampled every 20 ms during ``write_batch`` minus the RSS
  before it (and ``ru_maxrss``'s growth, which only moves past the warm-up's peak), and the wall
  time of ``write_batch``;
- the raw baseline: the same lines written by hand (``open().read()``, ``base64.b64encode``,
  ``json.dumps``, ``write``), for the time ratio;
- tracemalloc's peak during ``write_batch`` (a second pass: tracemalloc slows allocation).

Run from the repository root::

    python benchmarks/bench_batch.py                       # 10,000 requests, anthropic
    python benchmarks/bench_batch.py --requests 1000 --provider openai
    python benchmarks/bench_batch.py --devnull              # write to /dev/null, no disk used
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import resource
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import mediablocks as mb

MiB = 1024 * 1024


def make_image(path: Path) -> int:
    """A PNG of random pixels, about 1 MiB (noise does not compress)."""
    from PIL import Image

    side = 591
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(path, "PNG")
    return path.stat().st_size


def requests(image: Path, count: int) -> Iterator[list[mb.Message]]:
    for number in range(count):
        block = mb.ImageBlock.from_path(image)
        yield [mb.UserMessage.with_images(f"Describe image {number}.", [block])]


def raw_baseline(image: Path, count: int, out: str) -> None:
    """The same Anthropic lines, written by hand: read, base64, json.dumps, write."""
    with open(out, "wb") as handle:
        for number in range(count):
            data = base64.b64encode(image.read_bytes()).decode("ascii")
            line = {
                "custom_id": f"request-{number}",
                "params": {
                    "model": "m",
                    "max_tokens": 100,
                    "messages": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "text", "text": f"Describe image {number}."},
                                {
                                    "type": "image",
                                    "source": {
                                        "type": "base64",
                                        "media_type": "image/png",
                                        "data": data,
                                    },
                                },
                            ],
                        }
                    ],
                },
            }
            handle.write(json.dumps(line).encode() + b"\n")


def fields_for(provider: str) -> dict[str, object]:
    if provider in ("anthropic",):
        return {"model": "m", "max_tokens": 100}
    if provider in ("openai", "openai-chat", "openai-responses"):
        return {"model": "m"}
    return {}


def maxrss() -> int:
    """Peak resident set size of this process so far, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss() -> int:
    """The resident set size now, in bytes (Linux ``/proc/self/statm``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class RSSSampler(threading.Thread):
    """Samples the RSS every 20 ms while the measured call runs: its highest value."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = rss()
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, rss())

    def stop(self) -> int:
        self.done.set()
        self.join()
        return max(self.peak, rss())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--provider", default="anthropic")
    parser.add_argument("--devnull", action="store_true", help="write to /dev/null")
    parser.add_argument("--no-tracemalloc", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        image = Path(tmp) / "noise.png"
        size = make_image(image)
        out = os.devnull if args.devnull else os.path.join(tmp, "batch.jsonl")
        fields = fields_for(args.provider)
        # Warm up: import the translator and the SDK-free encoder paths before measuring.
        mb.write_batch(requests(image, 2), args.provider, io.BytesIO(), **fields)

        before, before_peak = rss(), maxrss()
        sampler = RSSSampler()
        sampler.start()
        start = time.perf_counter()
        ids = mb.write_batch(requests(image, args.requests), args.provider, out, **fields)
        elapsed = time.perf_counter() - start
        growth = max(0, sampler.stop() - before)
        peak_growth = max(0, maxrss() - before_peak)
        written = os.path.getsize(out) if out != os.devnull else 0
        assert len(ids) == args.requests

        start = time.perf_counter()
        raw_baseline(image, args.requests, out)
        raw_elapsed = time.perf_counter() - start

        peak = None
        if not args.no_tracemalloc:
            tracemalloc.start()
            mb.write_batch(requests(image, args.requests), args.provider, out, **fields)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()

    print(f"write_batch: {args.requests} requests x {size / MiB:.2f} MiB image ({args.provider})")
    if written:
        print(f"  file size                      {written / 1e9:8.2f} GB")
    print(f"  RSS before                     {before / MiB:8.1f} MiB")
    print(f"  peak RSS growth (sampled)      {growth / MiB:8.1f} MiB")
    print(f"  ru_maxrss growth               {peak_growth / MiB:8.1f} MiB")
    if peak is not None:
        print(f"  tracemalloc peak               {peak / MiB:8.1f} MiB")
    print(f"  write_batch time               {elapsed:8.2f} s")
    print(f"  raw baseline time (anthropic)  {raw_elapsed:8.2f} s")
    print(f"  ratio write_batch / raw        {elapsed / raw_elapsed:8.2f} x")


if __name__ == "__main__":
    main()
