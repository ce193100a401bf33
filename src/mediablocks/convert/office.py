"""Text (light markdown) from Office Open XML and OpenDocument files, with the standard library.

DOCX, XLSX, PPTX, ODT, ODS and ODP are ZIP archives of XML. Their text is read by streaming the
few XML members that hold it through expat (`_extract.parse_xml`), member by member under the ZIP
bomb guard of `_extract.ZipReader`, into a `TextSink` that stops at ``max_chars``. Nothing else is
parsed (styles, images, macros), no DOM is built, and no third-party package is needed: python-docx,
openpyxl and python-pptx each build a whole object model of the file (lxml trees) to give the same
text, and cover one format each.

The layout kept: headings as ``#`` lines, list items as ``- `` lines, tables as ``| a | b |`` rows,
each slide under ``## Slide N``, each sheet under ``## Sheet: name`` with its rows as CSV.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re

from ..errors import DecodeError
from ._extract import ExtractedText, TextFull, TextSink, ZipReader, parse_xml

__all__ = ["ODF_TYPES", "OOXML_TYPES", "office_text"]

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
ODT = "application/vnd.oasis.opendocument.text"
ODS = "application/vnd.oasis.opendocument.spreadsheet"
ODP = "application/vnd.oasis.opendocument.presentation"
OOXML_TYPES = frozenset({DOCX, XLSX, PPTX})
ODF_TYPES = frozenset({ODT, ODS, ODP})

_NAMES = {DOCX: "DOCX", XLSX: "XLSX", PPTX: "PPTX", ODT: "ODT", ODS: "ODS", ODP: "ODP"}
_MAX_COLUMNS = 16_384
_MAX_REPEAT = 1_000
_HEADING = re.compile(r"^(?:heading|berschrift|titre)\s*(\d)$", re.IGNORECASE)


def office_text(data: bytes, mime: str, max_chars: int, what: str) -> ExtractedText:
    """The text of a DOCX, XLSX, PPTX, ODT, ODS or ODP file, cut at ``max_chars``.

    Raises `DecodeError` (naming ``what``) for a broken archive, broken XML, a missing member or a
    ZIP bomb.
    """
    name = _NAMES.get(mime)
    if name is None:
        raise DecodeError(f"{what}: {mime} is not an Office or OpenDocument type")
    archive = ZipReader(data, what, name)
    sink = TextSink(max_chars)
    parts: int | None = None
    try:
        if mime == DOCX:
            _docx(archive, sink)
        elif mime == XLSX:
            parts = _xlsx(archive, sink)
        elif mime == PPTX:
            parts = _pptx(archive, sink)
        else:
            handler = _OdfHandler(sink)
            parse_xml(archive.chunks("content.xml"), handler, what, name)
            parts = handler.sheets or handler.slides or None
    except TextFull:
        pass
    return ExtractedText(sink.text(), name, sink.truncated, parts=parts)


def _attr(attrs: dict[str, str], name: str) -> str | None:
    """An attribute by local name, namespaced or not (the namespaced one wins)."""
    for key, value in attrs.items():
        if key.endswith("}" + name):
            return value
    return attrs.get(name)


def _relationships(archive: ZipReader, part: str) -> dict[str, str]:
    """A part's relationship ids mapped to archive paths (``xl/workbook.xml`` -> its rels)."""
    folder, base = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", base + ".rels")
    targets: dict[str, str] = {}
    if not archive.has(rels):
        return targets

    class Handler:
        def start(self, name: str, attrs: dict[str, str]) -> None:
            if name == "Relationship" and "Id" in attrs and "Target" in attrs:
                target = attrs["Target"]
                path = (
                    target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
                )
                targets[attrs["Id"]] = posixpath.normpath(path)

        def end(self, name: str) -> None:
            pass

        def text(self, data: str) -> None:
            pass

    parse_xml(archive.chunks(rels), Handler(), archive.what, archive.format_name)
    return targets


