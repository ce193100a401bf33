"""`prepare`'s last rung: text standing in for media the provider takes in no form.

The ladder is native -> local conversion -> transcript -> description. After every block has
been fitted, a block the provider can take in no form (audio for Claude, a video for a
text-only model) gets a transcript from the caller's ``transcriber`` (audio, and the sound of a
video), else a description from the caller's ``describer``. A video sent as frames to a provider
without audio input gets its speech transcript interleaved with the frames by timestamp.

Texts name their source and time span: ``[audio voice.m4a 0:00-0:42, transcript] ...`` (an en
dash between the times). A transcript with timed segments is split at the chunk boundaries
audio is split at (``max_audio_seconds``, else every `TRANSCRIPT_WINDOW_SECONDS`). Results are
cached by the SHA-256 of the media bytes (`mediablocks.standins.cache`): a saved history
prepared again calls the transcriber 0 times. Each stand-in is reported as a ``transcribed``
or ``described`` change, with the callable's usage and whether the cache answered.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..blocks import ContentBlock, TextBlock
from ..changes import Change
from ..errors import DecodeError, MediaBlocksError
from ..media import AudioBlock, MediaBlock
from ..standins._calls import call_stand_in, stand_in_name
from ..standins.cache import StandInCache
from ..standins.types import (
    Describer,
    Description,
    Transcriber,
    Transcript,
    TranscriptSegment,
    as_description,
    as_transcript,
)
from .slots import _kind, _Slot
from .state import _Preparation, _probe, decode_check

__all__ = [
    "TRANSCRIPT_WINDOW_SECONDS",
    "StandIns",
    "apply_stand_ins",
    "check_stand_in",
    "interleave",
    "span",
    "track_transcript",
    "transcribed_change",
]

TRANSCRIPT_WINDOW_SECONDS = 300.0
"""Without ``max_audio_seconds``, a timed transcript is one text block per 5 minutes."""

_KEY_VERSION = "mediablocks-stand-in/1"
_EN_DASH = "\u2013"


@dataclass
class StandIns:
    """The caller's stand-in callables and cache for one `prepare` call."""

    transcriber: Transcriber | None
    describer: Describer | None
    cache: StandInCache

    def transcript(
        self,
        content: bytes,
        audio: Callable[[], AudioBlock],
        what: str,
        part: str = "",
        complete: Callable[[Transcript], Transcript] | None = None,
    ) -> tuple[Transcript, bool]:
        """The transcript of the audio in ``content`` (cached), and whether the cache had it.
        ``audio`` makes the block to transcribe, only on a miss; ``complete`` fills in what the
        transcriber left out (the length) before it is cached."""
        assert self.transcriber is not None
        key = self._key("transcript", self.transcriber, content, part)
        found = self._cached(key, Transcript)
        if found is not None:
            return found, True
        block = audio()
        who = f"transcriber {stand_in_name(self.transcriber)} on {what}"
        transcript = as_transcript(call_stand_in(self.transcriber, block, who), who)
        if complete is not None:
            transcript = complete(transcript)
        self.cache.put(key, transcript.model_dump_json())
        return transcript, False

    def description(self, content: bytes, block: MediaBlock, what: str) -> tuple[Description, bool]:
        """The description of ``block`` (cached), and whether the cache had it."""
        assert self.describer is not None
        key = self._key("description", self.describer, content, "")
        found = self._cached(key, Description)
        if found is not None:
            return found, True
        who = f"describer {stand_in_name(self.describer)} on {what}"
        description = as_description(call_stand_in(self.describer, block, who), who)
        self.cache.put(key, description.model_dump_json())
        return description, False

    @staticmethod
    def _key(kind: str, function: Any, content: bytes, part: str) -> str:
        digest = hashlib.sha256(content).hexdigest()
        return f"{_KEY_VERSION}|{kind}|{stand_in_name(function)}|{digest}{part}"

    def _cached(self, key: str, model: type[Any]) -> Any:
        text = self.cache.get(key)
        if text is None:
            return None
        try:
            return model.model_validate_json(text)
        except ValueError:
            return None  # a damaged entry is a miss; the fresh answer replaces it


# -- the step -------------------------------------------------------------------------------------


def apply_stand_ins(run: _Preparation, slots: Sequence[_Slot]) -> None:
    """Give each block the provider takes in no form its stand-in, when the caller passed one:
    its problems go, and text takes its place."""
    stand_ins = run.stand_ins
    if stand_ins is None:
        return
    for slot in slots:
        if not run.problems_for(slot) or id(slot) in run.broken:
            continue
        if not run.readable(slot.block):
            continue  # a URL prepare may not fetch (read_urls=False) or a provider file id
        if run.takes_in_no_form(slot) is None:
            continue
        replaced = _stand_in(run, stand_ins, slot)
        if replaced is None:
            continue
        blocks, changes = replaced
        run.problems = [p for p in run.problems if not p.startswith(slot.where)]
        slot.replace_with(blocks, changes)


