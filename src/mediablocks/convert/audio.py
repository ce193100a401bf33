"""Audio in any format PyAV decodes, made into a type a provider takes, streamed.

`convert_audio` works on the first audio stream (of an audio file or a video container). The
plan, cheapest and most faithful first (see ``docs/conversion.md``):

1. Stream copy: the compressed packets moved into a container the provider takes, when it takes
   the codec (AAC from M4A to ADTS, Opus from WebM to Ogg where Ogg Opus is taken, MP3 out of
   AVI or FLV, FLAC out of Matroska or Ogg). Nothing is decoded or re-encoded.
2. Lossless: FLAC, then WAV, at the source's rate (at most 48 kHz) and up to two channels,
   where the result stays under the byte limit (and `LOSSLESS_MAX_BYTES` when the provider
   sets none); then FLAC or WAV at speech settings, 16 kHz mono.
3. MP3 at speech settings (16 kHz mono, 32 kbit/s) where no lossless form fits or none is taken.
4. When one block would still be over the byte or duration limit, ordered chunks in the
   smallest form, each with its offset (``allow_split``), or `DoesNotFitError`.

Decoding and encoding go packet by packet, so memory holds the output plus a few frames.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..changes import Change
from ..errors import DecodeError, DoesNotFitError
from ._audio_copy import copy_stream
from ._av import Deadline, clock, decoding, import_av, open_input, opened
from ._mp3 import Mp3Writer, lameenc_module

__all__ = [
    "LOSSLESS_MAX_BYTES",
    "MAX_DECODED_SECONDS",
    "AudioPiece",
    "AudioTarget",
    "ConvertedAudio",
    "convert_and_check_audio",
    "convert_audio",
]

MAX_DECODED_SECONDS = 4 * 3600.0
"""Audio decoded past this many seconds is refused when no duration limit applies (a few KB can
claim hours of silence: the output, not the input, must stay bounded)."""

LOSSLESS_MAX_BYTES = 20_000_000
"""The largest FLAC or WAV written when the provider sets no byte limit: past it a lossless
file costs more upload than a speech model gains from it, and speech settings come next."""

_BATCH_SECONDS = 0.4
_FRAME_SIZES = {"flac": 4608, "pcm_s16le": 4096}
"""Samples per frame handed to encoders that take any frame size."""
_MP3_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)
_SPEECH_RATE = 16000
_MP3_SPEED = "7"
"""LAME's quality/speed level (0 best, 9 fastest): 7 is about twice as fast as the default and
loses nothing a speech model hears at these bitrates."""
_FLAC_LEVEL = "1"
"""FLAC's compression level (0 fastest, 12 smallest): 1 is several times faster than the
default 5 for a few percent more bytes."""


@dataclass(frozen=True)
class _Format:
    mime: str
    container: str
    codec: str
    bits_per_second_per_channel: int  # the CBR bitrate above 24 kHz, half of it below

    @property
    def lossless(self) -> bool:
        return self.codec in ("pcm_s16le", "flac")

    def bit_rate(self, rate: int, channels: int) -> int:
        per_channel = self.bits_per_second_per_channel
        return channels * (per_channel if rate > 24000 else per_channel // 2)

    def bytes_per_second(self, rate: int, channels: int) -> float:
        if self.lossless:
            return rate * channels * 2.0  # FLAC never needs much more than PCM
        return self.bit_rate(rate, channels) / 8.0

    def options(self) -> dict[str, str]:
        if self.codec == "libmp3lame":
            return {"compression_level": _MP3_SPEED}
        if self.codec == "flac":
            return {"compression_level": _FLAC_LEVEL}
        return {}


_MP3 = _Format("audio/mpeg", "mp3", "libmp3lame", 64_000)
_FLAC = _Format("audio/flac", "flac", "flac", 0)
_WAV = _Format("audio/wav", "wav", "pcm_s16le", 0)


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


@dataclass(frozen=True)
class _Setting:
    """One encoding to try: a format at a rate and channel count, under a byte cap."""

    fmt: _Format
    rate: int
    channels: int
    cap: int | None  # the most bytes one piece may have in this form (None: no cap)


def audio_format_for(accepted: frozenset[str]) -> _Format | None:
    """The first of FLAC, WAV, MP3 the provider takes (``None``: none of them)."""
    return next((fmt for fmt in (_FLAC, _WAV, _MP3) if fmt.mime in accepted), None)


def _settings(
    accepted: frozenset[str], rate: int, channels: int, max_bytes: int | None
) -> list[_Setting]:
    """Every encoding to try, in the plan's order (module docstring)."""
    lossless = [fmt for fmt in (_FLAC, _WAV) if fmt.mime in accepted]
    cap = LOSSLESS_MAX_BYTES if max_bytes is None else min(max_bytes, LOSSLESS_MAX_BYTES)
    settings = [_Setting(f, _nearest_rate(rate, f), min(channels, 2), cap) for f in lossless]
    settings += [_Setting(f, _SPEECH_RATE, 1, cap) for f in lossless]
    if _MP3.mime in accepted:
        settings.append(_Setting(_MP3, _SPEECH_RATE, 1, max_bytes))
    unique: list[_Setting] = []
    for setting in settings:
        if all(
            (s.fmt, s.rate, s.channels) != (setting.fmt, setting.rate, setting.channels)
            for s in unique
        ):
            unique.append(setting)
    # The last form is the smallest; it may be as big as the provider allows, split if need be.
    last = unique[-1]
    unique[-1] = _Setting(last.fmt, last.rate, last.channels, max_bytes)
    return unique


