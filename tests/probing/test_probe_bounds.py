"""Every header walker is linear with a step cap and a deadline: the hostile inputs of issue 25
(quadratic box lookups, object-stream headers, IFD chains) cost the caller milliseconds."""

from __future__ import annotations

import contextlib
import io
import struct
import time
import tracemalloc
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediablocks.errors import DecodeError, MediaBlocksError
from mediablocks.probing import _data, probe_bytes
from mediablocks.probing._data import _BufferData
from mediablocks.probing.images import tiff_directories
from tests.bombs import LOOPING_EPS, chained_tiff, mvex_mp4, object_stream_pdf


def _box(kind: bytes, body: bytes = b"") -> bytes:
    return struct.pack(">I4s", 8 + len(body), kind) + body


def _cpu(call: object) -> tuple[object, float]:
    start = time.process_time()
    result = call()  # type: ignore[operator]
    return result, time.process_time() - start


def test_thousands_of_empty_mvex_boxes_cost_milliseconds_not_half_a_minute() -> None:
    data = mvex_mp4(32 * 1024)  # 4,090 boxes: 31-36 CPU s when each looked up the mvhd again
    info, seconds = _cpu(lambda: probe_bytes(data))
    assert info.mime_type == "video/mp4"  # type: ignore[attr-defined]
    assert info.duration is None  # type: ignore[attr-defined]
    assert seconds < 1.0


def test_a_fragmented_movie_still_reads_its_length_from_mehd() -> None:
    mvhd = _box(b"mvhd", bytes(12) + struct.pack(">II", 1000, 0) + bytes(80))
    mehd = _box(b"mehd", bytes(4) + struct.pack(">I", 4500))
    ftyp = struct.pack(">I4s4sI4s", 20, b"ftyp", b"isom", 0, b"isom")
    moov = _box(b"moov", _box(b"mvex") * 50 + _box(b"mvex", mehd) + mvhd)
    assert probe_bytes(ftyp + moov).duration == 4.5


def test_a_megabyte_of_object_stream_headers_costs_milliseconds() -> None:
    data = object_stream_pdf(1 << 20)  # 13-14 CPU s when each copied the rest of the file
    info, seconds = _cpu(lambda: probe_bytes(data))
    assert info.pages is None  # type: ignore[attr-defined]
    assert seconds < 1.5


def _object_stream(objects: bytes, table: bytes, *, number: int = 10) -> bytes:
    body = zlib.compress(table + objects)
    return (
        b"%d 0 obj << /Type /ObjStm /N 50 /First %d /Filter /FlateDecode /Length %d >>stream\n"
        % (number, len(table), len(body))
        + body
        + b"\nendstream endobj\n"
    )


def test_hostile_offsets_in_an_object_stream_share_one_body() -> None:
    # 50 objects whose offsets go 0, end, 0, end...: every other one spans the whole body.
    objects = b"<< /Type /Pages /Count 7 /Kids [] >>" + b" " * 400_000
    table = b"".join(b"%d %d " % (n + 1, 0 if n % 2 == 0 else 400_000) for n in range(50))
    data = b"%PDF-1.5\n" + _object_stream(objects, table) + b"trailer << /Root 99 0 R >>\n"
    data += b"99 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\n"
    tracemalloc.start()
    try:
        assert probe_bytes(data).pages == 7
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3_000_000  # views of one 400 KB body; copies were 25 x 400 KB


def test_the_page_tree_in_a_later_object_stream_is_found() -> None:
    streams = b"".join(
        _object_stream(b"<< /Foo %d >>" % n, b"%d 0 " % (100 + n), number=200 + n)
        for n in range(300)  # many small streams before the one holding the page tree
    )
    pages = _object_stream(b"<< /Type /Pages /Count 3 /Kids [] >>", b"1 0 ", number=2)
    data = b"%PDF-1.5\n" + streams + pages + b"99 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\n"
    assert probe_bytes(data + b"trailer << /Root 99 0 R >>\n").pages == 3


def test_a_tiff_of_thirty_thousand_images_is_counted_in_one_linear_walk() -> None:
    data = chained_tiff(30_000)  # Pillow's n_frames: quadratic in the IFDs (seconds)
    info, seconds = _cpu(lambda: probe_bytes(data))
    assert (info.width, info.height, info.frames) == (1, 1, 30_000)  # type: ignore[attr-defined]
    assert seconds < 1.0


