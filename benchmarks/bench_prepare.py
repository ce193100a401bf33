"""Preparing a 24 MP photo for a 1568 px target: time and memory against raw Pillow baselines.

Run from the repository root: ``python benchmarks/bench_prepare.py``. It makes a noisy
6000x4000 JPEG (about 20 MB, the worst case for a codec) in a temporary folder, then measures in
one run:

- ``draft 1/2 decode``: Pillow decoding the same file at DCT scale 1/2 (``draft`` + ``load``),
  the floor for any preparation that reads the pixels;
- ``thumbnail + save``: the naive recipe (``Image.thumbnail`` to 1568 px, then save as JPEG);
- ``fit_image``: mediablocks fitting the file to a 1568 px long edge (orientation, metadata,
  downscale, JPEG encode).

It prints the ratios the project promises (``fit_image`` at most 2x the 1/2-scale decode and at
least 2x faster than thumbnail + save) and the peak memory of ``fit_image``: Python allocations
(tracemalloc) and the process's peak RSS growth, against the JPEG's size (promise: under 6x).

Then the byte-limit case: a noisy 8000x6000 (48 MP) JPEG fitted to Anthropic's 5 MiB (base64)
per-image limit, where neither a pixel limit nor the default quality helps. Its floor is what any
fit must do once it knows the answer: decode at the reduced DCT scale (``draft``), one resize to
the output size, one save at the output quality. Promise: ``fit_image`` at most 1.5x the floor,
and peak RSS growth at most 6x the file (the floor's is printed beside it).
"""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from mediablocks.images import ImageTarget, fit_image
from mediablocks.providers.registry import limits_for

TARGET = 1568
REPEATS = 5


def make_photo(folder: Path, size: tuple[int, int] = (6000, 4000)) -> Path:
    """A noisy JPEG (6000x4000 by default) with an EXIF block, written once."""
    path = folder / f"noisy-{size[0] * size[1] // 1_000_000}mp.jpg"
    noise = Image.effect_noise(size, 60).convert("RGB")
    exif = Image.Exif()
    exif[0x010F] = "BenchCam"
    noise.save(path, "JPEG", quality=93, exif=exif.tobytes())
    return path


