"""What the decode check on audio sent untouched costs, against reading the file's headers.

`prepare` refuses audio its own decoders cannot open (`mediablocks.convert.verify`). The check
opens the container and decodes the first frame; ``full=True`` decodes every frame. Each case
runs on the same recording, made here with PyAV (a 440 Hz tone with a little noise):

- ``headers``: PyAV opening the container and reading its streams (`_jobs.read_headers`:
  ``av.open`` with its defaults, probing, then FFmpeg reading packets for the streams'
  parameters), **in this process**: the baseline. It runs no worker, so every ratio below
  against it includes what isolation costs (the check must run in a worker: docs/isolation.md);
- ``probe``: `mb.probe_bytes` (mediablocks' own header reader: duration, codec);
- ``base64``: the base64 text `encode` must make anyway (the floor of sending it);
- ``check``: `check_audio_decodes` in-process (the default: the container and the first frame);
- ``check full``: `check_audio_decodes(..., full=True)` in-process (every frame);
- ``check in worker``: the default check in a conversion worker as `prepare` runs it
  (`run_check`: a window of a long file, not all of it; on a tree without it, `run_isolated`
  over the whole file, as `prepare` ran it there). Wall time: the caller waits for the worker,
  so the worker's CPU is in it;
- ``headers in worker``: the same function run as mediablocks must run any FFmpeg parse of an
  upload, in a worker (the whole file sent): the same isolation on both sides of the ratio;
- ``worker round trip``: a job that does nothing (`_jobs.reply(0)`) in the same pool: what any
  check run in a worker costs before it reads a byte;
- ``whole file in worker``: `run_isolated` sending the whole file to the check (what shipping
  the bytes costs).

Goal (issue 30): the check within 2x of reading the headers, however long the recording. The
last table gives it three ways: both in this process (``check``/``headers``); the check in its
worker against the header read in this process (``check in worker``/``headers``: what isolation
adds is counted against the check alone); and both in a worker (``check in worker``/``headers in
worker``), as mediablocks runs anything that parses an upload with FFmpeg.
Every timed call starts after `gc.collect()` and the cases are interleaved (`_common.measure`),
so each runs with cold caches, as it does inside `prepare`. Two figures per case: ``time``,
the wall time (the caller waits for its worker, so the worker's time is in it, and so is any
wait for a core on a loaded machine), and ``cpu``, the CPU seconds counted as `prepare` counts a
block's (this thread's plus what the worker reports for the job, `Budget.spent_cpu`), which a
loaded machine does not inflate.

Run from the repository root: ``python benchmarks/bench_verify.py [--rounds N] [--src TREE/src]``
(``--src``: measure another checkout with this script).
"""

from __future__ import annotations

import argparse
import base64
import gc
import io
import os
import random
import statistics
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Case, measure, median, milliseconds, table

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

RECORDINGS = {
    "60 s WAV (16 kHz)": ("wav", "pcm_s16le", 60),
    "60 s AAC (M4A)": ("mp4", "aac", 60),
    "60 s Opus (WebM)": ("webm", "libopus", 60),
    "300 s AAC (M4A)": ("mp4", "aac", 300),
    "300 s FLAC": ("flac", "flac", 300),
    "120 s FLAC (44.1 kHz stereo)": ("flac", "flac", 120, 44100, "stereo"),
}
"""(container, codec, seconds[, rate, layout]): mono at 16 kHz (Opus: 48 kHz) unless said."""


