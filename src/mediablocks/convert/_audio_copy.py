"""Audio stream copy: the compressed packets of an audio stream moved, not re-encoded, into a
container the provider takes (AAC from M4A to ADTS, Opus from WebM to Ogg, MP3 out of AVI/FLV,
FLAC out of Matroska/Ogg, Vorbis from WebM to Ogg).

Moving packets costs next to nothing against decoding and encoding and loses nothing, so
`mediablocks.convert.audio.convert_audio` tries it first. Any failure here (an AAC profile
ADTS cannot carry, a packet without timestamps) gives ``None``: the caller re-encodes instead.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any

from ..errors import DoesNotFitError
from ..mime import detect_mime
from ._av import Deadline, import_av

__all__ = ["COPY_TARGETS", "CopiedAudio", "copy_stream"]

COPY_TARGETS: dict[str, tuple[tuple[str, str], ...]] = {
    "aac": (("audio/aac", "adts"),),
    "mp3": (("audio/mpeg", "mp3"),),
    "flac": (("audio/flac", "flac"),),
    "vorbis": (("audio/ogg", "ogg"),),
    # Ogg Opus only where the provider names it: Gemini documents Ogg *Vorbis* as audio/ogg.
    "opus": (("audio/opus", "ogg"),),
    "pcm_s16le": (("audio/wav", "wav"),),
}
"""Source codec -> (MIME type, FFmpeg muxer) it can be copied into, in order of preference."""


_FEWEST_PACKETS = 2
"""A copy of one packet is no file a reader recognises (an ADTS or MP3 stream is known by two
frames in a row): re-encode such a sliver instead."""


@dataclass(frozen=True)
class CopiedAudio:
    """A stream copy: the new file, its type, the codec moved and the seconds it holds."""

    data: bytes
    mime_type: str
    codec: str
    seconds: float


def copy_target(codec: str, accepted: frozenset[str]) -> tuple[str, str] | None:
    """The (MIME type, muxer) ``codec`` can be copied into for a provider taking ``accepted``."""
    return next((t for t in COPY_TARGETS.get(codec, ()) if t[0] in accepted), None)


def copy_stream(
    container: Any,
    accepted: frozenset[str],
    *,
    what: str,
    max_bytes: int | None,
    max_seconds: float,
    deadline: Deadline,
) -> CopiedAudio | None:
    """The first audio stream's packets in a container of ``accepted``, from an input container
    just opened (nothing demuxed from it yet), so the caller that read its facts does not open
    the file a second time; the caller closes it. ``None`` when its codec goes into none of
    them, the copy would be over ``max_bytes`` or ``max_seconds``, the muxer refuses the stream
    or the copy's bytes do not say its type. `DoesNotFitError` only for the deadline."""
    av = import_av(what)
    try:
        if not container.streams.audio:
            return None
        stream = container.streams.audio[0]
        codec = stream.codec_context.codec.canonical_name
        target = copy_target(codec, accepted)
        if target is None:
            return None
        mime, muxer = target
        buffer = io.BytesIO()
        seconds = _remux(av, container, stream, buffer, muxer, max_bytes, max_seconds, deadline)
        if seconds is None or seconds <= 0:
            return None
        payload = buffer.getvalue()
    except DoesNotFitError:
        raise
    except Exception:  # a muxer refusing the stream, a broken packet: re-encode instead
        return None
    if max_bytes is not None and len(payload) > max_bytes:
        return None
    if detect_mime(payload) != mime:  # a broken codec header copied along: re-encode instead
        return None
    return CopiedAudio(payload, mime, codec, seconds)


def _remux(
    av: Any,
    container: Any,
    stream: Any,
    buffer: io.BytesIO,
    muxer: str,
    max_bytes: int | None,
    max_seconds: float,
    deadline: Deadline,
) -> float | None:
    """Seconds copied into ``buffer``; ``None`` when over a limit."""
    output = av.open(buffer, mode="w", format=muxer)
    with output:
        out_stream = output.add_stream_from_template(stream)
        time_base = stream.time_base
        # Integer ticks, not Fractions, in the loop: it runs once per packet (50 a second).
        max_ticks = int(max_seconds / time_base) if math.isfinite(max_seconds) else None
        first: int | None = None
        end = copied = 0
        for count, packet in enumerate(container.demux(stream)):
            if count % 64 == 0:
                deadline.check()
                if max_bytes is not None and buffer.tell() > max_bytes:
                    return None
            if packet.dts is None or packet.size == 0:
                continue  # the flush packet demux ends with
            pts = packet.pts if packet.pts is not None else packet.dts
            if first is None:
                first = pts
            end = max(end, pts - first + (packet.duration or 0))
            if max_ticks is not None and end > max_ticks:
                return None
            packet.stream = out_stream
            output.mux(packet)
            copied += 1
    if copied < _FEWEST_PACKETS:
        return None
    return float(end * time_base)
