from __future__ import annotations

import base64
import os

import pytest

from mediablocks.datauri import (
    DECODE_CHUNK,
    b64decode,
    b64encode,
    format_data_uri,
    is_clean_base64,
    parse_data_uri,
    split_data_uri,
)
from mediablocks.errors import DecodeError, MediaBlocksError


def test_b64_round_trip_matches_stdlib() -> None:
    data = os.urandom(1000)
    assert b64encode(data) == base64.b64encode(data).decode()
    assert b64decode(base64.b64encode(data).decode()) == data


@pytest.mark.parametrize(
    "variant",
    [
        lambda d: base64.encodebytes(d).decode(),  # MIME line breaks
        lambda d: base64.b64encode(d).decode().rstrip("="),  # padding dropped
        lambda d: base64.urlsafe_b64encode(d).decode(),  # URL-safe alphabet
        lambda d: "  " + base64.b64encode(d).decode() + "\n",
    ],
)
def test_tolerated_variants_decode_to_the_same_bytes(variant: object) -> None:
    data = bytes(range(256)) * 3 + b"\xfb\xff"
    assert b64decode(variant(data)) == data  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("abc!defg", "'!' at position 3"),
        ("abcde", "truncated"),
        ("====", "only padding"),
        ("", "empty"),
        ("ab\u00e9d", "non-ASCII"),
        ("QUJD=QUJD", "not valid base64"),
    ],
)
def test_malformed_base64_says_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(DecodeError) as info:
        b64decode(text)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, MediaBlocksError)


def test_parse_base64_data_uri_with_parameters() -> None:
    payload = b"\x89PNG\r\n\x1a\nrest"
    uri = "data:Image/PNG;name=cat%20photo.png;base64," + base64.b64encode(payload).decode()
    parsed = parse_data_uri(uri)
    assert parsed.data == payload
    assert parsed.mime_type == "image/png"
    assert parsed.filename == "cat photo.png"


def test_parse_percent_encoded_data_uri() -> None:
    parsed = parse_data_uri("data:text/plain;charset=utf-8,hello%20world%21")
    assert parsed.data == b"hello world!"
    assert parsed.parameters == {"charset": "utf-8"}


def test_data_uri_without_media_type() -> None:
    parsed = parse_data_uri("data:,abc")
    assert parsed.mime_type is None
    assert parsed.data == b"abc"


@pytest.mark.parametrize(
    ("uri", "fragment"),
    [
        ("image/png;base64,AAAA", "must start with 'data:'"),
        ("data:image/png;base64AAAA", "no ','"),
        ("data:image;base64,AAAA", "not a media type"),
        ("data:image/png;base64,AA!A", "not valid base64"),
        ("data:image/png;charset;base64,AAAA", "has no '='"),
    ],
)
def test_malformed_data_uris_raise_decode_error(uri: str, fragment: str) -> None:
    with pytest.raises(
        DecodeError,
    ) as info:
        parse_data_uri(uri)
    assert fragment in str(info.value)


def test_format_data_uri() -> None:
    assert format_data_uri("QUJD", "image/png") == "data:image/png;base64,QUJD"


def test_long_payloads_decode_in_chunks_to_the_same_bytes() -> None:
    # Longer than one decoding step, with padding at the very end (len % 3 == 1).
    raw = bytes(range(256)) * (DECODE_CHUNK // 256 * 2) + b"x"
    text = base64.b64encode(raw).decode("ascii")
    assert len(text) > 2 * DECODE_CHUNK
    assert b64decode(text) == raw
    assert parse_data_uri("data:application/octet-stream;base64," + text).data == raw


def test_padding_inside_a_long_payload_is_refused() -> None:
    # Two valid padded groups joined at a chunk boundary: strict mode per chunk would pass both.
    head = base64.b64encode(b"\0" * (DECODE_CHUNK // 4 * 3 - 1)).decode("ascii")
    assert len(head) == DECODE_CHUNK
    assert head.endswith("=")
    with pytest.raises(DecodeError):
        b64decode(head + "AAAA" * 10)


def test_an_empty_base64_data_uri_payload_is_an_error() -> None:
    with pytest.raises(DecodeError, match="empty"):
        parse_data_uri("data:image/png;base64,")


def test_split_data_uri_keeps_the_payload_text() -> None:
    parts = split_data_uri("data:image/png;name=a.png;base64,QUJD")
    assert (parts.mime_type, parts.is_base64, parts.payload, parts.filename) == (
        "image/png",
        True,
        "QUJD",
        "a.png",
    )


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("QUJD", True),
        ("QUI=", True),
        ("QUJ", False),
        ("QU\nJD", False),
        ("QU-_", False),
        ("", False),
    ],
)
def test_is_clean_base64(text: str, clean: bool) -> None:
    assert is_clean_base64(text) is clean
