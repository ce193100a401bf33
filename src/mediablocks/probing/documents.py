"""PDF page counts, from the page tree (plain or in compressed object streams).

Linear in the file: every regular expression below is one left-to-right pass over the text
(no nested repetition), each object stream is inflated at most once (by its start), and all of
them together read at most the file's size plus `_MAX_INFLATE` of compressed input and write at
most `_MAX_INFLATE` of output. Matches are counted or the last one kept, never listed, and an
object inside a stream is looked up by one walk of its offset table when it is needed (two of
them: the catalog and the page tree), so hostile tables cannot multiply memory.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from ._data import _Data, _Fields

# -- PDF --------------------------------------------------------------------------------------

_OBJ_REF = rb"(\d+)\s+(\d+)\s+R"
_MAX_INFLATE = 16 * 1024 * 1024
"""Bytes of object-stream content inflated per probe (a page tree needs a few KB)."""
_PIECE = 64 * 1024  # compressed bytes fed to zlib at a time
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm")
_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def _pdf(d: _Data) -> _Fields:
    text = d.whole()
    streams = _pdf_object_streams(d, text)
    count = _pdf_root_count(d, text, streams)
    if count is None:
        found = _count(d, _PAGE, text) + sum(_count(d, _PAGE, s.body) for s in streams)
        count = found or None
    return {"pages": count}


def _count(d: _Data, pattern: re.Pattern[bytes], text: bytes | memoryview) -> int:
    """Matches of ``pattern``, counted without a list of them (a step each)."""
    found = 0
    for _ in pattern.finditer(text):
        d.step()
        found += 1
    return found


def _last(d: _Data, pattern: re.Pattern[bytes], text: bytes | memoryview) -> re.Match[bytes] | None:
    """The last match of ``pattern`` (the latest revision of an incrementally updated file)."""
    last = None
    for last in pattern.finditer(text):  # noqa: B007 (the loop keeps the last)
        d.step()
    return last


@dataclass(frozen=True)
class _ObjectStream:
    """One inflated object stream: its objects' offsets come from the table before ``first``."""

    body: bytes
    first: int
    count: int

    def find(self, d: _Data, number: int) -> bytes | None:
        """Object ``number`` (at most 64 KiB of it), walking the offset table once."""
        table = memoryview(self.body)[: self.first]
        start: int | None = None
        for index, pair in enumerate(_PAIR.finditer(table)):
            d.step()
            if index >= self.count:
                break
            obj, offset = int(pair.group(1)), int(pair.group(2))
            if start is not None:
                return self.body[self.first + start : self.first + max(start, offset)][:65536]
            if obj == number:
                start = offset
        if start is None:
            return None
        return self.body[self.first + start : self.first + start + 65536]


_PAIR = re.compile(rb"(\d{1,9})\s+(\d{1,9})\b")


def _pdf_object(
    d: _Data, text: bytes | memoryview, streams: list[_ObjectStream], number: int
) -> bytes | None:
    found = _last(d, re.compile(rb"(?<!\d)%d\s+\d+\s+obj\b" % number), text)
    if found is not None:
        start = found.end()
        end = bytes(text[start : start + 65536]).find(b"endobj")
        return bytes(text[start : start + (end if end >= 0 else 65536)])
    for stream in reversed(streams):  # the latest revision of the object wins
        body = stream.find(d, number)
        if body is not None:
            return body
    return None


_ROOT = re.compile(rb"/Root\s+" + _OBJ_REF)


def _pdf_root_count(d: _Data, text: bytes | memoryview, streams: list[_ObjectStream]) -> int | None:
    root = _last(d, _ROOT, text)
    if root is None:
        return None
    catalog = _pdf_object(d, text, streams, int(root.group(1)))
    pages_ref = re.search(rb"/Pages\s+" + _OBJ_REF, catalog) if catalog else None
    if pages_ref is None:
        return None
    pages = _pdf_object(d, text, streams, int(pages_ref.group(1)))
    count = re.search(rb"/Count\s+(\d+)\b(?!\s+\d+\s+R)", pages) if pages else None
    return int(count.group(1)) if count else None


def _pdf_object_streams(d: _Data, text: bytes | memoryview) -> list[_ObjectStream]:
    """The inflated Flate object streams (PDF 1.5+), each inflated once."""
    streams: list[_ObjectStream] = []
    seen: set[int] = set()
    budget = _MAX_INFLATE  # output bytes left
    fed = len(text) + _MAX_INFLATE  # compressed bytes left: streams do not overlap in a real PDF
    for match in _OBJECT_STREAM.finditer(text):
        d.step()
        head_start = max(0, match.start() - 1024)
        head = bytes(text[head_start : match.start() + 1024])
        stream_at = head.find(b"stream", match.start() - head_start)
        dict_start = head.rfind(b"<<", 0, match.start() - head_start)
        if stream_at < 0 or dict_start < 0 or b"/FlateDecode" not in head[dict_start:stream_at]:
            continue
        first = re.search(rb"/First\s+(\d{1,9})\b", head[dict_start:stream_at])
        number = re.search(rb"/N\s+(\d{1,9})\b", head[dict_start:stream_at])
        if first is None or number is None:
            continue
        begin = head_start + stream_at + 6
        while bytes(text[begin : begin + 1]) in (b"\r", b"\n"):
            begin += 1
        if begin in seen:
            continue
        seen.add(begin)
        body, used = _inflate(text, begin, budget, fed)
        fed -= used
        if body is None:
            continue
        budget -= len(body)
        streams.append(_ObjectStream(body, int(first.group(1)), int(number.group(1))))
        if budget <= 0 or fed <= 0:
            break
    return streams


def _inflate(
    text: bytes | memoryview, begin: int, budget: int, fed: int
) -> tuple[bytes | None, int]:
    """The stream at ``begin`` inflated (at most ``budget`` bytes out, ``fed`` in), and the
    compressed bytes it read; None when it is not a zlib stream."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    produced = used = 0
    size = 1024  # small first: most streams are a few KB, and garbage fails in the first bytes
    try:
        while produced < budget and used < fed and not inflater.eof:
            piece = bytes(text[begin + used : begin + used + min(size, fed - used)])
            if not piece:
                break
            size = min(2 * size, _PIECE)
            out = inflater.decompress(piece, budget - produced)
            used += len(piece) - len(inflater.unconsumed_tail) - len(inflater.unused_data)
            produced += len(out)
            parts.append(out)
            if inflater.unconsumed_tail:  # the output budget is spent
                break
    except zlib.error:
        return None, used + 1024
    return b"".join(parts), used
