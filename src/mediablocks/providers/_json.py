"""Write a JSON request body with media base64 streamed straight into the output buffer.

A translator run with a `MediaSink` leaves a short placeholder string wherever base64 (or a
``data:`` URI) goes. `write_json` serialises that small structure with `json.dumps`, then builds
the final bytes in one preallocated buffer: the JSON text between placeholders is copied in, and
each media payload is base64-encoded into place a cache-sized chunk at a time, so no whole
base64 string is ever built. Peak extra memory is the output itself plus one chunk.

The buffer is an `io.BytesIO` presized to the exact output length and filled through
``getbuffer()``. In CPython, ``getvalue()`` then hands over that very buffer as the returned
`bytes` (it only trims one spare byte, in place), so there is no second full copy. Other Python
implementations stay correct but may copy once more.
"""

from __future__ import annotations

import binascii
import io
import json
import re
from typing import Any

from pydantic import BaseModel

from ..datauri import format_data_uri
from ..media import MediaBlock
from ..policy import FetchPolicy
from ._options import InvalidOptionError, MediaSink

__all__ = ["CHUNK", "write_json"]

CHUNK = 3 * 8 * 1024
"""Raw bytes encoded per step: a multiple of 3 (so chunks join without padding) small enough
for the encoded chunk to stay in the CPU cache on its way into the output."""
_CHUNK_B64 = CHUNK // 3 * 4


def _default(value: Any) -> Any:
    """`json.dumps` fallback: pydantic models as their JSON form; anything else is refused."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise InvalidOptionError(
            "a JSON request body cannot hold raw bytes; pass base64 text (media blocks are "
            "encoded for you)"
        )
    raise InvalidOptionError(f"a {type(value).__name__} cannot be written as JSON")


class _Payload:
    """One media item: its bytes (or cached base64) and the data-URI prefix when it needs one."""

    def __init__(self, block: MediaBlock, form: str, policy: FetchPolicy | None) -> None:
        self.cached = block.source.cached_base64()
        self.raw = memoryview(block.read(policy)) if self.cached is None else None
        prefix = format_data_uri("", block.mime_type) if form == "data_uri" else ""
        self.prefix = prefix.encode("ascii")
        encoded = (
            len(self.cached) if self.cached is not None else (len(self.raw or b"") + 2) // 3 * 4
        )
        self.size = len(self.prefix) + encoded

    def write(self, out: memoryview, offset: int) -> int:
        """Write prefix and base64 at ``offset``; return the offset just past them."""
        end = offset + len(self.prefix)
        out[offset:end] = self.prefix
        if self.cached is not None:
            text = self.cached
            for start in range(0, len(text), _CHUNK_B64):
                piece = text[start : start + _CHUNK_B64].encode("ascii")
                out[end : end + len(piece)] = piece
                end += len(piece)
            return end
        raw = self.raw
        assert raw is not None
        b2a = binascii.b2a_base64
        for start in range(0, len(raw), CHUNK):
            piece = b2a(raw[start : start + CHUNK], newline=False)
            out[end : end + len(piece)] = piece
            end += len(piece)
        return end


def write_json(body: Any, sink: MediaSink, policy: FetchPolicy | None = None) -> bytes:
    """``body`` as compact UTF-8 JSON, with every placeholder of ``sink`` replaced by its media.

    Non-ASCII text is written as UTF-8 (not ``\\u`` escapes); pydantic models in ``body`` are
    written as their JSON form.
    """
    try:
        text = json.dumps(
            body, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_default
        )
    except ValueError as exc:
        if isinstance(exc, InvalidOptionError):
            raise
        raise InvalidOptionError(f"the request body is not valid JSON: {exc}") from None
    if not sink.items:
        return text.encode("utf-8")

    pattern = re.compile(re.escape(sink.token) + r"(\d+)\ue001")
    segments: list[bytes] = []
    order: list[_Payload] = []
    payloads: dict[int, _Payload] = {}
    position = 0
    for match in pattern.finditer(text):
        index = int(match.group(1))
        if index >= len(sink.items):  # pragma: no cover - only a translator bug could do this
            raise InvalidOptionError(f"media placeholder {index} was never issued")
        payload = payloads.get(index)
        if payload is None:
            block, form = sink.items[index]
            payload = payloads[index] = _Payload(block, form, policy)
        segments.append(text[position : match.start()].encode("utf-8"))
        order.append(payload)
        position = match.end()
    segments.append(text[position:].encode("utf-8"))
    del text

    total = sum(len(s) for s in segments) + sum(p.size for p in order)
    buffer = io.BytesIO()
    buffer.seek(total - 1)
    buffer.write(b"\0")  # one allocation of the exact size (plus CPython's one spare byte)
    view = buffer.getbuffer()
    try:
        offset = 0
        for segment, payload in zip(segments[:-1], order, strict=True):
            view[offset : offset + len(segment)] = segment
            offset = payload.write(view, offset + len(segment))
        last = segments[-1]
        view[offset : offset + len(last)] = last
        assert offset + len(last) == total
    finally:
        view.release()
    return buffer.getvalue()