def _stand_in(
    run: _Preparation, stand_ins: StandIns, slot: _Slot
) -> tuple[list[ContentBlock], list[Change]] | None:
    block = slot.block
    data = block.read(run.options.policy)
    kind = _kind(block)
    # No stand-in is asked to read what cannot be decoded; MIDI is notes, not sound FFmpeg
    # decodes, so only its header (read already) says it is sound.
    if kind in ("audio", "video") and block.mime_type != "audio/midi":
        check = "check_audio_decodes" if kind == "audio" else "check_video_decodes"
        try:
            decode_check(check, data, block.describe())
        except DecodeError as exc:
            run.broken.add(id(slot))
            run.problem_from(slot, exc)
            return None
    blocks: list[ContentBlock] = []
    changes: list[Change] = []
    if stand_ins.transcriber is not None and kind in ("audio", "video"):
        heard = _transcript_of(run, stand_ins, slot, data)
        if heard is not None:
            transcript, cached, duration = heard
            blocks += transcript_blocks(_label(block), transcript, duration, _window(run))
            changes.append(_transcribed(transcript, cached, duration, len(blocks)))
    if stand_ins.describer is not None and (not blocks or kind == "video"):
        description, cached = stand_ins.description(data, block, block.describe())
        duration = _duration(run, block) if kind in ("audio", "video") else None
        blocks.append(TextBlock(text=_description_text(block, description, duration)))
        changes.append(_described(description, cached))
    if not blocks:
        return None
    return blocks, changes


def _transcript_of(
    run: _Preparation, stand_ins: StandIns, slot: _Slot, data: bytes
) -> tuple[Transcript, bool, float | None] | None:
    """The transcript of an audio block, or of a video's audio track (None: it has none)."""
    block = slot.block
    if isinstance(block, AudioBlock):

        def with_length(transcript: Transcript) -> Transcript:
            # A length found by decoding (AMR, AC-3...) is kept with the transcript, so the
            # next prepare of the same audio decodes nothing.
            if transcript.duration is not None:
                return transcript
            return transcript.model_copy(update={"duration": _duration(run, block, transcript)})

        transcript, cached = stand_ins.transcript(
            data, lambda: block, block.describe(), complete=with_length
        )
        return transcript, cached, _duration(run, block, transcript)
    try:
        transcript, cached = track_transcript(run, slot, data)
    except DecodeError:
        return None  # no audio track to hear
    return transcript, cached, _duration(run, block, transcript)


def track_transcript(run: _Preparation, slot: _Slot, data: bytes) -> tuple[Transcript, bool]:
    """The transcript of a video's audio track: the track is taken out (MP3, speech settings)
    only when the cache does not have it. `DecodeError` when the video holds no audio."""
    stand_ins = run.stand_ins
    assert stand_ins is not None
    assert stand_ins.transcriber is not None
    block = slot.block

    def track() -> AudioBlock:
        from ..convert import audio as audio_converter
        from ..convert.isolation import run_isolated
        from .timed import derived_block

        # One MP3 at speech settings (or the MP3 stream copied out), for any transcriber.
        target = audio_converter.AudioTarget(frozenset({"audio/mpeg"}), allow_split=False)
        what = block.describe()
        converted = run_isolated(
            what,
            audio_converter.convert_audio,
            data,
            keywords={"what": what, "target": target, "mime_type": block.mime_type},
            converter="FFmpeg (PyAV)",
        )
        piece = converted.pieces[0]
        audio = derived_block(
            AudioBlock, block, piece.data, piece.mime_type, [], run.limits.provider, "-audio"
        )
        assert isinstance(audio, AudioBlock)
        return audio

    return stand_ins.transcript(data, track, f"the audio track of {block.describe()}", "|track")


# -- text -----------------------------------------------------------------------------------------


def _window(run: _Preparation) -> float:
    return run.options.max_audio_seconds or TRANSCRIPT_WINDOW_SECONDS


def _label(block: MediaBlock) -> str:
    from .timed import label_of

    return label_of(block)


def _clock(seconds: float) -> str:
    whole = max(math.floor(seconds + 0.5), 0)
    minutes, rest = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def span(start: float, end: float | None) -> str:
    """``0:00-0:42`` with an en dash: a time span as stand-in texts write it (whole seconds)."""
    if end is None:
        return f"from {_clock(start)}"
    return f"{_clock(start)}{_EN_DASH}{_clock(max(end, start))}"


