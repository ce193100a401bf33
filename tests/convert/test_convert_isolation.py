"""Native converters run in limited worker processes: crashes and runaways from crafted files
end as errors naming the block and the limit, and this process lives (`convert.isolation`).

Every reproducer is generated here, small, from the classes of hostile uploads in issue 18.
"""

from __future__ import annotations

import functools
import os
import threading
import zlib

import pytest

import mediablocks as mb
from mediablocks.convert import isolation
from mediablocks.convert._extract import TextSink
from mediablocks.convert._worker import loaded_modules
from mediablocks.convert.limits import ConversionLimits, current_limits, use_conversion_limits
from mediablocks.convert.pdf import page_count, pdf_text, render_document
from mediablocks.convert.raster import rasterise_svg

pytest.importorskip("resvg_py")
pytest.importorskip("pypdfium2")

SMALL_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32">'
    b'<rect width="64" height="32" fill="#c00"/></svg>'
)


def nested_svg(depth: int) -> bytes:
    """A few hundred nested groups: resvg recurses per level and overflows its stack."""
    return (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
        + b"<g>" * depth
        + b'<rect width="10" height="10"/>'
        + b"</g>" * depth
        + b"</svg>"
    )


TURBULENCE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">'
    b'<filter id="f"><feTurbulence baseFrequency="0.05" numOctaves="1000"/></filter>'
    b'<rect width="400" height="400" filter="url(#f)"/></svg>'
)


def make_pdf(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (object 1 is the catalog) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def stream(extra: bytes, data: bytes) -> bytes:
    return b"<< /Length %d %s >>\nstream\n%s\nendstream" % (len(data), extra, data)


def one_page(contents: bytes, resources: bytes = b"") -> list[bytes]:
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R %s >>" % resources,
        contents,
    ]


def xobject_pdf(levels: int = 40, fan: int = 4) -> bytes:
    """Form XObjects that each draw the next ``fan`` times: ``fan ** levels`` draws (8 KB)."""
    objects = one_page(stream(b"", b"/X Do"), b"/Resources << /XObject << /X 5 0 R >> >>")
    for level in range(levels):
        last = level == levels - 1
        content = b"0 0 10 10 re f" if last else b"q /X Do Q " * fan
        resources = b"" if last else b"/Resources << /XObject << /X %d 0 R >> >>" % (6 + level)
        form = b"/Type /XObject /Subtype /Form /BBox [0 0 200 200] " + resources
        objects.append(stream(form, content))
    return make_pdf(objects)


@functools.cache
def inflating_pdf(megabytes: int = 300) -> bytes:
    """A content stream of about 300 KB that inflates to ``megabytes`` MB.

    After a full flush deflate starts afresh, so one compressed megabyte is repeated, and the
    zlib trailer (the Adler-32 of all the data) is written for the whole.
    """
    block = b" " * (1 << 20)
    compressor = zlib.compressobj(9)
    head = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    checksum = 1
    for _ in range(megabytes):
        checksum = zlib.adler32(block, checksum)
    packed = head + again * (megabytes - 1) + compressor.flush()[:-4] + checksum.to_bytes(4, "big")
    assert zlib.decompressobj().decompress(packed, 1 << 20) == block
    return make_pdf(one_page(stream(b"/Filter /FlateDecode", packed)))


def svg_message(data: bytes) -> list[mb.Message]:
    image = mb.ImageBlock.from_bytes(data, "image/svg+xml", filename="hostile.svg")
    return [mb.UserMessage(content=[mb.TextBlock(text="look"), image])]


def pdf_message(data: bytes) -> list[mb.Message]:
    document = mb.FileBlock.from_bytes(data, "application/pdf", filename="hostile.pdf")
    return [mb.UserMessage(content=[mb.TextBlock(text="read"), document])]


# -- crashes ---------------------------------------------------------------------------------------