def convert_audio(
    data: bytes,
    target: AudioTarget,
    *,
    mime_type: str,
    what: str,
    deadline: Deadline | None = None,
) -> ConvertedAudio:
    """Copy or re-encode ``data`` (its first audio stream) to fit ``target``.

    Raises `DecodeError` naming ``what`` for media PyAV cannot decode (or that holds no audio),
    `DoesNotFitError` when no accepted type can be written or the result cannot fit.
    """
    if audio_format_for(target.accepted_types) is None and not target.accepted_types:
        raise DoesNotFitError(f"{what}: the provider takes no audio")
    if mime_type == "audio/midi":
        raise DoesNotFitError(
            f"{what}: MIDI holds notes, not recorded sound; render it to audio with a "
            "synthesizer (e.g. FluidSynth) first"
        )
    deadline = deadline or Deadline(None, what)
    with opened(data, what) as container:  # one open for the facts and the stream copy
        rate, channels, seconds = _source_facts(container, what)
        copied = _copied(container, target, mime_type, rate, channels, what, deadline)
    if copied is not None:
        return copied
    if audio_format_for(target.accepted_types) is None:
        raise DoesNotFitError(
            f"{what}: audio can be written as FLAC, WAV or MP3 (or its stream copied), and the "
            f"provider takes {', '.join(sorted(target.accepted_types))}"
        )
    settings = _settings(target.accepted_types, rate, channels, target.max_bytes)
    if seconds is not None:  # skip forms known to be too big, keeping the last
        fitting = [
            s
            for s in settings[:-1]
            if s.cap is None or s.fmt.bytes_per_second(s.rate, s.channels) * seconds <= s.cap
        ]
        settings = fitting + settings[-1:]
    for attempt, setting in enumerate(settings):
        last = attempt == len(settings) - 1
        fmt, out_rate, out_channels = setting.fmt, setting.rate, setting.channels
        chunk = _chunk_seconds(target, setting, split=last)
        pieces = _encode(data, setting, chunk, target, what, deadline)
        if pieces is None:  # over the byte cap in one piece: try the next form
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


