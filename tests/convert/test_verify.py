"""The decode checks over a `Window` (a file's start and end, shipped to a worker instead of the
whole file) give the whole file's verdict; `prepare` checks a stream copy in the job that made
it, and an untouched recording through a window (issue 30)."""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediablocks.convert import verify
from mediablocks.convert._av import Window, WindowReader
from mediablocks.convert.audio import AudioTarget, convert_and_check_audio, convert_audio
from mediablocks.errors import DecodeError, DoesNotFitError
from mediablocks.media import AudioBlock
from mediablocks.messages import UserMessage
from mediablocks.preparing import prepare, prepare_with_report
from tests.conftest import pyav_audio

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
MANIFEST = json.loads((TESTDATA / "manifest.json").read_text())
AUDIO = sorted(
    path
    for path, entry in MANIFEST.items()
    if entry["kind"] == "audio" and entry["mime"] != "audio/midi"
)


# -- the window reader ----------------------------------------------------------------------------

_operations = st.lists(
    st.one_of(
        st.tuples(st.just("read"), st.integers(-1, 300)),
        st.tuples(st.just("seek"), st.integers(-50, 1200), st.sampled_from([0, 1, 2])),
    ),
    max_size=30,
)


@given(
    data=st.binary(max_size=1000),
    head=st.integers(0, 1200),
    tail=st.integers(0, 1200),
    operations=_operations,
)
def test_a_window_reads_what_the_whole_file_reads_or_says_it_missed(
    data: bytes, head: int, tail: int, operations: list[tuple[Any, ...]]
) -> None:
    window = Window.of(data, head, tail)
    assert window.size == len(data)
    assert len(window.head) + len(window.tail) <= len(data)
    reader, whole = WindowReader(window), io.BytesIO(data)
    for operation in operations:
        if operation[0] == "seek":
            _, offset, whence = operation
            if whence == 0 and offset < 0:
                continue  # BytesIO refuses a negative absolute position
            expected = max(0, whole.seek(offset, whence))
            whole.seek(expected)
            assert reader.seek(offset, whence) == expected
            continue
        start = whole.tell()
        expected_bytes = whole.read(operation[1])
        got = reader.read(operation[1])
        end = start + len(expected_bytes)
        tail_start = len(data) - len(window.tail)
        inside = end <= len(window.head) or start >= tail_start or tail_start <= len(window.head)
        if expected_bytes and not inside:
            assert reader.missed  # the middle was asked for: the verdict will not count
            return
        assert got == expected_bytes
        assert reader.tell() == whole.tell()
    assert not reader.missed


@given(data=st.binary(max_size=400), head=st.integers(0, 300), tail=st.integers(0, 300))
def test_a_window_covering_the_file_never_misses(data: bytes, head: int, tail: int) -> None:
    if head + tail < len(data):
        head = len(data)
    reader = WindowReader(Window.of(data, head, tail))
    assert reader.read() == data
    assert not reader.missed


# -- the checks over a window ---------------------------------------------------------------------


def _verdict(run: Any) -> str:
    try:
        outcome = run()
    except DecodeError as exc:
        return f"refused: {exc}"
    return "passed" if outcome is None else "unknown"