def test_deeply_nested_svg_crashes_the_worker_not_this_process() -> None:
    with pytest.raises(mb.MediaBlocksError) as caught:
        mb.prepare(svg_message(nested_svg(300)), "anthropic")
    message = str(caught.value)
    assert "ImageBlock(" in message
    assert "image/svg+xml" in message
    assert "SIGSEGV" in message
    assert "stack_bytes=8 MiB" in message
    # The crashed worker is replaced: the next SVG renders.
    png = rasterise_svg(SMALL_SVG, 512, None, "next.svg")
    assert png.startswith(b"\x89PNG")


def test_the_crash_is_a_decode_error_naming_its_likely_limit() -> None:
    with pytest.raises(mb.ConversionCrashedError) as caught:
        rasterise_svg(nested_svg(300), 512, None, "deep.svg")
    assert isinstance(caught.value, mb.DecodeError)
    assert caught.value.signal == "SIGSEGV"
    assert caught.value.limit == "stack_bytes"
    assert str(caught.value).startswith("deep.svg: the SVG renderer crashed")


def test_a_larger_stack_limit_renders_what_the_default_refuses() -> None:
    with use_conversion_limits(ConversionLimits(stack_bytes=256 << 20)):
        png = rasterise_svg(nested_svg(300), 512, None, "deep.svg")
    assert png.startswith(b"\x89PNG")


def test_xobjects_drawing_each_other_stop_at_the_memory_limit() -> None:
    limits = mb.ConversionLimits(memory_bytes=160 << 20)
    # PDFium either aborts on the refused allocation (a crash: raised at once, as every crash
    # is) or reports it (the limit: the block's problem); both name the block and the limit.
    with pytest.raises((mb.DoesNotFitError, mb.ConversionCrashedError)) as caught:
        mb.prepare(
            pdf_message(xobject_pdf()), "anthropic", documents="pages", conversion_limits=limits
        )
    error = caught.value
    if isinstance(error, mb.ConversionCrashedError):
        assert error.limit == "memory_bytes"
        assert error.signal is not None
        (problem,) = [str(error)]
    else:
        (problem,) = error.problems
        assert problem.code == "conversion_limit"
    assert "FileBlock(" in problem
    assert "application/pdf" in problem
    assert "memory_bytes=160 MiB" in problem


def test_xobjects_drawing_each_other_stop_at_the_time_budget() -> None:
    with pytest.raises(mb.DoesNotFitError) as caught:
        mb.prepare(pdf_message(xobject_pdf()), "anthropic", documents="pages", time_budget=0.5)
    assert "time_budget=0.5 s" in caught.value.problems[0]


def test_a_content_stream_inflating_to_300_mb_stops_at_the_memory_limit() -> None:
    data = inflating_pdf(300)
    assert len(data) < 400_000
    assert page_count(data, "bomb.pdf") == 1  # opening is cheap; drawing is the bomb
    with (
        use_conversion_limits(ConversionLimits(memory_bytes=192 << 20), 30),
        pytest.raises(mb.ConversionCrashedError) as caught,
    ):
        render_document(data, what="bomb.pdf", max_pages=1)
    assert caught.value.limit == "memory_bytes"
    assert "bomb.pdf" in str(caught.value)
    assert "memory_bytes=192 MiB" in str(caught.value)


def test_pdf_text_of_an_inflating_stream_is_bounded_too() -> None:
    with (
        use_conversion_limits(ConversionLimits(memory_bytes=192 << 20), 30),
        pytest.raises(mb.MediaBlocksError, match=r"bomb\.pdf"),
    ):
        pdf_text(inflating_pdf(300), 1000, "bomb.pdf")


# -- runaways ------------------------------------------------------------------------------------


def test_turbulence_with_a_thousand_octaves_stops_at_the_time_budget() -> None:
    with pytest.raises(mb.MediaBlocksError) as caught:
        mb.prepare(svg_message(TURBULENCE_SVG), "anthropic", time_budget=0.5)
    assert "wall-time budget time_budget=0.5 s" in str(caught.value)
    assert "image/svg+xml" in str(caught.value)


