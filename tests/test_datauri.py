from __future__ import annotations

import base64
import os

import pytest

from mediablocks.datauri import b64decode, b64encode, format_data_uri, parse_data_uri
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
