"""`GeminiTranscriber` against a real HTTP server on 127.0.0.1, through google-genai."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mediablocks as mb
from mediablocks.standins import GeminiTranscriber
from tests.conftest import TESTDATA
from tests.standins.stt_server import SpeechServer, speech_server

genai = pytest.importorskip("google.genai")
pytest.importorskip("av")


@pytest.fixture
def server() -> Iterator[SpeechServer]:
    with speech_server() as running:
        yield running


def _client(server: SpeechServer) -> object:
    from google.genai import types

    return genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=server.url))


def test_audio_gemini_reads_goes_inline_with_a_json_schema(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    transcript = GeminiTranscriber(_client(server))(block)
    (request,) = server.received
    assert request["data"] == block.read()
    assert request["content_type"] == "audio/wav"
    assert request["fields"]["path"].endswith("/models/gemini-2.5-flash:generateContent")
    assert request["fields"]["config"]["responseMimeType"] == "application/json"
    assert "Transcribe" in request["fields"]["prompt"]
    assert [(s.start, s.end, s.text) for s in transcript.segments] == [
        (0.0, 1.0, "p0s0"),
        (1.0, pytest.approx(1.6566875), "p0s1"),
    ]
    assert transcript.usage is not None
    assert transcript.usage.input_tokens == 32


def test_webm_opus_becomes_wav_for_gemini(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "voice-note.webm")
    transcript = GeminiTranscriber(_client(server))(block)
    (request,) = server.received
    assert request["content_type"] == "audio/wav"
    assert transcript.text.startswith("p0s0 p0s1")


def test_long_audio_is_split_under_the_request_limit(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "voice-memo.m4a")
    transcript = GeminiTranscriber(_client(server), max_bytes=44 + 3 * 32_000, overlap=1.0)(block)
    # 3 s pieces overlapping by 1 s: at 0, 2 and 4 s
    assert len(server.received) == 3
    # each piece keeps the segments whose middle is in its half of an overlap (cuts: 2.5, 4.5 s)
    texts = [s.text for s in transcript.segments]
    assert texts == ["p0s0", "p0s1", "p1s0", "p1s1", "p2s0", "p2s1"]
    assert [s.start for s in transcript.segments] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert transcript.duration == pytest.approx(5.0155, abs=0.01)
