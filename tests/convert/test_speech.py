"""16 kHz mono WAV pieces for transcription endpoints (`mediablocks.convert.speech`) and the
transcripts of overlapping pieces put back on one time line (`mediablocks.standins._pieces`)."""

from __future__ import annotations

import io
import math
import wave

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.convert.speech import SPEECH_RATE, _Cutter, audio_seconds, speech_pieces
from mediablocks.standins._pieces import Piece, merge
from tests.conftest import TESTDATA

pytest.importorskip("av")


def _frames(wav: bytes) -> int:
    with wave.open(io.BytesIO(wav)) as reader:
        assert (reader.getframerate(), reader.getnchannels()) == (SPEECH_RATE, 1)
        return reader.getnframes()


@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(min_value=1, max_value=SPEECH_RATE * 12),
    piece=st.floats(min_value=0.5, max_value=5.0),
    overlap_share=st.floats(min_value=0.0, max_value=0.45),
    chunk=st.integers(min_value=1, max_value=9000),
)
def test_pieces_cover_everything_and_overlap_as_asked(
    total: int, piece: float, overlap_share: float, chunk: int
) -> None:
    overlap = piece * overlap_share
    cutter = _Cutter(piece, overlap)
    pcm = bytes(range(256)) * (total * 2 // 256 + 1)
    pcm = pcm[: total * 2]
    for offset in range(0, len(pcm), chunk * 2):
        cutter.feed(pcm[offset : offset + chunk * 2])
    pieces = cutter.finish()
    length, step = int(piece * SPEECH_RATE), int(piece * SPEECH_RATE) - int(overlap * SPEECH_RATE)
    starts = [round(p.start * SPEECH_RATE) for p in pieces]
    assert starts == [i * step for i in range(len(pieces))]
    for p, start in zip(pieces, starts, strict=True):
        frames = _frames(p.data)
        assert frames <= length
        with wave.open(io.BytesIO(p.data)) as reader:
            assert reader.readframes(frames) == pcm[start * 2 : (start + frames) * 2]
    last = pieces[-1]
    assert round((last.start + last.duration) * SPEECH_RATE) == total
    assert len(cutter.buffer) <= (length + chunk) * 2  # never more than a piece held


def test_a_real_file_in_overlapping_pieces() -> None:
    data = (TESTDATA / "audio" / "voice-memo.m4a").read_bytes()
    result = speech_pieces(data, what="memo", piece_seconds=2.0, overlap=0.5)
    assert [p.start for p in result.pieces] == [0.0, 1.5, 3.0, 4.5]
    assert result.seconds == pytest.approx(5.0155, abs=0.01)
    assert audio_seconds(data, what="memo") == pytest.approx(result.seconds, abs=0.02)


@pytest.mark.parametrize(("piece", "overlap"), [(0.0, 0.0), (2.0, 1.0), (1.0, -1.0)])
def test_impossible_cuts_are_refused(piece: float, overlap: float) -> None:
    with pytest.raises(mb.DoesNotFitError):
        speech_pieces(b"", what="x", piece_seconds=piece, overlap=overlap)


def test_bytes_with_no_audio_are_a_decode_error() -> None:
    with pytest.raises(mb.DecodeError):
        speech_pieces((TESTDATA / "image" / "rgb.png").read_bytes(), what="png")
    with pytest.raises(mb.DecodeError):
        audio_seconds((TESTDATA / "video" / "elementary.m1v").read_bytes(), what="m1v")


@settings(max_examples=100, deadline=None)
@given(
    seconds=st.integers(min_value=3, max_value=40),
    piece=st.integers(min_value=4, max_value=10),
    overlap=st.integers(min_value=1, max_value=3),
)
def test_merged_segments_say_each_second_once(seconds: int, piece: int, overlap: int) -> None:
    """Pieces overlapping by whole seconds, each heard as one segment per second: the merged
    transcript has every second of the audio exactly once, in order."""
    step = piece - overlap
    answers = []
    start = 0
    while True:
        length = min(piece, seconds - start)
        segments = [
            mb.TranscriptSegment(start=float(s), end=float(s + 1), text=f"second {start + s}")
            for s in range(length)
        ]
        answers.append(
            (
                Piece(b"", "audio/wav", "p.wav", float(start), float(length)),
                mb.Transcript(segments=segments),
            )
        )
        if start + piece >= seconds:
            break
        start += step
    merged = merge(answers, "m")
    assert [s.text for s in merged.segments] == [f"second {i}" for i in range(seconds)]
    assert merged.duration == seconds
    assert all(math.isclose(s.end - s.start, 1.0) for s in merged.segments)
