"""detect_mime, normalize_mime, mime_kind and users' signatures (mediablocks.mime)."""

from __future__ import annotations

import io
import json
import random
import struct
import tarfile
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import mediablocks as mb
from mediablocks.mime import (
    HEADER_WINDOW,
    detect_mime,
    mime_kind,
    normalize_mime,
    register_signature,
    unregister_signature,
)
from tests.conftest import PUBLIC_TESTDATA, TESTDATA, load_manifest, make_png, make_wav

MANIFEST = load_manifest()
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


def _box(kind: bytes, payload: bytes = b"") -> bytes:
    """An ISO-BMFF box, as ISO/IEC 14496-12 lays it out."""
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def _ftyp(major: bytes, *compatible: bytes) -> bytes:
    return _box(b"ftyp", major + b"\x00\x00\x00\x00" + b"".join(compatible))


def _hdlr(handler: bytes) -> bytes:
    return _box(b"hdlr", b"\x00" * 8 + handler + b"\x00" * 12 + b"name\x00")


def _movie(*handlers: bytes) -> bytes:
    tracks = b"".join(_box(b"trak", _box(b"mdia", _hdlr(h))) for h in handlers)
    return _box(b"moov", _box(b"mvhd", b"\x00" * 100) + tracks)


# -- the corpus -----------------------------------------------------------------------------------


@pytest.mark.skipif(not MANIFEST, reason="testdata/manifest.json is absent")
@pytest.mark.parametrize("path", sorted(MANIFEST))
def test_corpus_file_is_detected_as_the_manifest_says(path: str) -> None:
    data = (TESTDATA / path).read_bytes()
    assert detect_mime(data) == MANIFEST[path]["mime"]


@pytest.mark.skipif(not MANIFEST, reason="testdata/manifest.json is absent")
@pytest.mark.parametrize("path", sorted(MANIFEST))
def test_corpus_answer_depends_only_on_the_window_and_not_on_the_buffer_type(path: str) -> None:
    data = (TESTDATA / path).read_bytes()
    expected = detect_mime(data)
    assert detect_mime(data[:HEADER_WINDOW]) == expected
    assert detect_mime(bytearray(data)) == expected
    assert detect_mime(memoryview(data)) == expected


PUBLIC = {
    "fixture-office365.docx": DOCX,
    "fixture-office365.xlsx": XLSX,
    "fixture-office365.pptx": PPTX,
    "fixture-mif1.heic": "image/heic",
    "fixture-imovie.mp4": "video/mp4",
}


@pytest.mark.parametrize(("name", "expected"), sorted(PUBLIC.items()))
def test_public_fixture(name: str, expected: str) -> None:
    assert detect_mime((PUBLIC_TESTDATA / name).read_bytes()) == expected


def test_the_suite_reads_only_files_inside_the_repository() -> None:
    # A fresh clone has no sibling folders: the public fixtures travel with their MIT notice.
    assert PUBLIC_TESTDATA.resolve().is_relative_to(TESTDATA.resolve())
    assert "MIT License" in (PUBLIC_TESTDATA / "LICENSE").read_text()
    assert all(f"public/{name}" in MANIFEST for name in PUBLIC)
    outside = ("testdata" + "-public", "ROOT" + ".parent")  # spelled so as not to match here
    for source in Path(__file__).resolve().parents[1].rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert not any(path in text for path in outside), source


# -- ISO-BMFF brands and tracks --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ftyp", "expected"),
    [
        (_ftyp(b"mif1", b"mif1", b"heic"), "image/heic"),
        (_ftyp(b"mif1", b"miaf", b"MiHE", b"heix"), "image/heic"),
        (_ftyp(b"msf1", b"msf1", b"hevc"), "image/heic"),
        (_ftyp(b"heix", b"mif1", b"heix"), "image/heic"),
        (_ftyp(b"heim", b"mif1"), "image/heic"),
        (_ftyp(b"mif1", b"mif1", b"miaf"), "image/heif"),
        (_ftyp(b"msf1", b"msf1"), "image/heif"),
        (_ftyp(b"mif1", b"mif1", b"avif"), "image/avif"),
        (_ftyp(b"avis", b"avis", b"msf1"), "image/avif"),
        (_ftyp(b"M4A ", b"M4A ", b"mp42", b"isom"), "audio/mp4"),
        (_ftyp(b"M4B ", b"M4B "), "audio/mp4"),
        (_ftyp(b"M4V ", b"M4V ", b"mp42"), "video/x-m4v"),
        (_ftyp(b"qt  ", b"qt  "), "video/quicktime"),
        (_ftyp(b"3gp5", b"3gp5", b"isom"), "video/3gpp"),
        (_ftyp(b"3g2a", b"3g2a"), "video/3gpp2"),
        (_ftyp(b"isom", b"isom", b"iso2", b"mp41"), "video/mp4"),
        (_ftyp(b"XYZW", b"XYZW", b"isom"), "video/mp4"),
        (_ftyp(b"crx ", b"crx ", b"isom"), "image/x-canon-cr3"),
        (_ftyp(b"XYZW", b"XYZW"), None),
    ],
)
def test_ftyp_brands_decide(ftyp: bytes, expected: str | None) -> None:
    assert detect_mime(ftyp + _box(b"mdat", bytes(64))) == expected


