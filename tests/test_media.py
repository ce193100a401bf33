from __future__ import annotations

import base64
import copy
import io
import os
import pickle
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pydantic import PrivateAttr

import mediablocks as mb
from mediablocks.sources import Base64Source, BytesSource, PathSource, URLSource

from .conftest import PUBLIC_TESTDATA, make_jpeg, make_png, make_wav


def _pdf() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (20, 20), "white").save(buffer, "PDF")
    return buffer.getvalue()


# -- from_bytes and the bytes-decide rule -------------------------------------------------------


def test_from_bytes_keeps_the_very_bytes_object(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes)
    assert block.read() is png_bytes
    assert block.mime_type == "image/png"
    assert block.loaded


def test_from_bytes_copies_a_mutable_buffer_once(png_bytes: bytes) -> None:
    buffer = bytearray(png_bytes)
    block = mb.ImageBlock.from_bytes(buffer)
    buffer[:4] = b"XXXX"  # the caller's later changes do not reach the block
    assert block.read() == png_bytes


def test_declared_type_contradicting_the_bytes_is_corrected(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes, "image/jpeg")
    assert block.mime_type == "image/png"
    assert block.to_base64()[1] == "image/png"


def test_strict_mode_raises_on_contradiction(png_bytes: bytes) -> None:
    with pytest.raises(mb.MediaTypeError, match=r"declared image/jpeg but the bytes are image/png"):
        mb.ImageBlock.from_bytes(png_bytes, "image/jpeg", strict=True)