@pytest.mark.parametrize("path", [*AUDIO, "bad/truncated.flac", "bad/short-picture-block.flac"])
def test_a_windowed_check_agrees_with_the_whole_file(path: str) -> None:
    pytest.importorskip("av")
    data = (TESTDATA / path).read_bytes()
    whole = _verdict(lambda: verify.check_audio_decodes(data, "the block"))
    for head, tail in [(64 << 10, 16 << 10), (4096, 4096), (512, 0), (0, 0)]:
        window = Window.of(data, head, tail)
        windowed = _verdict(
            lambda w=window: verify.check_window("check_audio_decodes", w, "the block")
        )
        assert windowed in ("unknown", whole), (head, tail)
    generous = Window.of(data, len(data), 0)
    verdict = _verdict(lambda: verify.check_window("check_audio_decodes", generous, "the block"))
    assert verdict == whole


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    head=st.integers(0, 4000),
    tail=st.integers(0, 4000),
    cut=st.integers(100, 4000),
)
def test_any_window_of_a_cut_recording_agrees_with_the_whole_file(
    head: int, tail: int, cut: int
) -> None:
    """Cut anywhere, windowed anyhow: the check over the window passes only where the whole
    file passes, refuses it with the same words, or says it cannot tell."""
    pytest.importorskip("av")
    data = (TESTDATA / "audio/sample.m4a").read_bytes()[:cut]
    whole = _verdict(lambda: verify.check_audio_decodes(data, "cut"))
    window = Window.of(data, head, tail)
    assert _verdict(lambda: verify.check_window("check_audio_decodes", window, "cut")) in (
        "unknown",
        whole,
    )


def _tone_m4a(seconds: int) -> bytes:
    """``seconds`` of a tone as AAC in an M4A, encoded by PyAV (its index follows the sound)."""
    np = pytest.importorskip("numpy")

    def second(n: int) -> tuple[Any, str]:
        t = np.arange(n * 16000, (n + 1) * 16000) / 16000
        return (np.sin(2 * np.pi * 440 * t) * 0.3).astype(np.float32).reshape(1, -1), "flt"

    return pyav_audio(seconds, "ipod", "aac", second)


def test_a_check_over_a_window_reads_the_end_of_an_mp4_indexed_there() -> None:
    """An M4A whose index (``moov``) follows its sound passes over its start and end alone;
    without its end, the window cannot tell."""
    data = _tone_m4a(30)
    assert data.index(b"moov") > data.index(b"mdat") > 0
    assert len(data) - data.index(b"moov") < 32 << 10
    index = data.index(b"moov")
    whole = Window.of(data, 64 << 10, 32 << 10)
    assert verify.check_window("check_audio_decodes", whole, "m4a") is None
    no_end = Window.of(data, 64 << 10, 0)
    outside = verify.check_window("check_audio_decodes", no_end, "m4a")
    assert outside is not None
    assert 64 << 10 <= outside <= index  # where it went looking for the index


@functools.cache
def _noise_flac(seconds: int) -> bytes:
    """``seconds`` of noise as 16 kHz FLAC (large: noise does not compress)."""
    return pyav_audio(seconds, "flac", "flac", _noise(5))


class _Jobs:
    """`run_isolated` recording the payload each job was sent (the real one runs it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from mediablocks.convert import isolation

        self.sent: list[tuple[str, Any]] = []
        real = isolation.run_isolated

        def recording(what: str, job: Any, *args: Any, **keywords: Any) -> Any:
            self.sent.append((job.__name__, args[1] if job is verify.check_window else args[0]))
            return real(what, job, *args, **keywords)

        monkeypatch.setattr(isolation, "run_isolated", recording)


def test_a_long_recording_is_checked_from_its_start_and_end_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _noise_flac(60)
    assert len(data) > 3 * (verify.WINDOW_HEAD + verify.WINDOW_TAIL)
    jobs = _Jobs(monkeypatch)
    verify.run_check("check_audio_decodes", data, "long")
    ((name, sent),) = jobs.sent
    assert name == "check_window"
    assert isinstance(sent, Window)
    assert len(sent.head) + len(sent.tail) < len(data) // 4


def _stereo_flac(seconds: int, rate: int = 44100) -> bytes:
    """``seconds`` of a loud tone with noise as stereo FLAC at ``rate``: CD-sized frames (some
    8 KiB each at 44.1 kHz), which FFmpeg reads ten of before the first is decoded."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(9)

    def second(n: int) -> tuple[Any, str]:
        t = np.arange(n * rate, (n + 1) * rate) / rate
        wave = np.sin(2 * np.pi * 440 * t) * 8000 + rng.normal(0, 3000, rate)
        return np.repeat(wave.astype(np.int16), 2).reshape(1, -1), "s16"

    return pyav_audio(seconds, "flac", "flac", second, rate=rate, layout="stereo")


