"""Issue 25's image bombs, generated here: the caller never runs Ghostscript, never runs a Pillow
plugin outside its allow-list, and decodes in its own process only what the header shows to be
cheap; the rest is refused or fitted in a worker."""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import mediablocks as mb
from mediablocks.convert.limits import ConversionLimits, use_conversion_limits
from mediablocks.errors import (
    ConversionTimeoutError,
    DoesNotFitError,
    ImageBombError,
    MediaBlocksError,
    UnsupportedBlockError,
)
from mediablocks.images import ImageTarget, fit_image, image_size
from mediablocks.images.costs import (
    CALLER_TEXT_BYTES,
    MAX_JPEG_SCANS,
    jpeg_scans,
    png_text_bytes,
)
from mediablocks.images.verify import verify_decodes
from tests.bombs import (
    LOOPING_EPS,
    chained_tiff,
    flat_webp,
    repeated_scan_jpeg,
)
from tests.conftest import ROOT, TESTDATA

ANY = ImageTarget(frozenset({"image/png", "image/jpeg"}), max_side=1568, max_bytes=5_000_000)
NEEDS_GS = pytest.mark.skipif(shutil.which("gs") is None, reason="Ghostscript is not installed")


def _cpu(call: object) -> tuple[object, float]:
    start = time.process_time()
    result = call()  # type: ignore[operator]
    return result, time.process_time() - start


# -- PostScript ------------------------------------------------------------------------------------


@pytest.mark.parametrize("declared", ["image/x-eps", "image/png", None])
def test_eps_is_refused_by_default_whatever_it_is_called(declared: str | None) -> None:
    block = mb.ImageBlock.from_bytes(LOOPING_EPS, declared, filename="photo.png")
    with pytest.raises(DoesNotFitError, match=r"PostScript and EPS are refused.*allow_postscript"):
        mb.prepare([mb.UserMessage(content=[block])], "anthropic", time_budget=5)
    with pytest.raises(UnsupportedBlockError, match="allow_postscript=True"):
        fit_image(LOOPING_EPS, ANY, mime_type=declared, what="photo.png")


