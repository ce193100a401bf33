"""RFC 2397 data URIs and strict base64, at the speed of `binascii`.

Decoding never runs a regex over the payload and makes no copy beyond the ones binascii needs: the
payload is checked by `binascii.a2b_base64` in strict mode, and only when that fails do we look for
what is wrong, so the error can say where.

Encoding makes one copy beyond `binascii`'s own output, the one into the `str`. A data URI's
prefix and its base64 are written into one buffer of the final size (a cache-sized chunk at a
time, see `b64encode_into`) before that copy, so the prefix costs no second copy of the payload.
"""

from __future__ import annotations

import binascii
import io
import sys
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from .errors import DecodeError

__all__ = [
    "ENCODE_CHUNK",
    "DataURI",
    "DataURIParts",
    "b64decode",
    "b64encode",
    "b64encode_into",
    "b64encoded_length",
    "base64_characters_only",
    "data_uri_prefix",
    "format_data_uri",
    "is_clean_base64",
    "is_data_uri",
    "parse_data_uri",
    "presized_buffer",
    "split_data_uri",
]

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
_WHITESPACE = b" \t\r\n\f\v"
# Large enough for any real media type with parameters; keeps a scan for the comma off the payload.
_MAX_HEADER = 1024
# Raw bytes encoded per step when base64 goes into a larger buffer: a multiple of 3 (so chunks join
# without padding) small enough for the encoded chunk to stay in the CPU cache on its way there.
ENCODE_CHUNK = 3 * 8 * 1024
# Measured (benchmarks/bench_encode.py): up to here, base64 in chunks into a presized buffer and
# one decode beats one `b2a_base64` call and a decode by about a quarter. Past it (base64 beyond
# 32 MiB, where glibc maps every allocation afresh) page faults dominate and the single call wins
# by a few percent; a data URI still goes through chunks, which spares copying the prefix on.
_ONE_CALL_ABOVE = 24 * 1024 * 1024


def b64encoded_length(size: int) -> int:
    """The length of the standard (padded) base64 of ``size`` bytes."""
    return (size + 2) // 3 * 4


def b64encode_into(out: memoryview, offset: int, data: bytes | bytearray | memoryview) -> int:
    """Write the base64 of ``data`` into ``out`` at ``offset``; return the offset just past it.

    ``out`` must have room for `b64encoded_length` bytes. No base64 of the whole payload is built.
    """
    raw = memoryview(data).cast("B")
    b2a = binascii.b2a_base64
    for start in range(0, len(raw), ENCODE_CHUNK):
        piece = b2a(raw[start : start + ENCODE_CHUNK], newline=False)
        end = offset + len(piece)
        out[offset:end] = piece
        offset = end
    return offset


def presized_buffer(size: int) -> io.BytesIO:
    """A writable buffer of exactly ``size`` zero bytes, its pages untouched until written.

    ``bytes(size)`` comes from ``calloc``, which for a large size maps fresh zero pages without
    writing them; `io.BytesIO` takes that object over without a copy when it is the only
    reference, so filling it through ``getbuffer()`` writes each page once, and ``getvalue()``
    hands the same object back (CPython). Elsewhere this stays correct and may copy.
    """
    return io.BytesIO(bytes(size))


def b64encode(data: bytes | bytearray | memoryview, prefix: str = "") -> str:
    """Standard base64 without line breaks, as providers expect, after an ASCII ``prefix``.

    The text is built in one buffer of its final size, prefix included, and decoded once: the
    payload is copied once into the `str`, and a prefix (say ``data:image/png;base64,``) costs
    no extra copy. Bare base64 of a very large payload is one `b2a_base64` call (measured faster
    there, see ``_ONE_CALL_ABOVE``).
    """
    size = len(data) if not isinstance(data, memoryview) else data.nbytes
    if size < ENCODE_CHUNK or (not prefix and size > _ONE_CALL_ABOVE):
        return prefix + binascii.b2a_base64(data, newline=False).decode("ascii")
    head = prefix.encode("ascii")
    total = len(head) + b64encoded_length(size)
    buffer = presized_buffer(total)
    with buffer.getbuffer() as view:
        view[: len(head)] = head
        end = b64encode_into(view, len(head), data)
        assert end == total
        return str(view[:total], "ascii")