def _with_padding(flac: bytes, size: int) -> bytes:
    """``flac`` with a PADDING block of ``size`` bytes after its STREAMINFO (what a tagger
    leaves for later edits; a cover picture is as large): the frames start that much later."""
    streaminfo = flac[4:42]
    assert streaminfo[0] & 0x7F == 0
    last = streaminfo[0] & 0x80
    padding = bytes([0x01 | last]) + size.to_bytes(3, "big") + bytes(size)
    return b"fLaC" + bytes([streaminfo[0] & 0x7F]) + streaminfo[1:] + padding + flac[42:]


@pytest.mark.parametrize("rate", [44100, 96000])
def test_a_stereo_flac_is_checked_in_one_window_sized_from_its_streaminfo(
    monkeypatch: pytest.MonkeyPatch, rate: int
) -> None:
    data = _stereo_flac(20, rate)
    jobs = _Jobs(monkeypatch)
    verify.run_check("check_audio_decodes", data, "music")
    ((name, window),) = jobs.sent  # one window: FFmpeg read nothing outside it
    assert name == "check_window"
    assert 64 << 10 < len(window.head) < len(data) // 4  # more than a fixed 64 KiB would give
    assert len(window.head) % verify.READ_SIZE == 0
    assert window.tail == b""


def test_a_flac_with_large_metadata_gets_a_window_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _with_padding(_stereo_flac(20), 300_000)
    jobs = _Jobs(monkeypatch)
    verify.run_check("check_audio_decodes", data, "tagged")
    ((name, window),) = jobs.sent
    assert name == "check_window"
    assert 300_000 < len(window.head) < len(data) // 4


def test_a_flac_head_needs_streaminfo_first_and_a_last_block() -> None:
    data = _stereo_flac(2)
    head = verify._flac_head(data)
    assert head is not None
    assert head > 64 << 10
    assert verify._flac_head(b"fLaC" + bytes([0x01]) + data[5:]) is None  # not STREAMINFO
    assert verify._flac_head(data[:41]) is None  # STREAMINFO cut short
    endless = b"fLaC" + data[4:42] + (b"\x01\x00\x00\x00" * 100)  # no last block
    assert verify._flac_head(endless) is None


@given(st.binary(max_size=200))
def test_a_flac_head_is_none_or_whole_reads(rest: bytes) -> None:
    head = verify._flac_head(b"fLaC" + rest)
    assert head is None or (head > 0 and head % verify.READ_SIZE == 0)


def _noise_wav(seconds: int) -> bytes:
    """``seconds`` of 16 kHz mono noise as a WAV, written by PyAV."""
    return pyav_audio(seconds, "wav", "pcm_s16le", _noise(6))


