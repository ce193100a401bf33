"""Ray Data throughput of `mediablocks.ray.encode_batch` with 1 and 2 workers on the same data.

The data: N JPEG photos (default 48 of 4000x3000, 12 MP) fitted to Anthropic's optimal size
(``prepare_options={"optimal_size": True}``: decode at a reduced scale, resize to 1568 px, save),
then encoded as batch-file lines: the per-file work of a real preparation job. The pipeline is
``from_items(paths) -> map_batches(encode_batch, compute=TaskPoolStrategy(size=k)) ->
materialize()`` on a local Ray instance with 2 CPUs (each worker reads its own files, as on a
cluster with shared storage); k = 1 and k = 2 run in alternating rounds in the same run, with the
plain loop (``encode_batch`` over the same files in this process, no Ray) as the baseline. Prints
files/s and MB/s per case and the 2-vs-1 throughput ratio.

Run from the repository root (needs ``pip install 'mediablocks[ray]'``)::

    python benchmarks/bench_ray.py
    python benchmarks/bench_ray.py --files 96 --rounds 3
"""

from __future__ import annotations

import argparse
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


def run_ray(ray: Any, folder: Path, workers: int) -> tuple[float, int]:
    paths = [{"path": str(path)} for path in sorted(folder.iterdir())]
    start = time.perf_counter()
    ds = ray.data.from_items(paths)
    done = ds.map_batches(
        encode_batch,
        fn_kwargs=FN_KWARGS,
        batch_size=2,
        compute=ray.data.TaskPoolStrategy(size=workers),
    ).materialize()
    elapsed = time.perf_counter() - start
    errors = sum(1 for row in done.iter_rows() if row["error"])
    assert errors == 0, f"{errors} files failed"
    return elapsed, done.count()


def run_plain(folder: Path) -> tuple[float, int]:
    files = sorted(folder.iterdir())
    start = time.perf_counter()
    count = 0
    for index in range(0, len(files), 2):
        chunk = files[index : index + 2]
        out = encode_batch({"path": [str(p) for p in chunk]}, **FN_KWARGS)
        assert not any(out["error"])
        count += len(out["line"])
    return time.perf_counter() - start, count


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
        ray.data.DataContext.get_current().enable_progress_bars = False
        ray.data.DataContext.get_current().print_on_execution_start = False
        try:
            run_ray(ray, folder, 2)  # warm-up: workers started, modules imported
            times: dict[str, list[float]] = {"plain loop (no Ray)": [], "ray, 1 worker": []}
            times["ray, 2 workers"] = []
            for _ in range(args.rounds):
                times["plain loop (no Ray)"].append(run_plain(folder)[0])
                times["ray, 1 worker"].append(run_ray(ray, folder, 1)[0])
                times["ray, 2 workers"].append(run_ray(ray, folder, 2)[0])
        finally:
            ray.shutdown()

    mb_total = total / 1e6
    print(
        f"encode_batch on Ray Data: {args.files} JPEG files of {WIDTH}x{HEIGHT}, "
        f"{mb_total:.1f} MB, fitted for anthropic (optimal size)"
    )
    print(f"  {'case':<22} {'median s':>9} {'files/s':>8} {'MB/s':>7}")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, seconds in medians.items():
        rate = args.files / seconds
        print(f"  {name:<22} {seconds:9.2f} {rate:8.2f} {mb_total / seconds:7.1f}")
    ratio = medians["ray, 1 worker"] / medians["ray, 2 workers"]
    print(f"  throughput ratio 2 workers / 1 worker: {ratio:.2f}x")
    cores, load = os.cpu_count(), os.getloadavg()[0]
    print(f"  (machine: {cores} cores, load average {load:.1f}: a second worker needs a free core)")


if __name__ == "__main__":
    main()
