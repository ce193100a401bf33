"""The hand-written document readers are linear, and no hostile document or SVG escapes.

Each reproducer is generated here and small (issue 18's CPU bombs: XLSX cells in column XFD, ODS
repeated columns, nested PPT containers, quadratic EPUB HTML, backtracking RTF). Time is bounded
the way the library bounds it: a wall-time budget in the call (`use_conversion_limits`), which
ends in `ConversionTimeoutError` when passed; the linear readers finish well inside it, where
the old ones ran for a minute or more.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.convert._extract import ExtractedText, TextSink
from mediablocks.convert.legacy import _ppt
from mediablocks.convert.limits import ConversionLimits, use_conversion_limits
from mediablocks.convert.office import DOCX, ODP, ODS, ODT, PPTX, XLSX
from mediablocks.convert.raster import rasterise_svg
from mediablocks.convert.text import EPUB, document_text

BUDGET = 20.0  # seconds of wall time per conversion: the old readers took 60 s or more
LIMITS = ConversionLimits(memory_bytes=512 << 20, cpu_seconds=30)

XML = b'<?xml version="1.0" encoding="UTF-8"?>\n'
SHEET_NS = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
REL_NS = b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
ODF_NS = (
    b'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    b'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    b'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    b'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"'
)


def archive(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return out.getvalue()


def xlsx(sheet_rows: bytes, encoding: str = "UTF-8") -> bytes:
    head = XML.replace(b"UTF-8", encoding.encode())
    return archive(
        {
            "xl/workbook.xml": head + b"<workbook " + SHEET_NS + b" " + REL_NS + b"><sheets>"
            b'<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
            "xl/_rels/workbook.xml.rels": XML + b'<Relationships><Relationship Id="rId1" '
            b'Target="worksheets/sheet1.xml"/></Relationships>',
            "xl/worksheets/sheet1.xml": head + b"<worksheet " + SHEET_NS + b"><sheetData>"
            b"" + sheet_rows + b"</sheetData></worksheet>",
        }
    )


def odf(body: bytes, kind: bytes = b"spreadsheet") -> bytes:
    content = (
        XML + b"<office:document-content " + ODF_NS + b"><office:body><office:" + kind + b">"
        b"" + body + b"</office:" + kind + b"></office:body></office:document-content>"
    )
    return archive(
        {"mimetype": b"application/vnd.oasis.opendocument." + kind, "content.xml": content}
    )


def docx(body: bytes) -> bytes:
    return archive({"word/document.xml": body})


def pptx(slide: bytes) -> bytes:
    return archive(
        {
            "ppt/presentation.xml": XML + b"<presentation " + REL_NS + b"><sldIdLst>"
            b'<sldId id="256" r:id="rId1"/></sldIdLst></presentation>',
            "ppt/_rels/presentation.xml.rels": XML + b'<Relationships><Relationship Id="rId1" '
            b'Target="slides/slide1.xml"/></Relationships>',
            "ppt/slides/slide1.xml": slide,
        }
    )


def epub(chapter: bytes) -> bytes:
    return archive(
        {
            "mimetype": b"application/epub+zip",
            "META-INF/container.xml": XML + b'<container><rootfiles><rootfile full-path="OEBPS/'
            b'book.opf"/></rootfiles></container>',
            "OEBPS/book.opf": XML + b'<package><manifest><item id="c1" href="c1.xhtml" '
            b'media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/>'
            b"</spine></package>",
            "OEBPS/c1.xhtml": chapter,
        }
    )


def read_text(data: bytes, mime: str, max_chars: int = 100_000) -> ExtractedText:
    with use_conversion_limits(LIMITS, BUDGET):
        return document_text(data, mime, max_chars=max_chars, what="upload")


# -- the CPU bombs, linear now ---------------------------------------------------------------------


def test_xlsx_rows_with_one_cell_in_column_xfd_cost_their_input() -> None:
    rows = b'<row r="1"><c r="A1" t="inlineStr"><is><t>first</t></is></c></row>'
    rows += b'<row><c r="XFD1"/></row>' * 40_000
    data = xlsx(rows)
    assert len(data) < 8_000
    extracted = read_text(data, XLSX)
    assert extracted.text == "## Sheet: S\nfirst"


def test_an_xlsx_value_in_column_xfd_lands_there() -> None:
    rows = b'<row r="1"><c r="B1"><v>2</v></c><c r="XFD1"><v>9</v></c></row>'
    (line,) = read_text(xlsx(rows), XLSX).text.splitlines()[1:]
    assert line == "," + "2" + "," * 16_382 + "9"


def test_ods_repeated_empty_columns_cost_their_input() -> None:
    empty = b'<table:table-row><table:table-cell table:number-columns-repeated="16384"/>'
    empty += b"</table:table-row>"
    body = b'<table:table table:name="T"><table:table-row><table:table-cell><text:p>kept</text:p>'
    body += b"</table:table-cell></table:table-row>" + empty * 9_000 + b"</table:table>"
    extracted = read_text(odf(body), ODS)
    assert extracted.text == "## Sheet: T\nkept"


def test_ods_repeated_values_are_written_out_up_to_the_text_budget() -> None:
    row = (
        b'<table:table-row table:number-rows-repeated="1048576"><table:table-cell '
        b'table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell>'
        b"</table:table-row>"
    )
    body = b'<table:table table:name="T">' + row + b"</table:table>"
    extracted = read_text(odf(body), ODS, max_chars=50_000)
    assert extracted.truncated
    assert extracted.text.splitlines()[1] == ",".join(["x"] * 16_384)


class _Ole:
    """What `_ppt` reads of an OLE file: the PowerPoint Document stream."""

    def __init__(self, stream: bytes) -> None:
        self.stream = stream

    def exists(self, name: str) -> bool:
        return name == "PowerPoint Document"

    def openstream(self, name: str) -> io.BytesIO:
        return io.BytesIO(self.stream)


def test_deeply_nested_ppt_containers_cost_their_input() -> None:
    depth, atoms = 20_000, 20_000
    atom = struct.pack("<HHI", 0, 0x0FA8, 1) + b"a"  # TextBytesAtom "a"
    body_size = atoms * len(atom)
    stream = bytearray()
    for level in range(depth):  # each container holds the rest
        kind = 0x0FF0 if level == 0 else 0x03E8
        stream += struct.pack("<HHI", 0x000F, kind, (depth - level - 1) * 8 + body_size)
    stream += atom * atoms
    sink = TextSink(100_000)
    assert _ppt(_Ole(bytes(stream)), sink, "deck.ppt") == 0
    assert sink.text().split() == ["a"] * atoms


def test_ppt_slides_are_counted_inside_the_slide_list_only() -> None:
    persist = struct.pack("<HHI", 0, 0x03F3, 0)
    slide_list = struct.pack("<HHI", 0x000F, 0x0FF0, 2 * len(persist)) + persist * 2
    stream = persist + slide_list + persist  # outside, inside twice, outside
    sink = TextSink(1000)
    assert _ppt(_Ole(stream), sink, "deck.ppt") == 2


@pytest.mark.parametrize(
    "chapter",
    [
        # html.parser (Python 3.11) takes 9 s on the first, 3 s on the second, 1.8 s on the
        # third, and raises AssertionError on the fourth; the time grows with the square.
        b"<html><body><p>start</p>" + b"<a " * 5_000,
        b"<html><body><p>start</p>" + b"<a x=" * 3_000,
        b"<html><body><p>start</p>" + b'<a x="' * 2_500,
        b"<html><body><p>start</p>" + b"<![" * 5_000,
        b"<html><body><p>start</p><!--" + b"<!--x" * 3_000,
        b"<html><body><p>start</p>" + b"</" * 7_500 + b"</body></html>",
    ],
)
def test_epub_chapters_are_read_in_one_pass(chapter: bytes) -> None:
    assert len(chapter) <= 20_000
    extracted = read_text(epub(chapter), EPUB)
    assert extracted.text.startswith("start")


def test_epub_html_keeps_its_shape() -> None:
    chapter = (
        b"<html><head><title>T</title><style>p{x:1<2}</style></head><body><h2>Head &amp; "
        b"more</h2><p>one<br/>two</p><script>if (a<b) {}</script><ul><li>i</li></ul></body></html>"
    )
    assert read_text(epub(chapter), EPUB).text == "## Head & more\n\none\ntwo\n\n- i"


def test_rtf_that_makes_striprtf_backtrack_is_read_in_one_pass() -> None:
    data = b"{\\rtf1\\ansi first " + b'{\\field{\\*\\fldinst{HYPERLINK "x" ' * 2_500 + b"}"
    assert 80_000 < len(data) < 100_000
    assert read_text(data, "application/rtf").text.startswith("first")


def test_rtf_escapes_fonts_and_binary_data() -> None:
    data = (
        b"{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0\\fcharset0 Arial;}{\\f1\\fcharset204 X;}}"
        b"\\f0 caf\\'e9 \\uc1\\u8364?\\par{\\pict\\bin4 {{{{}\\f1 \\'cf\\'f0\\par}"
    )
    assert read_text(data, "application/rtf").text == "caf\u00e9 \u20ac\n\u041f\u0440"


@pytest.mark.parametrize("mime", [DOCX, XLSX])
def test_an_unknown_xml_encoding_is_a_decode_error_naming_the_block(mime: str) -> None:
    data = xlsx(b"", encoding="x-no-such") if mime == XLSX else docx(XML.replace(b"UTF-8", b"x-no"))
    with pytest.raises(mb.DecodeError, match=r"^upload: .*unknown encoding"):
        read_text(data, mime)


def test_an_unknown_encoding_in_an_epub_chapter_list_is_a_decode_error() -> None:
    broken = archive({"META-INF/container.xml": XML.replace(b"UTF-8", b"x-nope") + b"<c/>"})
    with pytest.raises(mb.DecodeError, match="unknown encoding"):
        read_text(broken, EPUB)


# -- no escape, bounded time: a property over every reader -----------------------------------------

_words = st.text(st.characters(codec="utf-8", exclude_characters="<&>\x00"), max_size=20)
_names = st.sampled_from(["p", "t", "r", "c", "row", "table-row", "table-cell", "si", "sldId", "g"])


@st.composite
def hostile_xml(draw: st.DrawFn) -> bytes:
    """Valid-looking XML with what attacks readers: deep nesting, repeat counts, cell refs far
    out, odd encodings, DTDs and entities, unclosed tags."""
    depth = draw(st.integers(0, 3000))
    name = draw(_names).encode()
    attrs = draw(
        st.sampled_from(
            [
                b"",
                b' table:number-columns-repeated="16384"',
                b' table:number-rows-repeated="1048576"',
                b' r="XFD1048576"',
                b' text:c="99999999"',
                b' r="A1" t="s"',
            ]
        )
    )
    head = draw(
        st.sampled_from(
            [
                XML,
                b"",
                b'<?xml version="1.0" encoding="utf-16"?>',
                b'<?xml version="1.0" encoding="x-unknown"?>',
                b'<!DOCTYPE x [<!ENTITY a "aaaa">]>',
            ]
        )
    )
    inner = draw(_words).encode()
    close = b"</" + name + b">" if draw(st.booleans()) else b""
    return head + (b"<" + name + attrs + b">") * depth + inner + close * depth


@st.composite
def hostile_document(draw: st.DrawFn) -> tuple[bytes, str]:
    xml = draw(hostile_xml())
    kind = draw(st.sampled_from(["docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"]))
    if kind == "docx":
        return docx(xml), DOCX
    if kind == "xlsx":
        return xlsx(xml), XLSX
    if kind == "pptx":
        return pptx(xml), PPTX
    if kind == "epub":
        return epub(xml), EPUB
    mime = {"odt": ODT, "ods": ODS, "odp": ODP}[kind]
    return odf(xml, {"odt": b"text", "ods": b"spreadsheet", "odp": b"presentation"}[kind]), mime


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=hostile_document())
def test_hostile_archives_give_bounded_text_or_a_mediablocks_error(
    document: tuple[bytes, str],
) -> None:
    data, mime = document
    outcome = attempt(lambda: read_text(data, mime, max_chars=5_000))
    if isinstance(outcome, mb.MediaBlocksError):
        assert str(outcome).startswith("upload: ")
        assert not isinstance(outcome, mb.ConversionTimeoutError), outcome  # linear: no budget
    else:
        assert isinstance(outcome, ExtractedText)
        assert len(outcome.text) <= 5_000 + 100


T = TypeVar("T")


def attempt(call: Callable[[], T]) -> T | mb.MediaBlocksError:
    """The result, or the library's error (any other exception escapes and fails the test)."""
    try:
        return call()
    except mb.MediaBlocksError as exc:
        return exc


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    depth=st.integers(0, 2000),
    element=st.sampled_from([b"g", b"svg", b"a", b"switch", b"mask"]),
    octaves=st.integers(0, 10),
    extra=st.sampled_from([b"", b'<use href="#r"/>', b'<rect id="r" width="5" height="5"/>']),
)
def test_hostile_svgs_give_a_png_or_a_mediablocks_error(
    depth: int, element: bytes, octaves: int, extra: bytes
) -> None:
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><filter id="f">'
        b'<feTurbulence numOctaves="%d"/></filter>'
        % octaves
        + (b"<" + element + b' filter="url(#f)">') * depth
        + extra
        + (b"</" + element + b">") * depth
        + b"</svg>"
    )

    def render() -> bytes:
        with use_conversion_limits(LIMITS, BUDGET):
            return rasterise_svg(svg, 256, None, "drawing.svg")

    outcome = attempt(render)
    if isinstance(outcome, mb.MediaBlocksError):
        assert str(outcome).startswith("drawing.svg: ")
    else:
        assert outcome.startswith(b"\x89PNG\r\n\x1a\n")


def test_a_reader_past_the_memory_limit_is_a_limit_error_naming_it() -> None:
    # About 590 million characters of text asked for: far past 128 MiB of address space.
    row = (
        b'<table:table-row table:number-rows-repeated="1000"><table:table-cell '
        b'table:number-columns-repeated="16384"><text:p>xxxxxxxx</text:p></table:table-cell>'
        b"</table:table-row>"
    )
    data = odf(b'<table:table table:name="T">' + row * 4 + b"</table:table>")
    with (
        use_conversion_limits(ConversionLimits(memory_bytes=128 << 20), BUDGET),
        pytest.raises(mb.ConversionLimitError) as caught,
    ):
        document_text(data, ODS, max_chars=10**9, what="big.ods")
    assert caught.value.limit == "memory_bytes"
    assert str(caught.value) == (
        "big.ods: the Office reader went past the conversion limit memory_bytes=128 MiB"
    )
    assert read_text(data, ODS, max_chars=1000).truncated  # the same file, within its budget
