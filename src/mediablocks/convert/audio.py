"""Audio in any format PyAV decodes, re-encoded to a type a provider takes, streamed.

`convert_audio` decodes the first audio stream (of an audio file or a video container) packet by
packet and encodes as it goes, so memory holds the output plus a few frames, never the decoded
whole. The plan, cheapest change first (see ``docs/conversion.md``):

1. Keep the sample rate (at most 48 kHz) and up to two channels, in the first accepted type of
   MP3, FLAC, WAV.
2. When that would be over the byte limit, speech settings: 16 kHz mono.
3. When one block would still be over the byte or duration limit, ordered chunks, each with its
   offset (``allow_split``), or `DoesNotFitError`.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import DecodeError, DoesNotFitError
from ..images import Change
from ._av import Deadline, clock, decoding, import_av, open_input

__all__ = [
    "MAX_DECODED_SECONDS",
    "AudioPiece",
    "AudioTarget",
    "ConvertedAudio",
    "convert_audio",
]

MAX_DECODED_SECONDS = 4 * 3600.0
"""Audio decoded past this many seconds is refused when no duration limit applies (a few KB can
claim hours of silence: the output, not the input, must stay bounded)."""

_MP3_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)
_SPEECH_RATE = 16000
_MP3_SPEED = "7"
"""LAME's quality/speed level (0 best, 9 fastest): 7 is about twice as fast as the default and
loses nothing a speech or music model hears at these bitrates."""


@dataclass(frozen=True)
class _Format:
    mime: str
    container: str
    codec: str
    bits_per_second_per_channel: int  # the CBR bitrate above 24 kHz, half of it below

    def bit_rate(self, rate: int, channels: int) -> int:
        per_channel = self.bits_per_second_per_channel
        return channels * (per_channel if rate > 24000 else per_channel // 2)

    def bytes_per_second(self, rate: int, channels: int) -> float:
        if self.codec in ("pcm_s16le", "flac"):
            return rate * channels * 2.0  # FLAC never needs much more than PCM
        return self.bit_rate(rate, channels) / 8.0


_FORMATS = (
    _Format("audio/mpeg", "mp3", "libmp3lame", 64_000),
    _Format("audio/flac", "flac", "flac", 0),
    _Format("audio/wav", "wav", "pcm_s16le", 0),
)


@dataclass(frozen=True)
class AudioTarget:
    """What converted audio must fit. ``max_bytes`` is raw bytes per block; ``max_seconds`` the
    longest block; ``max_total_seconds`` all of it (``None``: `MAX_DECODED_SECONDS`)."""

    accepted_types: frozenset[str]
    max_bytes: int | None = None
    max_seconds: float | None = None
    max_total_seconds: float | None = None
    allow_split: bool = True


@dataclass(frozen=True)
class AudioPiece:
    """One encoded block of audio: ``start`` seconds into the source, ``duration`` long."""

    data: bytes
    mime_type: str
    start: float
    duration: float
    sample_rate: int
    channels: int


@dataclass(frozen=True)
class ConvertedAudio:
    """`convert_audio`'s result: the pieces in order, and what changed."""

    pieces: tuple[AudioPiece, ...]
    changes: tuple[Change, ...]
    source_seconds: float


def audio_format_for(accepted: frozenset[str]) -> _Format | None:
    """The first of MP3, FLAC, WAV the provider takes (``None``: none of them)."""
    return next((fmt for fmt in _FORMATS if fmt.mime in accepted), None)


def convert_audio(
    data: bytes,
    target: AudioTarget,
    *,
    mime_type: str,
    what: str,
    deadline: Deadline | None = None,
) -> ConvertedAudio:
    """Re-encode ``data`` (its first audio stream) to fit ``target``.

    Raises `DecodeError` naming ``what`` for media PyAV cannot decode (or that holds no audio),
    `DoesNotFitError` when no accepted type can be written or the result cannot fit.
    """
    fmt = audio_format_for(target.accepted_types)
    if fmt is None:
        raise DoesNotFitError(
            f"{what}: audio can be written as MP3, FLAC or WAV, and the provider takes "
            f"{', '.join(sorted(target.accepted_types)) or 'no audio'}"
        )
    if mime_type == "audio/midi":
        raise DoesNotFitError(
            f"{what}: MIDI holds notes, not recorded sound; render it to audio with a "
            "synthesizer (e.g. FluidSynth) first"
        )
    deadline = deadline or Deadline(None, what)
    rate, channels, seconds = _source_facts(data, what)
    settings = [(_nearest_rate(rate, fmt), min(channels, 2))]
    if settings[0] != (_SPEECH_RATE, 1):
        settings.append((_SPEECH_RATE, 1))
    known_too_big = (
        seconds is not None
        and target.max_bytes is not None
        and fmt.bytes_per_second(*settings[0]) * seconds > target.max_bytes
    )
    if known_too_big and len(settings) > 1:  # skip a full-quality attempt known to be too big
        settings = settings[1:]
    for attempt, (out_rate, out_channels) in enumerate(settings):
        last = attempt == len(settings) - 1
        chunk = _chunk_seconds(target, fmt, out_rate, out_channels, split=last)
        pieces = _encode(data, fmt, out_rate, out_channels, chunk, target, what, deadline)
        if pieces is None:  # over the byte limit in one piece: try speech settings
            continue
        if len(pieces) > 1 and not target.allow_split:
            raise DoesNotFitError(
                f"{what}: needs {len(pieces)} chunks of at most {chunk:g} s to fit, and "
                "splitting is not allowed (allow_split=False)"
            )
        total = sum(piece.duration for piece in pieces)
        changes = [
            Change(
                "transcoded",
                f"{mime_type} ({rate} Hz, {channels} ch, {total:.1f} s) -> {fmt.mime} "
                f"({out_rate} Hz, {out_channels} ch) with PyAV",
            )
        ]
        if len(pieces) > 1:
            changes.append(
                Change(
                    "split",
                    f"{len(pieces)} chunks of at most {chunk:g} s, at "
                    + ", ".join(clock(piece.start) for piece in pieces),
                )
            )
        return ConvertedAudio(tuple(pieces), tuple(changes), total)
    raise DoesNotFitError(f"{what}: cannot be encoded under {target.max_bytes:,} bytes")