def _recording(
    container: str, codec: str, seconds: int, rate: int = 0, layout: str = "mono"
) -> bytes:
    import av
    import numpy as np

    rate = rate or (48000 if codec == "libopus" else 16000)
    channels = 2 if layout == "stereo" else 1
    buffer = io.BytesIO()
    rng = np.random.default_rng(3)
    with av.open(buffer, "w", format=container) as output:
        stream = output.add_stream(codec, rate=rate, layout=layout)
        for second in range(seconds):
            t = np.arange(second * rate, (second + 1) * rate) / rate
            wave = np.sin(2 * np.pi * 440 * t) * 8000 + rng.normal(0, 300 * channels, rate)
            samples = np.repeat(wave.astype(np.int16), channels).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(samples, format="s16", layout=layout)
            frame.sample_rate, frame.pts = rate, second * rate
            for packet in stream.encode(frame):
                output.mux(packet)
        for packet in stream.encode(None):
            output.mux(packet)
    return buffer.getvalue()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--src", default=SRC, help="the mediablocks tree to measure (its src/)")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.src)

    import mediablocks as mb
    from mediablocks.convert import _jobs, verify
    from mediablocks.convert.isolation import run_isolated
    from mediablocks.convert.verify import check_audio_decodes

    def as_prepare_runs_it(data: bytes) -> None:
        if hasattr(verify, "run_check"):
            verify.run_check("check_audio_decodes", data, "bench")
        else:
            run_isolated("bench", check_audio_decodes, data, "bench")

    rows = []
    sizes = []
    summary: list[list[str]] = []
    for name, spec in RECORDINGS.items():
        data = _recording(*spec)
        sizes.append(f"{name} {len(data) / 1024:,.0f} KiB")
        cases = [
            Case("headers", _jobs.read_headers, lambda data=data: data),
            Case("probe", lambda d: mb.probe_bytes(d), lambda data=data: data),
            Case("base64", base64.b64encode, lambda data=data: data),
            Case("check", lambda d: check_audio_decodes(d, "bench"), lambda data=data: data),
            Case(
                "check full",
                lambda d: check_audio_decodes(d, "bench", full=True),
                lambda data=data: data,
            ),
            Case("check in worker", as_prepare_runs_it, lambda data=data: data),
            Case(
                "headers in worker",
                lambda d: run_isolated("bench", _jobs.read_headers, d),
                lambda data=data: data,
            ),
            Case("worker round trip", lambda _: run_isolated("bench", _jobs.reply, 0)),
            Case(
                "whole file in worker",
                lambda d: run_isolated("bench", check_audio_decodes, d, "bench"),
                lambda data=data: data,
            ),
        ]
        measure(cases, args.rounds)
        cpu = _cpu_times(cases, args.rounds)
        floor, cpu_floor = median(cases[0]), statistics.median(cpu[0])
        summary.append([name, *_ratios(cases, cpu)])
        for case, spent in zip(cases, cpu, strict=True):
            if case.error:
                rows.append([name, case.name, "error", case.error[:60], "", ""])
                continue
            rows.append(
                [
                    name,
                    case.name,
                    milliseconds(median(case)),
                    f"{median(case) / floor:.2f}x",
                    milliseconds(statistics.median(spent)),
                    f"{statistics.median(spent) / cpu_floor:.2f}x",
                ]
            )
    print(f"median of {args.rounds} interleaved rounds; sizes: {sizes}")
    headers = ["recording", "case", "time", "vs headers", "cpu", "cpu vs headers"]
    print(table(headers, rows))
    print("\nthe check against the header read, each isolated alike (wall time / CPU):")
    print(table(["recording", "in process", "in worker", "both in a worker"], summary))


def _ratios(cases: Sequence[Case], cpu: Sequence[list[float]]) -> list[str]:
    """``check``/``headers``, ``check in worker``/``headers`` and ``check in worker``/``headers
    in worker``, each as wall-time and CPU ratios."""
    index = {case.name: number for number, case in enumerate(cases)}

    def ratio(top: str, bottom: str) -> str:
        a, b = cases[index[top]], cases[index[bottom]]
        if a.error or b.error:
            return "error"
        wall = median(a) / median(b)
        spent = statistics.median(cpu[index[top]]) / statistics.median(cpu[index[bottom]])
        return f"{wall:.2f}x / {spent:.2f}x"

    return [
        ratio("check", "headers"),
        ratio("check in worker", "headers"),
        ratio("check in worker", "headers in worker"),
    ]


def _cpu_times(cases: Sequence[Case], rounds: int) -> list[list[float]]:
    """CPU seconds of each run of each case, counted as `prepare` counts a block's: this
    thread's CPU plus what the worker jobs report (a `Budget`'s ``spent_cpu``), in interleaved
    rounds of their own (after `gc.collect()`, as the timed runs). What the machine's load
    makes the caller wait for a core is in the wall time above, not here."""
    from mediablocks.convert.budget import Budget, use_budget

    spent: list[list[float]] = [[] for _ in cases]
    order = [index for index, case in enumerate(cases) if case.error is None]
    shuffle = random.Random(2025).shuffle
    for _ in range(rounds):
        shuffle(order)
        for index in order:
            argument = cases[index].setup()
            gc.collect()
            budget = Budget(None, cpu_seconds=None)
            with use_budget(budget):
                cases[index].run(argument)
            spent[index].append(budget.spent_cpu())
    return [values or [float("nan")] for values in spent]


if __name__ == "__main__":
    main()
