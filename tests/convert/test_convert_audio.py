"""Audio conversion with PyAV: real recordings become what each provider takes, checked by
decoding the results again."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediablocks import estimate_tokens
from mediablocks.blocks import TextBlock
from mediablocks.convert.audio import AudioTarget, convert_and_check_audio, convert_audio
from mediablocks.errors import DecodeError, DoesNotFitError, InvalidOptionError, MediaBlocksError
from mediablocks.media import AudioBlock
from mediablocks.messages import UserMessage
from mediablocks.mime import detect_mime
from mediablocks.preparing import prepare, prepare_with_report

av = pytest.importorskip("av")

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
MANIFEST = json.loads((TESTDATA / "manifest.json").read_text())
AUDIO_MODEL = "gpt-4o-audio-preview"  # an OpenAI Chat model that takes input_audio
DECODABLE_AUDIO = sorted(
    path
    for path, entry in MANIFEST.items()
    if entry["kind"] == "audio" and entry["mime"] != "audio/midi"
)


def decoded(data: bytes) -> tuple[float, int, int]:
    """(seconds, sample rate, channels) of the first audio stream, by decoding every frame."""
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        rate = stream.codec_context.sample_rate
        return samples / rate, rate, stream.codec_context.channels


def read(path: str) -> bytes:
    return (TESTDATA / path).read_bytes()


@pytest.mark.parametrize("path", DECODABLE_AUDIO)
def test_every_audio_file_becomes_wav_or_mp3_for_openai_chat(path: str) -> None:
    block = AudioBlock.from_path(TESTDATA / path)
    (message,), report = prepare_with_report(
        [UserMessage(content=[block])], "openai-chat", model=AUDIO_MODEL
    )
    (result,) = message.content
    assert isinstance(result, AudioBlock)
    data = result.read()
    assert detect_mime(data) in {"audio/wav", "audio/mpeg"}
    source_seconds = decoded(read(path))[0]
    # MP3 encoders pad a frame of priming samples at most (1152 samples).
    assert decoded(data)[0] == pytest.approx(source_seconds, abs=0.08)
    if MANIFEST[path]["mime"] in {"audio/wav", "audio/mpeg"}:
        assert result is block
        assert not report.blocks[0].changed
    else:
        # MP3 inside another container (audio-only FLV) is copied out; the rest is transcoded
        kinds = [change.kind for change in report.blocks[0].changes]
        assert kinds == (["remuxed"] if path == "audio/audio-only.flv" else ["transcoded"])
        assert MANIFEST[path]["mime"] in str(report.blocks[0])


def test_browser_voice_note_becomes_lossless_wav_at_its_rate_for_openai() -> None:
    note = AudioBlock.from_path(TESTDATA / "audio/voice-note.webm")
    prepared = prepare([UserMessage(content=["transcribe", note])], "openai", model=AUDIO_MODEL)
    result = prepared[0].content[1]
    assert isinstance(result, AudioBlock)
    assert result.mime_type == "audio/wav"  # OpenAI takes MP3 and WAV: lossless while small
    assert result.filename == "voice-note.wav"
    seconds, rate, channels = decoded(result.read())
    assert (rate, channels) == (48000, 1)
    assert seconds == pytest.approx(decoded(note.read())[0], abs=0.08)
    assert result.metadata["prepared"]["provider"] == "openai-chat"
    assert estimate_tokens(prepared, "openai", model=AUDIO_MODEL) > 0


def test_flac_first_then_speech_flac_then_speech_mp3_as_the_byte_limit_tightens() -> None:
    memo = read("audio/voice-memo.m4a")
    assert decoded(memo)[1:] == (44100, 1)
    seconds = decoded(memo)[0]
    accepted = frozenset({"audio/flac", "audio/mpeg"})

    def piece(max_bytes: int | None) -> tuple[str, int, int, int]:
        target = AudioTarget(accepted, max_bytes=max_bytes)
        (out,) = convert_audio(memo, target, mime_type="m", what="m").pieces
        assert decoded(out.data)[0] == pytest.approx(seconds, abs=0.08)
        rate, channels = decoded(out.data)[1:]
        return detect_mime(out.data) or "", rate, channels, len(out.data)

    full = piece(None)
    assert full[:3] == ("audio/flac", 44100, 1)
    speech_flac = piece(full[3] - 1)
    assert speech_flac[:3] == ("audio/flac", 16000, 1)
    assert speech_flac[3] < full[3]
    speech_mp3 = piece(speech_flac[3] - 1)
    assert speech_mp3[:3] == ("audio/mpeg", 16000, 1)
    assert speech_mp3[3] < speech_flac[3] // 4


def test_mp3_only_providers_get_speech_settings() -> None:
    memo = read("audio/voice-memo.m4a")
    (out,) = convert_audio(
        memo, AudioTarget(frozenset({"audio/mpeg"})), mime_type="m", what="m"
    ).pieces
    assert detect_mime(out.data) == "audio/mpeg"
    assert decoded(out.data)[1:] == (16000, 1)


@pytest.mark.parametrize(
    ("path", "accepted", "mime", "codec"),
    [
        ("audio/voice-memo.m4a", {"audio/aac", "audio/flac"}, "audio/aac", "aac"),
        ("video/phone-h264-aac.mp4", {"audio/aac", "audio/wav"}, "audio/aac", "aac"),
        ("audio/voice-note.webm", {"audio/opus", "audio/flac"}, "audio/opus", "opus"),
        ("video/mpeg4-mp3.avi", {"audio/mpeg", "audio/wav"}, "audio/mpeg", "mp3"),
        ("video/h264-flac.mkv", {"audio/flac", "audio/wav"}, "audio/flac", "flac"),
        ("audio/sample.mka", {"audio/ogg", "audio/wav"}, "audio/ogg", "vorbis"),
    ],
)
def test_an_accepted_codec_is_stream_copied_not_reencoded(
    path: str, accepted: set[str], mime: str, codec: str
) -> None:
    source = read(path)
    result = convert_audio(source, AudioTarget(frozenset(accepted)), mime_type="x", what="x")
    (out,) = result.pieces
    assert out.mime_type == mime
    assert detect_mime(out.data) == mime
    assert [change.kind for change in result.changes] == ["remuxed"]
    with av.open(io.BytesIO(out.data)) as copied, av.open(io.BytesIO(source)) as original:
        assert copied.streams.audio[0].codec_context.codec.canonical_name == codec
        ours = [bytes(p) for p in copied.demux(copied.streams.audio[0]) if p.size]
        theirs = [bytes(p) for p in original.demux(original.streams.audio[0]) if p.size]
    # The very packets, not a re-encoding (ADTS puts its 7-byte header before each).
    assert len(ours) == len(theirs)
    assert all(
        a.endswith(b) and len(a) - len(b) in (0, 7) for a, b in zip(ours, theirs, strict=True)
    )
    assert decoded(out.data)[0] == pytest.approx(decoded(source)[0], abs=0.03)


def test_gemini_gets_no_ogg_opus_it_does_not_document() -> None:
    result = convert_audio(
        read("audio/voice-note.webm"),
        AudioTarget(frozenset({"audio/ogg", "audio/flac"})),
        mime_type="audio/webm",
        what="x",
    )
    assert [c.kind for c in result.changes] == ["transcoded"]
    assert result.pieces[0].mime_type == "audio/flac"


def test_a_copy_too_long_for_one_block_is_split_by_reencoding() -> None:
    memo = read("audio/voice-memo.m4a")
    target = AudioTarget(frozenset({"audio/aac", "audio/flac"}), max_seconds=2.0)
    result = convert_audio(memo, target, mime_type="audio/mp4", what="x")
    assert [c.kind for c in result.changes] == ["transcoded", "split"]
    assert all(detect_mime(p.data) == "audio/flac" for p in result.pieces)
    assert all(decoded(p.data)[0] <= 2.03 for p in result.pieces)


def test_wav_is_written_when_that_is_all_the_provider_takes() -> None:
    result = convert_audio(
        read("audio/sample.flac"), AudioTarget(frozenset({"audio/wav"})), mime_type="f", what="f"
    )
    (piece,) = result.pieces
    assert detect_mime(piece.data) == "audio/wav"
    assert decoded(piece.data) == (pytest.approx(0.5, abs=0.001), 16000, 1)


def test_long_audio_is_split_into_ordered_chunks_with_offsets() -> None:
    note = AudioBlock.from_path(TESTDATA / "audio/voice-note.webm")
    total = decoded(note.read())[0]
    (message,), report = prepare_with_report(
        [UserMessage(content=["before", note, "after"])],
        "openai",
        model=AUDIO_MODEL,
        max_audio_seconds=2.0,
    )
    content = message.content
    assert getattr(content[0], "text", None) == "before"
    assert getattr(content[-1], "text", None) == "after"
    middle = content[1:-1]
    labels, chunks = middle[0::2], middle[1::2]
    assert all(isinstance(label, TextBlock) for label in labels)
    assert all(isinstance(chunk, AudioBlock) for chunk in chunks)
    assert len(chunks) == 3  # 4.5 s in chunks of at most 2 s
    start = 0.0
    for number, (label, chunk) in enumerate(zip(labels, chunks, strict=True), 1):
        assert isinstance(label, TextBlock)
        assert isinstance(chunk, AudioBlock)
        seconds = decoded(chunk.read())[0]
        assert seconds <= 2.0 + 0.03
        minutes, rest = divmod(start, 60)
        assert f"part {number}/3, {int(minutes)}:{rest:04.1f} to " in label.text
        start += seconds
    assert start == pytest.approx(total, abs=0.1)
    entry = report.blocks[0]
    assert [change.kind for change in entry.changes] == ["transcoded", "split"]
    assert len(entry.replaced_by) == 6


def test_splitting_can_be_forbidden() -> None:
    note = AudioBlock.from_path(TESTDATA / "audio/voice-note.webm")
    with pytest.raises(DoesNotFitError, match="allow_split=False") as caught:
        prepare(
            [UserMessage(content=[note])],
            "openai",
            model=AUDIO_MODEL,
            max_audio_seconds=2.0,
            allow_split=False,
        )
    assert "voice-note.webm" in caught.value.problems[0]


def test_raise_strategy_and_providers_without_audio_refuse() -> None:
    note = AudioBlock.from_path(TESTDATA / "audio/voice-note.webm")
    with pytest.raises(DoesNotFitError, match="takes audio as audio/mpeg, audio/wav"):
        prepare([UserMessage(content=[note])], "openai", model=AUDIO_MODEL, audio="raise")
    for provider in ("anthropic", "openai-responses", "ollama"):
        with pytest.raises(DoesNotFitError, match="takes no audio input"):
            prepare([UserMessage(content=[note])], provider)
    with pytest.raises(InvalidOptionError):
        prepare([UserMessage(content=[note])], "gemini", audio="transcode")  # type: ignore[arg-type]


def test_each_provider_gets_a_type_it_lists() -> None:
    wma = AudioBlock.from_path(TESTDATA / "audio/wmav2.wma")
    for provider in ("gemini", "bedrock", "mistral"):
        (message,) = prepare([UserMessage(content=[wma])], provider)
        (result,) = message.content
        assert isinstance(result, AudioBlock)
        assert result.mime_type == "audio/flac", provider  # lossless where size allows
    webm = AudioBlock.from_path(TESTDATA / "audio/voice-note.webm")
    (message,) = prepare([UserMessage(content=[webm])], "bedrock")  # Bedrock takes WebM
    assert message.content[0] is webm


@pytest.mark.parametrize(
    "path", ["bad/fake-mp3-sync.mp3", "bad/random.bin", "bad/truncated-ftyp-only.mp4"]
)
def test_undecodable_input_is_a_decode_error_naming_it(path: str) -> None:
    with pytest.raises(DecodeError, match="the-block"):
        convert_audio(
            read(path), AudioTarget(frozenset({"audio/mpeg"})), mime_type="x", what="the-block"
        )


def test_a_truncated_recording_in_prepare_names_the_block() -> None:
    head = read("audio/voice-memo.m4a")[:200]
    block = AudioBlock.from_bytes(head, "audio/mp4", filename="cut.m4a")
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=[block])], "openai", model=AUDIO_MODEL)
    assert "AudioBlock(200 bytes in memory, audio/mp4)" in caught.value.problems[0]


SEEDS = [read("audio/voice-note.webm"), read("audio/sample.m4a"), read("audio/sample.flac")]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(SEEDS),
    cut=st.integers(min_value=0, max_value=20_000),
    flips=st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 255)), max_size=8),
)
def test_mutated_audio_raises_only_library_errors(
    seed: bytes, cut: int, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(seed[: max(cut, 1)])
    for offset, value in flips:
        if data:
            data[offset % len(data)] = value
    target = AudioTarget(frozenset({"audio/wav", "audio/mpeg"}), max_total_seconds=30)
    try:
        result: Any = convert_audio(bytes(data), target, mime_type="x", what="mutant")
    except MediaBlocksError:
        return
    assert all(detect_mime(piece.data) in {"audio/mpeg", "audio/wav"} for piece in result.pieces)


def _click_wav(rate: int, seconds: float, at: int) -> bytes:
    """A WAV of silence with one click at sample ``at`` (written with PyAV's PCM encoder)."""
    import numpy as np

    samples = np.zeros(int(rate * seconds), np.int16)
    samples[at] = 30000
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="wav") as output:
        stream = output.add_stream("pcm_s16le", rate=rate)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), "s16", "mono")
        frame.sample_rate = rate
        output.mux(stream.encode(frame))
        output.mux(stream.encode(None))
    return buffer.getvalue()


