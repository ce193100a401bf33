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

Last, the request case (issue 30): 30 phone photos (12 MP JPEGs of 4.3-5.6 MB as a camera writes
them: quality 95, an sRGB ICC profile, EXIF with GPS, every third one taken upright) in one
message through ``mb.prepare(..., "anthropic")``. Each is over Anthropic's 5 MB per-image limit
and together they are over its 32 MB request limit, so `prepare` plans each photo's byte share
and fits it (2000 px: the cap for more than 20 images). The floor is what any preparation must
do for each photo once it knows the answer: one draft-mode decode, one resize to the output size,
one save at the quality `prepare` chose (in the file's own orientation: turning the upright
photos is work `prepare` does on top). Promise: ``prepare`` at most 1.1x the floor by the wall
clock; the ratio of CPU times (no worker runs: checked) is printed beside it.

``--case fit|bytes|photos`` runs one case only.
"""

from __future__ import annotations

import argparse
import gc
import io
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageCms, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import mediablocks as mb
from mediablocks.convert import isolation
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("all", "fit", "bytes", "photos"), default="all")
    case = parser.parse_args().case
    with tempfile.TemporaryDirectory(prefix="mb-bench-") as folder:
        if case in ("all", "fit"):
            fit_case(Path(folder))
        if case in ("all", "bytes"):
            byte_limit_case(Path(folder))
    if case in ("all", "photos"):
        request_case()


def fit_case(folder: Path) -> None:
    path = make_photo(folder)
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


PHONE_SIZE = (4032, 3024)  # a 12 MP phone camera
PHOTOS = 30
_SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def make_phone_photo(seed: int) -> bytes:
    """A 12 MP JPEG as a phone writes it: a smooth scene under grain and sensor noise (how much
    varies with ``seed``), quality 95 (4:2:0), an sRGB ICC profile, EXIF with the camera and
    GPS; every third one is upright (EXIF orientation 6, stored sideways)."""
    rnd = random.Random(seed)
    small = Image.new("RGB", (PHONE_SIZE[0] // 16, PHONE_SIZE[1] // 16))
    draw = ImageDraw.Draw(small)
    for row in range(small.height):
        t = row / small.height
        draw.line((0, row, small.width, row), fill=(120 + int(80 * t), 150 + int(40 * t), 200))
    for _ in range(40):
        x, y = rnd.randrange(small.width), rnd.randrange(small.height)
        box = (x, y, x + rnd.randrange(5, 80), y + rnd.randrange(5, 60))
        draw.ellipse(box, fill=(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)))
    scene = small.resize(PHONE_SIZE, Image.Resampling.BICUBIC)
    grain = Image.effect_noise((PHONE_SIZE[0] // 4, PHONE_SIZE[1] // 4), 70)
    grain = grain.resize(PHONE_SIZE, Image.Resampling.BICUBIC)
    texture = Image.blend(grain, Image.effect_noise(PHONE_SIZE, 20), 0.5)
    photo = Image.blend(scene, Image.merge("RGB", (texture,) * 3), rnd.uniform(0.3, 0.5))
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "BenchPhone", "Model 12"
    exif[0x0112] = 6 if seed % 3 == 0 else 1
    exif.get_ifd(0x8825)[2] = (52.0, 22.0, 1.0)  # GPS latitude
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=95, exif=exif.tobytes(), icc_profile=_SRGB)
    return out.getvalue()


def prepare_photos(photos: list[bytes]) -> tuple[list[mb.Message], mb.PrepareReport]:
    """The photos in one user message, prepared for Anthropic (fresh blocks every run)."""
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(data) for data in photos])
    return mb.prepare_with_report([message], "anthropic")


def photo_answers(photos: list[bytes]) -> list[tuple[tuple[int, int], int]]:
    """For each photo: the size `prepare` made it (in the file's orientation) and its quality;
    checks every result is within Anthropic's per-image and request limits."""
    prepared, report = prepare_photos(photos)
    outputs = [block.read() for block in prepared[0].content if isinstance(block, mb.MediaBlock)]
    assert len(outputs) == len(photos)
    assert all(4 * ((len(out) + 2) // 3) <= 5 * 1024 * 1024 for out in outputs)
    assert sum(4 * ((len(out) + 2) // 3) for out in outputs) <= 32_000_000
    answers = []
    for data, out, entry in zip(photos, outputs, report.blocks, strict=True):
        detail = next(c.detail for c in entry.changes if c.kind == "re-encoded")
        with Image.open(io.BytesIO(out)) as image, Image.open(io.BytesIO(data)) as source:
            size = image.size
            if (source.width > source.height) != (size[0] > size[1]):
                size = (size[1], size[0])  # the floor works in the file's orientation
        answers.append((size, int(detail.split()[-1])))
    return answers


def request_case() -> None:
    photos = [make_phone_photo(seed) for seed in range(PHOTOS)]
    over = sum(4 * ((len(data) + 2) // 3) > 5 * 1024 * 1024 for data in photos)
    assert over == PHOTOS, "every photo must be over the per-image limit"
    answers = photo_answers(photos)
    sizes = sorted({size for size, _ in answers})
    qualities = sorted({quality for _, quality in answers})
    print(
        f"\ninput: {PHOTOS} phone photos {PHONE_SIZE[0]}x{PHONE_SIZE[1]}, "
        f"{min(map(len, photos)) / 1e6:.1f}-{max(map(len, photos)) / 1e6:.1f} MB each "
        f"(sum {sum(map(len, photos)) / 1e6:.0f} MB) -> anthropic: sizes {sizes}, "
        f"qualities {qualities}"
    )

    def floor() -> list[bytes]:  # the outputs are kept, as any preparation returns them
        return [byte_floor(data, size, q) for data, (size, q) in zip(photos, answers, strict=True)]

    wall, cpu = both_clocks({"floor": floor, "ours": lambda: prepare_photos(photos)}, repeats=7)
    assert isolation._pool is None, "a photo went to a worker process"
    for clock, best in (("wall", wall), ("CPU", cpu)):
        print(f"floor (draft+resize+save) x{PHOTOS}, {clock:<4} : {best['floor'] * 1000:7.1f} ms")
        print(f"mb.prepare, {PHOTOS} photos, {clock:<4}        : {best['ours'] * 1000:7.1f} ms")
    print("workers started                 : none (every photo decoded in the caller)")
    for clock, best, promise in (("wall", wall, "  (promise: <= 1.1x)"), ("CPU", cpu, "")):
        ratio = best["ours"] / best["floor"]
        print(f"prepare / floor, {clock:<4}           : {ratio:5.2f}x{promise}")


def both_clocks(
    runs: dict[str, Callable[[], object]], repeats: int
) -> tuple[dict[str, float], dict[str, float]]:
    """`timings` by the wall clock and by this process's CPU time (steadier on a loaded
    machine; only right when no worker process does part of the work, which is checked)."""
    wall = {name: float("inf") for name in runs}
    cpu = dict(wall)
    for run in runs.values():  # warm up
        run()
    for _ in range(repeats):
        for name, run in runs.items():
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            wall[name] = min(wall[name], time.perf_counter() - start)
            cpu[name] = min(cpu[name], time.process_time() - start_cpu)
    return wall, cpu


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--rss-child":
        rss_child(sys.argv[2], sys.argv[3], *sys.argv[4:])
    else:
        main()