def convert_and_check_audio(
    data: bytes,
    target: AudioTarget,
    *,
    mime_type: str,
    what: str,
    deadline: Deadline | None = None,
) -> ConvertedAudio:
    """`convert_audio`, and a stream copy's result decode-checked (`check_audio_decodes`) in
    the same call: `prepare` runs this one job in a worker, so the copy is neither shipped back
    to a second job nor shipped out twice. Encoded pieces need no check (PyAV or LAME wrote
    them here from decoded sound)."""
    from .verify import check_audio_decodes

    deadline = deadline or Deadline(None, what)
    converted = convert_audio(data, target, mime_type=mime_type, what=what, deadline=deadline)
    if any(change.kind == "remuxed" for change in converted.changes):
        for piece in converted.pieces:
            check_audio_decodes(piece.data, what, deadline)
    return converted


def _copied(
    container: Any,
    target: AudioTarget,
    mime_type: str,
    rate: int,
    channels: int,
    what: str,
    deadline: Deadline,
) -> ConvertedAudio | None:
    """The stream copied into a container the provider takes, when one piece can hold it."""
    limits = [target.max_seconds, target.max_total_seconds, MAX_DECODED_SECONDS]
    copied = copy_stream(
        container,
        target.accepted_types,
        what=what,
        max_bytes=target.max_bytes,
        max_seconds=min(limit for limit in limits if limit is not None),
        deadline=deadline,
    )
    if copied is None:
        return None
    piece = AudioPiece(copied.data, copied.mime_type, 0.0, copied.seconds, rate, channels)
    change = Change(
        "remuxed",
        f"{mime_type} -> {copied.mime_type} ({copied.codec}, {rate} Hz, {channels} ch, "
        f"{copied.seconds:.1f} s): stream copied, not re-encoded",
    )
    return ConvertedAudio((piece,), (change,), copied.seconds)


def _source_facts(container: Any, what: str) -> tuple[int, int, float | None]:
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


def _chunk_seconds(target: AudioTarget, setting: _Setting, *, split: bool) -> float:
    """The longest piece allowed; ``inf`` when one piece may hold it all."""
    seconds = math.inf if target.max_seconds is None else target.max_seconds
    if split and setting.cap is not None:
        # Room for the container's header; 5% for variable-size frames.
        per_second = setting.fmt.bytes_per_second(setting.rate, setting.channels)
        seconds = min(seconds, max((setting.cap - 4096) * 0.95 / per_second, 0.05))
    return seconds


class _PieceWriter:
    """An output container in memory, one per piece."""

    def __init__(self, av: Any, fmt: _Format, rate: int, channels: int) -> None:
        self.buffer = io.BytesIO()
        self.output = av.open(self.buffer, mode="w", format=fmt.container)
        self.stream = self.output.add_stream(fmt.codec, rate=rate, options=fmt.options())
        self.stream.layout = "mono" if channels == 1 else "stereo"
        self.channels = channels
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


def _writer(av: Any, fmt: _Format, rate: int, channels: int) -> _PieceWriter | Mp3Writer:
    """A writer for one piece: ``lameenc`` for MP3 where installed, else PyAV's encoders."""
    lameenc = lameenc_module() if fmt.codec == "libmp3lame" else None
    if lameenc is not None:
        return Mp3Writer(lameenc, rate, channels, fmt.bit_rate(rate, channels))
    return _PieceWriter(av, fmt, rate, channels)


def _resampler(av: Any, writer: _PieceWriter | Mp3Writer, fmt: _Format, rate: int) -> Any:
    """Frames as ``writer`` takes them: its sample format, layout and (PyAV) frame size."""
    layout = "mono" if writer.channels == 1 else "stereo"
    if isinstance(writer, Mp3Writer):
        return av.AudioResampler(format="s16", layout=layout, rate=rate)
    return av.AudioResampler(
        format=av.Codec(fmt.codec, "w").audio_formats[0].name,
        layout=layout,
        rate=rate,
        # Whole encoder frames: FLAC would otherwise code each decoded frame (20 ms of Opus)
        # as a block of its own, which costs half again the CPU for the same bytes.
        frame_size=writer.stream.codec_context.frame_size or _FRAME_SIZES.get(fmt.codec),
    )