@pytest.mark.parametrize(
    ("major", "handlers", "expected"),
    [
        (b"isom", (b"soun",), "audio/mp4"),
        (b"mp42", (b"soun", b"soun"), "audio/mp4"),
        (b"isom", (b"vide", b"soun"), "video/mp4"),
        (b"isom", (b"soun", b"vide"), "video/mp4"),
        (b"3gp4", (b"soun",), "audio/3gpp"),
        (b"3gp4", (b"vide",), "video/3gpp"),
    ],
)
def test_mp4_tracks_decide_audio_or_video(
    major: bytes, handlers: tuple[bytes, ...], expected: str
) -> None:
    faststart = _ftyp(major, major) + _movie(*handlers) + _box(b"mdat", bytes(100))
    assert detect_mime(faststart) == expected


def test_mp4_whose_moov_is_past_the_window_is_video() -> None:
    late_moov = _ftyp(b"isom", b"isom") + _box(b"mdat", bytes(HEADER_WINDOW)) + _movie(b"soun")
    assert detect_mime(late_moov) == "video/mp4"


def test_mp4_past_the_window_with_an_m4a_compatible_brand_is_audio() -> None:
    # Android and some audiobook tools: major brand mp42, M4A/M4B among the compatible ones.
    mdat = _box(b"mdat", bytes(HEADER_WINDOW))
    assert detect_mime(_ftyp(b"mp42", b"isom", b"M4A ") + mdat + _movie(b"vide")) == "audio/mp4"
    assert detect_mime(_ftyp(b"mp42", b"isom", b"M4B ") + mdat) == "audio/mp4"


def _long_moov(*handlers: bytes, tail: bytes = b"udta") -> bytes:
    """A faststart movie whose moov runs past the window (cover art in ``udta``)."""
    tracks = b"".join(_box(b"trak", _box(b"mdia", _hdlr(h))) for h in handlers)
    cover = _box(tail, bytes(HEADER_WINDOW))
    return _ftyp(b"isom", b"isom") + _box(b"moov", _box(b"mvhd", bytes(100)) + tracks + cover)


@pytest.mark.parametrize(
    ("handlers", "tail", "expected"),
    [
        ((b"soun",), b"udta", "audio/mp4"),
        ((b"soun", b"text"), b"meta", "audio/mp4"),
        ((b"soun", b"vide"), b"udta", "video/mp4"),
        ((b"soun",), b"trak", "video/mp4"),  # a track is cut by the window: it may be video
    ],
)
def test_moov_longer_than_the_window_is_judged_by_the_tracks_it_shows(
    handlers: tuple[bytes, ...], tail: bytes, expected: str
) -> None:
    assert detect_mime(_long_moov(*handlers, tail=tail)) == expected


def test_audiobook_with_cover_art_in_the_moov_is_audio() -> None:
    data = (TESTDATA / "audio/audiobook-cover.m4b").read_bytes()
    moov = data.index(b"moov") - 4
    assert struct.unpack(">I", data[moov : moov + 4])[0] > HEADER_WINDOW  # the case it covers
    assert detect_mime(data) == "audio/mp4"
    as_video = data.replace(b"soun", b"vide", 1)
    assert detect_mime(as_video) == "video/mp4"


# -- formats the corpus does not hold --------------------------------------------------------------


def _webp(frames: int) -> bytes:
    images = [Image.new("RGB", (16, 16), color) for color in ("red", "blue", "green")[:frames]]
    buffer = io.BytesIO()
    images[0].save(buffer, "WEBP", save_all=frames > 1, append_images=images[1:])
    return buffer.getvalue()


