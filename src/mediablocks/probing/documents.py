"""PDF page counts, from the page tree (plain or in compressed object streams)."""

from __future__ import annotations

import re
import zlib

from ._data import _Data, _Fields

# -- PDF --------------------------------------------------------------------------------------

_OBJ_REF = rb"(\d+)\s+(\d+)\s+R"
_MAX_INFLATE = 64 * 1024 * 1024


def _pdf(d: _Data) -> _Fields:
    text = d.whole()
    objects = _pdf_object_streams(text)
    count = _pdf_root_count(text, objects)
    if count is None:
        pattern = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
        found = len(pattern.findall(text)) + sum(
            len(pattern.findall(body)) for body in objects.values()
        )
        count = found or None
    return {"pages": count}


def _pdf_object(text: bytes | memoryview, objects: dict[int, bytes], number: int) -> bytes | None:
    matches = list(re.finditer(rb"(?<!\d)%d\s+\d+\s+obj\b" % number, text))
    if matches:
        start = matches[-1].end()  # the latest revision of an incrementally updated file
        end = bytes(text[start : start + 65536]).find(b"endobj")
        return bytes(text[start : start + (end if end >= 0 else 65536)])
    return objects.get(number)


def _pdf_root_count(text: bytes | memoryview, objects: dict[int, bytes]) -> int | None:
    roots = re.findall(rb"/Root\s+" + _OBJ_REF, text)
    if not roots:
        return None
    catalog = _pdf_object(text, objects, int(roots[-1][0]))
    pages_ref = re.search(rb"/Pages\s+" + _OBJ_REF, catalog) if catalog else None
    if pages_ref is None:
        return None
    pages = _pdf_object(text, objects, int(pages_ref.group(1)))
    count = re.search(rb"/Count\s+(\d+)\b(?!\s+\d+\s+R)", pages) if pages else None
    return int(count.group(1)) if count else None


def _pdf_object_streams(text: bytes | memoryview) -> dict[int, bytes]:
    """Objects stored in Flate-compressed object streams (PDF 1.5+), by object number."""
    objects: dict[int, bytes] = {}
    budget = _MAX_INFLATE
    for match in re.finditer(rb"/Type\s*/ObjStm", text):
        head_start = max(0, match.start() - 1024)
        head = bytes(text[head_start : match.start() + 1024])
        stream_at = head.find(b"stream", match.start() - head_start)
        dict_start = head.rfind(b"<<", 0, match.start() - head_start)
        if stream_at < 0 or dict_start < 0 or b"/FlateDecode" not in head[dict_start:stream_at]:
            continue
        first = re.search(rb"/First\s+(\d+)", head[dict_start:stream_at])
        number = re.search(rb"/N\s+(\d+)", head[dict_start:stream_at])
        if first is None or number is None:
            continue
        begin = head_start + stream_at + 6
        while bytes(text[begin : begin + 1]) in (b"\r", b"\n"):
            begin += 1
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(bytes(text[begin : begin + _MAX_INFLATE]), budget)
        except zlib.error:
            continue
        budget -= len(body)
        numbers = body[: int(first.group(1))].split()
        offsets = [(int(numbers[i]), int(numbers[i + 1])) for i in range(0, len(numbers) - 1, 2)]
        base = int(first.group(1))
        for i, (obj, offset) in enumerate(offsets[: int(number.group(1))]):
            stop = offsets[i + 1][1] if i + 1 < len(offsets) else len(body) - base
            objects[obj] = body[base + offset : base + stop]
        if budget <= 0:
            break
    return objects
