"""PDF pages as images: mediablocks (pypdfium2) against ``pdftoppm`` (poppler), in one run.

The input is ``testdata/document/report.pdf`` (a LibreOffice page of text, fonts embedded)
repeated into a 10-page and a 40-page PDF with pypdfium2. Both sides render every page at 150 dpi
to JPEG at quality 85 (``pdftoppm -r 150 -jpeg -jpegopt quality=85``) and to PNG; the baseline's
time includes its process start, as a caller shelling out would pay it. The ratio is
mediablocks' median time over pdftoppm's.

Peak memory is measured in a fresh process per run: the growth of the peak resident set size
(``VmHWM`` after resetting it through ``/proc/self/clear_refs``, so PDFium's C allocations count;
Linux only) while rendering, in MiB and as a multiple of the largest page image produced (the
file, and its RGB bitmap: one page's pixels are the floor for any renderer). The
40-page rows show memory does not grow with the page count (pages are rendered one at a time).

Run by hand from the repository root: ``python benchmarks/bench_documents.py [--rounds 5]``.
Needs the ``pdf`` extra and, for the baseline, ``pdftoppm`` (apt-get install poppler-utils).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from mediablocks.convert.pdf import render_pages  # noqa: E402

MiB = 1024 * 1024
SOURCE = ROOT / "testdata" / "document" / "report.pdf"
DPI = 150


def make_pdf(pages: int, path: Path) -> None:
    """``pages`` copies of report.pdf's page, written with pypdfium2."""
    import pypdfium2 as pdfium

    source = pdfium.PdfDocument(SOURCE.read_bytes())
    document = pdfium.PdfDocument.new()
    document.import_pages(source, [0] * pages)
    document.save(str(path))
    document.close()
    source.close()


def ours(data: bytes, image_format: str) -> tuple[int, int]:
    """Every page rendered; returns the largest page image's bytes and its RGB bitmap's bytes."""
    largest = bitmap = 0
    for page in render_pages(
        data,
        max_pages=10_000,
        dpi=DPI,
        max_side=100_000,
        image_format=image_format,  # type: ignore[arg-type]
    ):
        largest = max(largest, len(page.data))
        bitmap = max(bitmap, page.width * page.height * 3)
    return largest, bitmap


def baseline(source: Path, folder: Path, image_format: str) -> list[str]:
    if image_format == "png":
        return ["pdftoppm", "-r", str(DPI), "-png", str(source), str(folder / "page")]
    return [
        "pdftoppm", "-r", str(DPI), "-jpeg", "-jpegopt", "quality=85",
        str(source), str(folder / "page"),
    ]  # fmt: skip


def median_time(run: Callable[[], object], rounds: int) -> float:
    run()  # warm up
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _status(field: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def memory_child(source: str, image_format: str) -> None:
    """Peak RSS growth while rendering: the high-water mark is reset first (Linux clear_refs)."""
    import pypdfium2  # noqa: F401  (libraries loaded; nothing rendered yet)
    from PIL import JpegImagePlugin, PngImagePlugin  # noqa: F401

    data = Path(source).read_bytes()
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    before = _status("VmRSS")
    largest, bitmap = ours(data, image_format)
    growth = _status("VmHWM") - before
    print(json.dumps({"growth": growth, "largest": largest, "bitmap": bitmap}))


def peak(source: Path, image_format: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(source), image_format],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    tool = shutil.which("pdftoppm")
    print(
        "| case | mediablocks | pdftoppm | ratio | peak RSS growth | x page file | x page bitmap |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="bench-documents-") as scratch:
        folder = Path(scratch)
        for pages in (10, 40):
            source = folder / f"report-{pages}.pdf"
            make_pdf(pages, source)
            data = source.read_bytes()
            for image_format in ("jpeg", "png"):
                name = f"{pages} pages -> {image_format.upper()}, {DPI} dpi"
                mine = median_time(lambda: ours(data, image_format), args.rounds)  # noqa: B023
                theirs = ratio = "-"
                if tool:
                    out = folder / f"out-{pages}-{image_format}"
                    out.mkdir()
                    command = baseline(source, out, image_format)
                    seconds = median_time(
                        lambda: subprocess.run(command, check=True),  # noqa: B023
                        args.rounds,
                    )
                    theirs, ratio = f"{seconds * 1000:.0f} ms", f"{mine / seconds:.2f}x"
                memory = peak(source, image_format)
                growth, largest, bitmap = memory["growth"], memory["largest"], memory["bitmap"]
                print(
                    f"| {name} | {mine * 1000:.0f} ms | {theirs} | {ratio} | "
                    f"{growth / MiB:.1f} MiB | {growth / largest:.0f}x | {growth / bitmap:.1f}x |"
                )
    note = "" if tool else " pdftoppm is not on PATH: baseline skipped."
    print(f"\n{os.cpu_count()} CPUs; median of {args.rounds} rounds.{note}")


if __name__ == "__main__":
    main()
