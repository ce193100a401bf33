"""Text from the older document formats people still upload: RTF, Word 97-2003 ``.doc``, Excel
97-2003 ``.xls`` and PowerPoint 97-2003 ``.ppt``.

- **RTF** by the linear reader of `mediablocks.convert.rtf`, with ``striprtf``'s tables of
  control words (control words and groups dropped, ``\\'hh`` and ``\\u`` escapes decoded).
- **.xls** with ``xlrd`` (the reference reader for BIFF; it reads ``.xls`` only since 2.0).
- **.doc** and **.ppt** from their OLE2 streams, opened with ``olefile``: a ``.doc``'s main text
  is the Word *piece table* (the CLX in the table stream, [MS-DOC] 2.9.38) mapping character
  positions to 8-bit or UTF-16 runs of the ``WordDocument`` stream; a ``.ppt``'s text is its
  ``TextCharsAtom``/``TextBytesAtom`` records ([MS-PPT] 2.9.x), read in stream order, with master
  slides skipped and ``## Slide N`` at each slide of the slide list. Formatting, embedded objects,
  headers/footers and notes are not extracted (documented best effort).

All three libraries come with ``pip install 'mediablocks[office]'``.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import struct
from typing import Any

from ..errors import DecodeError, UnsupportedBlockError
from ._extract import ExtractedText, TextFull, TextSink, decoder_errors, require
from .rtf import rtf_text

__all__ = ["LEGACY_TYPES", "legacy_text"]

RTF = "application/rtf"
DOC = "application/msword"
XLS = "application/vnd.ms-excel"
PPT = "application/vnd.ms-powerpoint"
LEGACY_TYPES = frozenset({RTF, "text/rtf", DOC, XLS, PPT})

_FIELD_CODE = re.compile(r"\x13[^\x13\x14\x15]*(?:\x14|\x15)")
_DOC_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")


def legacy_text(data: bytes, mime: str, max_chars: int, what: str) -> ExtractedText:
    """The text of an RTF, ``.doc``, ``.xls`` or ``.ppt`` file, cut at ``max_chars``.

    Raises `UnsupportedBlockError` when the ``office`` extra is missing and `DecodeError` for a
    file that cannot be read.
    """
    sink = TextSink(max_chars)
    parts: int | None = None
    source = {RTF: "RTF", "text/rtf": "RTF", DOC: "DOC", XLS: "XLS", PPT: "PPT"}.get(mime)
    if source is None:
        raise DecodeError(f"{what}: {mime} is not an RTF or legacy Office type")
    try:
        if source == "RTF":
            _rtf(data, sink, what)
        elif source == "XLS":
            parts = _xls(data, sink, what)
        else:
            olefile = require("olefile", "office", what, f"reading a .{source.lower()} file")
            with decoder_errors(what, source):
                if not olefile.isOleFile(data=data):
                    raise DecodeError(f"{what}: not a readable {source}: not an OLE2 file")
                with olefile.OleFileIO(data) as ole:
                    if source == "DOC":
                        _doc(ole, sink, what)
                    else:
                        parts = _ppt(ole, sink, what)
    except TextFull:
        pass
    return ExtractedText(sink.text(), source, sink.truncated, parts=parts)


# -- RTF ------------------------------------------------------------------------------------------


def _rtf(data: bytes, sink: TextSink, what: str) -> None:
    if not data.lstrip()[:5] == b"{\\rtf":
        raise DecodeError(f"{what}: not a readable RTF: it does not start with {{\\rtf")
    tables = require("striprtf.striprtf", "office", what, "reading RTF")
    with decoder_errors(what, "RTF"):
        rtf_text(data.decode("latin-1"), sink, tables)


# -- XLS ------------------------------------------------------------------------------------------


def _xls(data: bytes, sink: TextSink, what: str) -> int:
    xlrd = require("xlrd", "office", what, "reading a .xls file")
    count = 0
    with decoder_errors(what, "XLS"):
        book = xlrd.open_workbook(
            file_contents=data, on_demand=True, logfile=io.StringIO(), verbosity=0
        )
        try:
            for index in range(book.nsheets):
                sheet = book.sheet_by_index(index)
                count += 1
                sink.line(f"## Sheet: {sheet.name}")
                for row in range(sheet.nrows):
                    cells = [_xls_cell(cell, book.datemode) for cell in sheet.row(row)]
                    while cells and not cells[-1]:
                        cells.pop()
                    if cells:
                        buffer = io.StringIO()
                        csv.writer(buffer, lineterminator="").writerow(cells)
                        sink.line(buffer.getvalue())
                sink.line()
                book.unload_sheet(index)
        finally:
            book.release_resources()
    return count


def _xls_cell(cell: Any, datemode: int) -> str:
    kind, value = cell.ctype, cell.value
    if kind == 2:  # number
        return str(int(value)) if float(value).is_integer() else repr(value)
    if kind == 3:  # date
        xlrd = require("xlrd", "office", "xls", "reading a .xls file")
        moment: datetime.datetime = xlrd.xldate_as_datetime(value, datemode)
        return moment.isoformat(sep=" ").removesuffix(" 00:00:00")
    if kind == 4:  # boolean
        return "TRUE" if value else "FALSE"
    if kind == 5:  # error
        return "#ERROR"
    return str(value)


# -- DOC ------------------------------------------------------------------------------------------


def _u16(data: bytes, offset: int) -> int:
    value: int = struct.unpack_from("<H", data, offset)[0]
    return value


def _u32(data: bytes, offset: int) -> int:
    value: int = struct.unpack_from("<I", data, offset)[0]
    return value


def _doc(ole: Any, sink: TextSink, what: str) -> None:
    if not ole.exists("WordDocument"):
        raise DecodeError(f"{what}: not a readable DOC: no WordDocument stream")
    word: bytes = ole.openstream("WordDocument").read()
    if len(word) < 0x1AA or _u16(word, 0) != 0xA5EC:
        raise DecodeError(f"{what}: not a readable DOC: no Word 97-2003 file information block")
    flags = _u16(word, 0x0A)
    if flags & 0x0100:
        raise UnsupportedBlockError(f"{what}: the DOC is encrypted; its text cannot be read")
    table_name = "1Table" if flags & 0x0200 else "0Table"
    if not ole.exists(table_name):
        raise DecodeError(f"{what}: not a readable DOC: no {table_name} stream")
    table: bytes = ole.openstream(table_name).read()
    main_chars = _u32(word, 0x4C)  # ccpText: the main document (no footnotes, headers...)
    clx = table[_u32(word, 0x1A2) : _u32(word, 0x1A2) + _u32(word, 0x1A6)]
    pieces = _piece_table(clx, what)
    count = (len(pieces) - 4) // 12
    positions = [_u32(pieces, 4 * i) for i in range(count + 1)]
    for i in range(count):
        start, end = positions[i], min(positions[i + 1], main_chars)
        if end <= start:
            continue
        fc = _u32(pieces, 4 * (count + 1) + 8 * i + 2)
        if fc & 0x40000000:  # 8-bit characters (cp1252) at fc / 2
            offset = (fc & 0x3FFFFFFF) // 2
            chunk = word[offset : offset + end - start].decode("cp1252", "replace")
        else:
            chunk = word[fc : fc + 2 * (end - start)].decode("utf-16-le", "replace")
        sink.write(_doc_clean(chunk))


def _piece_table(clx: bytes, what: str) -> bytes:
    """The PlcPcd of a CLX: skip the Prc entries (type 1), return the Pcdt's data (type 2)."""
    pos = 0
    while pos < len(clx):
        kind = clx[pos]
        if kind == 1 and pos + 3 <= len(clx):
            pos += 3 + _u16(clx, pos + 1)
        elif kind == 2 and pos + 5 <= len(clx):
            size = _u32(clx, pos + 1)
            pieces = clx[pos + 5 : pos + 5 + size]
            if len(pieces) == size and size >= 16 and (size - 4) % 12 == 0:
                return pieces
            break
        else:
            break
    raise DecodeError(f"{what}: not a readable DOC: its piece table is broken")