def b64decode(data: str | bytes | bytearray | memoryview, *, what: str = "base64 data") -> bytes:
    """Decode standard base64 strictly, tolerating only line breaks, spaces and missing padding.

    URL-safe base64 (``-`` and ``_``) is accepted too. Anything else raises `DecodeError` naming the
    first offending character and its position.
    """
    if isinstance(data, str):
        if not data:
            raise DecodeError(f"{what} is empty")
        if data.isascii():  # binascii reads an ASCII str in place: no encoded copy of the payload
            try:
                return _a2b_ascii_text(data, 0)
            except binascii.Error:
                pass
        try:
            raw = data.encode("ascii")
        except UnicodeEncodeError as exc:
            raise DecodeError(
                f"{what} is not valid base64: non-ASCII character {data[exc.start]!r} "
                f"at position {exc.start}"
            ) from None
    else:
        raw = bytes(data) if not isinstance(data, bytes) else data
    if not raw:
        raise DecodeError(f"{what} is empty")
    try:
        return _a2b_strict(raw)
    except binascii.Error:
        pass
    cleaned = _clean(raw, what)
    try:
        return _a2b_strict(cleaned)
    except binascii.Error as exc:
        raise DecodeError(f"{what} is not valid base64: {exc}") from None


if sys.version_info >= (3, 11):

    def _a2b_strict(raw: bytes | str) -> bytes:
        return binascii.a2b_base64(raw, strict_mode=True)

else:  # pragma: no cover - Python 3.10 has no strict mode; the same checks, done by hand

    def _a2b_strict(raw: bytes | str) -> bytes:
        if isinstance(raw, str):
            raw = raw.encode("ascii")
        if raw.translate(None, _ALPHABET + b"=") or b"=" in raw.rstrip(b"="):
            raise binascii.Error("invalid character or misplaced padding")
        if len(raw) % 4:
            raise binascii.Error("length is not a multiple of 4")
        return binascii.a2b_base64(raw)


# Base64 characters decoded per step from a long ASCII str: a multiple of 4, small enough that the
# step's slice of the text stays a cache-sized temporary rather than a copy of the payload.
DECODE_CHUNK = 4 * 64 * 1024


def _a2b_ascii_text(text: str, start: int) -> bytes:
    """Strictly decode ``text[start:]`` (ASCII) with no copy of the payload text.

    A short payload is one call. A long one is decoded a chunk at a time straight into a buffer of
    the output's exact size, so memory is the output plus one chunk, not the text again. Padding is
    only valid in the last chunk. Raises `binascii.Error` for anything strict mode refuses.
    """
    length = len(text) - start
    if length <= 0:
        raise binascii.Error("no data")
    if length <= DECODE_CHUNK:
        return _a2b_strict(text[start:] if start else text)
    if length % 4:
        raise binascii.Error("length is not a multiple of 4")
    padding = 2 if text.endswith("==") else 1 if text.endswith("=") else 0
    size = length // 4 * 3 - padding
    buffer = presized_buffer(size)
    with buffer.getbuffer() as out:
        offset = 0
        for begin in range(start, len(text), DECODE_CHUNK):
            chunk = text[begin : begin + DECODE_CHUNK]
            if chunk[-1] == "=" and begin + DECODE_CHUNK < len(text):
                raise binascii.Error("padding before the end of the data")
            piece = _a2b_strict(chunk)
            out[offset : offset + len(piece)] = piece
            offset += len(piece)
        if offset != size:  # pragma: no cover - strict mode already refuses what leads here
            raise binascii.Error("decoded length differs from the expected length")
    return buffer.getvalue()


def _clean(raw: bytes, what: str) -> bytes:
    """Drop whitespace, map URL-safe characters, restore padding; say what else is wrong."""
    cleaned = raw.translate(None, _WHITESPACE)
    if b"-" in cleaned or b"_" in cleaned:
        cleaned = cleaned.translate(_URLSAFE_TO_STANDARD)
    stripped = cleaned.rstrip(b"=")
    bad = stripped.translate(None, _ALPHABET)
    if bad:
        char = bad[:1]
        position = raw.find(char)
        raise DecodeError(
            f"{what} is not valid base64: unexpected character {char.decode('latin-1')!r} "
            f"at position {position}"
        )
    if not stripped:
        raise DecodeError(f"{what} holds only padding")
    remainder = len(stripped) % 4
    if remainder == 1:
        raise DecodeError(
            f"{what} is not valid base64: {len(stripped)} characters cannot encode whole bytes "
            "(the data looks truncated)"
        )
    padding = len(cleaned) - len(stripped)
    expected_padding = (4 - remainder) % 4
    if padding not in (0, expected_padding):
        raise DecodeError(f"{what} is not valid base64: {padding} padding characters")
    return stripped + b"=" * expected_padding


@dataclass(frozen=True)
class DataURI:
    """A parsed data URI: the decoded bytes, the declared media type and its parameters."""

    data: bytes
    mime_type: str | None
    parameters: dict[str, str]

    @property
    def filename(self) -> str | None:
        """The ``name`` or ``filename`` parameter some producers add, if any."""
        return self.parameters.get("name") or self.parameters.get("filename")


def is_data_uri(text: str) -> bool:
    """True when the string starts like a data URI (case-insensitive scheme)."""
    return text[:5].lower() == "data:"


