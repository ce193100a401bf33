"""Mutated real files (cut, flipped, spliced, sizes set to extremes) through every media entry
point: only `MediaBlocksError` escapes, in bounded memory (issue 10, class 1: corrupt media)."""

from __future__ import annotations

import base64
import contextlib
import struct
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb

from .conftest import TESTDATA, load_manifest

MANIFEST = load_manifest()
SEEDS = sorted(path for path in MANIFEST if (TESTDATA / path).stat().st_size <= 400_000)
PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
)
EXTREMES = (0, 1, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)
MEMORY_BOUND = 80 * 1024 * 1024  # a constant (PDF object streams inflate at most 64 MiB)


def _read(path: str) -> bytes:
    return (TESTDATA / path).read_bytes()


@st.composite
def mutated_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A real file from testdata/, mutated one to four times, mostly in its header."""
    path = draw(st.sampled_from(SEEDS))
    data = bytearray(_read(path))
    for _ in range(draw(st.integers(1, 4))):
        near = min(len(data), 600)
        where = draw(st.integers(0, max(near - 1, 0)))
        kind = draw(st.sampled_from(["cut", "flip", "extreme", "insert", "splice"]))
        if kind == "cut":
            del data[where:]
        elif kind == "flip" and data:
            data[where] = draw(st.integers(0, 255))
        elif kind == "extreme" and len(data) >= 4:
            where = min(where, len(data) - 4)
            order = draw(st.sampled_from([">I", "<I"]))
            data[where : where + 4] = struct.pack(order, draw(st.sampled_from(EXTREMES)))
        elif kind == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=16))
        else:
            other = _read(draw(st.sampled_from(SEEDS)))
            data = data[:where] + bytearray(other[draw(st.integers(0, len(other))) :])
    return path, bytes(data)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(case=mutated_files())
def test_detect_mime_answers_a_type_or_none(case: tuple[str, bytes]) -> None:
    _, data = case
    answer = mb.detect_mime(data)
    assert answer is None or mb.normalize_mime(answer) == answer


@SETTINGS
@given(case=mutated_files())
def test_probe_bytes_gives_facts_or_a_decode_error(case: tuple[str, bytes]) -> None:
    path, data = case
    mime = MANIFEST[path]["mime"]
    tracemalloc.start()
    messages = []
    try:
        for declared in (None, mime):
            try:
                info = mb.probe_bytes(data, declared)
            except mb.DecodeError as error:
                messages.append(str(error))
            else:
                assert isinstance(info, mb.MediaInfo)
                assert info.width is None or info.width > 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(f"{len(data)} bytes" in message for message in messages)  # names the input
    assert peak < MEMORY_BOUND + 4 * len(data)


@SETTINGS
@given(case=mutated_files(), provider=st.sampled_from(PROVIDERS))
def test_estimate_tokens_gives_a_count_or_a_library_error(
    case: tuple[str, bytes], provider: str
) -> None:
    _, data = case
    block = mb.media_block(data)
    try:
        tokens = mb.estimate_tokens(block, provider)
    except mb.MediaBlocksError:
        return
    assert tokens >= 0


_URI_NOISE = st.sampled_from(["=", ",", ";", "%", "%2", "*", " ", "\n", "é", "data:", ";base64"])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated_files(), cut=st.integers(0, 200), noise=st.lists(_URI_NOISE, max_size=3))
def test_data_uris_and_base64_decode_or_raise_decode_errors(
    case: tuple[str, bytes], cut: int, noise: list[str]
) -> None:
    path, data = case
    encoded = base64.b64encode(data).decode("ascii")
    uri = f"data:{MANIFEST[path]['mime'] or 'application/octet-stream'};base64,{encoded}"
    if data:  # intact text gives the very bytes back (an empty payload is an error of its own)
        assert mb.parse_data_uri(uri).data == data
        assert mb.FileBlock.from_base64(encoded).read() == data
    spoiled = uri[: max(5, len(uri) - cut)]
    for piece in noise:
        middle = len(spoiled) // 2
        spoiled = spoiled[:middle] + piece + spoiled[middle:]
    for call in (
        lambda: mb.parse_data_uri(spoiled),
        lambda: mb.MediaBlock.from_data_uri(spoiled),
        lambda: mb.ImageBlock.from_data_uri(spoiled, strict=True),
        lambda: mb.FileBlock.from_base64(spoiled.partition(",")[2] or spoiled),
        lambda: mb.media_block(spoiled),
    ):
        with contextlib.suppress(mb.MediaBlocksError):
            call()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated_files())
def test_paths_read_probe_and_header_only_raise_library_errors(
    case: tuple[str, bytes], tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, data = case
    path = tmp_path_factory.mktemp("hostile") / "input.bin"
    path.write_bytes(data)
    block = mb.media_block(path)
    assert block.read_header(64) == data[:64]
    message = ""
    try:
        mb.probe(block)
    except mb.DecodeError as error:
        message = str(error)
    assert not message or "input.bin" in message  # a failure names the file
    assert block.read() == data


# -- regressions: one of each kind ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "keep"),
    [
        ("image/rgb.png", 20),
        ("image/photo.jpg", 40),
        ("audio/pcm16.wav", 30),
        ("video/h264-aac.mp4", 40),
    ],
)
def test_a_header_cut_in_half_is_a_decode_error_naming_the_block(
    path: str, keep: int, tmp_path: Path
) -> None:
    data = _read(path)
    cut = tmp_path / Path(path).name
    cut.write_bytes(data[:keep])
    block = mb.media_block(cut)
    with pytest.raises(mb.DecodeError, match=cut.name):
        mb.probe(block)
    with pytest.raises(mb.DecodeError, match=f"{keep} bytes"):
        mb.probe_bytes(data[:keep], MANIFEST[path]["mime"])


def test_a_size_field_of_four_gigabytes_allocates_nothing_of_the_kind(tmp_path: Path) -> None:
    mp4 = bytearray(_read("video/h264-aac.mp4"))
    ftyp = struct.unpack(">I", mp4[:4])[0]
    mp4[ftyp : ftyp + 4] = struct.pack(">I", 0xFFFFFFFF)  # the box after ftyp claims 4 GiB
    path = tmp_path / "huge-box.mp4"
    path.write_bytes(bytes(mp4))
    tracemalloc.start()
    try:
        with contextlib.suppress(mb.DecodeError):
            mb.probe(mb.VideoBlock.from_path(path))
        with contextlib.suppress(mb.DecodeError):
            mb.probe_bytes(bytes(mp4))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(mp4) + 1024 * 1024


def test_a_check_that_cannot_parse_its_bytes_says_nothing() -> None:
    # Every built-in signature check on every prefix of a real file: an answer or None.
    for path in ("video/h264-aac.mp4", "document/report.docx", "audio/opus.webm"):
        if path not in MANIFEST:
            continue
        data = _read(path)
        for end in range(0, 2048, 7):
            answer = mb.detect_mime(data[:end])
            assert answer is None or "/" in answer


@pytest.mark.parametrize("error", [struct.error("bad"), EOFError(), KeyError(3), IndexError()])
def test_a_check_that_raises_is_a_no_match_and_the_next_check_answers(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mediablocks.mime import detect

    def broken(head: bytes, window: memoryview, truncated: bool) -> str | None:
        raise error

    png = _read("image/rgb.png")
    table = list(detect._BY_FIRST_BYTE)
    table[png[0]] = (broken, *table[png[0]])
    monkeypatch.setattr(detect, "_BY_FIRST_BYTE", tuple(table))
    assert mb.detect_mime(png) == "image/png"
