"""What each bomb class of issue 25 costs the caller (and the worker), per input byte.

Every case runs in a fresh interpreter, which reads its input (built beforehand by another one
from ``tests/bombs.py``), then times one call: the caller's CPU seconds (``time.process_time``:
this process only, not its workers), its wall time, the caller's peak RSS (``VmHWM``) and the
largest peak RSS among its children (the worker processes: ``ru_maxrss`` of the children, which
counts at least the caller's size when the child was started, so a small figure there is an
upper bound). The goals: under 1 ms of the caller's CPU per input byte, and the caller under
300 MB. Each class is run at two or three sizes, so a quadratic cost shows as a cost per byte
that grows with the size. A reference row per call (a normal file of the same kind, the same
call) is measured in the same run, for the ratio.

Run by hand: ``python benchmarks/bench_bombs.py [--quick]`` (``--quick``: the smallest size of
each class only). Ghostscript (``apt-get install ghostscript``) makes the EPS rows meaningful:
without it, the opt-in row says so.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One case: (class, size label, the expression building the input, the call on ``data``)
_PREPARE = (
    "mb.prepare([mb.UserMessage(content=[mb.ImageBlock.from_bytes(data, filename='x.png')])],"
    " 'anthropic', time_budget=10)"
)
_PREPARE_EPS = (
    "mb.prepare([mb.UserMessage(content=[mb.ImageBlock.from_bytes(data)])], 'anthropic', "
    "time_budget=5, conversion_limits=mb.ConversionLimits(allow_postscript=True))"
)
_PROBE = "mb.probe_bytes(data)"
_FIT = (
    "fit_image(data, ImageTarget(frozenset({'image/jpeg', 'image/png'}), max_side=1568, "
    "max_bytes=5_000_000))"
)
_VERIFY_PNG = "mb.prepare([mb.UserMessage(content=[mb.ImageBlock.from_bytes(data)])], 'gemini')"

CASES: list[tuple[str, str, str, str]] = [
    ("eps as photo.png (refused)", "80 B", "bombs.LOOPING_EPS", _PREPARE),
    ("eps loop, allowed (budget 5 s)", "80 B", "bombs.LOOPING_EPS", _PREPARE_EPS),
    ("mp4 of empty mvex boxes", "32 KB", "bombs.mvex_mp4(32 * 1024)", _PROBE),
    ("mp4 of empty mvex boxes", "256 KB", "bombs.mvex_mp4(256 * 1024)", _PROBE),
    ("mp4 of empty mvex boxes", "2 MB", "bombs.mvex_mp4(2 << 20)", _PROBE),
    ("pdf of /ObjStm headers", "1 MB", "bombs.object_stream_pdf(1 << 20)", _PROBE),
    ("pdf of /ObjStm headers", "4 MB", "bombs.object_stream_pdf(4 << 20)", _PROBE),
    ("jpeg repeating a scan (refused)", "10k scans", "bombs.repeated_scan_jpeg(10_000)", _FIT),
    ("jpeg repeating a scan (refused)", "20k scans", "bombs.repeated_scan_jpeg(20_000)", _FIT),
    ("jpeg of 900 scans (worker)", "900 scans", "bombs.repeated_scan_jpeg(900)", _FIT),
    ("tiff of chained IFDs: fit", "25k IFDs", "bombs.chained_tiff(25_000)", _FIT),
    ("tiff of chained IFDs: fit", "50k IFDs", "bombs.chained_tiff(50_000)", _FIT),
    ("tiff of chained IFDs: probe", "50k IFDs", "bombs.chained_tiff(50_000)", _PROBE),
    ("81 MP lossless WebP", "9000 px", "bombs.flat_webp(9000)", _PREPARE),
    ("81 MP JPEG 2000", "9000 px", "bombs.flat_jpeg2000(9000)", _PREPARE),
    ("SVG sized by character references", "127 B", "bombs.character_reference_svg()", _PREPARE),
    ("SVG sized by character references", "160 KB", "padded_svg(160_000)", _PREPARE),
    ("PNG of zTXt chunks (20 MB of text)", "20 chunks", "text_png(20)", _PREPARE),
    ("PNG whose image data is a zlib bomb", "200 MB", "zlib_png(200_000_000)", _VERIFY_PNG),
    ("detect_mime: a window of tiny boxes", "64 KiB", "dense_moov()", "mb.detect_mime(data)"),
]

REFERENCES: dict[str, tuple[str, str]] = {
    # the floor: any prepare call costs tens of milliseconds, which is a lot per byte of 100 bytes
    _PROBE: ("an MP4 of testdata", "(ROOT / 'testdata/video/h264-aac.mp4').read_bytes()"),
    _FIT: ("a 12 MP noise JPEG", "noise_jpeg(4000, 3000)"),
    _PREPARE: ("a 12 MP noise JPEG", "noise_jpeg(4000, 3000)"),
    _VERIFY_PNG: ("a 4 MP gradient PNG", "gradient_png(2000, 2000)"),
}

_CHILD = r"""
import io, json, resource, struct, sys, time, zlib
from pathlib import Path
ROOT = Path(sys.argv[1])
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
import mediablocks as mb
from mediablocks.convert import isolation
from mediablocks.images import ImageTarget, fit_image
from PIL import Image
from tests import bombs

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