def test_the_caller_never_loads_pillows_eps_plugin_nor_starts_ghostscript() -> None:
    program = (
        "import subprocess, sys, mediablocks as mb\n"
        "from tests.bombs import LOOPING_EPS\n"
        "started = []\n"
        "real = subprocess.Popen.__init__\n"
        "def spy(self, args, *more, **options):\n"
        "    started.append(args)\n"
        "    real(self, args, *more, **options)\n"
        "subprocess.Popen.__init__ = spy\n"
        "block = mb.ImageBlock.from_bytes(LOOPING_EPS, filename='photo.png')\n"
        "try:\n"
        "    mb.prepare([mb.UserMessage(content=[block])], 'anthropic', time_budget=2)\n"
        "except mb.MediaBlocksError as error:\n"
        "    print(type(error).__name__, len(started))\n"
        "mb.probe_bytes(LOOPING_EPS)  # its header is read in a worker: Python, never gs\n"
        "print('PIL.EpsImagePlugin' in sys.modules, any('gs' in str(a) for a in started))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    # refused before any process starts; no EPS plugin loaded; no Ghostscript anywhere
    assert done.stdout.split() == ["DoesNotFitError", "0", "False", "False"], done.stderr


@NEEDS_GS
def test_eps_renders_in_a_worker_when_the_caller_opts_in() -> None:
    rose = (TESTDATA / "image/rose.eps").read_bytes()  # a 70 x 46 pt bounding box
    allowed = ConversionLimits(allow_postscript=True)
    messages, report = mb.prepare_with_report(
        [mb.UserMessage(content=[mb.ImageBlock.from_bytes(rose)])],
        "anthropic",
        conversion_limits=allowed,
    )
    out = messages[0].content[0]
    assert isinstance(out, mb.ImageBlock)
    with Image.open(io.BytesIO(out.read())) as image:
        assert image.size == (512, 336)  # vector art: at least 512 px on the long side
        assert image.getpixel((256, 168)) != (255, 255, 255)  # the rose is drawn
    assert "PostScript -> PNG (rendered with Ghostscript in a worker process)" in str(report)


def _ghostscripts_of(owner: int) -> list[str]:
    """Processes whose command line names this caller's Ghostscript folder."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"mediablocks-ps-{owner}-" in line:
            found.append(line)
    return found


@NEEDS_GS
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_looping_eps_stops_at_the_budget_and_leaves_no_ghostscript() -> None:
    allowed = ConversionLimits(allow_postscript=True)
    start = time.monotonic()
    with use_conversion_limits(allowed, 2.0), pytest.raises(ConversionTimeoutError) as caught:
        fit_image(LOOPING_EPS, ANY, what="loop.eps")
    assert caught.value.limit == "time_budget"
    assert time.monotonic() - start < 20
    deadline = time.monotonic() + 5
    while _ghostscripts_of(os.getpid()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _ghostscripts_of(os.getpid()) == []


def test_allow_postscript_must_be_a_bool() -> None:
    with pytest.raises(mb.InvalidOptionError, match="allow_postscript"):
        ConversionLimits(allow_postscript="yes")  # type: ignore[arg-type]


# -- every Image.open names its plugins ------------------------------------------------------------


def test_every_image_open_in_the_package_passes_formats() -> None:
    missing = []
    for path in sorted((ROOT / "src" / "mediablocks").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "open"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "Image"
                and not any(keyword.arg == "formats" for keyword in node.keywords)
            ):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert missing == []


def test_a_tiff_uploaded_as_png_is_read_in_a_worker_not_by_the_caller() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "teal").save(buffer, "TIFF")
    program = (
        "import sys, mediablocks as mb\n"
        "from mediablocks.images import ImageTarget, fit_image\n"
        "data = sys.stdin.buffer.read()\n"
        "target = ImageTarget(frozenset({'image/png'}))\n"
        "fitted = fit_image(data, target, mime_type='image/png')\n"
        "print(fitted.mime_type, fitted.width, fitted.height, 'PIL.TiffImagePlugin' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=buffer.getvalue(),
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    assert done.stdout.decode().split() == ["image/png", "40", "30", "False"], done.stderr


# -- time: progressive scans, IFD chains -----------------------------------------------------------


def test_a_jpeg_repeating_one_scan_thousands_of_times_is_refused_at_once() -> None:
    data = repeated_scan_jpeg(15_000)  # about 250 KB: 10-29 CPU s to decode in the caller
    assert jpeg_scans(data) > 15_000
    start = time.process_time()
    with pytest.raises(ImageBombError, match=r"a JPEG of 15,0\d\d scans") as caught:
        fit_image(data, ANY, what="scans.jpg")
    assert time.process_time() - start < 1.0
    assert caught.value.limit == MAX_JPEG_SCANS


def test_a_jpeg_of_many_scans_under_the_limit_is_decoded_in_a_worker() -> None:
    data = repeated_scan_jpeg(400)  # 400 scans x 4 MP: past the caller's pixel passes
    fitted, seconds = _cpu(lambda: fit_image(data, ANY, what="scans.jpg"))
    assert fitted.mime_type == "image/jpeg"  # type: ignore[attr-defined]
    assert fitted.width == 1568  # type: ignore[attr-defined]
    assert seconds < 0.5  # the decode ran elsewhere


def test_a_plan_for_inspect_refuses_or_moves_a_scan_bomb_as_fitting_does() -> None:
    from mediablocks.images.plan import plan_image

    with pytest.raises(ImageBombError, match=r"a JPEG of 15,0\d\d scans"):
        plan_image(repeated_scan_jpeg(15_000), ANY, what="scans.jpg")
    planned, seconds = _cpu(lambda: plan_image(repeated_scan_jpeg(400), ANY, what="scans.jpg"))
    assert "resized" in [change.kind for change in planned]  # type: ignore[attr-defined]
    assert seconds < 0.5  # the check that it decodes ran in a worker


def test_a_tiff_of_thirty_thousand_images_costs_the_caller_nothing() -> None:
    data = chained_tiff(30_000)  # Pillow's n_frames: 10-30 s, quadratic
    fitted, seconds = _cpu(lambda: fit_image(data, ANY, what="pages.tif"))
    assert fitted.mime_type == "image/png"  # type: ignore[attr-defined]
    assert "kept the first of 30000 pages" in [c.detail for c in fitted.changes]  # type: ignore[attr-defined]
    assert seconds < 1.0


# -- memory: what decoding will allocate -----------------------------------------------------------

_PEAK = """
import json, sys
import mediablocks as mb
from tests import bombs
data = getattr(bombs, sys.argv[1])()
block = mb.ImageBlock.from_bytes(data)
try:
    out = mb.prepare([mb.UserMessage(content=[block])], "anthropic")[0].content[0]
    outcome = out.mime_type
except mb.MediaBlocksError as error:
    outcome = type(error).__name__
status = open("/proc/self/status").read()  # VmHWM: this program's peak, not pytest's before exec
peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
print(json.dumps([len(data), outcome, peak]))
"""


_SMALL_OR_REFUSED = {"DecompressionBombError", "ConversionLimitError", "image/png", "image/jpeg"}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM (Linux)")
@pytest.mark.parametrize(
    ("bomb", "outcomes"),
    [
        (
            "flat_webp",
            {"DecompressionBombError", "ConversionLimitError", "image/png", "image/jpeg"},
        ),
        (
            "flat_jpeg2000",
            {"DecompressionBombError", "ConversionLimitError", "image/png", "image/jpeg"},
        ),
    ],
)
def test_an_81_megapixel_image_of_a_few_bytes_keeps_the_caller_small(
    bomb: str, outcomes: set[str]
) -> None:
    # 1.5-1.6 GB in the caller when it decoded them: 81 MP x 4 bytes, and copies
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, bomb], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    size, outcome, peak = json.loads(done.stdout)
    assert size < 8_000
    assert outcome in outcomes
    assert peak < 300 * 2**20


def test_the_decode_estimate_counts_bytes_per_pixel_and_frames() -> None:
    from mediablocks.images.costs import CALLER_DECODE_BYTES, decode_cost
    from mediablocks.images.metadata import _inspect

    data = flat_webp(9000)
    with Image.open(io.BytesIO(data), formats=["WEBP"]) as image:
        cost = decode_cost(image, _inspect(image, data), data, frames=1)
    assert cost.memory >= 9000 * 9000 * 4 > CALLER_DECODE_BYTES
    assert not cost.fits_caller


def test_a_png_whose_text_chunks_inflate_to_megabytes_is_read_in_a_worker() -> None:
    body = b"Comment\x00\x00" + zlib.compress(b"x" * 1_000_000, 9)
    crc = struct.pack(">I", zlib.crc32(b"zTXt" + body))
    chunks = [struct.pack(">I", len(body)) + b"zTXt" + body + crc for _ in range(20)]
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    png = buffer.getvalue()
    data = png[:33] + b"".join(chunks) + png[33:]  # after IHDR, before the image data
    assert len(data) < 40_000
    assert png_text_bytes(data) > CALLER_TEXT_BYTES  # 20 MiB of text, a 1 KB file
    tracemalloc.start()
    try:
        assert image_size(data, what="text.png") == (8, 8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000  # read in a worker: 20 MB of inflated text never reach this process


def test_a_zlib_bomb_in_png_image_data_is_verified_at_the_headers_size() -> None:
    # A 1x1 PNG whose image data inflates to 200 MB: counting stops a piece past 2 bytes.
    stream = zlib.compress(b"\0" * 200_000_000, 9)
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", stream)
    data += chunk(b"IEND", b"")
    with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
        _, seconds = _cpu(lambda: verify_decodes(image, data, "PNG", "bomb.png"))
    assert seconds < 0.3  # inflating all 200 MB takes about a second


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 160))
def test_the_scan_count_is_exact_below_and_above_the_fast_search(repeats: int) -> None:
    base = jpeg_scans(repeated_scan_jpeg(0, side=16))
    assert base >= 2  # a progressive JPEG: several scans of its own
    assert jpeg_scans(repeated_scan_jpeg(repeats, side=16)) == base + repeats


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_the_scan_count_takes_any_bytes(rest: bytes) -> None:
    count = jpeg_scans(b"\xff\xd8" + rest)
    assert 0 <= count <= len(rest) // 2


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 3))
def test_a_mutated_jpeg_fits_or_raises_a_library_error(tail: bytes, repeat: int) -> None:
    head = repeated_scan_jpeg(repeat, side=64)
    try:
        fitted = fit_image(head[: len(head) // 2] + tail, ANY, what="mutant.jpg")
    except MediaBlocksError:
        return
    assert fitted.mime_type in ("image/jpeg", "image/png")
