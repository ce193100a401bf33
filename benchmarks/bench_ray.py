"""Ray Data throughput of `mediablocks.ray.encode_batch` with 1 and 2 workers on the same data.

The data: N JPEG photos (default 48 of 4000x3000, 12 MP) fitted to Anthropic's optimal size
(``prepare_options={"optimal_size": True}``: decode at a reduced scale, resize to 1568 px, save),
then encoded as batch-file lines: the per-file work of a real preparation job. The pipeline is
``from_items(paths) -> map_batches(encode_batch, compute=TaskPoolStrategy(size=k)) ->
materialize()`` on a local
Ray instance with 2 CPUs, set up as docs/ray.md says (Ray Data's per-operator reservation off, so
the pool size decides; each worker reads its own files, as on a cluster with shared storage);
k = 1 and k = 2 run in alternating rounds in the same run, with the plain loop (``encode_batch``
over the same files in this process, no Ray) as the baseline. Prints files/s and MB/s per case,
the CPU seconds each file cost inside ``encode_batch`` (``time.process_time`` in the worker, so
a slower wall time at equal CPU per file is waiting for a core, not more work), the 1 -> 2 CPU
throughput ratio, the load average before and after each case, and the machine's idle CPU during
each case (``/proc/stat``: idle core-seconds over wall seconds, i.e. how many cores nobody used).
The last lines say whether a core was free for the second worker: the 1 -> 2 ratio means
something about Ray only when the 1-CPU case left at least one core idle.

Run from the repository root (needs ``pip install 'mediablocks[ray]'``)::

    python benchmarks/bench_ray.py
    python benchmarks/bench_ray.py --files 96 --rounds 3
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parent.parent / "src")
sys.path.insert(0, SRC)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")]))
# (Ray's workers inherit PYTHONPATH: they import this tree's mediablocks too.)

from mediablocks.ray import encode_batch  # noqa: E402

FN_KWARGS: dict[str, Any] = {
    "provider": "anthropic",
    "prompt": "Describe this image.",
    "fields": {"model": "claude-sonnet-4-5", "max_tokens": 300},
    "prepare_options": {"optimal_size": True},
}
WIDTH, HEIGHT = 4000, 3000


def make_files(folder: Path, count: int) -> int:
    """12 MP JPEG photos with a gradient and noise (so codecs have real work); total bytes."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    x = np.linspace(0, 255, WIDTH, dtype=np.float32)[None, :, None]
    y = np.linspace(0, 255, HEIGHT, dtype=np.float32)[:, None, None]
    total = 0
    for number in range(count):
        noise = rng.integers(0, 24, (HEIGHT, WIDTH, 3), dtype=np.uint8)
        pixels = ((x + y + number * 7) % 232).astype(np.uint8) + noise
        path = folder / f"img{number:04d}.jpg"
        Image.fromarray(pixels, "RGB").save(path, quality=90)
        total += path.stat().st_size
    return total


