"""`prepare(transcriber=..., describer=...)`: text stands in for media the provider takes in no
form, timestamped, cached by content hash, reported with its usage."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.providers.registry import PROVIDERS, limits_for
from mediablocks.standins import (
    Description,
    DirectoryStandInCache,
    MemoryStandInCache,
    Transcript,
    TranscriptSegment,
)
from tests.conftest import TESTDATA

pytest.importorskip("av")

NO_AUDIO = [name for name in PROVIDERS if not limits_for(name).audio_types]
AUDIO_FILES = sorted((TESTDATA / "audio").iterdir())
SPEECH_VIDEOS = [TESTDATA / "video" / "phone-h264-aac.mp4", TESTDATA / "video" / "hevc-aac.mov"]
SPAN = re.compile(r"\d+:\d\d\u2013\d+:\d\d, transcript\] ")


class Counting:
    """A transcriber that counts its calls and answers with a fixed sentence."""

    def __init__(self, answer: Any = "reminder to buy milk") -> None:
        self.calls: list[mb.AudioBlock] = []
        self.answer = answer

    def __call__(self, block: mb.AudioBlock) -> Any:
        assert isinstance(block, mb.AudioBlock)
        self.calls.append(block)
        return self.answer


def _texts(messages: list[mb.Message]) -> list[str]:
    return [b.text for m in messages for b in m.content if isinstance(b, mb.TextBlock)]


def _user(path: Path) -> list[mb.Message]:
    return [mb.UserMessage(content=[mb.TextBlock(text="listen"), mb.media_block(path)])]


def test_providers_without_audio_exist() -> None:
    assert {"anthropic", "openai-responses", "ollama"} <= set(NO_AUDIO)


@pytest.mark.parametrize("path", AUDIO_FILES + SPEECH_VIDEOS, ids=lambda p: p.name)
def test_every_audio_reaches_every_provider_without_audio(path: Path) -> None:
    history = _user(path)
    saved = mb.dump_messages(history)
    transcriber = Counting()
    cache = MemoryStandInCache()
    for provider in NO_AUDIO:
        if not limits_for(provider).image_types and path.parent.name == "video":
            continue  # a text-only provider: covered by test_text_only_provider_gets_transcript
        prepared, report = mb.prepare_with_report(
            history, provider, transcriber=transcriber, stand_in_cache=cache, max_frames=3
        )
        said = [text for text in _texts(prepared) if "reminder to buy milk" in text]
        assert said, (provider, _texts(prepared))
        assert all(SPAN.search(text) for text in said), said
        assert not any(isinstance(b, mb.AudioBlock) for m in prepared for b in m.content)
        assert report.transcribed
        # a second prepare of the saved history: every answer from the cache
        again, report = mb.prepare_with_report(
            mb.load_messages(saved, allow_paths=[TESTDATA]),
            provider,
            transcriber=transcriber,
            stand_in_cache=cache,
        )
        assert report.stand_in_calls == 0
        assert report.stand_in_cache_hits == 1
        assert [t for t in _texts(again) if "milk" in t] == said or path.suffix != ".m4a"
    assert len(transcriber.calls) == 1


def test_the_default_cache_spans_prepare_calls() -> None:
    calls: list[str] = []

    def only_here(block: mb.AudioBlock) -> str:
        calls.append(block.describe())
        return "default cache"

    history = _user(TESTDATA / "audio" / "speech.opus")
    mb.prepare(history, "anthropic", transcriber=only_here)
    loaded = mb.load_messages(mb.dump_messages(history), allow_paths=[TESTDATA])
    again = mb.prepare(loaded, "anthropic", transcriber=only_here)
    assert len(calls) == 1
    assert _texts(again)[1].endswith("transcript] default cache")


def test_a_cache_key_attribute_names_the_transcriber() -> None:
    first, second = Counting("one"), Counting("two")
    second.cache_key = "counting-two"  # type: ignore[attr-defined]
    history = _user(TESTDATA / "audio" / "pcm16.wav")
    cache = MemoryStandInCache()
    mb.prepare(history, "anthropic", transcriber=first, stand_in_cache=cache)
    prepared = mb.prepare(history, "anthropic", transcriber=second, stand_in_cache=cache)
    assert _texts(prepared)[1].endswith("transcript] two")


def test_a_different_transcriber_is_not_answered_from_anothers_cache() -> None:
    first, second = Counting("first"), Counting("second")
    history = _user(TESTDATA / "audio" / "pcm16.wav")
    cache = MemoryStandInCache()

    def other(block: mb.AudioBlock) -> str:
        return second(block)  # type: ignore[no-any-return]

    assert (
        "first"
        in _texts(mb.prepare(history, "anthropic", transcriber=first, stand_in_cache=cache))[-1]
    )
    assert (
        "second"
        in _texts(mb.prepare(history, "anthropic", transcriber=other, stand_in_cache=cache))[-1]
    )
    assert len(first.calls) == len(second.calls) == 1


def test_text_label_names_the_file_and_its_span() -> None:
    prepared = mb.prepare(
        _user(TESTDATA / "audio" / "voice-memo.m4a"),
        "anthropic",
        transcriber=Counting("Reminder: buy milk."),
        stand_in_cache=MemoryStandInCache(),
    )
    assert _texts(prepared) == [
        "listen",
        "[audio voice-memo.m4a 0:00\u20130:05, transcript] Reminder: buy milk.",
    ]


def test_timed_segments_split_at_the_audio_chunk_boundaries() -> None:
    segments = [
        TranscriptSegment(start=0.0, end=1.5, text="Reminder:"),
        TranscriptSegment(start=1.6, end=2.9, text="buy milk,"),
        TranscriptSegment(start=3.1, end=4.9, text="call the bank."),
    ]
    transcriber = Counting(Transcript(segments=segments))
    prepared = mb.prepare(
        _user(TESTDATA / "audio" / "voice-memo.m4a"),
        "anthropic",
        transcriber=transcriber,
        max_audio_seconds=2.0,
        stand_in_cache=MemoryStandInCache(),
    )
    assert _texts(prepared)[1:] == [
        "[audio voice-memo.m4a 0:00\u20130:02, transcript] Reminder: buy milk,",
        "[audio voice-memo.m4a 0:02\u20130:04, transcript] call the bank.",
    ]


def test_video_frames_get_the_speech_between_them_by_time() -> None:
    segments = [
        TranscriptSegment(start=0.1, end=2.0, text="Here is the view"),
        TranscriptSegment(start=3.9, end=5.5, text="and the street below."),
    ]
    prepared, report = mb.prepare_with_report(
        _user(TESTDATA / "video" / "phone-h264-aac.mp4"),
        "anthropic",
        transcriber=Counting(Transcript(segments=segments)),
        max_frames=4,
        stand_in_cache=MemoryStandInCache(),
    )
    content = prepared[0].content[1:]
    texts = [b.text if isinstance(b, mb.TextBlock) else "IMAGE" for b in content]
    assert texts[0] == "[video phone-h264-aac.mp4 0:00\u20130:02, transcript] Here is the view"
    assert (
        texts.index("[video phone-h264-aac.mp4 0:04\u20130:06, transcript] and the street below.")
        == 7
    )
    frame_at = [t for t in texts if "frame" in t]
    assert frame_at[2].endswith("at 0:03.8]")
    assert frame_at[3].endswith("at 0:05.3]")
    assert texts.count("IMAGE") == 4
    kinds = [c.kind for c in report.blocks[0].changes]
    assert kinds == ["frames", "transcribed"]


def test_the_transcriber_hears_the_video_track_as_audio() -> None:
    transcriber = Counting("words")
    mb.prepare(
        _user(TESTDATA / "video" / "hevc-aac.mov"),
        "openai-responses",
        transcriber=transcriber,
        max_frames=2,
        stand_in_cache=MemoryStandInCache(),
    )
    (heard,) = transcriber.calls
    assert heard.mime_type == "audio/mpeg"
    assert heard.filename == "hevc-aac-audio.mp3"
    info = mb.probe(heard)
    assert info.duration is not None
    assert 1.5 < info.duration < 2.5


def test_text_only_provider_gets_transcript_and_description() -> None:
    described: list[mb.MediaBlock] = []

    def describer(block: mb.MediaBlock) -> Description:
        described.append(block)
        return Description(text="a street seen from a window", model="vision-1")

    prepared, report = mb.prepare_with_report(
        _user(TESTDATA / "video" / "phone-h264-aac.mp4"),
        "deepseek",
        transcriber=Counting("Here is the view"),
        describer=describer,
        stand_in_cache=MemoryStandInCache(),
    )
    assert _texts(prepared)[1:] == [
        "[video phone-h264-aac.mp4 0:00\u20130:06, transcript] Here is the view",
        "[video phone-h264-aac.mp4 video/mp4 0:00\u20130:06, description] a street seen from "
        "a window",
    ]
    assert [type(b) for b in described] == [mb.VideoBlock]
    assert len(report.described) == 1


def test_describer_is_last_for_images_a_text_only_model_cannot_see() -> None:
    image = mb.ImageBlock.from_path(TESTDATA / "image" / "rgb.png")
    prepared = mb.prepare(
        [mb.UserMessage(content=[image])],
        "deepseek",
        describer=lambda block: f"{block.mime_type} picture",
        stand_in_cache=MemoryStandInCache(),
    )
    assert _texts(prepared) == ["[image rgb.png image/png, description] image/png picture"]


def test_native_and_conversion_come_before_stand_ins() -> None:
    transcriber = Counting()
    describer_calls: list[Any] = []
    history = _user(TESTDATA / "audio" / "sample.flac")
    prepared = mb.prepare(
        history,
        "openai-chat",
        model="gpt-4o-audio-preview",  # a model that takes audio (without one, gpt-4.1 is assumed)
        transcriber=transcriber,
        describer=describer_calls.append,
        stand_in_cache=MemoryStandInCache(),
    )
    assert transcriber.calls == []
    assert describer_calls == []
    assert isinstance(prepared[0].content[1], mb.AudioBlock)  # converted to WAV, sent as audio


def test_async_transcriber_is_awaited() -> None:
    async def transcriber(block: mb.AudioBlock) -> Transcript:
        await asyncio.sleep(0)
        return Transcript(text="async words", duration=5.0)

    prepared = mb.prepare(
        _user(TESTDATA / "audio" / "voice-note.webm"),
        "anthropic",
        transcriber=transcriber,
        stand_in_cache=MemoryStandInCache(),
    )
    assert _texts(prepared)[1].endswith("transcript] async words")


def test_async_transcriber_inside_a_running_loop() -> None:
    async def transcriber(block: mb.AudioBlock) -> str:
        return "from a loop"

    async def main() -> list[mb.Message]:
        return mb.prepare(
            _user(TESTDATA / "audio" / "voice-note.webm"),
            "anthropic",
            transcriber=transcriber,
            stand_in_cache=MemoryStandInCache(),
        )

    assert _texts(asyncio.run(main()))[1].endswith("transcript] from a loop")


def test_usage_is_reported_and_added_up() -> None:
    usage = mb.Usage(input_tokens=10, output_tokens=4, raw={"seconds": 5})
    transcriber = Counting(Transcript(text="paid words", usage=usage, model="stt-1"))
    cache = MemoryStandInCache()
    history = _user(TESTDATA / "audio" / "voice-memo.m4a") + _user(TESTDATA / "audio" / "pcm16.wav")
    _, report = mb.prepare_with_report(
        history, "anthropic", transcriber=transcriber, stand_in_cache=cache
    )
    assert report.stand_in_calls == 2
    total = report.stand_in_usage
    assert total is not None
    assert total.input_tokens == 20
    assert total.raw["seconds"] == 10
    (change,) = report.blocks[0].changes
    assert change.kind == "transcribed"
    assert change.usage == usage
    assert not change.cached
    assert "by stt-1" in change.detail
    assert "5 s billed" in change.detail
    _, again = mb.prepare_with_report(
        history, "anthropic", transcriber=transcriber, stand_in_cache=cache
    )
    assert again.stand_in_usage is None
    assert again.stand_in_cache_hits == 2


def test_directory_cache_serves_a_new_process(tmp_path: Path) -> None:
    history = _user(TESTDATA / "audio" / "speech.opus")
    first = Counting("kept on disk")
    mb.prepare(
        history, "anthropic", transcriber=first, stand_in_cache=DirectoryStandInCache(tmp_path)
    )
    second = Counting("never asked")
    prepared = mb.prepare(
        history, "anthropic", transcriber=second, stand_in_cache=DirectoryStandInCache(tmp_path)
    )
    assert second.calls == [] or first.calls == []  # same class: same stand-in name
    assert "kept on disk" in _texts(prepared)[1]
    assert len(list(tmp_path.glob("*.json"))) == 1


def test_a_damaged_cache_entry_is_a_miss(tmp_path: Path) -> None:
    history = _user(TESTDATA / "audio" / "speech.opus")
    cache = DirectoryStandInCache(tmp_path)
    mb.prepare(history, "anthropic", transcriber=Counting("one"), stand_in_cache=cache)
    (entry,) = tmp_path.glob("*.json")
    entry.write_text('{"segments": [{"start": 5, "end": 1, "text": "x"}]}')
    transcriber = Counting("two")
    prepared = mb.prepare(history, "anthropic", transcriber=transcriber, stand_in_cache=cache)
    assert len(transcriber.calls) == 1
    assert "two" in _texts(prepared)[1]


def test_failing_transcriber_is_a_stand_in_error_naming_the_block() -> None:
    def broken(block: mb.AudioBlock) -> str:
        raise ConnectionError("endpoint down")

    with pytest.raises(mb.StandInError, match=r"voice-note.webm.*ConnectionError: endpoint down"):
        mb.prepare(
            _user(TESTDATA / "audio" / "voice-note.webm"),
            "anthropic",
            transcriber=broken,
            stand_in_cache=MemoryStandInCache(),
        )


@pytest.mark.parametrize("answer", [42, None, ["a"], {"segments": "x"}])
def test_a_transcriber_answering_with_no_text_is_refused(answer: Any) -> None:
    with pytest.raises(mb.StandInError, match="transcri"):
        mb.prepare(
            _user(TESTDATA / "audio" / "voice-note.webm"),
            "anthropic",
            transcriber=Counting(answer),
            stand_in_cache=MemoryStandInCache(),
        )


def test_broken_media_never_reaches_a_stand_in() -> None:
    transcriber = Counting()
    broken = mb.AudioBlock.from_bytes((TESTDATA / "bad" / "truncated.flac").read_bytes())
    with pytest.raises(mb.DoesNotFitError):
        mb.prepare(
            [mb.UserMessage(content=[broken])],
            "openai-chat",
            transcriber=transcriber,
            stand_in_cache=MemoryStandInCache(),
        )
    assert transcriber.calls == []


def test_unsupported_note_tells_the_model_what_was_left_out() -> None:
    pdf = mb.FileBlock.from_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", filename="report.pdf")
    prepared, report = mb.prepare_with_report(
        [mb.UserMessage(content=[mb.TextBlock(text="read"), pdf])],
        "ollama",
        documents="raise",
        unsupported="note",
    )
    assert _texts(prepared) == [
        "read",
        "[file report.pdf application/pdf: not readable by this model]",
    ]
    assert len(report.noted) == 1
    assert report.dropped == []


def test_not_a_callable_is_an_option_error() -> None:
    with pytest.raises(mb.InvalidOptionError, match="transcriber"):
        mb.prepare([], "anthropic", transcriber="whisper")  # type: ignore[arg-type]


def test_a_url_is_not_fetched_for_a_stand_in_unless_prepare_may_read_urls() -> None:
    transcriber = Counting()
    remote = mb.AudioBlock.from_url("https://example.com/voice.m4a")
    with pytest.raises(mb.DoesNotFitError, match="takes no audio"):
        mb.prepare(
            [mb.UserMessage(content=[remote])],
            "anthropic",
            transcriber=transcriber,
            stand_in_cache=MemoryStandInCache(),
        )
    assert transcriber.calls == []


def test_a_stand_in_inside_a_tool_result_stays_there() -> None:
    audio = mb.AudioBlock.from_path(TESTDATA / "audio" / "pcm16.wav")
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="record", args={})]),
        mb.ToolMessage(content=[mb.ToolResultBlock(tool_call_id="c1", content=[audio])]),
    ]
    prepared = mb.prepare(
        history, "anthropic", transcriber=Counting("hello"), stand_in_cache=MemoryStandInCache()
    )
    (result,) = prepared[1].content
    assert isinstance(result, mb.ToolResultBlock)
    (text,) = result.content
    assert isinstance(text, mb.TextBlock)
    assert text.text == "[audio pcm16.wav 0:00\u20130:02, transcript] hello"