def test_turbulence_stops_at_the_cpu_limit() -> None:
    limits = ConversionLimits(cpu_seconds=1)
    with use_conversion_limits(limits), pytest.raises(mb.ConversionTimeoutError) as caught:
        rasterise_svg(TURBULENCE_SVG, 2048, None, "noise.svg")
    assert caught.value.limit == "cpu_seconds"
    assert caught.value.value == 1
    assert isinstance(caught.value, TimeoutError)
    assert isinstance(caught.value, ValueError)
    assert "noise.svg" in str(caught.value)
    assert "cpu_seconds=1 s" in str(caught.value)


def test_the_time_budget_error_names_its_limit() -> None:
    with (
        use_conversion_limits(None, 0.3),
        pytest.raises(mb.ConversionTimeoutError) as caught,
    ):
        rasterise_svg(TURBULENCE_SVG, 2048, None, "noise.svg")
    assert caught.value.limit == "time_budget"
    assert caught.value.value == 0.3


# -- the pool --------------------------------------------------------------------------------------


def test_workers_are_reused_between_conversions() -> None:
    rasterise_svg(SMALL_SVG, 512, None, "a.svg")
    first = {worker.process.pid for worker in isolation._the_pool().idle}
    for _ in range(5):
        rasterise_svg(SMALL_SVG, 512, None, "a.svg")
    assert {worker.process.pid for worker in isolation._the_pool().idle} <= first
    assert len(isolation._the_pool().idle) <= isolation.MAX_WORKERS