def _csv_line(cells: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(cells)
    return buffer.getvalue()


# -- DOCX -----------------------------------------------------------------------------------------


class _DocxHandler:
    """word/document.xml: paragraphs (w:p) of runs (w:t), headings by style, tables by rows."""

    def __init__(self, sink: TextSink) -> None:
        self.sink = sink
        self.buf: list[str] = []
        self.prefix = ""
        self.in_text = False
        self.tables = 0
        self.row: list[str] = []
        self.cell: list[str] = []

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "p":
            self.buf, self.prefix = [], ""
        elif name == "pStyle":
            style = (_attr(attrs, "val") or "").replace(" ", "")
            found = _HEADING.match(style)
            if found:
                self.prefix = "#" * max(1, min(int(found.group(1)), 6)) + " "
            elif style.lower() == "title":
                self.prefix = "# "
        elif name == "numPr" and not self.prefix:
            self.prefix = "- "
        elif name == "t":
            self.in_text = True
        elif name == "tab":
            self.buf.append("\t")
        elif name in ("br", "cr"):
            self.buf.append("\n")
        elif name == "tbl":
            self.tables += 1
        elif name == "tr" and self.tables == 1:
            self.row = []
        elif name == "tc" and self.tables == 1:
            self.cell = []

    def end(self, name: str) -> None:
        if name == "t":
            self.in_text = False
        elif name == "p":
            line = self.prefix + "".join(self.buf).strip()
            if self.tables:
                self.cell.append(line)
            elif self.prefix == "- ":
                self.sink.line(line)
            else:
                self.sink.line()
                self.sink.line(line)
                self.sink.line()
        elif name == "tc" and self.tables == 1:
            self.row.append(" ".join(part for part in self.cell if part))
        elif name == "tr" and self.tables == 1:
            self.sink.line("| " + " | ".join(self.row) + " |")
        elif name == "tbl":
            self.tables -= 1
            if not self.tables:
                self.sink.line()

    def text(self, data: str) -> None:
        if self.in_text:
            self.buf.append(data)


def _docx(archive: ZipReader, sink: TextSink) -> None:
    parse_xml(archive.chunks("word/document.xml"), _DocxHandler(sink), archive.what, "DOCX")


# -- PPTX -----------------------------------------------------------------------------------------


class _SlideHandler:
    """One slide: DrawingML paragraphs (a:p) of runs (a:t)."""

    def __init__(self, sink: TextSink) -> None:
        self.sink = sink
        self.buf: list[str] = []
        self.in_text = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "p":
            self.buf = []
        elif name == "t":
            self.in_text = True
        elif name == "br":
            self.buf.append("\n")

    def end(self, name: str) -> None:
        if name == "t":
            self.in_text = False
        elif name == "p":
            line = "".join(self.buf).strip()
            if line:
                self.sink.line(line)

    def text(self, data: str) -> None:
        if self.in_text:
            self.buf.append(data)


class _OrderHandler:
    """Collects the relationship ids of ``element`` in document order (slides, sheets)."""

    def __init__(self, element: str) -> None:
        self.element = element
        self.found: list[tuple[str, str]] = []  # (relationship id, name)

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == self.element:
            rel = next((v for k, v in attrs.items() if k.endswith("}id")), None)
            if rel is not None:
                self.found.append((rel, attrs.get("name", "")))

    def end(self, name: str) -> None:
        pass

    def text(self, data: str) -> None:
        pass


def _pptx(archive: ZipReader, sink: TextSink) -> int:
    order = _OrderHandler("sldId")
    parse_xml(archive.chunks("ppt/presentation.xml"), order, archive.what, "PPTX")
    targets = _relationships(archive, "ppt/presentation.xml")
    count = 0
    for rel, _ in order.found:
        path = targets.get(rel)
        if path is None or not archive.has(path):
            continue
        count += 1
        sink.line(f"## Slide {count}")
        parse_xml(archive.chunks(path), _SlideHandler(sink), archive.what, "PPTX")
        sink.line()
    return count


# -- XLSX -----------------------------------------------------------------------------------------


class _SharedStrings:
    """xl/sharedStrings.xml: the strings cells refer to by index."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self.buf: list[str] = []
        self.in_text = False
        self.depth_rph = 0

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "si":
            self.buf = []
        elif name == "rPh":
            self.depth_rph += 1  # phonetic hints are not the cell's text
        elif name == "t" and not self.depth_rph:
            self.in_text = True

    def end(self, name: str) -> None:
        if name == "t":
            self.in_text = False
        elif name == "rPh":
            self.depth_rph -= 1
        elif name == "si":
            self.strings.append("".join(self.buf))

    def text(self, data: str) -> None:
        if self.in_text:
            self.buf.append(data)


def _column(ref: str) -> int | None:
    index = 0
    for char in ref:
        if not char.isalpha():
            break
        index = index * 26 + (ord(char.upper()) - 64)
    return index - 1 if 0 < index <= _MAX_COLUMNS else None


class _Row:
    """One row's non-empty cells by column, made a list only when written: a row whose one
    cell sits in column XFD costs its input, not 16,384 empty cells, unless it has a value."""

    def __init__(self) -> None:
        self.cells: list[tuple[int, str, int]] = []  # (first column, value, times repeated)
        self.column = 0  # the next cell's column

    def add(self, value: str, column: int | None = None, repeat: int = 1) -> None:
        if column is not None and column > self.column:
            self.column = column
        if value and self.column < _MAX_COLUMNS:
            self.cells.append((self.column, value, min(repeat, _MAX_COLUMNS - self.column)))
        self.column += repeat

    def values(self) -> list[str]:
        """The cells up to the last non-empty one; output-sized."""
        if not self.cells:
            return []
        last = self.cells[-1]
        row = [""] * (last[0] + last[2])
        for column, value, repeat in self.cells:
            row[column : column + repeat] = [value] * repeat
        return row


class _SheetHandler:
    """One worksheet: rows of cells (shared strings, inline strings, numbers, booleans)."""

    def __init__(self, sink: TextSink, shared: list[str]) -> None:
        self.sink = sink
        self.shared = shared
        self.row = _Row()
        self.kind = ""
        self.ref: int | None = None
        self.buf: list[str] = []
        self.capture = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "row":
            self.row = _Row()
        elif name == "c":
            self.kind, self.ref, self.buf = attrs.get("t", ""), _column(attrs.get("r", "")), []
        elif name in ("v", "t"):
            self.capture = True

    def end(self, name: str) -> None:
        if name in ("v", "t"):
            self.capture = False
        elif name == "c":
            self.row_cell("".join(self.buf))
        elif name == "row":
            cells = self.row.values()
            if cells:
                self.sink.line(_csv_line(cells))

    def row_cell(self, raw: str) -> None:
        value = raw
        if self.kind == "s":
            try:
                value = self.shared[int(raw)]
            except (ValueError, IndexError):
                value = ""
        elif self.kind == "b":
            value = "TRUE" if raw.strip() == "1" else "FALSE"
        self.row.add(value, self.ref)

    def text(self, data: str) -> None:
        if self.capture:
            self.buf.append(data)


def _xlsx(archive: ZipReader, sink: TextSink) -> int:
    shared = _SharedStrings()
    if archive.has("xl/sharedStrings.xml"):
        parse_xml(archive.chunks("xl/sharedStrings.xml"), shared, archive.what, "XLSX")
    order = _OrderHandler("sheet")
    parse_xml(archive.chunks("xl/workbook.xml"), order, archive.what, "XLSX")
    targets = _relationships(archive, "xl/workbook.xml")
    count = 0
    for rel, name in order.found:
        path = targets.get(rel)
        if path is None or not archive.has(path):
            continue
        count += 1
        sink.line(f"## Sheet: {name or count}")
        handler = _SheetHandler(sink, shared.strings)
        parse_xml(archive.chunks(path), handler, archive.what, "XLSX")
        sink.line()
    return count


# -- OpenDocument ---------------------------------------------------------------------------------


class _OdfHandler:
    """content.xml of ODT, ODS and ODP: paragraphs, headings, lists, tables, sheets, slides."""

    def __init__(self, sink: TextSink) -> None:
        self.sink = sink
        self.spreadsheet = False
        self.sheets = 0
        self.slides = 0
        self.paragraphs = 0  # paragraph nesting (a note's paragraph inside a paragraph)
        self.buf: list[str] = []
        self.prefix = ""
        self.lists = 0
        self.tables = 0
        self.row = _Row()
        self.row_repeat = 1
        self.cell: list[str] | None = None
        self.cell_repeat = 1

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "spreadsheet":
            self.spreadsheet = True
        elif name == "page":
            self.slides += 1
            self.sink.line(f"## Slide {self.slides}")
        elif name == "table":
            self.tables += 1
            if self.spreadsheet and self.tables == 1:
                self.sheets += 1
                self.sink.line(f"## Sheet: {_attr(attrs, 'name') or self.sheets}")
        elif name == "table-row" and self.tables == 1:
            self.row, self.row_repeat = _Row(), _repeat(_attr(attrs, "number-rows-repeated"))
        elif name in ("table-cell", "covered-table-cell") and self.tables == 1:
            self.cell, self.cell_repeat = [], _repeat(_attr(attrs, "number-columns-repeated"))
        elif name == "list-item":
            self.lists += 1
        elif name in ("p", "h"):
            self.paragraphs += 1
            if self.paragraphs == 1:
                self.buf = []
                level = _attr(attrs, "outline-level") if name == "h" else None
                self.prefix = "#" * _repeat(level) + " " if name == "h" else ""
                if self.lists and not self.prefix:
                    self.prefix = "- "
        elif self.paragraphs:
            if name == "s":
                self.buf.append(" " * min(_repeat(_attr(attrs, "c")), 100))
            elif name == "tab":
                self.buf.append("\t")
            elif name == "line-break":
                self.buf.append("\n")

    def end(self, name: str) -> None:
        if name in ("p", "h") and self.paragraphs:
            self.paragraphs -= 1
            if self.paragraphs:
                return
            line = "".join(self.buf).strip()
            if self.cell is not None:
                self.cell.append(line)
            elif line:
                spaced = not self.slides and self.prefix != "- "
                self.sink.line(("\n" if spaced else "") + self.prefix + line)
                if spaced:
                    self.sink.line()
        elif name == "list-item":
            self.lists -= 1
        elif name in ("table-cell", "covered-table-cell") and self.tables == 1:
            value = " ".join(part for part in (self.cell or []) if part)
            self.row.add(value, repeat=self.cell_repeat)
            self.cell = None
        elif name == "table-row" and self.tables == 1:
            cells = self.row.values()
            if cells:
                line = _csv_line(cells) if self.spreadsheet else "| " + " | ".join(cells) + " |"
                for _ in range(min(self.row_repeat, _MAX_REPEAT)):
                    self.sink.line(line)
        elif name == "table":
            self.tables -= 1
            if not self.tables:
                self.sink.line()

    def text(self, data: str) -> None:
        if self.paragraphs:
            self.buf.append(data)


def _repeat(value: str | None) -> int:
    try:
        return max(1, min(int(value or 1), 1_048_576))
    except ValueError:
        return 1
