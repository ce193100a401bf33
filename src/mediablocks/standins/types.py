"""What a stand-in produces: a `Transcript` (timed text of what is said) or a `Description`
(what a model saw or heard), and the shape of the callables that make them.

`prepare(..., transcriber=..., describer=...)` calls the caller's own callables (or the ready-made
ones in this package) only when the provider can take a block in no form, not even converted.
Either may return plain text; returning a `Transcript` with timed segments lets `prepare` place
the text in time (chunk windows, or between a video's frames). Both are pydantic models so the
stand-in cache keeps them as JSON.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..errors import StandInError
from ..media import AudioBlock, MediaBlock
from ..usage import Usage

__all__ = [
    "Describer",
    "Description",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
    "as_description",
    "as_transcript",
]

MAX_STAND_IN_CHARS = 2_000_000
"""The most characters one transcript or description may hold (about 30 hours of speech)."""


class TranscriptSegment(BaseModel):
    """One stretch of speech: ``start`` and ``end`` in seconds from the start of the audio."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: float = Field(ge=0)
    end: float = Field(ge=0)
    text: str

    @model_validator(mode="after")
    def _ordered(self) -> TranscriptSegment:
        if not (math.isfinite(self.start) and math.isfinite(self.end)):
            raise ValueError("segment times must be finite")
        if self.end < self.start:
            raise ValueError(f"segment ends ({self.end}) before it starts ({self.start})")
        return self


class Transcript(BaseModel):
    """What a transcriber heard.

    ``text`` is the whole transcript; ``segments`` (optional) time it, in order. ``duration`` is
    the length of the audio transcribed, in seconds, when the transcriber knows it; ``usage``
    what the call cost (seconds of audio, tokens, money), as the transcriber reports it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    segments: tuple[TranscriptSegment, ...] = ()
    duration: float | None = Field(default=None, ge=0)
    language: str | None = None
    model: str | None = None
    usage: Usage | None = None

    @field_validator("segments")
    @classmethod
    def _in_order(cls, value: tuple[TranscriptSegment, ...]) -> tuple[TranscriptSegment, ...]:
        return tuple(sorted(value, key=lambda segment: (segment.start, segment.end)))

    @model_validator(mode="after")
    def _text_from_segments(self) -> Transcript:
        if not self.text and self.segments:
            joined = " ".join(s.text.strip() for s in self.segments if s.text.strip())
            object.__setattr__(self, "text", joined)
        if len(self.text) > MAX_STAND_IN_CHARS:
            raise ValueError(f"a transcript holds at most {MAX_STAND_IN_CHARS:,} characters")
        return self

    @property
    def end(self) -> float | None:
        """Where the transcribed audio ends: its duration, else the last segment's end."""
        if self.duration is not None:
            return self.duration
        return self.segments[-1].end if self.segments else None


class Description(BaseModel):
    """What a describer saw or heard in a block, as text for a model that cannot take it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    model: str | None = None
    usage: Usage | None = None

    @field_validator("text")
    @classmethod
    def _bounded(cls, value: str) -> str:
        if len(value) > MAX_STAND_IN_CHARS:
            raise ValueError(f"a description holds at most {MAX_STAND_IN_CHARS:,} characters")
        return value


TranscriptLike = Union[Transcript, str]
DescriptionLike = Union[Description, str]

Transcriber = Callable[[AudioBlock], Union[TranscriptLike, Awaitable[TranscriptLike]]]
"""A transcriber: called with an `AudioBlock` (the audio itself, or a video's audio track), it
returns a `Transcript` or plain text, or an awaitable of either (an ``async def``)."""

Describer = Callable[[MediaBlock], Union[DescriptionLike, Awaitable[DescriptionLike]]]
"""A describer: called with any media block, it returns a `Description` or plain text, or an
awaitable of either."""


def as_transcript(value: Any, who: str) -> Transcript:
    """A transcriber's answer as a `Transcript`; `StandInError` naming ``who`` otherwise."""
    return _answer(Transcript, value, who, "transcript", "a transcriber")


def as_description(value: Any, who: str) -> Description:
    """A describer's answer as a `Description`; `StandInError` naming ``who`` otherwise."""
    return _answer(Description, value, who, "description", "a describer")


_Answer = TypeVar("_Answer", Transcript, Description)


def _answer(kind: type[_Answer], value: Any, who: str, noun: str, maker: str) -> _Answer:
    """``value`` as ``kind``: itself, text, or its JSON form; `StandInError` otherwise."""
    if isinstance(value, kind):
        return value
    try:
        if isinstance(value, str):
            return kind(text=value)
        if isinstance(value, dict):
            return kind.model_validate(value)
    except ValueError as exc:
        raise StandInError(f"{who} returned an unusable {noun}: {exc}") from None
    raise StandInError(
        f"{who} returned a {type(value).__name__}; {maker} returns text or a {kind.__name__}"
    )