def text_png(count):
    body = b"Comment\x00\x00" + zlib.compress(b"x" * 1_000_000, 9)
    out = io.BytesIO(); Image.new("RGB", (8, 8), "red").save(out, "PNG"); png = out.getvalue()
    return png[:33] + chunk(b"zTXt", body) * count + png[33:]

def zlib_png(size):
    head = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\0" * size, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")

def padded_svg(size):
    svg = bombs.character_reference_svg()
    rect = b'<rect x="1" y="1" width="2" height="2" fill="#0c0"/>'
    return svg.replace(b"</svg>", rect * (size // len(rect)) + b"</svg>")

def dense_moov():
    from tests.mime.test_mime_bounds import _moov_of_tiny_boxes
    return _moov_of_tiny_boxes()

def noise_jpeg(width, height):
    out = io.BytesIO()
    Image.effect_noise((width, height), 40).convert("RGB").save(out, "JPEG", quality=85)
    return out.getvalue()

def gradient_png(width, height):
    out = io.BytesIO()
    Image.linear_gradient("L").resize((width, height)).convert("RGB").save(out, "PNG")
    return out.getvalue()

if sys.argv[2] == "build":  # the input, built in a process of its own and written out
    Path(sys.argv[4]).write_bytes(eval(sys.argv[3]))
    raise SystemExit(0)
data = Path(sys.argv[2]).read_bytes()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu, wall = time.process_time(), time.perf_counter()
try:
    eval(sys.argv[3])
    outcome = "ok"
except mb.MediaBlocksError as error:
    outcome = type(error).__name__
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
try:  # VmHWM: this program's own peak (ru_maxrss keeps its parent's from before exec)
    peak = int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0]) * 1024
except (OSError, IndexError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
isolation.shutdown_workers()
worker = max(worker, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
print(json.dumps({"size": len(data), "cpu": cpu, "wall": wall, "peak": peak,
                  "base": base * 1024, "worker": worker, "outcome": outcome}))
"""


def _measure(build: str, call: str) -> dict[str, object]:
    """``call`` on the input ``build`` makes, in a fresh interpreter: building a bomb can take
    memory (a 200 MB zlib stream), so another process builds it first and writes it out."""
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "input")
        built = subprocess.run(
            [sys.executable, "-c", _CHILD, str(ROOT), "build", build, path],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if built.returncode != 0:
            return {"error": built.stderr.strip().splitlines()[-1] if built.stderr else "failed"}
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(ROOT), path, call],
            capture_output=True,
            text=True,
            timeout=600,
        )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _row(name: str, label: str, found: dict[str, object], reference: float | None) -> str:
    if "error" in found:
        return f"| {name} | {label} | error: {found['error']} | | | | | | |"
    size = int(found["size"])  # type: ignore[call-overload]
    cpu = float(found["cpu"])  # type: ignore[arg-type]
    per_byte = cpu / max(size, 1) * 1e3
    ratio = f"{per_byte / reference:.2g}x" if reference else ""
    mib = 2**20
    return (
        f"| {name} | {label} | {size:,} | {cpu:.3f} | {per_byte:.5f} | {ratio} | "
        f"{float(found['wall']):.2f} | {int(found['peak']) / mib:.0f} | "  # type: ignore[call-overload]
        f"{int(found['worker']) / mib:.0f} | {found['outcome']} |"  # type: ignore[call-overload]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smallest size of each class")
    options = parser.parse_args()
    references: dict[str, float] = {}
    print("| reference (a normal file, same call) | call | bytes | caller CPU s | ms per byte |")
    print("|---|---|---:|---:|---:|")
    for call, (name, build) in REFERENCES.items():
        found = _measure(build, call)
        if "error" in found:
            print(f"| {name} | `{call[:30]}...` | error: {found['error']} | | |")
            continue
        per_byte = float(found["cpu"]) / int(found["size"]) * 1e3  # type: ignore[arg-type,call-overload]
        references[call] = per_byte
        size, cpu = found["size"], found["cpu"]
        print(f"| {name} | `{call[:30]}...` | {size:,} | {cpu:.3f} | {per_byte:.5f} |")
    print()
    print(
        "| bomb class | size | bytes | caller CPU s | caller ms per byte | vs reference | "
        "wall s | caller peak MB | child peak MB | outcome |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    seen: set[str] = set()
    for name, label, build, call in CASES:
        if options.quick and name in seen:
            continue
        seen.add(name)
        found = _measure(build, call)
        print(_row(name, label, found, references.get(call)), flush=True)


if __name__ == "__main__":
    main()
