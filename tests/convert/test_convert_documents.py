"""Text and page images from real documents (testdata/document), and hostile ones refused.

Expected words come from the sources the documents were made from: ``testdata/text/readme.md``
(pandoc and LibreOffice made the DOCX, ODT, RTF, DOC, EPUB, PPTX, ODP and PPT from it),
``testdata/text/data.csv`` (the spreadsheets) and the PostScript in the manifest's command for
``three-pages.pdf``.
"""

from __future__ import annotations

import csv
import io
import re
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mediablocks.convert._extract import ZipReader
from mediablocks.convert.office import DOCX
from mediablocks.convert.pdf import page_count, pdf_text, render_pages, render_scale
from mediablocks.convert.text import decode_text, document_text, text_convertible
from mediablocks.errors import (
    DecodeError,
    DecompressionBombError,
    InvalidOptionError,
    MediaBlocksError,
    UnsupportedBlockError,
)
from mediablocks.media_input import media_block
from tests.conftest import TESTDATA, load_manifest

DOCS = TESTDATA / "document"
MANIFEST = load_manifest()


def read(name: str) -> bytes:
    return (DOCS / name).read_bytes()


def mime_of(path: Path) -> str:
    return media_block(path).mime_type


def readme_lines() -> list[str]:
    """The readable lines of readme.md: markdown markers and link targets removed."""
    lines = []
    for raw in (TESTDATA / "text" / "readme.md").read_text().splitlines():
        text = re.sub(r"\]\([^)]*\)", "", raw)
        text = re.sub(r"^(#+|-|\d+\.|>)\s*", "", text)
        text = text.replace("**", "").replace("*", "").replace("`", "").replace("[", "")
        if text.strip() and not text.startswith("```") and text != "python":
            lines.append(text.strip())
    return lines


def csv_rows() -> list[list[str]]:
    with open(TESTDATA / "text" / "data.csv", newline="") as handle:
        return list(csv.reader(handle))


def pdf_words() -> list[str]:
    """The strings the PostScript in three-pages.pdf's command shows, one per page."""
    return re.findall(r"\(([^)]*)\) show", MANIFEST["document/three-pages.pdf"]["made_by"])


WORD_DOCUMENTS = ["report.docx", "report.odt", "report.rtf", "report.doc", "book.epub"]
SLIDES = ["slides.pptx", "slides.odp", "slides.ppt"]
SHEETS = ["data.xlsx", "data.ods", "data.xls"]


@pytest.mark.parametrize("name", WORD_DOCUMENTS + SLIDES + ["report.pdf"])
def test_text_documents_hold_every_line_of_their_source(name: str) -> None:
    path = DOCS / name
    extracted = document_text(path.read_bytes(), mime_of(path), what=name)
    flat = " ".join(extracted.text.split())
    for line in readme_lines():
        assert line in flat, (line, extracted.text)
    assert not extracted.truncated


@pytest.mark.parametrize("name", ["report.docx", "report.odt"])
def test_headings_and_list_items_keep_their_markdown_shape(name: str) -> None:
    text = document_text(read(name), mime_of(DOCS / name)).text
    assert "# Field notes" in text.splitlines()
    assert "## Findings" in text.splitlines()
    assert "- first point" in text.splitlines()


@pytest.mark.parametrize("name", SLIDES)
def test_slides_are_numbered(name: str) -> None:
    extracted = document_text(read(name), mime_of(DOCS / name))
    assert extracted.text.startswith("## Slide 1\n")
    assert extracted.parts == 1
    assert "*" not in extracted.text.splitlines()  # LibreOffice's field placeholders


@pytest.mark.parametrize("name", SHEETS)
def test_spreadsheets_give_every_row_as_csv(name: str) -> None:
    extracted = document_text(read(name), mime_of(DOCS / name))
    lines = extracted.text.splitlines()
    assert lines[0] == "## Sheet: data"
    got = list(csv.reader(io.StringIO("\n".join(lines[1:]))))
    assert got == csv_rows()
    assert extracted.parts == 1


