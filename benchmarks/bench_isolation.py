"""What running converters in worker processes costs, and what the bomb classes cost under it.

1. **Overhead per conversion**: every document and SVG of ``testdata/`` converted through the
   worker pool (`mediablocks.convert.isolation`, the default) against the same call in this
   process (``ConversionLimits(isolate=False)``), interleaved rounds, median; the ratio and the
   added milliseconds per file, and a no-op job's round trip.
   Then three cases back to back, where the worker stays scheduled (the pure round trip).
2. **Start cost**: the first conversion after `shutdown_workers` (a new worker: interpreter,
   converter modules), against `multiprocessing`'s ``spawn`` and ``forkserver`` starting a
   process and returning one result (what a pool built on them would pay instead).
3. **Bomb classes** of issue 18, each in a fresh interpreter under the default limits (1 GiB,
   60 CPU seconds, 8 MiB stack, ``time_budget`` 120 s, or those given on the command line): the
   wall time until the error, the error, the caller's peak RSS and the worker's peak RSS (the
   largest ``ru_maxrss`` among the caller's children).

Run by hand: ``python benchmarks/bench_isolation.py [--rounds 7] [--skip-bombs] [--budget S]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(1, str(ROOT))  # the reader bombs are built by the tests' helpers

from mediablocks.convert import isolation  # noqa: E402
from mediablocks.convert._extract import ExtractedText  # noqa: E402
from mediablocks.convert.limits import ConversionLimits, use_conversion_limits  # noqa: E402
from mediablocks.convert.pdf import render_document  # noqa: E402
from mediablocks.convert.raster import rasterise_svg  # noqa: E402
from mediablocks.convert.text import document_text  # noqa: E402
from mediablocks.media import media_block  # noqa: E402

DOCUMENTS = ROOT / "testdata" / "document"
IMAGES = ROOT / "testdata" / "image"


IN_PROCESS = ConversionLimits(isolate=False)


def _both(call: Callable[[], Any]) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The same call through the worker pool (the default) and in this process."""

    def local() -> Any:
        with use_conversion_limits(IN_PROCESS):
            return call()

    return call, local


def cases() -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """(name, isolated call, in-process call) for every document and SVG of testdata."""
    out: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        (
            "no-op job (round trip)",
            *_both(lambda: isolation.run_isolated("bench", ExtractedText, "", "x")),
        ),
    ]
    for path in sorted(DOCUMENTS.iterdir()):
        mime = media_block(path).mime_type
        data = path.read_bytes()
        if mime == "application/postscript":
            continue
        text = functools.partial(document_text, data, mime, what="bench")
        out.append((f"text {path.name}", *_both(text)))
        if mime == "application/pdf":
            pages = functools.partial(render_document, data, what="bench", max_pages=3)
            out.append((f"pages {path.name}", *_both(pages)))
    for path in sorted(IMAGES.glob("*.svg")):
        svg = functools.partial(rasterise_svg, path.read_bytes(), 1568, None, "bench")
        out.append((f"svg {path.name}", *_both(svg)))
    return out


def overhead(rounds: int) -> None:
    table = cases()
    for _, isolated, local in table:  # warm: the pool, the imports, the caches
        isolated()
        local()
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        order = [
            (name, kind, call) for name, a, b in table for kind, call in (("iso", a), ("in", b))
        ]
        random.shuffle(order)
        for name, kind, call in order:
            start = time.perf_counter()
            call()
            times.setdefault((name, kind), []).append(time.perf_counter() - start)
    print(f"\n## Overhead per conversion (median of {rounds}, worker pool vs in-process)\n")
    print("| case | in-process ms | isolated ms | added ms | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    added = []
    for name, _, _ in table:
        here = statistics.median(times[(name, "in")]) * 1000
        there = statistics.median(times[(name, "iso")]) * 1000
        added.append(there - here)
        print(f"| {name} | {here:.2f} | {there:.2f} | {there - here:+.2f} | {there / here:.2f}x |")
    print(f"\nmedian added per conversion: {statistics.median(added[1:]):.2f} ms")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def back_to_back(count: int = 50) -> None:
    """The same file converted ``count`` times in a row: the worker stays scheduled, so the
    difference is the round trip itself (a loaded machine adds wake-up latency to the above)."""
    print(f"\n## Back to back ({count} conversions in a row, median)\n")
    print("| case | in-process ms | isolated ms | added ms |")
    print("| --- | ---: | ---: | ---: |")
    for name, isolated, local in cases()[:3]:
        spent = {}
        for kind, call in (("in", local), ("iso", isolated), ("in2", local), ("iso2", isolated)):
            runs = []
            for _ in range(count):
                start = time.perf_counter()
                call()
                runs.append(time.perf_counter() - start)
            spent[kind] = statistics.median(runs) * 1000
        here = min(spent["in"], spent["in2"])
        there = min(spent["iso"], spent["iso2"])
        print(f"| {name} | {here:.2f} | {there:.2f} | {there - here:+.2f} |")


def _noop() -> int:
    return os.getpid()


def start_cost(rounds: int) -> None:
    print(f"\n## Start cost of a worker (median of {rounds})\n")
    print("| how | first result ms |")
    print("| --- | ---: |")
    svg = (IMAGES / "no-xml-declaration.svg").read_bytes()
    ours = []
    for _ in range(rounds):
        isolation.shutdown_workers()
        start = time.perf_counter()
        rasterise_svg(svg, 256, None, "bench")
        ours.append(time.perf_counter() - start)
    print(
        f"| mediablocks worker (subprocess, SVG rendered) | {statistics.median(ours) * 1000:.1f} |"
    )
    for method in ("spawn", "forkserver"):
        spent = []
        for _ in range(rounds):
            start = time.perf_counter()
            context = multiprocessing.get_context(method)
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                pool.submit(_noop).result()
            spent.append(time.perf_counter() - start)
        print(f"| multiprocessing {method} (no-op) | {statistics.median(spent) * 1000:.1f} |")


# -- bomb classes, each in a fresh interpreter ----------------------------------------------------


def _pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    tail = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    return bytes(out + tail % (len(objects) + 1, xref))


def _stream(extra: bytes, data: bytes) -> bytes:
    return b"<< /Length %d %s >>\nstream\n%s\nendstream" % (len(data), extra, data)


def _page(contents: bytes, resources: bytes = b"") -> list[bytes]:
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R %s >>" % resources,
        contents,
    ]


