"""Text without a byte-order mark: UTF-16 and UTF-32 are told from UTF-8, converted by `prepare`
and refused by `encode`, never sent as garbage; bytes declared as text must be text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.cli import main
from mediablocks.mime.encodings import detect_text, text_encoding, utf8_text
from tests.conftest import TESTDATA

TEXT = (TESTDATA / "text" / "utf8.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "encoding"),
    [
        ("utf8.txt", "utf-8"),
        ("utf8-bom.txt", "utf-8-sig"),
        ("utf16le-nobom.txt", "utf-16-le"),
        ("utf16be-nobom.txt", "utf-16-be"),
        ("utf32le-nobom.txt", "utf-32-le"),
        ("utf32be-nobom.txt", "utf-32-be"),
        ("utf16le-nobom-russian.txt", "utf-16-le"),
        ("utf16le-nobom-japanese.txt", "utf-16-le"),
        ("cp1252.txt", "cp1252"),
    ],
)
def test_the_encoding_of_each_real_file_is_found(name: str, encoding: str) -> None:
    data = (TESTDATA / "text" / name).read_bytes()
    assert text_encoding(data) == encoding
    found = detect_text(data, False)
    assert found is not None
    assert "\x00" not in found[0]
    assert (utf8_text(data) is not None) == encoding.startswith("utf-8")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_text_without_a_mark_is_converted_by_prepare_and_refused_by_encode(
    codec: str,
) -> None:
    block = mb.FileBlock.from_bytes(TEXT.encode(codec), "text/plain", filename="notes.txt")
    for provider in ("anthropic", "gemini", "bedrock"):
        with pytest.raises(mb.UnsupportedBlockError, match=rf"{codec} text, not UTF-8"):
            mb.encode([("user", ["read", block])], provider)
    prepared, report = mb.prepare_with_report([("user", ["read", block])], "anthropic")
    assert f"({codec}" in str(report.blocks[0])
    sent = json.dumps(mb.encode(prepared, "anthropic", target="json"))
    assert TEXT.splitlines()[0] in json.loads(sent)["messages"][0]["content"][1]["text"]
    assert "\\u0000" not in sent


def test_utf8_and_marked_text_go_through_unchanged() -> None:
    for name in ("utf8.txt", "utf8-bom.txt"):
        block = mb.FileBlock.from_bytes((TESTDATA / "text" / name).read_bytes(), "text/plain")
        document = mb.encode([("user", [block])], "anthropic")["messages"][0]["content"][0]
        assert document["source"]["data"] == TEXT


def test_bytes_declared_as_text_must_be_text(tmp_path: Path) -> None:
    noise = (TESTDATA / "bad" / "random.bin").read_bytes()
    with pytest.raises(mb.MediaTypeError, match="declared text/plain but the bytes are not text"):
        mb.FileBlock.from_bytes(noise, "text/plain")
    with pytest.raises(mb.MediaTypeError) as caught:
        mb.media_block(noise, "application/json")
    assert caught.value.code == "media_type_mismatch"
    named = tmp_path / "notes.txt"
    named.write_bytes(noise)
    assert mb.FileBlock.from_path(named).mime_type == "application/octet-stream"
    assert mb.FileBlock.from_bytes(b"caf\xe9", "text/plain").mime_type == "text/plain"


def test_inspect_says_what_text_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "wide.txt").write_bytes(TEXT.encode("utf-16-le"))
    (tmp_path / "noise.txt").write_bytes(os.urandom(300))
    assert main(["inspect", str(tmp_path), "--provider", "anthropic", "--json"]) == 0
    rows = {Path(row["path"]).name: row for row in json.loads(capsys.readouterr().out)}
    wide = rows["wide.txt"]
    assert wide["mime_type"] == "text/plain"
    assert wide["providers"]["anthropic"]["status"] == "prepare"
    assert "utf-16-le" in " ".join(wide["providers"]["anthropic"]["changes"])
    noise = rows["noise.txt"]
    assert noise["mime_type"] == "application/octet-stream"
    assert noise["providers"]["anthropic"]["status"] == "cannot"


_codecs = st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "cp1252"])


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="cp1252", exclude_categories=("Cc",)), max_size=80),
    _codecs,
)
def test_text_is_read_back_exactly_or_not_at_all(text: str, codec: str) -> None:
    data = text.encode(codec)
    found = detect_text(data, False)
    if found is None:
        return  # too short or too unusual to tell: refused, never guessed
    decoded, encoding = found
    assert decoded.encode(encoding.replace("-sig", "")) == _without_mark(data, encoding)
    if codec.startswith(("utf-16", "utf-32")) and len(text) >= 8:
        assert decoded == text  # never the NULs of a wide text read as UTF-8


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=200))
def test_any_bytes_are_text_in_exactly_their_encoding_or_none(data: bytes) -> None:
    found = detect_text(data, False)
    if found is not None:
        decoded, encoding = found
        assert decoded.encode(encoding.replace("-sig", "")) == _without_mark(data, encoding)
        assert "\x00" not in decoded


_MARKS = {
    "utf-8-sig": b"\xef\xbb\xbf",
    "utf-16-le": b"\xff\xfe",
    "utf-16-be": b"\xfe\xff",
    "utf-32-le": b"\xff\xfe\x00\x00",
    "utf-32-be": b"\x00\x00\xfe\xff",
}


def _without_mark(data: bytes, encoding: str) -> bytes:
    return data.removeprefix(_MARKS.get(encoding, b""))