def _noise(seed: int) -> Callable[[int], tuple[Any, str]]:
    """Seconds of 16-bit noise, the same for the same ``seed``."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(seed)
    return lambda _: (rng.integers(-12000, 12000, (1, 16000), dtype=np.int16), "s16")


def test_a_long_wav_gets_the_larger_start_ffmpeg_reads_and_passes_in_one_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _noise_wav(60)
    jobs = _Jobs(monkeypatch)
    verify.run_check("check_audio_decodes", data, "wav")
    ((name, sent),) = jobs.sent
    assert name == "check_window"
    assert len(sent.head) == verify.PCM_WINDOW_HEAD
    assert len(sent.head) + len(sent.tail) < len(data) // 2


@pytest.mark.parametrize(
    ("start", "pcm"),
    [
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", True),
        (b"RF64\xff\xff\xff\xffWAVEds64", True),
        (b"FORM\x00\x00\x00\x00AIFFCOMM", True),
        (b"FORM\x00\x00\x00\x00AIFCFVER", True),
        (b"caff\x00\x01\x00\x00desc", True),
        (b".snd\x00\x00\x00\x18", True),
        (b"RIFF\x00\x00\x00\x00AVI LIST", False),
        (b"fLaC\x00\x00\x00\x22", False),
        (b"OggS\x00\x02", False),
        (b"RIF", False),
        (b"", False),
    ],
)
def test_pcm_containers_are_known_by_their_first_twelve_bytes(start: bytes, pcm: bool) -> None:
    assert verify._holds_pcm(start + bytes(100)) is pcm
    assert verify._holds_pcm(start) is pcm  # no more than the signature needed


def test_a_long_recording_broken_at_its_start_is_refused_through_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = bytearray(_noise_flac(60))
    data[200:60000] = bytes(59800)  # the first frames zeroed: no FLAC frame starts there
    jobs = _Jobs(monkeypatch)
    with pytest.raises(DecodeError, match=r"^broken: "):
        verify.run_check("check_audio_decodes", bytes(data), "broken")
    names = [name for name, _ in jobs.sent]
    # FFmpeg looks for the next frame past the zeros: a second, larger window, never the file
    assert names == ["check_window"] * len(names)
    assert 1 <= len(names) <= 2
    assert len(jobs.sent[-1][1].head) < len(data) // 4


def test_a_window_too_small_falls_back_to_the_whole_file(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _noise_flac(60)
    monkeypatch.setattr(verify, "_first_window", lambda _: (256, 0))  # not STREAMINFO + a frame
    monkeypatch.setattr(verify, "_WINDOW_TRIES", 1)
    jobs = _Jobs(monkeypatch)
    verify.run_check("check_audio_decodes", data, "long")
    assert [name for name, _ in jobs.sent] == ["check_window", "check_audio_decodes"]
    assert jobs.sent[1][1] == data


def test_a_window_grows_where_the_check_read_outside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _noise_flac(60)
    monkeypatch.setattr(verify, "_first_window", lambda _: (16 << 10, 0))
    jobs = _Jobs(monkeypatch)
    verify.run_check("check_audio_decodes", data, "long")
    names = [name for name, _ in jobs.sent]
    assert names == ["check_window"] * len(names)
    assert 1 < len(names) <= verify._WINDOW_TRIES
    heads = [len(window.head) for _, window in jobs.sent]
    assert heads == sorted(set(heads))  # each window larger than the one before
    assert heads[-1] < len(data) // 3


def test_small_files_and_pdfs_are_sent_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = _Jobs(monkeypatch)
    small = (TESTDATA / "audio/sample.flac").read_bytes()
    verify.run_check("check_audio_decodes", small, "small")
    pytest.importorskip("pypdfium2")
    pdf = (TESTDATA / "document/report.pdf").read_bytes()
    verify.run_check("check_pdf_opens", pdf, "pdf")
    assert jobs.sent == [("check_audio_decodes", small), ("check_pdf_opens", pdf)]


# -- a stream copy is checked in the job that made it ---------------------------------------------


def _m4a_with_noise_for_sound() -> bytes:
    """testdata's M4A with its AAC packets replaced by noise: the container is whole (a stream
    copy succeeds) and no packet decodes."""
    import numpy as np

    data = bytearray((TESTDATA / "audio/sample.m4a").read_bytes())
    start, end = data.index(b"mdat") + 4, data.index(b"moov")
    data[start:end] = np.random.default_rng(7).integers(0, 256, end - start, np.uint8).tobytes()
    return bytes(data)


def test_a_copy_that_does_not_decode_is_refused_by_the_converting_job() -> None:
    pytest.importorskip("av")
    data, target = _m4a_with_noise_for_sound(), AudioTarget(frozenset({"audio/aac"}))
    copied = convert_audio(data, target, mime_type="audio/mp4", what="noise")
    assert copied.changes[0].kind == "remuxed"  # the copy alone does not decode anything
    with pytest.raises(DecodeError, match=r"^noise: cannot be decoded"):
        convert_and_check_audio(data, target, mime_type="audio/mp4", what="noise")


def test_prepare_refuses_a_copy_that_does_not_decode_without_a_second_job(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("av")
    checks: list[str] = []
    monkeypatch.setattr(verify, "run_check", lambda name, data, what: checks.append(name))
    block = AudioBlock.from_bytes(_m4a_with_noise_for_sound(), "audio/mp4")
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=[block])], "gemini")
    (problem,) = caught.value.problems
    assert "AudioBlock(3223 bytes in memory, audio/mp4): cannot be decoded" in problem
    assert checks == []


def test_prepare_checks_a_good_copy_once_and_an_untouched_file_through_run_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("av")
    checks: list[str] = []
    real = verify.run_check

    def counting(name: str, data: bytes, what: str) -> None:
        checks.append(name)
        real(name, data, what)

    monkeypatch.setattr(verify, "run_check", counting)
    m4a = AudioBlock.from_path(TESTDATA / "audio/sample.m4a")
    (message,), report = prepare_with_report([UserMessage(content=[m4a])], "gemini")
    assert report.blocks[0].changes[0].kind == "remuxed"
    assert message.content[0].mime_type == "audio/aac"  # type: ignore[union-attr]
    assert checks == []  # checked inside the converting job
    flac = AudioBlock.from_path(TESTDATA / "audio/sample.flac")
    assert prepare([UserMessage(content=[flac])], "gemini")[0].content[0] is flac
    assert checks == ["check_audio_decodes"]


# -- the quick open: named demuxer, parameters from the first packet, one frame (issue 30) ------


@pytest.mark.parametrize(
    ("start", "demuxer"),
    [
        (b"fLaC\x00\x00\x00\x22", "flac"),
        (b"\x00\x00\x00\x20ftypM4A ", "mov"),
        (b"\x00\x00\x00\x1cftypisom", "mov"),
        (b"\x1a\x45\xdf\xa3\x01\x00\x00\x00", "matroska"),
        (b"OggS\x00\x02\x00\x00", "ogg"),
        (b"ID3\x04\x00\x00\x00\x00", None),
        (b"RIFF\x00\x00\x00\x00WAVE", None),
        (b"\xff\xf1\x50\x80", None),
        (b"fLa", None),
        (b"", None),
    ],
)
def test_the_quick_open_names_only_clear_signatures(start: bytes, demuxer: str | None) -> None:
    assert verify._named_format(start + bytes(64)) == demuxer
    assert verify._named_format(start) == (demuxer if len(start) >= 8 else None)


_starts = st.sampled_from([b"", b"fLaC", b"\x00\x00\x00\x20ftyp", b"\x1a\x45\xdf\xa3", b"OggS"])


@given(
    data=st.tuples(_starts, st.binary(max_size=40)).map(b"".join),
    head=st.integers(0, 40),
    tail=st.integers(0, 40),
)
def test_a_window_names_the_demuxer_its_file_does(data: bytes, head: int, tail: int) -> None:
    window = Window.of(data, max(head, 12), tail)
    assert verify._named_format(window) == verify._named_format(data)
    assert verify._named_format(data) in (None, *verify.NAMED_WINDOWS)


def test_a_quick_open_that_fails_gives_way_to_a_plain_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The quick open's refusal is never the verdict: a FLAC opened as an MP4 fails there, and
    the plain open (FFmpeg probing) finds the FLAC and decodes it."""
    pytest.importorskip("av")
    from mediablocks.convert._av import Deadline

    data = (TESTDATA / "audio/sample.flac").read_bytes()
    monkeypatch.setattr(verify, "_SIGNATURES", ((0, b"fLaC", "mov"),))
    with pytest.raises(DecodeError):
        verify._decode_audio(data, "flac", Deadline(None, "flac"), full=False, quick=True)
    verify.check_audio_decodes(data, "flac")  # passed through the plain open