@pytest.mark.parametrize("lame", ["lameenc", "pyav"])
def test_speech_mp3_is_sample_exact_and_aligned(lame: str, monkeypatch: Any) -> None:
    import numpy as np

    from mediablocks.convert import audio

    if lame == "lameenc":
        pytest.importorskip("lameenc")
    else:
        monkeypatch.setattr(audio, "lameenc_module", lambda: None)
    source = _click_wav(48000, 2.0, 24000)  # the click at 0.5 s is sample 8000 at 16 kHz
    (out,) = convert_audio(
        source, AudioTarget(frozenset({"audio/mpeg"})), mime_type="audio/wav", what="w"
    ).pieces
    with av.open(io.BytesIO(out.data)) as container:
        decoded_samples = np.concatenate(
            [frame.to_ndarray().ravel() for frame in container.decode(audio=0)]
        )
    # LAME's priming (576 + 529 samples) and end padding are cut by the decoder: the Info/LAME
    # tag says how many (PyAV's LAME writes it itself; with lameenc mediablocks does).
    assert len(decoded_samples) == 32000
    assert abs(int(np.argmax(np.abs(decoded_samples))) - 8000) <= 2


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), st.integers(0, 10_000))
def test_the_mp3_frame_walk_takes_any_bytes(frames: bytes, samples: int) -> None:
    from mediablocks.convert._mp3 import _frame_length, _info_frame

    tag = _info_frame(frames, samples)
    assert tag == b"" or _frame_length(tag[:4]) == len(tag)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from([read("audio/voice-memo.m4a"), read("audio/voice-note.webm")]),
    cut=st.integers(min_value=0, max_value=30_000),
    flips=st.lists(st.tuples(st.integers(0, 30_000), st.integers(0, 255)), max_size=8),
)
def test_mutated_input_to_the_stream_copy_raises_only_library_errors(
    seed: bytes, cut: int, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(seed[: max(cut, 1)])
    for offset, value in flips:
        if data:
            data[offset % len(data)] = value
    target = AudioTarget(frozenset({"audio/aac", "audio/opus"}), max_total_seconds=30)
    try:  # as `prepare` runs it: a copy its decoders cannot open is refused (issue 30)
        result: Any = convert_and_check_audio(bytes(data), target, mime_type="x", what="mutant")
    except MediaBlocksError:
        return
    (piece,) = result.pieces
    assert detect_mime(piece.data) in {"audio/aac", "audio/opus"}
    assert [change.kind for change in result.changes] == ["remuxed"]


def test_a_recording_cut_after_one_packet_is_not_sent_as_a_one_frame_copy() -> None:
    """One ADTS frame is no file anything recognises as AAC (two frames in a row are): the
    sliver is re-encoded, which finds its one packet does not decode."""
    cut = read("audio/voice-memo.m4a")[:1676]  # the index and one byte of the first packet
    target = AudioTarget(frozenset({"audio/aac", "audio/wav"}))
    with pytest.raises(DecodeError, match=r"^the memo: cannot be decoded"):
        convert_audio(cut, target, mime_type="audio/mp4", what="the memo")
    whole = convert_audio(read("audio/voice-memo.m4a"), target, mime_type="audio/mp4", what="m")
    assert [change.kind for change in whole.changes] == ["remuxed"]