def timings(runs: dict[str, Callable[[], object]], repeats: int = REPEATS) -> dict[str, float]:
    """The fastest of ``repeats`` timings of each run, in seconds.

    Runs are interleaved (one of each per round) so that load from other processes hits them
    alike; the minimum is the least disturbed measurement.
    """
    best = {name: float("inf") for name in runs}
    for run in runs.values():  # warm up
        run()
    for _ in range(repeats):
        for name, run in runs.items():
            gc.collect()
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def draft_decode(data: bytes) -> None:
    with Image.open(io.BytesIO(data)) as image:
        image.draft("RGB", (image.width // 2, image.height // 2))
        image.load()


def thumbnail_and_save(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        image.thumbnail((TARGET, TARGET))
        out = io.BytesIO()
        image.save(out, "JPEG", quality=90)
        return out.getvalue()


def prepare_photo(data: bytes) -> bytes:
    target = ImageTarget(frozenset({"image/jpeg", "image/png"}), optimal_side=TARGET)
    return fit_image(data, target).data


BYTE_TARGET = ImageTarget.from_limits(limits_for("anthropic"))


def fit_to_bytes(data: bytes) -> bytes:
    return fit_image(data, BYTE_TARGET).data


def byte_floor(data: bytes, size: tuple[int, int], quality: int) -> bytes:
    """Decode at the reduced DCT scale, one resize to ``size``, one save at ``quality``."""
    with Image.open(io.BytesIO(data)) as image:
        image.draft("YCbCr", size)
        frame = image.resize(size, Image.Resampling.HAMMING) if image.size != size else image
        out = io.BytesIO()
        frame.save(out, "JPEG", quality=quality)
        return out.getvalue()


def peak_rss_growth(path: Path, run: str = "fit", *extra: str) -> int:
    """Peak RSS of a fresh Python process during one call (``run``: ``fit``, ``bytes`` or
    ``floor``), above its RSS just before the call, in bytes (Linux: the peak is reset through
    /proc/self/clear_refs)."""
    done = subprocess.run(
        [sys.executable, __file__, "--rss-child", str(path), run, *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.strip())


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss_child(path: str, run: str, *extra: str) -> None:
    data = Path(path).read_bytes()
    prepare_photo(_tiny_jpeg())  # warm up: imports and Pillow's plugins
    gc.collect()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # Linux: reset the peak RSS (VmHWM) to the current RSS
    before = _status_kb("VmRSS")
    if run == "fit":
        prepare_photo(data)
    elif run == "bytes":
        fit_to_bytes(data)
    else:
        byte_floor(data, (int(extra[0]), int(extra[1])), int(extra[2]))
    print((_status_kb("VmHWM") - before) * 1024)


def _tiny_jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64)).save(out, "JPEG")
    return out.getvalue()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="mb-bench-") as folder:
        path = make_photo(Path(folder))
        data = path.read_bytes()
        size_mb = len(data) / 1e6
        print(f"input: {path.name}, 6000x4000, {size_mb:.1f} MB")

        best = timings(
            {
                "decode": lambda: draft_decode(data),
                "naive": lambda: thumbnail_and_save(data),
                "ours": lambda: prepare_photo(data),
            }
        )
        decode, naive, ours = best["decode"], best["naive"], best["ours"]
        result = Image.open(io.BytesIO(prepare_photo(data)))
        print(f"draft 1/2 decode : {decode * 1000:7.1f} ms")
        print(f"thumbnail + save : {naive * 1000:7.1f} ms")
        print(f"fit_image        : {ours * 1000:7.1f} ms  -> {result.size[0]}x{result.size[1]}")
        print(f"fit_image / draft decode    : {ours / decode:5.2f}x  (promise: <= 2.0x)")
        print(f"thumbnail+save / fit_image  : {naive / ours:5.2f}x  (promise: >= 2.0x)")

        tracemalloc.start()
        prepare_photo(data)
        _, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = peak_rss_growth(path)
        print(f"tracemalloc peak : {traced / 1e6:7.1f} MB ({traced / len(data):.2f}x the JPEG)")
        print(f"peak RSS growth  : {rss / 1e6:7.1f} MB ({rss / len(data):.2f}x the JPEG)")
        print("memory promise   : peak under 6x the JPEG file size")
        byte_limit_case(Path(folder))


def byte_limit_case(folder: Path) -> None:
    path = make_photo(folder, (8000, 6000))
    data = path.read_bytes()
    fitted = fit_image(data, BYTE_TARGET)
    quality = int(next(c.detail for c in fitted.changes if c.kind == "re-encoded").split()[-1])
    size = (fitted.width, fitted.height)
    print(
        f"\ninput: {path.name}, 8000x6000, {len(data) / 1e6:.1f} MB -> anthropic 5 MiB base64: "
        f"{size[0]}x{size[1]}, quality {quality}, {len(fitted.data) / 1e6:.2f} MB"
    )
    best = timings(
        {
            "floor": lambda: byte_floor(data, size, quality),
            "ours": lambda: fit_to_bytes(data),
        },
        repeats=3,
    )
    print(f"floor (draft+resize+save) : {best['floor'] * 1000:7.1f} ms")
    print(f"fit_image to 5 MiB        : {best['ours'] * 1000:7.1f} ms")
    print(f"fit_image / floor         : {best['ours'] / best['floor']:5.2f}x  (promise: <= 1.5x)")
    ours_rss = peak_rss_growth(path, "bytes")
    floor_rss = peak_rss_growth(path, "floor", str(size[0]), str(size[1]), str(quality))
    for label, rss in (("fit", ours_rss), ("floor", floor_rss)):
        print(f"peak RSS growth, {label:<8} : {rss / 1e6:7.1f} MB ({rss / len(data):.2f}x file)")
    print("memory promise            : fit peak under 6x the JPEG file size")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--rss-child":
        rss_child(sys.argv[2], sys.argv[3], *sys.argv[4:])
    else:
        main()
