"""The fetcher's body reading: ``max_bytes`` counted on the wire and after gzip/deflate
decoding, which is done here, bounded (no decompression bombs).

Imported by `_fetcher` only, on the first fetch: it imports httpx.
"""

from __future__ import annotations

import zlib
from typing import Any

import httpx

from ..errors import DownloadTooLargeError, FetchError


def _shown(url: str) -> str:
    return repr(url if len(url) <= 200 else url[:197] + "...")


# -- the body -----------------------------------------------------------------------------------


class _Inflater:
    """gzip/deflate decoding that never produces more than asked for (no decompression bombs)."""

    def __init__(self, coding: str, url: str) -> None:
        self._gzip = coding in ("gzip", "x-gzip")
        self._url = url
        self._raw_fallback = not self._gzip
        self._fed = False
        self._z = self._new()

    def _new(self, raw: bool = False) -> Any:
        if self._gzip:
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        return zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)

    def decode(self, data: bytes, room: int) -> list[bytes]:
        """Inflate ``data`` into at most ``room + 1`` bytes (one more means: too large)."""
        parts: list[bytes] = []
        while data and room >= 0:
            if self._z.eof:
                if not self._gzip:
                    break  # bytes after a deflate stream are ignored
                self._z = self._new()  # the next member of a multi-member gzip file
            try:
                part = self._z.decompress(data, room + 1)
            except zlib.error as exc:
                if self._raw_fallback and not self._fed:
                    self._z = self._new(raw=True)  # servers that send raw deflate
                    self._raw_fallback = False
                    continue
                raise FetchError(
                    f"cannot fetch {_shown(self._url)}: bad compressed body: {exc}"
                ) from None
            self._fed = True
            self._raw_fallback = False
            parts.append(part)
            room -= len(part)
            data = self._z.unconsumed_tail or (self._z.unused_data if self._z.eof else b"")
        return parts

    def finish(self) -> None:
        if self._fed and not self._z.eof:
            raise FetchError(f"cannot fetch {_shown(self._url)}: the compressed body is truncated")


class _Body:
    """Collects a response body within ``max_bytes``, counting wire and decoded bytes."""

    def __init__(self, url: str, headers: httpx.Headers, limit: int) -> None:
        self._url = url
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._wire = 0
        declared = _content_length(headers)
        if declared is not None and declared > limit:
            raise DownloadTooLargeError(
                f"cannot fetch {_shown(url)}: Content-Length is {declared} bytes, more than "
                f"FetchPolicy.max_bytes={limit}",
                limit=limit,
                size=declared,
            )
        self._inflater = _inflater_for(headers.get("content-encoding"), url)

    def feed(self, chunk: bytes) -> None:
        self._wire += len(chunk)
        if self._wire > self._limit:
            self._too_large(self._wire)
        if self._inflater is None:
            self._add(chunk)
            return
        for part in self._inflater.decode(chunk, self._limit - self._size):
            self._add(part)

    def _add(self, part: bytes) -> None:
        if part:
            self._size += len(part)
            if self._size > self._limit:
                self._too_large(self._size)
            self._parts.append(part)

    def _too_large(self, size: int) -> None:
        self._parts.clear()
        raise DownloadTooLargeError(
            f"cannot fetch {_shown(self._url)}: the body is more than "
            f"FetchPolicy.max_bytes={self._limit} bytes (stopped reading after {size})",
            limit=self._limit,
            size=size,
        )

    def finish(self) -> bytes:
        if self._inflater is not None:
            self._inflater.finish()
        # One copy at the end; a single chunk is returned as is.
        data = b"".join(self._parts)
        self._parts.clear()
        return data


def _content_length(headers: httpx.Headers) -> int | None:
    value = headers.get("content-length")
    if value is None:
        return None
    try:
        return int(value.split(",")[0].strip())
    except ValueError:
        return None


def _inflater_for(header: str | None, url: str) -> _Inflater | None:
    if header is None:
        return None
    codings = [c.strip().lower() for c in header.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return None
    if len(codings) == 1 and codings[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflater(codings[0], url)
    raise FetchError(
        f"cannot fetch {_shown(url)}: unsupported Content-Encoding {header!r} "
        "(mediablocks asks for identity and decodes gzip and deflate)"
    )
