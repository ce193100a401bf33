"""Ray Data throughput of `mediablocks.ray.encode_batch` with 1 and 2 workers on the same data.

The data: N BMP images (default 160 of 1024x768, 2.25 MiB each) that Anthropic does not take, so
every file is decoded, converted and encoded (the work `prepare` + `write_batch` do per file).
The pipeline is ``read_binary_files -> map_batches(encode_batch, concurrency=k) ->
materialize()`` on a local Ray instance with 2 CPUs; k = 1 and k = 2 run in alternating rounds
in the same run, and the plain loop (``encode_batch`` over the same files in this process, no
Ray) is the baseline. Prints files/s and MB/s per case and the 2-vs-1 ratio.

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
}


def make_files(folder: Path, count: int) -> int:
    """BMP images with a gradient and noise (so encoders have real work), total bytes."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    total = 0
    for number in range(count):
        x = np.linspace(0, 255, 1024, dtype=np.float32)[None, :, None]
        y = np.linspace(0, 255, 768, dtype=np.float32)[:, None, None]
        noise = rng.integers(0, 24, (768, 1024, 3), dtype=np.uint8)
        pixels = ((x + y + number * 7) % 256).astype(np.uint8) + noise
        path = folder / f"img{number:04d}.bmp"
        Image.fromarray(pixels, "RGB").save(path)
        total += path.stat().st_size
    return total


def run_ray(ray: Any, folder: Path, workers: int) -> tuple[float, int]:
    start = time.perf_counter()
    ds = ray.data.read_binary_files(str(folder), include_paths=True)
    done = ds.map_batches(
        encode_batch, fn_kwargs=FN_KWARGS, batch_size=4, concurrency=workers
    ).materialize()
    elapsed = time.perf_counter() - start
    errors = sum(1 for row in done.iter_rows() if row["error"])
    assert errors == 0, f"{errors} files failed"
    return elapsed, done.count()


def run_plain(folder: Path) -> tuple[float, int]:
    files = sorted(folder.iterdir())
    start = time.perf_counter()
    count = 0
    for index in range(0, len(files), 4):
        chunk = files[index : index + 4]
        out = encode_batch(
            {"bytes": [p.read_bytes() for p in chunk], "path": [str(p) for p in chunk]},
            **FN_KWARGS,
        )
        assert not any(out["error"])
        count += len(out["line"])
    return time.perf_counter() - start, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=160)
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
    print(f"encode_batch on Ray Data: {args.files} BMP files, {mb_total:.1f} MB, anthropic")
    print(f"  {'case':<22} {'median s':>9} {'files/s':>8} {'MB/s':>7}")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, seconds in medians.items():
        rate = args.files / seconds
        print(f"  {name:<22} {seconds:9.2f} {rate:8.2f} {mb_total / seconds:7.1f}")
    ratio = medians["ray, 1 worker"] / medians["ray, 2 workers"]
    print(f"  throughput ratio 2 workers / 1 worker: {ratio:.2f}x")


if __name__ == "__main__":
    main()
