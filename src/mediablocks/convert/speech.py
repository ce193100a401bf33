"""Audio made ready for a speech-to-text endpoint: 16 kHz mono WAV pieces that overlap.

Transcription endpoints take a few formats and a byte limit (OpenAI and Groq: 25 MB). Speech
models hear 16 kHz mono, so that is what `speech_pieces` writes: decoded packet by packet,
resampled once, and cut into pieces of at most ``piece_seconds`` that overlap by ``overlap``
seconds, so a word cut at one piece's end is whole in the next. Memory holds one piece of PCM
(32,000 bytes a second) plus the piece being written. `audio_seconds` measures what a header
does not say (AMR, AC-3, Musepack...) by decoding.

Both run in a conversion worker (`mediablocks.convert.isolation`): FFmpeg's decoders see
untrusted bytes here.
"""

from __future__ import annotations

import io
import math
import wave
from dataclasses import dataclass

from ..errors import DecodeError, DoesNotFitError
from ._av import Deadline, decoding, import_av, open_input
from .audio import MAX_DECODED_SECONDS

__all__ = ["SPEECH_RATE", "SpeechAudio", "SpeechPiece", "audio_seconds", "speech_pieces"]

SPEECH_RATE = 16000
"""Samples a second in the pieces: what Whisper-family models resample everything to."""

_BYTES_PER_SECOND = SPEECH_RATE * 2
_WAV_HEADER = 44


@dataclass(frozen=True)
class SpeechPiece:
    """One WAV piece: ``start`` seconds into the source, ``duration`` long."""

    data: bytes
    mime_type: str
    start: float
    duration: float


@dataclass(frozen=True)
class SpeechAudio:
    """`speech_pieces`' result: the pieces in order and the decoded length of the source."""

    pieces: tuple[SpeechPiece, ...]
    seconds: float


def max_piece_seconds(max_bytes: int | None) -> float:
    """The longest 16 kHz mono WAV piece under ``max_bytes`` (``inf``: no limit)."""
    if max_bytes is None:
        return math.inf
    return max((max_bytes - _WAV_HEADER) / _BYTES_PER_SECOND, 1.0)


def audio_seconds(data: bytes, *, what: str) -> float:
    """The length of ``data``'s first audio stream, in seconds, counted by decoding it.

    Raises `DecodeError` naming ``what`` when it holds no decodable audio, `DoesNotFitError`
    past `MAX_DECODED_SECONDS` (a few KB can claim hours).
    """
    container = open_input(data, what)
    deadline = Deadline(None, what)
    with decoding(what), container:
        if not container.streams.audio:
            raise DecodeError(f"{what}: holds no audio stream")
        stream = container.streams.audio[0]
        seconds = 0.0
        for frame in container.decode(stream):
            seconds += frame.samples / (frame.sample_rate or SPEECH_RATE)
            if seconds > MAX_DECODED_SECONDS:
                raise DoesNotFitError(
                    f"{what}: decodes to more than {MAX_DECODED_SECONDS:g} s of audio"
                )
            deadline.check()
    return seconds


def speech_pieces(
    data: bytes,
    *,
    what: str,
    piece_seconds: float = math.inf,
    overlap: float = 0.0,
    max_seconds: float = MAX_DECODED_SECONDS,
) -> SpeechAudio:
    """``data``'s first audio stream as 16 kHz mono WAV pieces of at most ``piece_seconds``,
    each starting ``overlap`` seconds before the previous one ends.

    Raises `DecodeError` for input with no decodable audio, `DoesNotFitError` past
    ``max_seconds`` of decoded audio.
    """
    finite = math.isfinite(piece_seconds)
    if not piece_seconds > 0 or overlap < 0 or (finite and overlap * 2 >= piece_seconds):
        raise DoesNotFitError(
            f"{what}: pieces of {piece_seconds:g} s cannot overlap by {overlap:g} s"
        )
    av = import_av(what)
    container = open_input(data, what)
    cutter = _Cutter(piece_seconds, overlap)
    deadline = Deadline(None, what)
    limit = int(max_seconds * SPEECH_RATE)
    with decoding(what), container:
        if not container.streams.audio:
            raise DecodeError(f"{what}: holds no audio stream")
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SPEECH_RATE)
        for frame in container.decode(stream):
            frame.pts = None
            for out in resampler.resample(frame):
                cutter.feed(bytes(out.planes[0])[: out.samples * 2])
            if cutter.total > limit:
                raise DoesNotFitError(f"{what}: decodes to more than {max_seconds:g} s of audio")
            deadline.check()
        for out in resampler.resample(None):
            cutter.feed(bytes(out.planes[0])[: out.samples * 2])
    pieces = cutter.finish()
    if not pieces:
        raise DecodeError(f"{what}: decodes to no audio")
    return SpeechAudio(tuple(pieces), cutter.total / SPEECH_RATE)


class _Cutter:
    """PCM in, overlapping WAV pieces out; keeps one piece of samples at most."""

    def __init__(self, piece_seconds: float, overlap: float) -> None:
        self.length = None if math.isinf(piece_seconds) else int(piece_seconds * SPEECH_RATE)
        self.step = None if self.length is None else self.length - int(overlap * SPEECH_RATE)
        self.buffer = bytearray()
        self.buffer_start = 0  # sample index of buffer[0]
        self.next_start = 0
        self.total = 0
        self.pieces: list[SpeechPiece] = []
        self.last_end = 0

    def feed(self, pcm: bytes) -> None:
        self.buffer += pcm
        self.total += len(pcm) // 2
        if self.length is None or self.step is None:
            return
        while self.total >= self.next_start + self.length:
            self._emit(self.next_start, self.length)
            self.next_start += self.step
            drop = (self.next_start - self.buffer_start) * 2
            del self.buffer[:drop]
            self.buffer_start = self.next_start

    def finish(self) -> list[SpeechPiece]:
        unsent = self.total > self.last_end or not self.pieces
        if unsent and self.total > self.next_start:
            self._emit(self.next_start, self.total - self.next_start)
        return self.pieces

    def _emit(self, start: int, samples: int) -> None:
        offset = (start - self.buffer_start) * 2
        pcm = bytes(self.buffer[offset : offset + samples * 2])
        self.pieces.append(
            SpeechPiece(_wav(pcm), "audio/wav", start / SPEECH_RATE, samples / SPEECH_RATE)
        )
        self.last_end = start + samples


def _wav(pcm: bytes) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SPEECH_RATE)
        out.writeframes(pcm)
    return buffer.getvalue()