def _source_facts(data: bytes, what: str) -> tuple[int, int, float | None]:
    container = open_input(data, what)
    with decoding(what), container:
        if not container.streams.audio:
            raise DecodeError(f"{what}: holds no audio stream")
        stream = container.streams.audio[0]
        rate = int(stream.codec_context.sample_rate or stream.rate or 0)
        channels = int(stream.codec_context.channels or 0)
        seconds = None
        if stream.duration is not None and stream.time_base is not None:
            seconds = float(stream.duration * stream.time_base)
        elif container.duration is not None:
            seconds = container.duration / 1_000_000
    return rate or 44100, max(channels, 1), seconds


def _nearest_rate(rate: int, fmt: _Format) -> int:
    rate = min(rate, 48000)
    if fmt.codec != "libmp3lame":
        return max(rate, 8000)
    return max([r for r in _MP3_RATES if r <= rate] or [8000])


def _chunk_seconds(
    target: AudioTarget, fmt: _Format, rate: int, channels: int, *, split: bool
) -> float:
    """The longest piece allowed; ``inf`` when one piece may hold it all."""
    seconds = math.inf if target.max_seconds is None else target.max_seconds
    if split and target.max_bytes is not None:
        # Room for the container's header; 5% for variable-size frames.
        by_bytes = (target.max_bytes - 4096) * 0.95 / fmt.bytes_per_second(rate, channels)
        seconds = min(seconds, max(by_bytes, 0.05))
    return seconds


class _PieceWriter:
    """An output container in memory, one per piece."""

    def __init__(self, av: Any, fmt: _Format, rate: int, channels: int) -> None:
        self.buffer = io.BytesIO()
        self.output = av.open(self.buffer, mode="w", format=fmt.container)
        options = {"compression_level": _MP3_SPEED} if fmt.codec == "libmp3lame" else {}
        self.stream = self.output.add_stream(fmt.codec, rate=rate, options=options)
        self.stream.layout = "mono" if channels == 1 else "stereo"
        if fmt.codec == "libmp3lame":
            self.stream.bit_rate = fmt.bit_rate(rate, channels)
        self.samples = 0
        self.time_base = Fraction(1, rate)

    def write(self, frame: Any) -> None:
        frame.pts = self.samples
        frame.time_base = self.time_base
        self.samples += frame.samples
        for packet in self.stream.encode(frame):
            self.output.mux(packet)

    def size(self) -> int:
        return self.buffer.tell()

    def close(self) -> bytes:
        for packet in self.stream.encode(None):
            self.output.mux(packet)
        self.output.close()
        return self.buffer.getvalue()


def _encode(
    data: bytes,
    fmt: _Format,
    rate: int,
    channels: int,
    chunk_seconds: float,
    target: AudioTarget,
    what: str,
    deadline: Deadline,
) -> list[AudioPiece] | None:
    """The pieces, or ``None`` when one piece went over ``target.max_bytes`` (nothing split)."""
    av = import_av(what)
    container = open_input(data, what)
    limit_seconds = target.max_total_seconds or MAX_DECODED_SECONDS
    pieces: list[AudioPiece] = []
    with decoding(what), container:
        stream = container.streams.audio[0]
        encoder_format = av.Codec(fmt.codec, "w").audio_formats[0].name
        writer = _PieceWriter(av, fmt, rate, channels)
        frame_size = writer.stream.codec_context.frame_size or None
        resampler = av.AudioResampler(
            format=encoder_format,
            layout=writer.stream.layout.name,
            rate=rate,
            frame_size=frame_size,
        )
        chunk_samples = None if math.isinf(chunk_seconds) else int(chunk_seconds * rate)
        done = 0  # samples in finished pieces

        def finish() -> None:
            nonlocal writer, done
            payload = writer.close()
            pieces.append(
                AudioPiece(payload, fmt.mime, done / rate, writer.samples / rate, rate, channels)
            )
            done += writer.samples
            writer = _PieceWriter(av, fmt, rate, channels)

        def emit(frames: list[Any]) -> bool:
            for frame in frames:
                full = chunk_samples is not None and writer.samples + frame.samples > chunk_samples
                if full and writer.samples:
                    finish()
                writer.write(frame)
                if target.max_bytes is not None and writer.size() > target.max_bytes:
                    return False
            if (done + writer.samples) / rate > limit_seconds:
                raise DoesNotFitError(
                    f"{what}: holds more than {limit_seconds:,.0f} seconds of audio"
                )
            return True

        for frame in container.decode(stream):
            deadline.check()
            frame.pts = None
            if not emit(resampler.resample(frame)):
                return None
        if not emit(resampler.resample(None)):
            return None
        if writer.samples or not pieces:
            if not writer.samples:
                raise DecodeError(f"{what}: holds no decodable audio")
            finish()
        if target.max_bytes is not None and any(len(p.data) > target.max_bytes for p in pieces):
            return None
    return pieces
