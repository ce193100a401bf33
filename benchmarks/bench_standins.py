"""Stand-ins: what a transcript costs against the audio's length, and the cache's hit rate.

1. Speech of 10, 60 and 180 seconds (the espeak-ng speech in ``testdata/`` decoded and repeated)
   goes to Claude through ``mb.prepare(..., transcriber=LocalTranscriber())`` (faster-whisper,
   the bundled tiny.en model, offline). Baseline, measured in the same run: faster-whisper on
   the same 16 kHz samples with the model already loaded, no mediablocks. Printed: CPU and wall
   seconds per audio second (real-time factor), mediablocks' time over the baseline's, and what
   the model then reads: transcript tokens per minute of audio (``mb.estimate_tokens`` for
   Anthropic) against the audio tokens the same minute costs sent as audio to Gemini and to
   OpenAI (their own token rules, ``mb.estimate_tokens``).
2. A chat of ``--turns`` turns, one voice note each, the whole history prepared every turn as
   agents do: transcriber calls, cache hits and the hit rate; then the saved history
   (``dump_messages``/``load_messages``) prepared in a fresh cache from a
   ``DirectoryStandInCache``: calls (0 expected) and the time against the first preparation.

Run by hand: ``python benchmarks/bench_standins.py [--turns 10] [--lengths 10,60,180]``.
"""

from __future__ import annotations

import argparse
import io
import resource
import tempfile
import time
import wave
from pathlib import Path

import mediablocks as mb
from mediablocks.convert.speech import speech_pieces
from mediablocks.standins import LocalTranscriber
from mediablocks.standins.local import _samples

ROOT = Path(__file__).resolve().parent.parent
SPEECH = ["audio/voice-memo.m4a", "audio/voice-note.webm", "audio/pcm16.wav"]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def speech_wav(seconds: float) -> bytes:
    """16 kHz mono WAV of ``seconds``: testdata speech decoded and repeated."""
    pcm = b""
    for name in SPEECH:
        data = (ROOT / "testdata" / name).read_bytes()
        wav = speech_pieces(data, what=name).pieces[0].data
        with wave.open(io.BytesIO(wav)) as reader:
            pcm += reader.readframes(reader.getnframes())
    wanted = int(seconds * 16000) * 2
    out = (pcm * (wanted // len(pcm) + 1))[:wanted]
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(16000)
        writer.writeframes(out)
    return buffer.getvalue()


def cost_of_transcripts(lengths: list[float]) -> None:
    transcriber = LocalTranscriber()
    model = transcriber.whisper()  # loaded once, outside the timings
    print(
        "| audio | baseline CPU s/s | mediablocks CPU s/s | ratio | wall RTF | "
        "transcript tokens/min | Gemini audio tokens/min | OpenAI audio tokens/min |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for seconds in lengths:
        wav = speech_wav(seconds)
        start = _cpu()
        list(model.transcribe(_samples(wav), beam_size=1, vad_filter=False)[0])
        baseline = _cpu() - start
        audio = mb.AudioBlock.from_bytes(wav, filename=f"speech-{seconds:g}s.wav")
        history = [mb.UserMessage(content=["Summarise this.", audio])]
        start, wall = _cpu(), time.perf_counter()
        prepared, report = mb.prepare_with_report(
            history, "anthropic", transcriber=transcriber, stand_in_cache=mb.MemoryStandInCache()
        )
        ours, wall = _cpu() - start, time.perf_counter() - wall
        assert report.stand_in_calls == 1
        text_tokens = mb.estimate_tokens(prepared[0].content[1], "anthropic")
        per_minute = 60 / seconds
        gemini = mb.estimate_tokens(audio, "gemini") * per_minute
        openai = mb.estimate_tokens(audio, "openai-chat", model="gpt-4o-audio-preview") * per_minute
        print(
            f"| {seconds:g} s | {baseline / seconds:.3f} | {ours / seconds:.3f} | "
            f"{ours / baseline:.2f}x | {wall / seconds:.3f} | {text_tokens * per_minute:.0f} | "
            f"{gemini:.0f} | {openai:.0f} |"
        )


def cache_hit_rate(turns: int) -> None:
    calls = 0

    def counting(block: mb.AudioBlock) -> str:
        nonlocal calls
        calls += 1
        return f"note {calls}"

    notes = [
        mb.AudioBlock.from_bytes(speech_wav(3 + turn * 0.25), filename=f"note{turn}.wav")
        for turn in range(turns)
    ]
    history: list[mb.Message] = []
    hits = made = 0
    with tempfile.TemporaryDirectory() as folder:
        cache = mb.DirectoryStandInCache(folder)
        first = time.perf_counter()
        for turn, note in enumerate(notes):
            history.append(mb.UserMessage(content=[f"turn {turn}", note]))
            _, report = mb.prepare_with_report(
                history, "anthropic", transcriber=counting, stand_in_cache=cache
            )
            hits += report.stand_in_cache_hits
            made += report.stand_in_calls
        first = time.perf_counter() - first
        saved = mb.dump_messages(history)
        before = calls
        start = time.perf_counter()
        _, report = mb.prepare_with_report(
            mb.load_messages(saved),
            "anthropic",
            transcriber=counting,
            stand_in_cache=mb.DirectoryStandInCache(folder),
        )
        again = time.perf_counter() - start
    print(
        f"\n{turns} turns, whole history prepared each turn: {made} transcriber calls, "
        f"{hits} cache hits, hit rate {hits / (hits + made):.1%}"
    )
    print(
        f"saved history prepared again (new cache object, same folder): "
        f"{calls - before} calls, {report.stand_in_cache_hits} hits, "
        f"{again * 1000:.0f} ms for {turns} notes ({first * 1000 / turns:.0f} ms per turn before)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--lengths", default="10,60,180")
    arguments = parser.parse_args()
    cost_of_transcripts([float(x) for x in arguments.lengths.split(",")])
    cache_hit_rate(arguments.turns)


if __name__ == "__main__":
    main()