def test_a_multi_page_pdf_gives_each_page_text_in_order() -> None:
    data = read("three-pages.pdf")
    words = pdf_words()
    assert len(words) == 3
    assert page_count(data) == 3
    extracted = pdf_text(data, 10_000)
    assert extracted.pages == 3
    assert not extracted.truncated
    positions = [extracted.text.index(f"## Page {n}\n{words[n - 1]}") for n in (1, 2, 3)]
    assert positions == sorted(positions)


def test_pdf_text_stops_at_the_page_budget_and_says_so() -> None:
    extracted = pdf_text(read("three-pages.pdf"), 10_000, max_pages=2)
    words = pdf_words()
    assert words[1] in extracted.text
    assert words[2] not in extracted.text
    assert extracted.truncated
    assert extracted.pages == 3


def test_pages_render_one_by_one_within_the_size_asked() -> None:
    pages = list(render_pages(read("three-pages.pdf"), max_side=400, dpi=300))
    assert [page.number for page in pages] == [1, 2, 3]
    for page in pages:
        with Image.open(io.BytesIO(page.data)) as image:
            assert image.format == "JPEG"
            assert image.size == (page.width, page.height)
            assert max(image.size) == 400  # 300 x 200 pt at 300 dpi, scaled into 400 px
    png = next(render_pages(read("three-pages.pdf"), max_pages=1, image_format="png"))
    assert png.mime_type == "image/png"
    assert (png.width, png.height) == (625, 417)


def test_page_images_differ_per_page() -> None:
    first, second = list(render_pages(read("three-pages.pdf"), max_pages=2, image_format="png"))
    assert first.data != second.data


def test_a_huge_declared_page_is_rendered_small() -> None:
    # A 200-inch square page at 150 dpi would be 30000 px a side: the limits win.
    scale = render_scale(14400, 14400, 150, 2048, 4_000_000)
    assert 14400 * scale <= 2000.0 + 1e-6
    with pytest.raises(ValueError, match="page size"):
        render_scale(0, 100, 150, 2048, None)


def test_render_options_are_checked() -> None:
    with pytest.raises(InvalidOptionError):
        next(render_pages(read("three-pages.pdf"), max_pages=0))


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("utf8.txt", "utf-8"),
        ("utf8-bom.txt", "utf-8-sig"),
        ("utf16le-bom.txt", "utf-16-le"),
        ("utf16be-bom.txt", "utf-16-be"),
        ("utf16le-nobom.txt", "utf-16-le"),
    ],
)
def test_text_files_decode_by_their_bytes(name: str, codec: str) -> None:
    expected = (TESTDATA / "text" / "utf8.txt").read_text(encoding="utf-8")
    text, used = decode_text((TESTDATA / "text" / name).read_bytes())
    assert text == expected
    assert used == codec


def test_cp1252_is_the_last_resort_and_a_declared_charset_wins() -> None:
    assert decode_text("café".encode("cp1252")) == ("café", "cp1252")
    assert decode_text("кот".encode("koi8-r"), "koi8-r") == ("кот", "koi8-r")


def test_text_is_cut_at_max_chars() -> None:
    extracted = document_text(read("report.docx"), DOCX, max_chars=30)
    assert extracted.truncated
    assert len(extracted.text) <= 30
    assert extracted.text.startswith("# Field notes")
    with pytest.raises(InvalidOptionError):
        document_text(read("report.docx"), DOCX, max_chars=0)


def test_which_types_have_a_text_reader() -> None:
    assert text_convertible(DOCX)
    assert text_convertible("text/csv")
    assert text_convertible("application/msword")
    assert text_convertible("application/pdf")
    assert not text_convertible("application/postscript")
    with pytest.raises(UnsupportedBlockError, match="no text"):
        document_text(read("sample.ps"), "application/postscript")


# -- hostile input --------------------------------------------------------------------------------


