"""Audio made ready for one transcription endpoint, and the answers for its pieces put together.

`pieces_for` sends a block as it is when the endpoint takes its type and size; otherwise it is
decoded in a conversion worker and cut into 16 kHz mono WAV pieces under the endpoint's byte
limit that overlap by a few seconds (`mediablocks.convert.speech`). `merge` puts the pieces'
transcripts back on one time line: each segment is placed at its piece's offset, and where two
pieces overlap, each keeps the segments whose middle falls in its half of the overlap, so a
sentence cut at a piece's end is kept whole from the next piece, and is not said twice.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

from ..fetching.policy import FetchPolicy
from ..media import AudioBlock
from ..usage import Usage
from .types import Transcript, TranscriptSegment

__all__ = ["EXTENSIONS", "Piece", "merge", "pieces_for"]

EXTENSIONS = {
    "audio/flac": ".flac",
    "audio/mpeg": ".mp3",
    "audio/mp4": ".m4a",
    "audio/ogg": ".ogg",
    "audio/opus": ".ogg",
    "audio/wav": ".wav",
    "audio/webm": ".webm",
    "audio/aac": ".aac",
    "audio/aiff": ".aiff",
}
"""The file name extension endpoints read a format from (they look at the name, not the bytes)."""


@dataclass(frozen=True)
class Piece:
    """Audio to send in one request: ``start`` seconds into the block, ``duration`` long."""

    data: bytes
    mime_type: str
    filename: str
    start: float
    duration: float | None


def pieces_for(
    block: AudioBlock,
    *,
    accepted: frozenset[str],
    max_bytes: int | None,
    overlap: float,
    max_seconds: float | None = None,
    policy: FetchPolicy | None = None,
) -> list[Piece]:
    """``block`` as the pieces to send: itself when ``accepted`` holds its type and it is within
    ``max_bytes`` (and ``max_seconds`` is unset); else overlapping 16 kHz mono WAV pieces."""
    from ..convert import speech
    from ..convert.isolation import run_isolated

    data = block.read(policy)
    stem = os.path.splitext(block.filename or "audio")[0] or "audio"
    mime = block.mime_type
    fits = max_bytes is None or len(data) <= max_bytes
    if mime in accepted and fits and max_seconds is None:
        return [Piece(data, mime, stem + EXTENSIONS.get(mime, ""), 0.0, None)]
    length = speech.max_piece_seconds(max_bytes)
    if max_seconds is not None:
        length = min(length, max_seconds)
    what = block.describe()
    result = run_isolated(
        what,
        speech.speech_pieces,
        data,
        keywords={
            "what": what,
            "piece_seconds": length,
            "overlap": overlap if math.isfinite(length) else 0.0,
        },
        converter="FFmpeg (PyAV)",
    )
    many = len(result.pieces) > 1
    return [
        Piece(
            piece.data,
            piece.mime_type,
            f"{stem}-part{number}.wav" if many else f"{stem}.wav",
            piece.start,
            piece.duration,
        )
        for number, piece in enumerate(result.pieces, 1)
    ]


def merge(answers: Sequence[tuple[Piece, Transcript]], model: str | None) -> Transcript:
    """One transcript from the pieces' transcripts (in order), on the block's time line."""
    if len(answers) == 1:
        piece, transcript = answers[0]
        update = {"model": transcript.model or model}
        if transcript.duration is None and piece.duration is not None:
            update["duration"] = piece.duration  # type: ignore[assignment]
        return transcript.model_copy(update=update)
    segments: list[TranscriptSegment] = []
    usage: Usage | None = None
    language = None
    for index, (piece, transcript) in enumerate(answers):
        low = -math.inf if index == 0 else _cut(answers[index - 1][0], piece)
        high = math.inf if index == len(answers) - 1 else _cut(piece, answers[index + 1][0])
        timed = transcript.segments or (
            TranscriptSegment(
                start=0.0, end=piece.duration or transcript.end or 0.0, text=transcript.text
            ),
        )
        for segment in timed:
            start = piece.start + segment.start
            middle = start + (segment.end - segment.start) / 2
            if low <= middle < high or not transcript.segments:
                segments.append(
                    TranscriptSegment(start=start, end=piece.start + segment.end, text=segment.text)
                )
        if transcript.usage is not None:
            usage = transcript.usage if usage is None else usage + transcript.usage
        language = language or transcript.language
    last = answers[-1][0]
    duration = None if last.duration is None else last.start + last.duration
    return Transcript(
        segments=tuple(segments), duration=duration, language=language, model=model, usage=usage
    )


def _cut(earlier: Piece, later: Piece) -> float:
    """The middle of the stretch two pieces share: the earlier keeps what starts before it."""
    end = earlier.start + (earlier.duration or 0.0)
    return (later.start + max(end, later.start)) / 2