def transcript_blocks(
    label: str, transcript: Transcript, duration: float | None, window: float
) -> list[ContentBlock]:
    """The transcript as text blocks, one per window of ``window`` seconds holding speech."""
    segments = transcript.segments
    if not segments:
        return [_transcript_text(label, 0.0, duration, transcript.text)]
    groups: dict[int, list[TranscriptSegment]] = {}
    for segment in segments:
        groups.setdefault(int(segment.start // window), []).append(segment)
    end_of_all = duration if duration is not None else segments[-1].end
    blocks: list[ContentBlock] = []
    for index in sorted(groups):
        start = index * window
        end = min(start + window, max(end_of_all, groups[index][-1].end))
        text = " ".join(s.text.strip() for s in groups[index] if s.text.strip())
        blocks.append(_transcript_text(label, start, end, text))
    return blocks


def _transcript_text(label: str, start: float, end: float | None, text: str) -> TextBlock:
    said = text.strip() or "(no speech)"
    return TextBlock(text=f"[{label} {span(start, end)}, transcript] {said}")


def interleave(
    frames: list[ContentBlock],
    times: Sequence[float],
    label: str,
    transcript: Transcript,
    duration: float | None,
) -> list[ContentBlock]:
    """Frame blocks (a timestamp text and an image for each time in ``times``) with the
    transcript placed by time: each run of segments before the first frame after it starts."""
    pairs = [frames[i : i + 2] for i in range(0, len(frames), 2)]
    if not transcript.segments:
        return [_transcript_text(label, 0.0, duration, transcript.text), *frames]
    before: dict[int, list[TranscriptSegment]] = {}
    for segment in transcript.segments:
        slot = next((i for i, t in enumerate(times) if t > segment.start), len(times))
        before.setdefault(slot, []).append(segment)
    out: list[ContentBlock] = []
    for index in range(len(pairs) + 1):
        run = before.get(index)
        if run:
            text = " ".join(s.text.strip() for s in run if s.text.strip())
            out.append(_transcript_text(label, run[0].start, run[-1].end, text))
        if index < len(pairs):
            out.extend(pairs[index])
    return out


def _description_text(block: MediaBlock, description: Description, duration: float | None) -> str:
    where = f" {span(0.0, duration)}" if duration is not None else ""
    return f"[{_label(block)} {block.mime_type}{where}, description] {description.text.strip()}"


def _duration(
    run: _Preparation, block: MediaBlock, transcript: Transcript | None = None
) -> float | None:
    """How long the media is: from its header, else the transcript, else by decoding it."""
    try:
        info = _probe(block, run.options.policy)
    except MediaBlocksError:
        info = None
    if info is not None and info.duration is not None:
        return float(info.duration)
    if transcript is not None and transcript.end is not None:
        return transcript.end
    try:
        from ..convert import speech
        from ..convert.isolation import run_isolated

        what = block.describe()
        seconds: float = run_isolated(
            what,
            speech.audio_seconds,
            block.read(run.options.policy),
            keywords={"what": what},
            converter="FFmpeg (PyAV)",
        )
        return seconds
    except MediaBlocksError:
        return None


# -- the report -----------------------------------------------------------------------------------


def _usage_text(usage: Any) -> str:
    if usage is None:
        return ""
    parts = []
    seconds = usage.raw.get("seconds") if isinstance(usage.raw, dict) else None
    if isinstance(seconds, (int, float)):
        parts.append(f"{seconds:g} s billed")
    if usage.input_tokens or usage.output_tokens:
        parts.append(f"{usage.input_tokens} input + {usage.output_tokens} output tokens")
    if usage.cost is not None:
        parts.append(f"cost {usage.cost.total:g}")
    return "; usage: " + ", ".join(parts) if parts else ""


def _transcribed(
    transcript: Transcript, cached: bool, duration: float | None, count: int
) -> Change:
    length = f"{duration:.1f} s of audio" if duration is not None else "audio"
    by = f" by {transcript.model}" if transcript.model else ""
    source = " (from the stand-in cache)" if cached else _usage_text(transcript.usage)
    detail = (
        f"{length} -> {len(transcript.text):,} characters of transcript{by} in {count} text "
        f"block{'s' if count != 1 else ''}{source}"
    )
    return Change("transcribed", detail, usage=None if cached else transcript.usage, cached=cached)


def _described(description: Description, cached: bool) -> Change:
    by = f" by {description.model}" if description.model else ""
    source = " (from the stand-in cache)" if cached else _usage_text(description.usage)
    detail = f"{len(description.text):,} characters of description{by}{source}"
    return Change("described", detail, usage=None if cached else description.usage, cached=cached)


def transcribed_change(
    transcript: Transcript, cached: bool, duration: float | None, count: int
) -> Change:
    """The ``transcribed`` change for a transcript placed in ``count`` text blocks."""
    return _transcribed(transcript, cached, duration, count)


def check_stand_in(value: Any, name: str) -> None:
    """`InvalidOptionError` unless ``value`` is None or callable."""
    from ..errors import InvalidOptionError

    if value is not None and not callable(value):
        raise InvalidOptionError(f"{name} must be a callable or None, not {type(value).__name__}")