def test_a_tiff_chain_that_loops_ends_at_the_repeat() -> None:
    data = bytearray(chained_tiff(3))
    last_next = 8 + 3 * (2 + 12 * 8 + 4) - 4
    data[last_next : last_next + 4] = struct.pack("<I", 8)  # the third IFD points at the first
    assert probe_bytes(bytes(data)).frames == 3


def test_a_later_ifd_cut_short_ends_the_count() -> None:
    data = bytearray(chained_tiff(2))
    data[8 + 2 + 12 * 8 : 8 + 2 + 12 * 8 + 4] = struct.pack("<I", 10**9)  # points past the end
    assert probe_bytes(bytes(data)).frames == 1


def test_big_tiff_size_and_images() -> None:
    entries = [(256, 16, 640), (257, 16, 480), (274, 3, 6)]
    ifd = struct.pack("<Q", len(entries))
    for tag, kind, value in entries:
        ifd += struct.pack("<HHQQ", tag, kind, 1, value)
    data = b"II+\x00\x08\x00\x00\x00" + struct.pack("<Q", 16) + ifd + struct.pack("<Q", 0)
    info = probe_bytes(data)
    assert (info.width, info.height, info.frames) == (480, 640, 1)  # orientation 6: turned


def test_bmp_size_from_its_dib_header() -> None:
    header = b"BM" + bytes(12) + struct.pack("<Iii", 40, 300, -200) + bytes(28)
    assert (probe_bytes(header).width, probe_bytes(header).height) == (300, 200)
    core = b"BM" + bytes(12) + struct.pack("<IHH", 12, 64, 32) + bytes(8)
    assert (probe_bytes(core).width, probe_bytes(core).height) == (64, 32)


def test_past_the_step_cap_a_probe_is_a_decode_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_data, "PROBE_STEPS", 1000)
    monkeypatch.setattr(_data, "_CHECK_EVERY", 10)
    with pytest.raises(DecodeError, match="more than 1,000 boxes"):
        probe_bytes(mvex_mp4(64 * 1024))


def test_past_the_deadline_a_probe_is_a_decode_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_data, "PROBE_SECONDS", -1.0)
    monkeypatch.setattr(_data, "_CHECK_EVERY", 10)
    with pytest.raises(DecodeError, match="took more than"):
        probe_bytes(chained_tiff(100))


def test_steps_are_counted_once_per_walked_item() -> None:
    data = _BufferData(mvex_mp4(8 * 1024))
    data.start_walk()
    from mediablocks.probing.video import _mp4

    _mp4(data)
    boxes = (8 * 1024 - 28) // 8
    assert boxes + 2 <= data.steps <= 3 * boxes  # linear: a constant number of visits per box


# -- any bytes: a result or a MediaBlocksError ----------------------------------------------------

_KINDS = [b"moov", b"mvhd", b"mvex", b"mehd", b"trak", b"mdia", b"hdlr", b"tkhd", b"meta"]


@st.composite
def _box_tree(draw: st.DrawFn, depth: int = 0) -> bytes:
    kind = draw(st.sampled_from(_KINDS))
    if depth < 3 and draw(st.booleans()):
        body = b"".join(draw(st.lists(_box_tree(depth + 1), max_size=4)))
    else:
        body = draw(st.binary(max_size=40))
    size = len(body) + 8
    if draw(st.integers(0, 9)) == 0:
        size = draw(st.sampled_from([0, 1, 7, size + 5, 2**32 - 1]))
    return struct.pack(">I4s", size, kind) + body