class _Batcher:
    """Decoded frames gathered into about `_BATCH_SECONDS` each before resampling: one call
    into the resampler per 20 ms Opus frame costs a third more CPU than the work itself."""

    def __init__(self, av: Any) -> None:
        self.av = av
        self.fifo: Any = None
        self.shape: tuple[str, str, int] | None = None
        self.size = 0

    def add(self, frame: Any) -> Any:
        """A batched frame when one is full, else ``None``."""
        frame.pts = None
        shape = (frame.format.name, frame.layout.name, frame.sample_rate)
        flushed = None
        if shape != self.shape:  # a stream may change rate or layout: never mix them
            flushed = self._take()
            self.fifo, self.shape = self.av.AudioFifo(), shape
            self.size = max(int(frame.sample_rate * _BATCH_SECONDS), 1)
        self.fifo.write(frame)
        if flushed is not None:
            return flushed  # the rest of the new frame's shape comes with the next batch
        if self.fifo.samples < self.size:
            return None
        big = self.fifo.read(self.size)
        big.pts = None
        return big

    def _take(self) -> Any:
        if self.fifo is None or not self.fifo.samples:
            return None
        big = self.fifo.read()
        big.pts = None
        return big

    def rest(self) -> list[Any]:
        big = self._take()
        return [] if big is None else [big]


def _split(av: Any, frame: Any, samples: int) -> tuple[Any, Any]:
    """``frame``'s first ``samples`` (``None`` when 0) and the rest, as two frames."""
    if samples <= 0:
        return None, frame
    fifo = av.AudioFifo()
    frame.pts = None
    fifo.write(frame)
    head = fifo.read(samples)
    rest = fifo.read()
    head.pts = rest.pts = None
    return head, rest


def _encode(
    data: bytes,
    setting: _Setting,
    chunk_seconds: float,
    target: AudioTarget,
    what: str,
    deadline: Deadline,
) -> list[AudioPiece] | None:
    """The pieces, or ``None`` when one piece went over ``setting.cap`` (nothing split)."""
    fmt, rate, channels, cap = setting.fmt, setting.rate, setting.channels, setting.cap
    av = import_av(what)
    container = open_input(data, what)
    limit_seconds = target.max_total_seconds or MAX_DECODED_SECONDS
    pieces: list[AudioPiece] = []
    with decoding(what), container:
        stream = container.streams.audio[0]
        writer = _writer(av, fmt, rate, channels)
        resampler = _resampler(av, writer, fmt, rate)
        chunk_samples = None if math.isinf(chunk_seconds) else max(int(chunk_seconds * rate), 1)
        done = 0  # samples in finished pieces

        def finish() -> None:
            nonlocal writer, done
            payload = writer.close()
            pieces.append(
                AudioPiece(payload, fmt.mime, done / rate, writer.samples / rate, rate, channels)
            )
            done += writer.samples
            writer = _writer(av, fmt, rate, channels)

        def emit(frames: list[Any]) -> bool:
            for frame in frames:
                while chunk_samples is not None and writer.samples + frame.samples > chunk_samples:
                    # Cut the frame where the piece ends: pieces are exactly chunk_samples long.
                    head, frame = _split(av, frame, chunk_samples - writer.samples)
                    if head is not None:
                        writer.write(head)
                    finish()
                writer.write(frame)
                if cap is not None and writer.size() > cap:
                    return False
            if (done + writer.samples) / rate > limit_seconds:
                raise DoesNotFitError(
                    f"{what}: holds more than {limit_seconds:,.0f} seconds of audio"
                )
            return True

        batch = _Batcher(av)
        for frame in container.decode(stream):
            big = batch.add(frame)
            if big is not None:
                deadline.check()
                if not emit(resampler.resample(big)):
                    return None
        for big in batch.rest():
            if not emit(resampler.resample(big)):
                return None
        if not emit(resampler.resample(None)):
            return None
        if writer.samples or not pieces:
            if not writer.samples:
                raise DecodeError(f"{what}: holds no decodable audio")
            finish()
        if cap is not None and any(len(p.data) > cap for p in pieces):
            return None
    return pieces
