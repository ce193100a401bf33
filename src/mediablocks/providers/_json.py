"""Write a JSON request body with media base64 streamed straight into the output buffer.

A translator run with a `MediaSink` leaves a short placeholder string wherever base64 (or a
``data:`` URI) goes. `write_json` serialises that small structure with `json.dumps`, then builds
the final bytes in one preallocated buffer: the JSON text between placeholders is copied in, and
each media payload is base64-encoded into place a cache-sized chunk at a time, so no whole
base64 string is ever built. Peak extra memory is the output itself plus one chunk.

The buffer is an `io.BytesIO` over ``bytes(total)`` (fresh zero pages, not written until filled;
see `datauri.presized_buffer`), filled through ``getbuffer()``. In CPython, ``getvalue()`` then
hands over that very buffer as the returned `bytes`, so there is no second full copy. Other
Python implementations stay correct but may copy once more.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ..datauri import ENCODE_CHUNK as CHUNK
from ..datauri import b64encode_into, b64encoded_length, data_uri_prefix, presized_buffer
from ..fetching.policy import FetchPolicy
from ..media import MediaBlock
from ._options import InvalidOptionError, MediaSink

__all__ = ["CHUNK", "write_json"]

_TEXT_CHUNK = CHUNK // 3 * 4
"""Characters of already-encoded base64 copied per step (as many as one raw chunk makes)."""


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
    """One media item: its bytes (or text already encoded) and the data-URI prefix it needs."""

    def __init__(self, block: MediaBlock, form: str, policy: FetchPolicy | None) -> None:
        self.raw: memoryview | None = None
        self.prefix = b""
        text: str | None
        if form == "data_uri":
            mime = block.mime_type
            text = block.source.cached_data_uri(mime)
            if text is None:
                self.prefix = data_uri_prefix(mime).encode("ascii")
                text = block.source.cached_base64()
        else:
            text = block.source.cached_base64()
        self.text = text
        if text is None:
            self.raw = memoryview(block.read(policy))
            self.size = len(self.prefix) + b64encoded_length(self.raw.nbytes)
        else:
            self.size = len(self.prefix) + len(text)

    def write(self, out: memoryview, offset: int) -> int:
        """Write prefix and base64 at ``offset``; return the offset just past them."""
        end = offset + len(self.prefix)
        out[offset:end] = self.prefix
        if self.raw is not None:
            return b64encode_into(out, end, self.raw)
        text = self.text
        assert text is not None
        for start in range(0, len(text), _TEXT_CHUNK):
            piece = text[start : start + _TEXT_CHUNK].encode("ascii")
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

    segments: list[bytes] = []
    order: list[_Payload] = []
    payloads: dict[int, _Payload] = {}
    token = sink.token  # a placeholder is <token><index>\ue001 (a plain search, no regex)
    position = 0
    start = text.find(token)
    while start >= 0:
        digits = start + len(token)
        end = text.find("\ue001", digits)
        number = text[digits:end] if end >= 0 else ""
        if not number.isdecimal() or int(number) >= len(sink.items):  # pragma: no cover
            raise InvalidOptionError(f"malformed media placeholder at character {start}")
        index = int(number)
        payload = payloads.get(index)
        if payload is None:
            block, form = sink.items[index]
            payload = payloads[index] = _Payload(block, form, policy)
        segments.append(text[position:start].encode("utf-8"))
        order.append(payload)
        position = end + 1
        start = text.find(token, position)
    segments.append(text[position:].encode("utf-8"))
    del text

    total = sum(len(s) for s in segments) + sum(p.size for p in order)
    buffer = presized_buffer(total)  # one allocation of the exact size, not written twice
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