def test_declared_alias_is_normalised(jpeg_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(jpeg_bytes, "image/jpg", strict=True)
    assert block.declared_mime == "image/jpeg"
    assert block.mime_type == "image/jpeg"


def test_image_block_refuses_bytes_that_are_not_an_image() -> None:
    with pytest.raises(mb.MediaTypeError, match="application/pdf, not image media"):
        mb.ImageBlock.from_bytes(_pdf())


def test_audio_block_refuses_an_image(png_bytes: bytes) -> None:
    with pytest.raises(mb.MediaTypeError, match="not audio media"):
        mb.AudioBlock.from_bytes(png_bytes)


def test_empty_bytes_are_refused_for_media() -> None:
    with pytest.raises(mb.MediaTypeError, match="holds no bytes"):
        mb.ImageBlock.from_bytes(b"")


def test_unrecognised_bytes_keep_a_declared_custom_type_only() -> None:
    data = b"\x00\x01custom-format\x02" * 4
    assert mb.FileBlock.from_bytes(data, "application/x-custom").mime_type == "application/x-custom"
    assert mb.FileBlock.from_bytes(data).mime_type == "application/octet-stream"


def test_unrecognised_bytes_declared_as_a_type_we_always_detect_are_refused() -> None:
    with pytest.raises(mb.MediaTypeError, match="declared image/png but the bytes are not"):
        mb.ImageBlock.from_bytes(os.urandom(64), "image/png")


def test_text_like_declaration_beats_a_text_heuristic() -> None:
    block = mb.FileBlock.from_bytes(b"a\tb\tc\n1\t2\t3\n", "text/tab-separated-values")
    assert block.mime_type == "text/tab-separated-values"


def test_non_buffer_input_is_a_clear_error() -> None:
    with pytest.raises(mb.InvalidSourceError, match="needs bytes"):
        mb.ImageBlock.from_bytes("not bytes")  # type: ignore[arg-type]


# -- base64 and data URIs --------------------------------------------------------------------


def test_to_base64_and_data_uri(jpeg_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(jpeg_bytes)
    data, mime = block.to_base64()
    assert base64.b64decode(data) == jpeg_bytes
    assert mime == "image/jpeg"
    assert block.to_data_uri() == f"data:image/jpeg;base64,{data}"


def test_base64_is_computed_once(jpeg_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(jpeg_bytes)
    first, _ = block.to_base64()
    second, _ = block.to_base64()
    assert first is second


def test_from_base64_bare_and_data_uri(png_bytes: bytes) -> None:
    encoded = base64.b64encode(png_bytes).decode()
    assert mb.ImageBlock.from_base64(encoded).read() == png_bytes
    from_uri = mb.ImageBlock.from_base64("data:image/png;base64," + encoded)
    assert from_uri.read() == png_bytes
    assert from_uri.declared_mime == "image/png"


def test_from_data_uri_takes_the_filename_parameter(png_bytes: bytes) -> None:
    uri = "data:image/png;name=shot.png;base64," + base64.b64encode(png_bytes).decode()
    assert mb.ImageBlock.from_data_uri(uri).filename == "shot.png"


def test_malformed_base64_raises_decode_error() -> None:
    with pytest.raises(mb.DecodeError, match="position"):
        mb.ImageBlock.from_base64("iVBORw0K$$$")


def test_data_uri_declaring_the_wrong_type_is_corrected(png_bytes: bytes) -> None:
    uri = "data:image/gif;base64," + base64.b64encode(png_bytes).decode()
    assert mb.ImageBlock.from_data_uri(uri).mime_type == "image/png"


# -- paths -----------------------------------------------------------------------------------


def test_from_path_is_lazy_and_reads_once(tmp_path: Path, png_bytes: bytes) -> None:
    path = tmp_path / "shot.png"
    block = mb.ImageBlock.from_path(path)  # no file yet: construction does no I/O
    assert not block.loaded
    path.write_bytes(png_bytes)
    assert block.mime_type == "image/png"
    assert not block.loaded  # only the header window was read for the type
    first = block.read()
    path.write_bytes(b"changed")
    assert block.read() is first  # cached: one read however many encodes
    assert block.to_base64()[0] == base64.b64encode(png_bytes).decode()


@pytest.mark.parametrize("form", ["str", "pathlike", "file:", "file://", "file://localhost"])
def test_from_path_forms(tmp_path: Path, png_bytes: bytes, form: str) -> None:
    path = tmp_path / "a b.png"
    path.write_bytes(png_bytes)
    source: str | Path = {
        "str": str(path),
        "pathlike": path,
        "file:": "file:" + str(path).replace(" ", "%20"),
        "file://": path.as_uri(),
        "file://localhost": "file://localhost" + str(path).replace(" ", "%20"),
    }[form]
    block = mb.ImageBlock.from_path(source)
    assert block.read() == png_bytes
    assert block.filename == "a b.png"


def test_from_path_refuses_a_remote_file_uri() -> None:
    with pytest.raises(mb.InvalidSourceError, match="remote host"):
        mb.ImageBlock.from_path("file://server/share/x.png")


def test_missing_file_is_a_source_error_naming_the_block(tmp_path: Path) -> None:
    block = mb.ImageBlock.from_path(tmp_path / "missing.png")
    with pytest.raises(mb.SourceError, match=r"missing\.png") as info:
        block.read()
    assert isinstance(info.value, OSError)


def test_path_holding_the_wrong_kind_is_refused_on_read(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(_pdf())
    block = mb.ImageBlock.from_path(path)
    with pytest.raises(mb.MediaTypeError, match=r"photo\.png"):
        block.read()


def test_filename_is_a_basename_never_a_path(tmp_path: Path, png_bytes: bytes) -> None:
    path = tmp_path / "secret-folder" / "x.png"
    path.parent.mkdir()
    path.write_bytes(png_bytes)
    block = mb.ImageBlock.from_path(path)
    assert block.filename == "x.png"
    assert "secret-folder" not in (block.filename or "")
    assert mb.FileBlock.from_bytes(b"%PDF-1.4\n", filename="C:\\Users\\ana\\doc.pdf").filename == (
        "doc.pdf"
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [("../../etc/passwd", "passwd"), ("..", None), ("a\x00b\nc.txt", "abc.txt"), ("", None)],
)
def test_sanitize_filename(given: str, expected: str | None) -> None:
    assert mb.sanitize_filename(given) == expected


def test_allowed_roots_confine_path_reads(tmp_path: Path, png_bytes: bytes) -> None:
    inside = tmp_path / "root"
    inside.mkdir()
    (inside / "ok.png").write_bytes(png_bytes)
    outside = tmp_path / "outside.png"
    outside.write_bytes(png_bytes)
    (inside / "link.png").symlink_to(outside)
    policy = mb.FetchPolicy(allowed_roots=(str(inside),))
    assert mb.ImageBlock.from_path(inside / "ok.png").read(policy) == png_bytes
    with pytest.raises(mb.PathNotAllowedError, match="outside the allowed roots"):
        mb.ImageBlock.from_path(inside / "link.png").read(policy)
    with pytest.raises(mb.PathNotAllowedError):
        mb.ImageBlock.from_path(outside).read(policy)
    with mb.use_policy(policy), pytest.raises(mb.PathNotAllowedError):
        mb.ImageBlock.from_path(outside).read()


# -- URLs ------------------------------------------------------------------------------------


def test_from_url_does_no_io_and_guesses_a_provisional_type() -> None:
    block = mb.ImageBlock.from_url("https://example.com/pics/cat%201.jpg?x=1")
    assert isinstance(block.source, URLSource)
    assert not block.loaded
    assert block.mime_type == "image/jpeg"  # provisional, from the extension
    assert block.filename == "cat 1.jpg"


def test_from_url_refuses_file_urls_and_relative_urls() -> None:
    with pytest.raises(mb.InvalidSourceError, match="from_path"):
        mb.ImageBlock.from_url("file:///etc/passwd")
    with pytest.raises(mb.InvalidSourceError, match="absolute URL"):
        mb.ImageBlock.from_url("pics/cat.jpg")


def test_from_url_with_a_data_url_decodes_it(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_url("data:image/png;base64," + base64.b64encode(png_bytes).decode())
    assert isinstance(block.source, Base64Source)  # in memory: nothing to fetch
    assert block.read() == png_bytes


def test_file_id_block_is_passed_along_not_read() -> None:
    block = mb.FileBlock.from_file_id("file-abc", "application/pdf", provider="openai")
    assert block.mime_type == "application/pdf"
    with pytest.raises(mb.SourceError, match="stored at the provider"):
        block.read()


# -- PIL and media_block ---------------------------------------------------------------------


def test_from_pil_keeps_png_for_transparency_and_jpeg_for_photos() -> None:
    rgba = Image.new("RGBA", (8, 8), (255, 0, 0, 128))
    assert mb.ImageBlock.from_pil(rgba).mime_type == "image/png"
    photo = Image.open(io.BytesIO(make_jpeg()))
    assert mb.ImageBlock.from_pil(photo).mime_type == "image/jpeg"
    forced = mb.ImageBlock.from_pil(rgba, format="JPEG")
    assert forced.mime_type == "image/jpeg"
    assert Image.open(io.BytesIO(forced.read())).size == (8, 8)


def test_media_block_picks_the_class_from_the_bytes(tmp_path: Path) -> None:
    assert type(mb.media_block(make_png())) is mb.ImageBlock
    assert type(mb.media_block(make_wav())) is mb.AudioBlock
    assert type(mb.media_block(_pdf())) is mb.FileBlock
    path = tmp_path / "clip.bin"  # the extension says nothing; the bytes decide
    path.write_bytes(make_wav())
    block = mb.media_block(path)
    assert type(block) is mb.AudioBlock
    assert isinstance(block.source, PathSource)
    assert block.mime_type == "audio/wav"


def test_media_block_from_strings(png_bytes: bytes) -> None:
    uri = "data:image/png;base64," + base64.b64encode(png_bytes).decode()
    assert type(mb.media_block(uri)) is mb.ImageBlock
    url_block = mb.media_block("https://example.com/a.wav")
    assert type(url_block) is mb.AudioBlock
    assert not url_block.loaded


def test_media_block_will_not_guess_a_plain_string_is_a_path() -> None:
    with pytest.raises(mb.InvalidSourceError, match=r"pathlib.Path"):
        mb.media_block("photo.png")


def test_media_block_passes_a_block_through(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes)
    assert mb.media_block(block) is block


def test_media_block_rejects_other_types() -> None:
    with pytest.raises(mb.InvalidSourceError, match="int"):
        mb.media_block(42)


# -- JSON ------------------------------------------------------------------------------------


def test_json_round_trip_keeps_bytes(jpeg_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(jpeg_bytes, filename="a.jpg").model_copy(
        update={"detail": "low"}
    )
    text = block.model_dump_json()
    back = mb.ImageBlock.model_validate_json(text)
    assert back == block
    assert back.read() == jpeg_bytes
    assert back.detail == "low"


def test_blocks_are_frozen(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes)
    with pytest.raises(ValueError, match="frozen"):
        block.filename = "x.png"  # type: ignore[misc]


def test_public_heic_is_an_image_block() -> None:
    block = mb.media_block(PUBLIC_TESTDATA / "fixture-mif1.heic")
    assert type(block) is mb.ImageBlock
    assert block.mime_type in ("image/heic", "image/heif")


def test_the_data_uri_is_built_once_and_shared_with_the_base64(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_bytes(png_bytes)
    uri = block.to_data_uri()
    assert block.to_data_uri() is uri
    assert uri == "data:image/png;base64," + base64.b64encode(png_bytes).decode()
    assert block.to_base64()[0] == uri.split(",", 1)[1]
    part = mb.encode([mb.UserMessage(content=[block])], "openai")["messages"][0]["content"][0]
    assert part["image_url"]["url"] is uri  # the encoder reuses the cached text


def test_a_large_payload_encodes_exactly_across_chunk_boundaries() -> None:
    # 3 MiB + 1 byte of varied bytes: several encode chunks and a padded tail.
    data = make_png() + bytes(range(256)) * (3 * 4096 + 1)
    block = mb.ImageBlock.from_bytes(data)
    assert base64.b64decode(block.to_data_uri().split(",", 1)[1], validate=True) == data
    assert base64.b64decode(block.to_base64()[0], validate=True) == data


@pytest.mark.parametrize("declared", ["video/x-matroska", "audio/aac", "image/jxl"])
def test_a_declared_type_we_always_detect_is_refused_over_junk(declared: str) -> None:
    junk = bytes(range(7, 71))
    with pytest.raises(mb.MediaTypeError, match=f"declared {declared} but the bytes are not"):
        mb.FileBlock.from_bytes(junk, declared).mime_type  # noqa: B018


def test_base64_is_kept_as_text_and_only_its_header_decoded(png_bytes: bytes) -> None:
    text = base64.b64encode(png_bytes + b"\0" * 100_000).decode()  # past the header window
    # Corrupt the tail only: the type comes from the header window, the text goes on as it is.
    broken = text[:-8] + "!!!!" + text[-4:]
    block = mb.ImageBlock.from_base64(broken)
    assert isinstance(block.source, Base64Source)
    assert block.mime_type == "image/png"
    assert block.to_base64() == (broken, "image/png")
    with pytest.raises(mb.DecodeError, match="base64"):
        block.read()  # bytes are needed here: now all of it is checked


def test_strict_base64_checks_everything_at_once(png_bytes: bytes) -> None:
    text = base64.b64encode(png_bytes + b"\0" * 3000).decode()
    with pytest.raises(mb.DecodeError):
        mb.ImageBlock.from_base64(text[:-8] + "!!!!" + text[-4:], strict=True)
    block = mb.ImageBlock.from_base64(text, strict=True)
    assert isinstance(block.source, BytesSource)


def test_a_data_uri_is_handed_on_as_the_very_same_string(png_bytes: bytes) -> None:
    uri = "data:image/png;base64," + base64.b64encode(png_bytes).decode()
    block = mb.ImageBlock.from_data_uri(uri)
    assert block.to_data_uri() is uri
    assert block.to_base64()[0] == uri.split(",", 1)[1]
    # A declared type the bytes contradict gives a data URI of the real type instead.
    wrong = mb.ImageBlock.from_data_uri("data:image/jpeg;base64," + uri.split(",", 1)[1])
    assert wrong.to_data_uri() == uri


def test_base64_and_bytes_blocks_of_the_same_media_are_equal(png_bytes: bytes) -> None:
    from_text = mb.ImageBlock.from_base64(base64.b64encode(png_bytes).decode())
    from_bytes = mb.ImageBlock.from_bytes(png_bytes)
    assert from_text == from_bytes
    assert from_text != mb.ImageBlock.from_bytes(png_bytes + b"\0")


def test_base64_blocks_round_trip_through_json(png_bytes: bytes) -> None:
    block = mb.ImageBlock.from_base64(base64.b64encode(png_bytes).decode())
    restored = mb.load_messages(mb.dump_messages([mb.UserMessage(content=[block])]))
    [image] = restored[0].content
    assert isinstance(image, mb.ImageBlock)
    assert isinstance(image.source, Base64Source)
    assert image.read() == png_bytes


def test_from_path_and_media_block_differ_only_where_documented(tmp_path: Path) -> None:
    missing = tmp_path / "missing.png"
    lazy = mb.ImageBlock.from_path(str(missing))  # an explicit path: nothing opened yet
    with pytest.raises(mb.SourceError, match=r"missing\.png'.*No such file"):
        lazy.read()
    with pytest.raises(mb.SourceError, match=r"missing\.png'.*No such file"):
        mb.media_block(missing)  # must read the header to choose the class
    with pytest.raises(mb.InvalidSourceError, match=r"from_path"):
        mb.media_block(str(missing))  # a plain string is never a path; the message says how
    for empty in ("", "  ", "file://"):
        with pytest.raises(mb.InvalidSourceError):
            mb.FileBlock.from_path(empty)


# -- the resolved MIME type: a cache set up on first use, carried by copies ---------------------


def test_a_block_built_from_stored_json_sets_up_no_private_state(png_bytes: bytes) -> None:
    stored = mb.dump_messages([mb.UserMessage(content=[mb.ImageBlock.from_bytes(png_bytes)])])
    (message,) = mb.load_messages(stored)
    (block,) = message.media
    assert block.__pydantic_private__ is None  # nothing set up per block while loading
    assert block.mime_type == "image/png"
    assert block.__pydantic_private__ == {"_mime": "image/png"}


@pytest.mark.parametrize(
    "duplicate",
    [
        copy.copy,
        copy.deepcopy,
        lambda block: pickle.loads(pickle.dumps(block)),
        lambda block: block.model_copy(update={"filename": "b.png"}),
    ],
)
def test_copies_keep_the_resolved_mime_type_and_do_not_share_it(
    png_bytes: bytes, duplicate: Any
) -> None:
    # Declared JPEG, the bytes are PNG: the resolved type is the bytes' one, kept by the copy.
    block = mb.ImageBlock.from_bytes(png_bytes, "image/jpeg")
    assert block._mime == "image/png"
    copied = duplicate(block)
    assert copied._mime == "image/png"
    assert copied.__pydantic_private__ is not block.__pydantic_private__
    assert copied.mime_type == block.mime_type == "image/png"


def test_a_subclass_keeps_its_own_private_attributes_beside_the_resolved_type(
    png_bytes: bytes,
) -> None:
    class Noted(mb.ImageBlock):
        _note: str = PrivateAttr(default="kept")

    block = Noted(source=BytesSource(data=png_bytes))
    assert block.mime_type == "image/png"
    assert block._note == "kept"
    assert block._mime == "image/png"