def _old_tar() -> bytes:
    """A tar header without the ustar magic (pre-POSIX), its checksum recomputed."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        info = tarfile.TarInfo("notes.txt")
        info.size = 5
        archive.addfile(info, io.BytesIO(b"hello"))
    header = bytearray(buffer.getvalue()[:512])
    header[257:265] = bytes(8)
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\x00 " % sum(header)
    return bytes(header) + buffer.getvalue()[512:]


def _zip(*names: str, first_size: int = 10) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for number, name in enumerate(names):
            payload = random.Random(number).randbytes(first_size if number == 0 else 10)
            archive.writestr(name, payload)
    return buffer.getvalue()


def _mpeg_audio_frames(header: bytes, count: int) -> bytes:
    # MPEG-1 layer III, 128 kbit/s, 44.1 kHz, no padding: 417 bytes a frame.
    return (header + bytes(417 - 4)) * count


MP3_HEADER = b"\xff\xfb\x90\x64"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (_webp(1), "image/webp"),
        (_webp(3), "image/webp"),
        (b"\x00\x00\x00\x0cJXL \r\n\x87\n" + _ftyp(b"jxl ", b"jxl "), "image/jxl"),
        (b"II+\x00\x08\x00\x00\x00" + bytes(16), "image/tiff"),
        (_mpeg_audio_frames(MP3_HEADER, 3), "audio/mpeg"),
        (b"ID3\x04\x00\x00\x00\x00\x00\x05" + bytes(5) + _mpeg_audio_frames(MP3_HEADER, 2),
         "audio/mpeg"),
        (b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"fLaC\x00\x00\x00\x22" + bytes(34), "audio/flac"),
        (b"ID3\x03\x00\x00\x00\x08\x00\x00" + bytes(100), "audio/mpeg"),  # the tag fills the window
        (b"#!AMR-WB\n" + bytes(40), "audio/amr-wb"),
        (_old_tar(), "application/x-tar"),
        (_zip("mimetype", "content.xml"), "application/zip"),
        (_zip("[Content_Types].xml", "_rels/.rels", "xl/workbook.xml"), XLSX),
        (_zip("[Content_Types].xml", "docProps/app.xml", "ppt/presentation.xml"), PPTX),
        (_zip("META-INF/MANIFEST.MF", "Main.class"), "application/java-archive"),
        ("Hello, world.\nA second line.\n".encode("utf-16-be"), "text/plain"),
        (b"\xef\xbb\xbf<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"),
        (b'<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG'
         b' 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg></svg>',
         "image/svg+xml"),
        (b"<!-- top -->\n<!doctype html><title>x</title>", "text/html"),
        (b"<note xmlns='urn:x'><to>A</to></note>", "application/xml"),
        (b"<?xml version='1.0'?><feed></feed>", "application/xml"),
        (b'{"name": "x", "tags": [1, 2.5, null, true]}', "application/json"),
        (b"[\n" + b'  {"id": 1, "text": "lorem ipsum"},\n' * 200, "application/json"),
        (b"name;age;city\nAna;31;Porto\nBo;42;Oslo\n", "text/csv"),
        (b"a\tb\tc\n1\t2\t3\n", "text/tab-separated-values"),
        (b"# Title\n\nSome *text* and a [link](https://example.com).\n\n- one\n- two\n",
         "text/markdown"),
        (b"#!/bin/sh\n# a comment, not a heading\n# another\necho hi\n", "text/plain"),
        (b"# settings\nitems:\n  - a\n  - b\n", "text/plain"),  # YAML: comments and a list
        (b"func main() {\n\tfoo()\n\tbar()\n\tbaz()\n}\n", "text/plain"),  # tabs indent
        (b"# Title\n\nSome text.\n\n## Install\n\n- one\n- two\n", "text/markdown"),
        (b"\r\n\t   %PDF-1.7\n1 0 obj\n", "application/pdf"),
    ],
)  # fmt: skip
def test_other_formats(data: bytes, expected: str) -> None:
    assert detect_mime(data) == expected


def _compound_file(
    first_record: bytes, sector: int, names: tuple[str, ...] = (), count: int = 140
) -> bytes:
    """A compound file (MS-CFB version 3, 512-byte sectors) of ``count`` sectors whose ``sector``
    starts with ``first_record``; the directory, holding ``names``, is the last sector (past the
    64 KiB window with the default count, as LibreOffice writes it)."""
    sectors = [bytearray(512) for _ in range(count)]
    sectors[sector][: len(first_record)] = first_record
    for number, name in enumerate(names):
        encoded = name.encode("utf-16-le") + b"\x00\x00"
        sectors[-1][number * 128 : number * 128 + len(encoded)] = encoded
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    header[24:34] = struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
    header[48:52] = struct.pack("<I", count - 1)
    return bytes(header) + b"".join(sectors)


@pytest.mark.parametrize(
    ("first_record", "expected"),
    [
        (b"\xec\xa5\xc1\x00", "application/msword"),  # Word 97 FIB
        (b"\x09\x08\x10\x00\x00\x06\x05\x00", "application/vnd.ms-excel"),  # BIFF8 BOF
        (b"\x0f\x00\xe8\x03", "application/vnd.ms-powerpoint"),  # DocumentContainer
        (b"nothing we know", "application/x-ole-storage"),
    ],
)
def test_legacy_office_whose_directory_is_past_the_window(
    first_record: bytes, expected: str
) -> None:
    assert detect_mime(_compound_file(first_record, 7)) == expected


def test_legacy_office_directory_in_the_window_decides() -> None:
    names = ("Root Entry", "PowerPoint Document", "Current User")
    assert detect_mime(_compound_file(b"", 0, names, count=6)) == "application/vnd.ms-powerpoint"
    far = _compound_file(b"", 0, names)
    assert len(far) > HEADER_WINDOW
    assert detect_mime(far) == "application/x-ole-storage"


def test_ooxml_deciding_entry_past_the_window_stays_zip() -> None:
    near = _zip("[Content_Types].xml", "big.bin", "word/document.xml", first_size=100)
    far = _zip("big.bin", "word/document.xml", first_size=HEADER_WINDOW)
    assert detect_mime(near) == DOCX
    assert detect_mime(far) == "application/zip"


# -- hostile input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff",
        b"\x00",
        b"\x89P",
        b"{}",
        b"ID3",
        b"GIF",
        b"\xff\xd8",
        b"\x00\x00\x01",
        b"\x89PNG\r\n",
        b"RIFF\x00\x00",
        b"\x00\x00\x00\x18ftyp",
        b"PK\x03",
        b"\x1a\x45\xdf",
        b"OggS\x00",
        b"ID3\x04\x00",
        b"\xd0\xcf\x11\xe0",
        b"\xff\xfb\x90",
        b"\x00\x00\x01\xba\x44",
    ],
)
def test_empty_tiny_and_truncated_headers_say_nothing(data: bytes) -> None:
    assert detect_mime(data) is None


@pytest.mark.parametrize("seed", range(40))
def test_random_bytes_say_nothing(seed: int) -> None:
    rng = random.Random(seed)
    data = rng.randbytes(rng.choice((16, 200, 1500, 9000)))
    assert detect_mime(data) is None


@pytest.mark.parametrize("seed", range(20))
def test_mpeg_sync_lookalikes_say_nothing(seed: int) -> None:
    # A valid-looking first frame header, but no second frame where its length says.
    data = MP3_HEADER + random.Random(seed).randbytes(2000).replace(b"\xff", b"\x00")
    assert detect_mime(data) is None


def test_one_valid_frame_is_not_enough_but_two_are() -> None:
    assert detect_mime(_mpeg_audio_frames(MP3_HEADER, 1) + b"\x00" * 40) is None
    assert detect_mime(_mpeg_audio_frames(MP3_HEADER, 2)) == "audio/mpeg"
    reserved_rate = b"\xff\xfb\x9c\x64"
    assert detect_mime(_mpeg_audio_frames(reserved_rate, 3)) is None


@pytest.mark.parametrize(
    "data",
    [
        b"text with a \x1b[31m colour escape\n",
        b"almost text\x00 with a NUL in it\n",
        bytes(range(7, 200)) * 3,
        b"\x00" * 2000 + b"%PDF-1.7\n",  # a PDF header too far in
    ],
)
def test_things_that_are_not_text(data: bytes) -> None:
    assert detect_mime(data) is None


# -- text in every common encoding (issue 10: legacy, short, UTF-32 and BOM-less UTF-16 text) ------

LEGACY = "Café crème brûlée, naïve façade. Grüße aus Köln; à bientôt, señor Muñoz!\n"


@pytest.mark.parametrize("codec", ["latin-1", "cp1252", "iso-8859-15"])
def test_western_single_byte_text_is_text(codec: str) -> None:
    assert detect_mime(LEGACY.encode(codec)) == "text/plain"
    assert detect_mime(b"plain latin-1 caf\xe9 text\n") == "text/plain"  # the example
    quotes = "\u201cPrix : 5 \u20ac\u201d \u2013 d\u00e9j\u00e0 vu\u2026\n".encode("cp1252")
    assert detect_mime(quotes) == "text/plain"


def test_single_byte_text_keeps_its_text_type() -> None:
    table = "ville;pays\nMünchen;Deutschland\nZürich;Schweiz\nGenève;Suisse\n".encode("latin-1")
    assert detect_mime(table) == "text/csv"


@pytest.mark.parametrize("data", [b"hi there", b"ok", b"Hi!", b"no\n", b"yes"])
def test_very_short_text_is_text(data: bytes) -> None:
    assert detect_mime(data) == "text/plain"


@pytest.mark.parametrize(
    "codec", ["utf-32", "utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be", "utf-16"]
)
@pytest.mark.parametrize(
    "text",
    [
        "Hello, world. A second line.\n",
        "Grüße aus Köln, naïve café.\n",
        "Привет, мир! Как дела? Всё хорошо.\n",
        "Καλημέρα κόσμε, τι κάνεις σήμερα;\n",
        "東京は今日も晴れです。明日も晴れるでしょう。\n",
    ],
)
def test_utf16_and_utf32_with_or_without_a_bom_are_text(codec: str, text: str) -> None:
    assert detect_mime(text.encode(codec)) == "text/plain"


def test_a_cut_utf8_character_at_the_real_end_is_not_read_as_latin_1() -> None:
    assert detect_mime("naïve café".encode()[:-1]) is None


_CONTROL_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x20), 0x7F])


@settings(max_examples=200, deadline=None)
@given(
    body=st.binary(min_size=8, max_size=600),
    controls=st.lists(st.sampled_from(_CONTROL_BYTES), min_size=4, max_size=40),
    seed=st.randoms(use_true_random=False),
)
def test_bytes_with_many_control_characters_are_not_text(
    body: bytes, controls: list[int], seed: random.Random
) -> None:
    data = bytearray(body)
    for control in controls:  # sprinkle NULs and other controls all over the bytes
        data.insert(seed.randrange(len(data) + 1), control)
    assert detect_mime(bytes(data)) not in {"text/plain", "text/csv", "text/markdown"}


def test_a_repeated_pair_of_bytes_is_not_wide_text() -> None:
    """Found by the property test above: ``00 01`` repeated, with controls, read as UTF-16LE
    is one letter (U+0100) and a space over and over, which no text is."""
    data = b"\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01 \x00\x00\x01\x00\x01\x00"
    assert detect_mime(data) is None
    # with two other letters among them ("ĀĀĀĀĀ AĀB"): still one letter, over and over
    assert detect_mime(b"\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01 \x00A\x00\x00\x01B\x00") is None
    assert detect_mime("Ā ā Ă ă Ą ą, Ćma".encode("utf-16-le")) == "text/plain"


@settings(max_examples=200, deadline=None)
@given(data=st.binary(min_size=64, max_size=2000))
def test_random_binary_is_not_text(data: bytes) -> None:
    assert detect_mime(data) is None or not detect_mime(data).startswith("text/")  # type: ignore[union-attr]


def test_json_is_strict() -> None:
    assert detect_mime(b'{"a": 1,}') == "text/plain"
    assert detect_mime(b"{not json}") == "text/plain"
    cut = (b"[" + b'{"k": "value"},' * 2000)[:10_000]  # a valid prefix, cut by the head
    assert detect_mime(cut) == "application/json"


def test_prose_with_commas_is_not_csv() -> None:
    assert detect_mime(b"Hello, world.\nThis is prose, not data.\n") == "text/plain"


# -- the window ---------------------------------------------------------------------------------


def test_a_huge_buffer_is_neither_read_past_the_window_nor_copied() -> None:
    junk = bytearray(make_png()) + bytearray(b"\x00") * (50 * 1024 * 1024)
    frozen = bytes(junk)
    view = memoryview(junk)
    tracemalloc.start()
    try:
        answers = (detect_mime(view), detect_mime(junk), detect_mime(frozen))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answers == ("image/png", "image/png", "image/png")
    assert peak < 256 * 1024  # a few KiB of head and small slices, never the 50 MB
    view.release()
    junk.extend(b"x")  # detect_mime left no export of the buffer behind


def test_any_buffer_layout_is_read_as_bytes() -> None:
    png = make_png()
    interleaved = bytes(value for byte in png for value in (byte, 0))
    assert detect_mime(memoryview(png).cast("b")) == "image/png"  # signed bytes
    assert detect_mime(memoryview(interleaved)[::2]) == "image/png"  # strided


def test_bytes_after_the_window_are_ignored() -> None:
    text = b"just some words on a line\n" * (HEADER_WINDOW // 26 + 10)
    assert detect_mime(text + b"\x00\x01\x02 binary tail") == "text/plain"


def test_a_multibyte_character_cut_by_the_head_is_forgiven() -> None:
    data = "é".encode() * 30_000  # two bytes a character
    for start in (b"x", b"xy"):  # the first 4 KiB end inside a character, or between two
        assert detect_mime(start + data) == "text/plain"
    assert detect_mime(b"abc\xc3") is None  # the real end of the data: a broken character


# -- normalize_mime and mime_kind ---------------------------------------------------------------

ALIASES = [
    ("image/jpg", "image/jpeg"),
    ("IMAGE/JPEG", "image/jpeg"),
    ("image/pjpeg", "image/jpeg"),
    ("image/x-png", "image/png"),
    ("image/x-ms-bmp", "image/bmp"),
    ("image/x-bmp", "image/bmp"),
    ("image/x-icon", "image/vnd.microsoft.icon"),
    ("image/vnd.microsoft.icon", "image/vnd.microsoft.icon"),
    ("image/tif", "image/tiff"),
    ("audio/x-wav", "audio/wav"),
    ("audio/wave", "audio/wav"),
    ("audio/vnd.wave", "audio/wav"),
    ("audio/mp3", "audio/mpeg"),
    ("audio/mpeg3", "audio/mpeg"),
    ("audio/x-mp3", "audio/mpeg"),
    ("audio/x-m4a", "audio/mp4"),
    ("audio/m4a", "audio/mp4"),
    ("audio/x-flac", "audio/flac"),
    ("audio/x-aiff", "audio/aiff"),
    ("audio/x-aac", "audio/aac"),
    ("audio/x-midi", "audio/midi"),
    ("video/x-m4v", "video/x-m4v"),
    ("video/avi", "video/x-msvideo"),
    ("video/x-matroska", "video/x-matroska"),
    ("application/x-pdf", "application/pdf"),
    ("text/xml", "application/xml"),
    ("text/xml; charset=utf-8", "application/xml"),
    ("application/x-zip-compressed", "application/zip"),
    ("application/x-gzip", "application/gzip"),
    ("text/plain; charset=UTF-8", "text/plain"),
    ("  Text/HTML ; charset=iso-8859-1", "text/html"),
    ('multipart/form-data; boundary="x;y"', "multipart/form-data"),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", DOCX),
]


@pytest.mark.parametrize(("alias", "canonical"), ALIASES)
def test_normalize_mime_aliases(alias: str, canonical: str) -> None:
    assert normalize_mime(alias) == canonical


@pytest.mark.parametrize("bad", ["", "jpeg", "image/", "/png", "image png", "image/pn g", "a/b/c"])
def test_normalize_mime_refuses_what_is_not_a_mime_type(bad: str) -> None:
    with pytest.raises(mb.MediaTypeError, match="not a MIME type"):
        normalize_mime(bad)
    with pytest.raises(ValueError, match="not a MIME type"):  # callers catch ValueError
        normalize_mime(bad)


@pytest.mark.parametrize(
    ("mime", "kind"),
    [
        ("image/png", "image"),
        ("Image/SVG+XML", "image"),
        ("audio/mpeg", "audio"),
        ("video/mp4; codecs=avc1", "video"),
        ("application/pdf", "file"),
        ("text/plain", "file"),
        ("application/ogg", "file"),
    ],
)
def test_mime_kind(mime: str, kind: str) -> None:
    assert mime_kind(mime) == kind


# -- users' signatures ----------------------------------------------------------------------------


@pytest.fixture
def registry() -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        unregister_signature(name)


def test_registered_signature_beats_the_built_in_table(registry: list[str]) -> None:
    png = make_png()
    register_signature("application/x-my-png", prefix=b"\x89PNG")
    registry.append("application/x-my-png")
    assert detect_mime(png) == "application/x-my-png"
    assert unregister_signature("application/x-my-png") is True
    assert unregister_signature("application/x-my-png") is False
    assert detect_mime(png) == "image/png"


def test_accept_gets_a_read_only_window(registry: list[str]) -> None:
    seen: list[memoryview] = []

    def accept(window: memoryview) -> bool:
        seen.append(window)
        return window[:4].tobytes() == b"MYFM" and window[8] == 2

    register_signature("Application/X-MyFormat; v=2", accept, name="myformat")
    registry.append("myformat")
    data = b"MYFM\x00\x00\x00\x00\x02" + bytes(HEADER_WINDOW * 2)
    assert detect_mime(bytearray(data)) == "application/x-myformat"
    assert seen[-1].readonly
    assert len(seen[-1]) == HEADER_WINDOW
    assert detect_mime(b"MYFM\x00\x00\x00\x00\x03" + bytes(20)) is None


def test_prefix_at_an_offset_and_the_newest_signature_first(registry: list[str]) -> None:
    register_signature("application/x-old", prefix=b"TAG", offset=4, name="old")
    register_signature("application/x-new", prefix=b"TAG", offset=4, name="new")
    registry += ["old", "new"]
    assert detect_mime(b"\x00\x01\x02\x03TAG\x00") == "application/x-new"
    unregister_signature("new")
    assert detect_mime(b"\x00\x01\x02\x03TAG\x00") == "application/x-old"
    register_signature("application/x-renamed", prefix=b"TAG", offset=4, name="old")
    assert detect_mime(b"\x00\x01\x02\x03TAG\x00") == "application/x-renamed"


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("not a type", lambda _: True), {}, "not a MIME type"),
        (("application/x-a",), {}, "give accept, prefix, or both"),
        (("application/x-a", "not callable"), {}, "must be callable"),
        (("application/x-a",), {"prefix": b"X", "offset": HEADER_WINDOW}, "within the first"),
    ],
)
def test_register_signature_refuses_bad_arguments(
    args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(mb.MediaTypeError, match=message):
        register_signature(*args, **kwargs)


# -- through the blocks -------------------------------------------------------------------------


def test_declared_alias_is_normalised_and_checked_by_the_bytes() -> None:
    png = make_png()
    block = mb.ImageBlock.from_bytes(png, "image/x-png")
    assert (block.declared_mime, block.mime_type) == ("image/png", "image/png")
    assert mb.ImageBlock.from_bytes(png, "IMAGE/JPG; q=1").mime_type == "image/png"
    with pytest.raises(mb.MediaTypeError, match="declared image/jpeg but the bytes are image/png"):
        mb.ImageBlock.from_bytes(png, "image/jpg", strict=True)
    assert mb.AudioBlock.from_bytes(make_wav(), "audio/x-wav").mime_type == "audio/wav"


@pytest.mark.skipif(not MANIFEST, reason="testdata/manifest.json is absent")
def test_media_block_picks_the_class_from_detection() -> None:
    voice_note = mb.media_block((TESTDATA / "audio/opus.webm").read_bytes())
    assert type(voice_note) is mb.AudioBlock
    assert voice_note.mime_type == "audio/webm"
    assert type(mb.media_block((TESTDATA / "text/data.csv").read_bytes())) is mb.FileBlock


def test_manifest_is_json_with_a_mime_per_file() -> None:
    if not MANIFEST:
        pytest.skip("testdata/manifest.json is absent")
    raw = json.loads((TESTDATA / "manifest.json").read_text())
    assert all("mime" in entry for entry in raw.values())


# -- the long tail: raster and audio formats prepare converts --------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"MAC \x96\x0f" + bytes(58), "audio/x-ape"),  # Monkey's Audio 3.99
        (b"MAC \x00\x00" + bytes(58), None),  # version 0: not a Monkey's Audio header
        (b"tBaK\x00\x00\x00\x22" + bytes(56), "audio/x-tak"),
        (b"DSD \x1c" + bytes(7) + bytes(52), "audio/x-dsf"),
        (b"FRM8" + bytes(8) + b"DSD " + bytes(48), "audio/x-dff"),
        (b"MPCK" + bytes(60), "audio/x-musepack"),
        (b"MP+\x17" + bytes(60), "audio/x-musepack"),
        (b"wvpk" + bytes(4) + b"\x10\x04" + bytes(54), "audio/x-wavpack"),
        (b"wvpk" + bytes(4) + b"\x99\x09" + bytes(54), None),  # no WavPack version
        # FLI (AF11) and FLC (AF12): size, magic, frames, 320x200, depth 8, flags 3
        (struct.pack("<IHHHHHH", 4000, 0xAF11, 4, 320, 200, 8, 3) + bytes(48), "video/x-flic"),
        (struct.pack("<IHHHHHH", 4000, 0xAF12, 4, 320, 200, 8, 0) + bytes(48), "video/x-flic"),
        (struct.pack("<IHHHHHH", 4000, 0xAF12, 4, 320, 200, 24, 0) + bytes(48), None),
        (b"DDS |\x00\x00\x00" + bytes(120), "image/vnd.ms-dds"),
        (b"qoif\x00\x00\x00\x10\x00\x00\x00\x10\x04\x00" + bytes(8), "image/qoi"),
        (b"SIMPLE  =                    T / conforming" + b" " * 37, "image/fits"),
        (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", "image/x-eps"),
        (b"%!PS-Adobe-3.0\n%%Pages: 1\n", "application/postscript"),
    ],
)
def test_long_tail_signatures(data: bytes, expected: str | None) -> None:
    assert detect_mime(data) == expected


def test_ape_behind_an_id3v2_tag() -> None:
    tag = b"ID3\x03\x00\x00\x00\x00\x00\x0a" + bytes(10)
    assert detect_mime(tag + b"MAC \x96\x0f" + bytes(100)) == "audio/x-ape"


@pytest.mark.parametrize(
    ("flags", "tags", "expected"),
    [
        (4, [8, 8], "audio/x-flv"),  # header: audio only
        (5, [18, 8, 9, 8], "video/x-flv"),
        (5, [18] + [8] * 10, "audio/x-flv"),  # the video flag is set, but no video tag comes
        (5, [18, 8, 8], "video/x-flv"),  # too few tags to overrule the header
        (1, [9, 9], "video/x-flv"),
    ],
)
def test_flv_without_video_is_audio(flags: int, tags: list[int], expected: str) -> None:
    body = b"".join(
        bytes([kind]) + (4).to_bytes(3, "big") + bytes(7) + bytes(4) + bytes(4) for kind in tags
    )
    data = b"FLV\x01" + bytes([flags]) + struct.pack(">I", 9) + bytes(4) + body
    assert detect_mime(data) == expected


def _ole_with_root(root_clsid: bytes = bytes(16), names: tuple[str, ...] = ()) -> bytes:
    """A minimal compound file (OLE2): header, then a directory sector at sector 0."""
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    header[30:32] = (9).to_bytes(2, "little")  # 512-byte sectors
    entries = [("Root Entry", root_clsid), *((name, bytes(16)) for name in names)]
    directory = bytearray()
    for name, clsid in entries:
        entry = bytearray(128)
        raw = (name + "\x00").encode("utf-16-le")
        entry[: len(raw)] = raw
        entry[0x40:0x42] = len(raw).to_bytes(2, "little")
        entry[0x50:0x60] = clsid
        directory += entry
    return bytes(header) + bytes(directory.ljust(512, b"\x00"))


def test_flashpix_and_image_composer_are_images_not_ole_storage() -> None:
    flashpix = bytes.fromhex("0067615654c1ce11855300aa00a1f95b")
    assert detect_mime(_ole_with_root(flashpix)) == "image/vnd.fpx"
    assert detect_mime(_ole_with_root(names=("Layer1.ACI", "Image"))) == "image/x-mic"
    assert detect_mime(_ole_with_root(names=("Other",))) == "application/x-ole-storage"


@pytest.mark.skipif(not MANIFEST, reason="testdata/manifest.json is absent")
def test_tga_check_takes_no_other_testdata_file() -> None:
    """TGA has no magic: its header check must refuse every other file of the corpus."""
    from mediablocks.mime.rasters import _tga

    for path, entry in MANIFEST.items():
        data = (TESTDATA / path).read_bytes()
        head = data[:4096]
        found = _tga(head, memoryview(data)[:HEADER_WINDOW], len(data) > len(head))
        assert (found == "image/x-tga") == (entry["mime"] == "image/x-tga"), path


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            b"DDS |",
            b"\x01\xda",
            b"\x0a\x05\x01",
            b"icns",
            b"P6\n",
            b"/* XPM */",
            b"#define ",
            b"qoif",
            b"\x59\xa6\x6a\x95",
            b"\x00\x00\x02\x00",
            b"SIMPLE  =",
            b"%!PS-Adobe-3.0 EPSF",
            b"\xc5\xd0\xd3\xc6",
            b"wvpk",
            b"MAC ",
            b"MPCK",
            b"tBaK",
            b"DSD ",
            b"FRM8",
            b"FLV\x01",
            b"\x00\x00\x02\x00\x00",
            b"\xb1\x68\xde\x3a",
        ]
    ),
    st.binary(max_size=600),
)
def test_long_tail_checks_never_raise(prefix: bytes, tail: bytes) -> None:
    found = detect_mime(prefix + tail)
    assert found is None or "/" in found


def test_table_bytes_are_not_text() -> None:
    ramp = bytes(range(0x21, 0x7F)) * 4  # printable bytes of a lookup table, no spaces
    assert detect_mime(ramp) is None
    lut16 = b"".join(struct.pack("<H", 0x4E00 + 3 * i) for i in range(512))  # CJK-range values
    assert detect_mime(lut16) is None
    assert detect_mime(b"\x80" * 600) is None


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_a_bom_may_mix_every_script(codec: str) -> None:
    text = "English, Ελληνικά, Русский, 日本語, 한국어, ქართული, ᚠᚢᚦ runes, emoji 😀🎉\n"
    bom = b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff"
    assert detect_mime(bom + text.encode(codec)) == "text/plain"
    private = "private use \ue000\ue001 is not text\n"
    assert detect_mime(bom + private.encode(codec)) is None
