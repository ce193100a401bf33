"""A block declared ``text/*`` whose bytes are UTF-8 text that only starts like a binary format
(``%PDF-1.4 is the first line of...``) stays text; real files keep the type their bytes say."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from tests.conftest import TESTDATA, image_bytes, make_pdf

NOTE = b"%PDF-1.4 is the first line of every PDF 1.4 file; this note explains the header.\n"


def test_a_note_about_pdf_headers_stays_text_and_reaches_claude_as_text() -> None:
    block = mb.FileBlock.from_bytes(NOTE, "text/plain", filename="notes.txt")
    assert block.mime_type == "text/plain"
    prepared = mb.prepare([mb.UserMessage(content=[block])], "anthropic")
    fields = mb.encode(prepared, "anthropic")
    part = fields["messages"][0]["content"][0]
    assert part["source"]["type"] == "text"
    assert part["source"]["data"] == NOTE.decode()
    assert type(mb.media_block(NOTE, "text/plain")) is mb.FileBlock


@pytest.mark.parametrize(
    "data",
    [make_pdf(), (TESTDATA / "document" / "pillow.pdf").read_bytes(), image_bytes("GIF")],
    ids=["pillow-pdf", "testdata-pdf", "gif"],
)
def test_real_files_declared_text_keep_the_type_their_bytes_say(data: bytes) -> None:
    block = mb.FileBlock.from_bytes(data, "text/plain")
    assert block.mime_type == mb.detect_mime(data)


def test_a_text_that_starts_like_a_gif_stays_text() -> None:
    assert mb.FileBlock.from_bytes(b"GIF89a was the 1989 revision", "text/plain").mime_type == (
        "text/plain"
    )
    assert mb.FileBlock.from_bytes(b"GIF89a was the 1989 revision").mime_type == "image/gif"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=300))
def test_any_printable_text_after_a_pdf_header_without_objects_stays_text(tail: str) -> None:
    data = b"%PDF-1.7 " + tail.encode("utf-8")
    block = mb.FileBlock.from_bytes(data, "text/markdown")
    expected = "application/pdf" if (b" obj" in data or b"xref" in data) else "text/markdown"
    if expected == "application/pdf":
        return  # a text holding "N M obj" reads as a PDF's object: the bytes decide
    assert block.mime_type == expected


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_bytes_with_control_characters_keep_their_detected_type(tail: bytes) -> None:
    data = b"%PDF-1.4\n\x00" + tail
    assert mb.FileBlock.from_bytes(data, "text/plain").mime_type == "application/pdf"