def docx_with(document_xml: bytes, compress: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compress) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", document_xml)
    return out.getvalue()


def test_a_zip_bomb_is_refused_before_it_is_inflated() -> None:
    body = b"<w:document xmlns:w='w'>" + b" " * 20_000_000 + b"</w:document>"
    bomb = docx_with(body)
    assert len(bomb) < 100_000  # 20 MB of spaces in a few KB: a ratio no document has
    # The class a PNG bomb raises too: one class, one code, for every decompression bomb.
    with pytest.raises(DecompressionBombError, match=r"bomb\.docx.*decompression bomb") as caught:
        document_text(bomb, DOCX, what="bomb.docx")
    assert caught.value.code == "decompression_bomb"


def test_members_past_the_uncompressed_budget_are_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("a.xml", b"x" * 6000)
    reader = ZipReader(out.getvalue(), "many.docx", "DOCX", budget=5000)
    with pytest.raises(DecompressionBombError, match="decompression bomb"):
        reader.read("a.xml")


def test_xml_entities_are_refused() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><d>&b;</d>'
    )
    with pytest.raises(DecodeError, match="DTD"):
        document_text(docx_with(laughs), DOCX, what="laughs.docx")


@pytest.mark.parametrize(
    "data",
    [
        b"PK\x03\x04 not really a zip",
        b"",
        docx_with(b"<w:document><w:p>unclosed"),
    ],
)
def test_broken_office_files_raise_decode_error_naming_the_block(data: bytes) -> None:
    with pytest.raises(DecodeError, match=r"broken\.docx"):
        document_text(data, DOCX, what="broken.docx")


def test_a_zip_that_is_not_a_document_says_what_is_missing() -> None:
    data = (TESTDATA / "bad" / "zip-not-ooxml.docx").read_bytes()
    with pytest.raises(DecodeError, match=r"word/document\.xml is missing"):
        document_text(data, DOCX, what="zip-not-ooxml.docx")


@pytest.mark.parametrize("name", ["three-pages.pdf", "report.docx", "data.xls", "report.doc"])
def test_truncated_documents_raise_decode_error(name: str) -> None:
    data = read(name)
    mime = mime_of(DOCS / name)
    with pytest.raises(DecodeError, match=name.replace(".", r"\.")):
        document_text(data[: len(data) // 2], mime, what=name)


def test_a_pdf_with_junk_before_its_header_still_reads() -> None:
    assert "Hello from Ghostscript" in pdf_text(read("../bad/junk-prefix.pdf"), 1000).text


def test_a_missing_extra_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    with pytest.raises(UnsupportedBlockError, match=r"pip install 'mediablocks\[pdf\]'"):
        page_count(read("three-pages.pdf"), "scan.pdf")
    monkeypatch.setitem(sys.modules, "xlrd", None)
    with pytest.raises(UnsupportedBlockError, match=r"mediablocks\[office\]"):
        document_text(read("data.xls"), "application/vnd.ms-excel")


MUTABLE = [
    "three-pages.pdf",
    "report.docx",
    "data.xlsx",
    "slides.pptx",
    "report.odt",
    "book.epub",
    "report.rtf",
    "report.doc",
    "data.xls",
    "slides.ppt",
]


@pytest.mark.parametrize("name", MUTABLE)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_documents_raise_only_mediablocks_errors(name: str, data: st.DataObject) -> None:
    original = bytearray(read(name))
    flips = data.draw(st.lists(st.integers(0, len(original) - 1), min_size=1, max_size=8))
    for position in flips:
        original[position] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(len(original) // 3, len(original)))
    mutated = bytes(original[:cut])
    mime = mime_of(DOCS / name)
    try:
        document_text(mutated, mime, max_chars=5000, what=name)
        if mime == "application/pdf":
            for _ in render_pages(mutated, what=name, max_pages=2, max_side=200):
                pass
    except MediaBlocksError as exc:
        error = str(exc)
    else:
        error = name
    assert name in error  # whatever happened, an error names the block