@settings(max_examples=300, deadline=None)
@given(st.lists(_box_tree(), max_size=5))
def test_any_box_tree_probes_to_facts_or_a_library_error(boxes: list[bytes]) -> None:
    data = struct.pack(">I4s4sI", 16, b"ftyp", b"isom", 0) + b"".join(boxes)
    try:
        info = probe_bytes(data)
    except MediaBlocksError:
        return
    assert info.mime_type.startswith(("video/", "audio/", "image/"))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([b"II*\x00", b"MM\x00*", b"II+\x00"]),
    st.binary(max_size=400),
    st.integers(0, 600),
)
def test_any_tiff_bytes_probe_to_facts_or_a_library_error(
    magic: bytes, rest: bytes, first: int
) -> None:
    order = "little" if magic.startswith(b"II") else "big"
    data = magic + first.to_bytes(4, order) + rest  # type: ignore[arg-type]
    try:
        info = probe_bytes(data)
    except MediaBlocksError:
        return
    assert info.mime_type == "image/tiff"
    assert info.frames is None or info.frames >= 1


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), st.integers(1, 50))
def test_the_ifd_walk_stops_within_its_limit(rest: bytes, limit: int) -> None:
    data = _BufferData(b"II*\x00\x08\x00\x00\x00" + rest)
    data.start_walk()
    try:
        _, images = tiff_directories(data, limit)
    except (DecodeError, _data._Truncated):
        return
    assert images <= limit + 1
    assert data.steps <= limit + 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=60),
            st.sampled_from(
                [b"/Type /ObjStm /N 3 /First 6 /FlateDecode", b"stream\n", b"<<", b">>"]
            ),
            st.builds(zlib.compress, st.binary(max_size=80)),
            st.just(b"/Root 1 0 R 1 0 obj << /Pages 2 0 R >> 2 0 obj /Count 4"),
        ),
        max_size=12,
    )
)
def test_any_pdf_bytes_probe_to_a_count_or_a_library_error(parts: list[bytes]) -> None:
    try:
        info = probe_bytes(b"%PDF-1.7\n" + b"".join(parts))
    except MediaBlocksError:
        return
    assert info.pages is None or info.pages >= 0


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=60))
def test_any_bmp_header_probes_to_facts_or_a_library_error(rest: bytes) -> None:
    data = b"BM" + bytes(12) + b"\x28\x00\x00\x00" + rest
    try:
        info = probe_bytes(data)
    except MediaBlocksError:
        return
    assert info.width is None or info.width >= 0


def _many_wav_chunks(size: int) -> bytes:
    return b"RIFF" + struct.pack("<I", size) + b"WAVE" + b"junk\x00\x00\x00\x00" * (size // 8)


def _many_ebml_elements(size: int) -> bytes:
    header = b"\x1a\x45\xdf\xa3\x84\x42\x82\x81w"  # EBML, DocType "w"
    segment = b"\x18\x53\x80\x67\x01\xff\xff\xff\xff\xff\xff\xff"  # unknown size
    return header + segment + b"\xec\x80" * (size // 2)  # Void elements, empty


@pytest.mark.parametrize(
    "build",
    [
        lambda size: mvex_mp4(size),
        _many_wav_chunks,
        _many_ebml_elements,
        lambda size: b"%PDF-1.4\n" + b"/Root 1 0 R " * (size // 12),
        lambda size: b"%PDF-1.4\n" + b"/Type /Page " * (size // 12),
    ],
    ids=["mp4", "wav", "matroska", "pdf-roots", "pdf-pages"],
)
def test_a_walk_holds_one_item_at_a_time(build: object) -> None:
    data = build(600_000)  # type: ignore[operator]
    tracemalloc.start()
    try:
        with contextlib.suppress(DecodeError):
            probe_bytes(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000  # a list of 75,000 boxes, chunks or matches takes over 10 MB


def test_an_au_header_whose_data_starts_past_the_end_has_no_negative_duration() -> None:
    head = b".snd" + struct.pack(">IIIII", 44, 0xFFFFFFFF, 3, 8000, 1)  # offset 44 of 24 bytes
    assert probe_bytes(head).duration == 0.0


def test_an_image_no_walker_reads_has_its_header_read_in_a_worker() -> None:
    from PIL import Image

    from mediablocks.probing import pillow

    buffer = io.BytesIO()
    Image.new("RGB", (48, 20)).save(buffer, "TGA")
    assert probe_bytes(buffer.getvalue(), "image/x-tga").width == 48
    with pytest.raises(DecodeError, match="cannot read this image's header"):
        pillow.pillow_header(LOOPING_EPS, "loop.eps")  # EPS is no plugin a worker opens