def cpu_times() -> tuple[float, float]:
    """(idle, total) core-seconds of the whole machine so far, from /proc/stat (Linux)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [float(x) for x in handle.readline().split()[1:]]
    except OSError:
        return math.nan, math.nan
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return idle / ticks, sum(fields[:8]) / ticks


def timed_encode(batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """`encode_batch` plus the CPU seconds it used per file in this worker process."""
    started = time.process_time()
    out = encode_batch(batch, **kwargs)
    per_file = (time.process_time() - started) / max(1, len(out["id"]))
    out["cpu_s"] = [per_file] * len(out["id"])
    return out


def run_ray(ray: Any, folder: Path, workers: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds per file)."""
    paths = [{"path": str(path)} for path in sorted(folder.iterdir())]
    start = time.perf_counter()
    ds = ray.data.from_items(paths, override_num_blocks=max(2, len(paths) // 2))
    done = ds.map_batches(
        timed_encode,
        fn_kwargs=FN_KWARGS,
        batch_size=2,
        compute=ray.data.TaskPoolStrategy(size=workers),  # Ray < 2.51: concurrency=workers
    ).materialize()
    elapsed = time.perf_counter() - start
    rows = list(done.iter_rows())
    errors = sum(1 for row in rows if row["error"])
    assert errors == 0, f"{errors} files failed"
    return elapsed, sum(row["cpu_s"] for row in rows) / len(rows)


def run_plain(folder: Path) -> tuple[float, float]:
    files = sorted(folder.iterdir())
    start, cpu = time.perf_counter(), time.process_time()
    count = 0
    for index in range(0, len(files), 2):
        chunk = files[index : index + 2]
        out = encode_batch({"path": [str(p) for p in chunk]}, **FN_KWARGS)
        assert not any(out["error"])
        count += len(out["line"])
    return time.perf_counter() - start, (time.process_time() - cpu) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    import ray

    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        folder = Path(tmp)
        total = make_files(folder, args.files)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        context.op_resource_reservation_enabled = False  # as docs/ray.md says for small nodes
        cases = {
            "plain loop (no Ray)": lambda: run_plain(folder),
            "ray, 1 CPU": lambda: run_ray(ray, folder, 1),
            "ray, 2 CPUs": lambda: run_ray(ray, folder, 2),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        loads: dict[str, list[float]] = {name: [] for name in cases}
        idle: dict[str, list[float]] = {name: [] for name in cases}
        try:
            run_ray(ray, folder, 2)  # warm-up: workers started, modules imported
            for _ in range(args.rounds):
                for name, run in cases.items():
                    loads[name].append(os.getloadavg()[0])
                    idle_before, _ = cpu_times()
                    started = time.perf_counter()
                    seconds, per_file = run()
                    idle_after, _ = cpu_times()
                    idle[name].append((idle_after - idle_before) / (time.perf_counter() - started))
                    times[name].append(seconds)
                    cpu[name].append(per_file)
                    loads[name].append(os.getloadavg()[0])
        finally:
            ray.shutdown()

    mb_total = total / 1e6
    print(
        f"encode_batch on Ray Data: {args.files} JPEG files of {WIDTH}x{HEIGHT}, "
        f"{mb_total:.1f} MB, fitted for anthropic (optimal size), {args.rounds} round(s)"
    )
    header = f"  {'case':<22} {'median s':>9} {'files/s':>8} {'MB/s':>7} {'CPU s/file':>11}"
    print(header + f" {'load avg':>9} {'idle cores':>10}")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, seconds in medians.items():
        rate = args.files / seconds
        per_file = statistics.median(cpu[name])
        load = f"{min(loads[name]):.1f}-{max(loads[name]):.1f}"
        print(
            f"  {name:<22} {seconds:9.2f} {rate:8.2f} {mb_total / seconds:7.1f} "
            f"{per_file:11.3f} {load:>9} {statistics.median(idle[name]):10.2f}"
        )
    ratio = medians["ray, 1 CPU"] / medians["ray, 2 CPUs"]
    print(f"  throughput ratio 2 CPUs / 1 CPU: {ratio:.2f}x")
    cores = os.cpu_count() or 1
    spare = statistics.median(idle["ray, 1 CPU"])
    wall_per_file = medians["ray, 1 CPU"] / args.files
    share = statistics.median(cpu["ray, 1 CPU"]) / wall_per_file
    print(
        f"  machine: {cores} cores; while one worker ran, {spare:.2f} cores stayed idle and the "
        f"worker got {share:.2f} of a core (CPU s per file / wall s per file)"
    )
    if spare >= 0.8:
        verdict = "a core was free for the second worker: the ratio measures Ray's scaling"
    else:
        verdict = (
            "no core was free for the second worker (other processes held them): the ratio "
            "measures the machine's load, not Ray; rerun on an idle machine"
        )
    print(f"  {verdict}")


if __name__ == "__main__":
    main()
