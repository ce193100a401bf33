"""Near-limit decompression: a small PNG that declares 9990x9990 pixels (just under the 100 MP
bomb guard) through `prepare_block`, as `prepare` and `mediablocks inspect` run it.

Run from the repository root: ``python benchmarks/bench_near_limit.py [PATH]``. It writes the PNG
(a gradient with lines and ellipses, under 1 MB: a few seconds) unless PATH names one already
made, then runs each case in a fresh process and prints the time and the peak RSS growth (Linux
``VmHWM``, reset through /proc/self/clear_refs) against the size of the output image's pixels.

The promise: peak memory bounded by the output size plus a constant, not by the declared input
size (9990x9990 RGB is 299 MB of pixels).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

CASES = {
    "anthropic (8000 px cap)": ("anthropic", False),
    "anthropic optimal (1568 px)": ("anthropic", True),
    "openai optimal (2048/768 px)": ("openai", True),
    "gemini (no pixel cap: verify only)": ("gemini", False),
}


def make_png(path: Path) -> None:
    from PIL import Image, ImageDraw

    image = Image.linear_gradient("L").resize((9990, 9990)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for at in range(0, 9990, 333):
        draw.line((0, at, 9990, 9990 - at), fill=(200, 30, 30), width=5)
        draw.ellipse((at, at, at + 500, at + 300), outline=(20, 120, 220), width=4)
    image.save(path, "PNG", compress_level=6)


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(path: str, provider: str, optimal: str) -> None:
    import gc

    from mediablocks.media import ImageBlock
    from mediablocks.preparing import prepare_block

    block = ImageBlock.from_bytes(Path(path).read_bytes())
    block.mime_type  # noqa: B018 - detect before measuring
    gc.collect()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = _status_kb("VmRSS")
    start = time.perf_counter()
    fitted, _ = prepare_block(block, provider, optimal_size=optimal == "1")
    took = time.perf_counter() - start
    import io

    from PIL import Image

    with Image.open(io.BytesIO(fitted.read())) as out:
        size = out.size
    print((_status_kb("VmHWM") - before) * 1024, took, size[0], size[1])


def main(path: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="mb-near-") as folder:
        if path is None:
            path = Path(folder) / "near-limit-9990.png"
            make_png(path)
        print(f"input: {path.name}, 9990x9990 declared, {path.stat().st_size / 1e3:.0f} KB")
        for label, (provider, optimal) in CASES.items():
            done = subprocess.run(
                [sys.executable, __file__, "--child", str(path), provider, "1" if optimal else "0"],
                capture_output=True,
                text=True,
                check=True,
            )
            rss, took, width, height = done.stdout.split()
            output = int(width) * int(height) * 3
            print(
                f"{label:<36}: {float(took):6.2f} s, peak RSS growth {int(rss) / 1e6:7.1f} MB "
                f"= {int(rss) / output:5.2f}x the {width}x{height} output's RGB pixels"
            )


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(*sys.argv[2:])
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