@dataclass(frozen=True)
class DataURIParts:
    """A data URI split without decoding: its header, and its payload as the text it is."""

    mime_type: str | None
    parameters: dict[str, str]
    is_base64: bool
    payload: str

    @property
    def filename(self) -> str | None:
        """The ``name`` or ``filename`` parameter some producers add, if any."""
        return self.parameters.get("name") or self.parameters.get("filename")


def split_data_uri(uri: str) -> DataURIParts:
    """Split ``data:[<mediatype>][;base64],<data>`` into its header and payload text.

    Nothing is decoded, so this costs one copy of the payload text and no pass over it. Raises
    `DecodeError` for a missing ``data:`` scheme or comma, or a malformed media type.
    """
    mime_type, parameters, is_base64, comma = _split_header(uri)
    return DataURIParts(mime_type, parameters, is_base64, uri[comma + 1 :])


def _split_header(uri: str) -> tuple[str | None, dict[str, str], bool, int]:
    """``(media type, parameters, is base64, index of the comma)`` of a data URI."""
    if not is_data_uri(uri):
        raise DecodeError(f"not a data URI: it must start with 'data:', got {uri[:16]!r}")
    comma = uri.find(",", 5, _MAX_HEADER)
    if comma < 0:
        raise DecodeError("malformed data URI: no ',' separates the header from the data")
    header = uri[5:comma]
    parts = [part.strip() for part in header.split(";")]
    is_base64 = len(parts) > 1 and parts[-1].lower() == "base64"
    if is_base64:
        parts.pop()
    mime_type: str | None = None
    parameters: dict[str, str] = {}
    if parts and parts[0]:
        media = parts[0].lower()
        if media.count("/") != 1 or " " in media or not all(media.split("/")):
            raise DecodeError(f"malformed data URI: {parts[0]!r} is not a media type")
        mime_type = media
    for parameter in parts[1:]:
        if not parameter:
            continue
        key, sep, value = parameter.partition("=")
        if not sep:
            raise DecodeError(f"malformed data URI: parameter {parameter!r} has no '='")
        parameters[key.strip().lower()] = unquote_to_bytes(value.strip()).decode("utf-8", "replace")
    return mime_type, parameters, is_base64, comma


def parse_data_uri(uri: str) -> DataURI:
    """Parse ``data:[<mediatype>][;base64],<data>`` and decode the payload.

    Raises `DecodeError` saying what is wrong: a missing ``data:`` scheme or comma, a malformed
    media type, or malformed base64.
    """
    mime_type, parameters, is_base64, comma = _split_header(uri)
    data: bytes | None = None
    if is_base64 and uri.isascii():
        try:  # straight from the URI: no copy of the payload text
            data = _a2b_ascii_text(uri, comma + 1)
        except binascii.Error:
            data = None  # b64decode below says exactly what is wrong
    if data is None:
        payload = uri[comma + 1 :]
        if is_base64:
            data = b64decode(payload, what="the data URI's base64 payload")
        else:
            data = unquote_to_bytes(payload)
    return DataURI(data=data, mime_type=mime_type, parameters=parameters)


def base64_characters_only(text: str) -> bool:
    """True when every character of ``text`` is in standard base64's alphabet, ``=`` only at its
    end: what a strict decode of ``text`` checks of its characters, at a sixth of its cost (one
    C-level pass deleting the alphabet, no output built). ``text`` must be ASCII to pass."""
    if not text.isascii():
        return False
    raw = text.encode("ascii")
    body = raw.rstrip(b"=")
    return not body.translate(None, _ALPHABET) and len(raw) - len(body) <= 2


def is_clean_base64(text: str) -> bool:
    """True when ``text`` looks like standard, padded base64 with no line breaks at a glance.

    Only constant-time and ``memchr``-speed checks: ASCII, length a multiple of 4, no whitespace
    or URL-safe characters. It does not prove every character is in the alphabet; a full strict
    decode (`b64decode`) does that when the bytes are needed.
    """
    if not text or len(text) % 4 or not text.isascii():
        return False
    # Spelled out rather than a generator over the characters, which cost a fifth more for each
    # stored image of a loaded history.
    return not (
        " " in text or "\n" in text or "\r" in text or "\t" in text or "-" in text or "_" in text
    )


def data_uri_prefix(mime_type: str) -> str:
    """``data:<mime>;base64,``: what goes before the base64 in a data URI."""
    return f"data:{mime_type};base64,"


def format_data_uri(base64_data: str, mime_type: str) -> str:
    """Join already-encoded base64 and a media type into a data URI (one copy of the payload).

    To encode bytes straight into a data URI, use ``b64encode(data, data_uri_prefix(mime))``.
    """
    return data_uri_prefix(mime_type) + base64_data