def bomb(name: str) -> tuple[bytes, str]:
    """The input of one bomb class and its MIME type."""
    if name == "svg-nested-groups":
        return b'<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9">' + (
            b"<g>" * 300 + b"</g>" * 300 + b"</svg>"
        ), "image/svg+xml"
    if name == "svg-turbulence":
        return (
            b'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><filter id="f">'
            b'<feTurbulence baseFrequency="0.05" numOctaves="1000"/></filter>'
            b'<rect width="400" height="400" filter="url(#f)"/></svg>'
        ), "image/svg+xml"
    if name == "pdf-xobject-fanout":
        objects = _page(_stream(b"", b"/X Do"), b"/Resources << /XObject << /X 5 0 R >> >>")
        for level in range(40):
            last = level == 39
            res = b"" if last else b"/Resources << /XObject << /X %d 0 R >> >>" % (6 + level)
            body = b"0 0 10 10 re f" if last else b"q /X Do Q " * 4
            objects.append(_stream(b"/Type /XObject /Subtype /Form /BBox [0 0 9 9] " + res, body))
        return _pdf(objects), "application/pdf"
    if name == "pdf-inflate-1.5GiB":
        block = b" " * (1 << 20)
        compressor = zlib.compressobj(9)
        head = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
        again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
        checksum = 1
        for _ in range(1536):
            checksum = zlib.adler32(block, checksum)
        packed = head + again * 1535 + compressor.flush()[:-4] + checksum.to_bytes(4, "big")
        return _pdf(_page(_stream(b"/Filter /FlateDecode", packed))), "application/pdf"
    from tests.test_convert_hostile_documents import EPUB, ODS, XLSX, epub, odf, xlsx

    if name == "xlsx-column-xfd":
        return xlsx(b'<row><c r="XFD1"/></row>' * 40_000), XLSX
    if name == "ods-repeated-columns":
        row = b'<table:table-row><table:table-cell table:number-columns-repeated="16384"/>'
        return odf(
            b"<table:table>" + (row + b"</table:table-row>") * 9_000 + b"</table:table>"
        ), ODS
    if name == "epub-unclosed-tags":
        return epub(b"<html><body><p>start</p>" + b"<a " * 5_000), EPUB
    if name == "rtf-hyperlink-fields":
        return (
            b"{\\rtf1\\ansi " + b'{\\field{\\*\\fldinst{HYPERLINK "x" ' * 2_500 + b"}",
            "text/rtf",
        )
    raise ValueError(name)


BOMBS = ["svg-nested-groups", "svg-turbulence", "pdf-xobject-fanout", "pdf-inflate-1.5GiB"]
BOMBS += ["xlsx-column-xfd", "ods-repeated-columns", "epub-unclosed-tags", "rtf-hyperlink-fields"]


def run_one_bomb(name: str, budget: float, memory: int) -> None:
    """In the child interpreter: convert, print one JSON line."""
    data, mime = bomb(name)
    limits = ConversionLimits(memory_bytes=memory)
    start = time.perf_counter()
    outcome = "converted"
    try:
        with use_conversion_limits(limits, budget):
            if mime == "image/svg+xml":
                rasterise_svg(data, 2048, None, name)
            elif mime == "application/pdf":
                render_document(data, what=name, max_pages=1)
            else:
                outcome = f"read: {len(document_text(data, mime, what=name).text):,} characters"
    except Exception as exc:
        outcome = f"{type(exc).__name__}: {str(exc)[len(name) + 2 :][:90]}"
    spent = time.perf_counter() - start
    isolation.shutdown_workers()
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    line = {"name": name, "bytes": len(data), "seconds": spent, "outcome": outcome}
    print(json.dumps(line | {"worker_kib": children, "caller_kib": own}))


def bombs(budget: float, memory: int) -> None:
    print(f"\n## Bomb classes (time_budget={budget:g} s, memory_bytes={memory >> 20} MiB)\n")
    print("| class | input bytes | wall s | outcome | worker peak RSS MiB | caller peak MiB |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for name in BOMBS:
        args = [sys.executable, __file__, "--one", name, "--budget", str(budget)]
        args += ["--memory", str(memory)]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        try:
            row = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            print(f"| {name} | | | the caller died: {done.returncode} {done.stderr[-200:]} | | |")
            continue
        print(
            f"| {name} | {row['bytes']:,} | {row['seconds']:.2f} | {row['outcome']} | "
            f"{row['worker_kib'] / 1024:.0f} | {row['caller_kib'] / 1024:.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--skip-bombs", action="store_true")
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--memory", type=int, default=1 << 30)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one_bomb(args.one, args.budget, args.memory)
        return
    overhead(args.rounds)
    back_to_back()
    start_cost(max(3, args.rounds // 2))
    if not args.skip_bombs:
        bombs(args.budget, args.memory)


if __name__ == "__main__":
    main()