def _doc_clean(text: str) -> str:
    """Word's special characters as plain text: paragraphs, cells, fields, breaks."""
    text = _FIELD_CODE.sub("", text)  # a field's code (up to its result), e.g. HYPERLINK "..."
    text = text.replace("\r", "\n").replace("\x0b", "\n").replace("\x0c", "\n")
    text = text.replace("\x07", "\t").replace("\x1e", "-").replace("\x1f", "")
    return _DOC_CONTROL.sub("", text)


# -- PPT ------------------------------------------------------------------------------------------

_PPT_MAIN_MASTER = 0x03F8
_PPT_SLIDE_LIST = 0x0FF0
_PPT_SLIDE_PERSIST = 0x03F3
_PPT_TEXT_CHARS = 0x0FA0
_PPT_TEXT_BYTES = 0x0FA8


def _ppt(ole: Any, sink: TextSink, what: str) -> int:
    if not ole.exists("PowerPoint Document"):
        raise DecodeError(f"{what}: not a readable PPT: no 'PowerPoint Document' stream")
    stream: bytes = ole.openstream("PowerPoint Document").read()
    slides = 0
    # Open containers as (end, is the slide list); ``lists`` counts the slide lists among them,
    # so each record costs O(1) however deep containers nest (no scan of the open ones).
    ends: list[tuple[int, bool]] = []
    lists = 0
    pos = 0
    while pos + 8 <= len(stream):
        while ends and pos >= ends[-1][0]:
            lists -= ends.pop()[1]
        head, kind, size = struct.unpack_from("<HHI", stream, pos)
        if head & 0x000F == 0x000F:  # a container: step inside, unless it is a master slide
            if kind == _PPT_MAIN_MASTER:
                pos += 8 + size
            else:
                is_list = kind == _PPT_SLIDE_LIST and head >> 4 == 0
                ends.append((pos + 8 + size, is_list))
                lists += is_list
                pos += 8
            continue
        body = stream[pos + 8 : pos + 8 + size]
        if kind == _PPT_SLIDE_PERSIST and lists:
            slides += 1
            sink.line(f"\n## Slide {slides}")
        elif kind in (_PPT_TEXT_CHARS, _PPT_TEXT_BYTES):
            if kind == _PPT_TEXT_CHARS:
                text = body[: len(body) & ~1].decode("utf-16-le", "replace")
            else:
                text = body.decode("cp1252", "replace")
            if text.strip() != "*":  # "*" is a field placeholder (date, slide number)
                sink.line(text.replace("\r", "\n"))
        pos += 8 + size
    return slides