def test_threads_share_the_pool_and_get_their_own_results() -> None:
    sizes = [(40 + 8 * i, 20 + 4 * i) for i in range(8)]
    results: dict[int, bytes] = {}

    def convert(index: int) -> None:
        width, height = sizes[index]
        svg = (
            b'<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">'
            b'<rect width="%d" height="%d"/></svg>' % (width, height, width, height)
        )
        results[index] = rasterise_svg(svg, 2048, None, f"{index}.svg")

    threads = [threading.Thread(target=convert, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    from io import BytesIO

    from PIL import Image

    for index, png in results.items():
        with Image.open(BytesIO(png)) as image:  # 512 px long side at least: scaled evenly
            width, height = sizes[index]
            assert image.size == (512, round(512 * height / width))
    assert len(results) == 8


def test_a_worker_imports_only_what_its_job_needs() -> None:
    modules = isolation.run_isolated("probe", loaded_modules)
    assert "mediablocks.convert._worker" in modules
    for heavy in ("pydantic", "httpx", "mediablocks.blocks", "av", "ray"):
        assert heavy not in modules


def test_a_reply_that_is_not_plain_data_is_refused() -> None:
    # A TextSink is a class of a converter module but no dataclass: not data, refused.
    with pytest.raises(mb.ConversionCrashedError, match=r"unreadable reply.*not a conversion"):
        isolation.run_isolated("probe", TextSink, 10)
    assert isolation.run_isolated("probe", ConversionLimits) == ConversionLimits()


def test_isolate_false_runs_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool() -> None:
        raise AssertionError("the pool was used")

    monkeypatch.setattr(isolation, "_the_pool", no_pool)
    with use_conversion_limits(ConversionLimits(isolate=False)):
        assert rasterise_svg(SMALL_SVG, 512, None, "a.svg").startswith(b"\x89PNG")
        assert "pydantic" in isolation.run_isolated("probe", loaded_modules)


def test_a_forked_child_starts_its_own_pool() -> None:
    rasterise_svg(SMALL_SVG, 512, None, "a.svg")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: converts with its own workers, then leaves without cleanup
        try:
            ok = rasterise_svg(SMALL_SVG, 512, None, "b.svg").startswith(b"\x89PNG")
            os.write(write, b"1" if ok and isolation._the_pool().pid == os.getpid() else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(pid, 0)
    os.close(read)
    assert answer == b"1"
    assert rasterise_svg(SMALL_SVG, 512, None, "c.svg").startswith(b"\x89PNG")


# -- the options -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"memory_bytes": 0},
        {"memory_bytes": 1 << 20},
        {"memory_bytes": 2.5e9},
        {"cpu_seconds": float("nan")},
        {"cpu_seconds": -1},
        {"stack_bytes": True},
        {"stack_bytes": 1024},
        {"isolate": "no"},
    ],
)
def test_limits_are_validated(options: dict[str, object]) -> None:
    with pytest.raises(mb.InvalidOptionError, match="ConversionLimits"):
        ConversionLimits(**options)  # type: ignore[arg-type]


def test_prepare_refuses_limits_that_are_not_conversion_limits() -> None:
    with pytest.raises(mb.InvalidOptionError, match="conversion_limits"):
        mb.prepare([], "anthropic", conversion_limits={"memory_bytes": 1})  # type: ignore[arg-type]


def test_none_lifts_a_limit_and_scopes_nest() -> None:
    lifted = ConversionLimits(memory_bytes=None, cpu_seconds=None, stack_bytes=None)
    assert lifted.describe() == "memory_bytes=none, cpu_seconds=none, stack_bytes=none"
    assert current_limits() == (ConversionLimits(), 120.0)
    with use_conversion_limits(lifted, 5):
        with use_conversion_limits():
            assert current_limits() == (lifted, 5)
        with use_conversion_limits(None, None):  # None: no wall-time budget at all
            assert current_limits() == (lifted, None)
        with use_conversion_limits(ConversionLimits(), 2):
            assert current_limits() == (ConversionLimits(), 2)
    assert current_limits() == (ConversionLimits(), 120.0)


def test_a_worker_that_cannot_start_is_a_library_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from mediablocks.convert import _pool

    isolation.shutdown_workers()
    monkeypatch.setattr(_pool.sys, "executable", "/nonexistent/python")
    with pytest.raises(mb.ConversionUnavailableError, match=r"^a\.svg: no worker process could"):
        rasterise_svg(SMALL_SVG, 512, None, "a.svg")
    with pytest.raises(RuntimeError):  # the host's trouble, not the input's
        rasterise_svg(SMALL_SVG, 512, None, "a.svg")
    monkeypatch.undo()
    assert rasterise_svg(SMALL_SVG, 512, None, "a.svg").startswith(b"\x89PNG")


def test_replies_may_carry_changes_and_fractions_and_nothing_callable() -> None:
    import pickle
    from fractions import Fraction

    from mediablocks.changes import Change

    reply = pickle.dumps(("ok", (Change("converted", "x"), Fraction(1, 3))))
    limits = ConversionLimits()
    assert isolation._result(reply, "a", "c", limits) == (Change("converted", "x"), Fraction(1, 3))
    for hostile in (os.system, _outside_the_allow_list()):
        with pytest.raises(mb.ConversionCrashedError, match="not a conversion result"):
            isolation._result(pickle.dumps(("ok", hostile)), "a", "c", limits)


def _outside_the_allow_list() -> object:
    """A class outside the allow-list (a real one: pickling refers to it by name)."""
    import collections

    return collections.OrderedDict(a=1)


def test_conversions_from_asyncio_tasks_run_side_by_side() -> None:
    import asyncio

    async def main() -> list[bytes]:
        calls = [
            asyncio.to_thread(rasterise_svg, SMALL_SVG, 512, None, f"{n}.svg") for n in range(4)
        ]
        return list(await asyncio.gather(*calls))

    pngs = asyncio.run(main())
    assert len(set(pngs)) == 1
    assert pngs[0].startswith(b"\x89PNG")


def test_keyword_arguments_reach_the_job() -> None:
    from mediablocks.convert._extract import ExtractedText

    keywords = {"truncated": True, "pages": 3}
    done = isolation.run_isolated("probe", ExtractedText, "t", "s", keywords=keywords)
    assert done == ExtractedText("t", "s", truncated=True, pages=3)
