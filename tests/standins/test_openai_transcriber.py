"""`OpenAITranscriber` against a real HTTP server on 127.0.0.1, through the official openai SDK."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

import mediablocks as mb
from mediablocks.standins import MemoryStandInCache, OpenAITranscriber
from tests.conftest import TESTDATA
from tests.standins.stt_server import SpeechServer, speech_server, wav_seconds

openai = pytest.importorskip("openai")
pytest.importorskip("av")


@pytest.fixture
def server() -> Iterator[SpeechServer]:
    with speech_server() as running:
        yield running


def _client(server: SpeechServer) -> object:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0)


def test_audio_the_endpoint_takes_goes_as_it_is(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "voice-memo.m4a")
    transcript = OpenAITranscriber(_client(server))(block)
    (request,) = server.received
    assert request["data"] == block.read()
    assert request["filename"] == "voice-memo.m4a"
    assert request["fields"]["model"] == "whisper-1"
    assert request["fields"]["response_format"] == "verbose_json"
    assert request["fields"]["timestamp_granularities[]"] == "segment"
    assert transcript.text == "piece 0 whole"
    assert transcript.language == "english"
    assert transcript.usage is not None
    assert transcript.usage.raw["seconds"] == 1


def test_a_format_the_endpoint_refuses_becomes_16khz_wav(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "sample.amr")
    OpenAITranscriber(_client(server))(block)
    (request,) = server.received
    assert request["filename"] == "sample.wav"
    assert request["content_type"] == "audio/wav"
    assert mb.detect_mime(request["data"]) == "audio/wav"
    seconds = wav_seconds(request["data"])
    assert seconds is not None
    assert 0.4 < seconds < 0.6


def test_audio_over_the_size_limit_is_split_with_overlap(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")  # 1.66 s, 53 KB
    limit = 44 + 32_000  # one second of 16 kHz mono WAV
    transcriber = OpenAITranscriber(_client(server), max_bytes=limit, overlap=0.25)
    transcript = transcriber(block)
    sizes = [len(request["data"]) for request in server.received]
    assert len(sizes) == 2
    assert max(sizes) <= limit
    names = [r["filename"] for r in server.received]
    assert names == ["pcm16-part1.wav", "pcm16-part2.wav"]
    # pieces at 0 and 0.75 s; each keeps the segments whose middle is in its half of the overlap
    assert [(s.start, s.text) for s in transcript.segments] == [(0.0, "p0s0"), (0.75, "p1s0")]
    assert transcript.segments[-1].end == pytest.approx(1.6566875)
    assert transcript.duration == pytest.approx(1.6566875)
    assert transcript.usage is not None
    assert transcript.usage.raw["seconds"] == 2


def test_a_text_only_model_asks_for_json(server: SpeechServer) -> None:
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    transcript = OpenAITranscriber(_client(server), model="gpt-4o-mini-transcribe", language="en")(
        block
    )
    (request,) = server.received
    assert request["fields"]["response_format"] == "json"
    assert request["fields"]["language"] == "en"
    assert "timestamp_granularities[]" not in request["fields"]
    assert transcript.segments == ()
    assert transcript.usage is not None
    assert (transcript.usage.input_tokens, transcript.usage.output_tokens) == (50, 7)


def test_async_client(server: SpeechServer) -> None:
    client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    result = OpenAITranscriber(client)(block)
    assert asyncio.iscoroutine(result)
    transcript = asyncio.run(result)
    assert transcript.text == "p0s0 p0s1"


def test_in_prepare_for_claude(server: SpeechServer) -> None:
    history = [
        mb.UserMessage(content=[mb.AudioBlock.from_path(TESTDATA / "audio" / "voice-note.webm")])
    ]
    transcriber = OpenAITranscriber(_client(server))
    cache = MemoryStandInCache()
    prepared, report = mb.prepare_with_report(
        history, "anthropic", transcriber=transcriber, stand_in_cache=cache
    )
    (text,) = prepared[0].content
    assert isinstance(text, mb.TextBlock)
    assert text.text == "[audio voice-note.webm 0:00\u20130:05, transcript] piece 0 whole"
    assert report.stand_in_usage is not None
    assert report.stand_in_usage.raw["seconds"] == 1
    mb.prepare(
        mb.load_messages(mb.dump_messages(history), allow_paths=[TESTDATA]),
        "anthropic",
        transcriber=transcriber,
        stand_in_cache=cache,
    )
    assert len(server.received) == 1


def test_endpoint_failure_is_a_stand_in_error(server: SpeechServer) -> None:
    server.fail = True
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    with pytest.raises(mb.StandInError, match=r"pcm16.wav.*whisper-1 failed: InternalServerError"):
        OpenAITranscriber(_client(server))(block)


def test_cache_key_names_endpoint_and_model(server: SpeechServer) -> None:
    one = OpenAITranscriber(_client(server), model="whisper-1").cache_key
    two = OpenAITranscriber(_client(server), model="whisper-large-v3-turbo").cache_key
    assert server.url in one
    assert "whisper-1" in one
    assert one != two


def test_a_client_made_from_the_environment_keeps_the_cache_key(
    server: SpeechServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a client one is made from the environment on first use; the cache key must not
    change then (it named the new client's URL after the first call, so a history prepared again
    missed every transcript the first call cached)."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    transcriber = OpenAITranscriber()
    before = transcriber.cache_key
    block = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    first = transcriber(block)
    assert isinstance(first, mb.Transcript)
    assert first.segments  # the local server answered the client made from the environment
    assert transcriber.client() is transcriber.client()  # made once
    assert transcriber.cache_key == before
    cache = MemoryStandInCache()
    prepared = mb.prepare(
        [mb.UserMessage(content=[block])],
        "anthropic",
        transcriber=transcriber,
        stand_in_cache=cache,
    )
    calls = len(server.received)
    again = mb.prepare(
        [mb.UserMessage(content=[block])],
        "anthropic",
        transcriber=transcriber,
        stand_in_cache=cache,
    )
    assert len(server.received) == calls  # the second prepare found the cached transcript
    assert again[0].content == prepared[0].content