def _packets(data: bytes) -> list[tuple[int, int]]:
    """(offset, size) of each audio packet in the file, as PyAV's demuxer reports them."""
    av = pytest.importorskip("av")
    with av.open(io.BytesIO(data)) as container:
        return [
            (packet.pos, packet.size)
            for packet in container.demux(audio=0)
            if packet.size and packet.pos is not None and packet.pos >= 0
        ]


def _noise_over(data: bytes, start: int, end: int) -> bytes:
    import numpy as np

    broken = bytearray(data)
    noise = np.random.default_rng(start).integers(0, 256, end - start, np.uint8).tobytes()
    broken[start:end] = noise
    return bytes(broken)


def test_a_broken_first_packet_is_refused() -> None:
    data = _tone_m4a(5)
    offset, size = _packets(data)[0]
    broken = _noise_over(data, offset, offset + size)
    with pytest.raises(DecodeError, match=r"^first: cannot be decoded"):
        verify.check_audio_decodes(broken, "first")


def test_damage_after_the_first_frame_is_found_only_by_the_full_check() -> None:
    """What the default no longer reads: packets after the first decoded frame (it decoded 8
    frames before; ``full=True`` decodes them all, as before)."""
    data = _tone_m4a(5)
    packets = _packets(data)
    start = packets[2][0]  # the first two decode to the first frame (AAC's priming)
    end = packets[-1][0] + packets[-1][1]
    broken = _noise_over(data, start, end)
    verify.check_audio_decodes(broken, "later")
    with pytest.raises(DecodeError, match=r"^later: cannot be decoded"):
        verify.check_audio_decodes(broken, "later", full=True)


@functools.cache
def _short_recordings() -> dict[str, bytes]:
    """Two seconds of noise in each container the quick open names, and in one it probes."""
    np = pytest.importorskip("numpy")
    made = {}
    for container, codec, rate in [
        ("flac", "flac", 16000),
        ("ipod", "aac", 16000),
        ("webm", "libopus", 48000),
        ("ogg", "libopus", 48000),
        ("mp3", "libmp3lame", 16000),
    ]:
        rng = np.random.default_rng(9)

        def second(_: int, rng: Any = rng, rate: int = rate) -> tuple[Any, str]:
            return rng.integers(-8000, 8000, (1, rate), dtype=np.int16), "s16"

        made[container] = pyav_audio(2, container, codec, second, rate)
    return made


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    container=st.sampled_from(["flac", "ipod", "webm", "ogg", "mp3"]),
    start=st.integers(0, 6000),
    length=st.integers(1, 3000),
    how=st.sampled_from(["noise", "zeros", "cut"]),
)
def test_the_quick_open_decides_as_the_plain_open_does(
    container: str, start: int, length: int, how: str
) -> None:
    """Damaged anywhere in its start (or cut there), a recording gets from the quick open (and
    so from the default check) the verdict a plain open decoding the first frame gives, with the
    same words: the quick open changes what it costs, not what it finds."""
    from mediablocks.convert._av import Deadline

    data = _short_recordings()[container]
    start = min(start, len(data) - 1)
    if how == "cut":
        damaged = data[:start]
    elif how == "zeros":
        damaged = data[:start] + bytes(length) + data[start + length :]
    else:
        damaged = _noise_over(data, start, min(len(data), start + length))

    def first_frame(quick: bool) -> None:
        verify._decode_audio(damaged, "damaged", Deadline(None, "damaged"), full=False, quick=quick)

    plain = _verdict(lambda: first_frame(False))
    assert _verdict(lambda: first_frame(True)) == plain  # the quick open alone, no second try
    assert _verdict(lambda: verify.check_audio_decodes(damaged, "damaged")) == plain
