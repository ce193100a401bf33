"""`MediaInfo`: what the headers say about a piece of media."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MediaInfo:
    """What the headers say about a piece of media; ``None`` where they say nothing.

    ``width``/``height`` are display dimensions (EXIF/irot/track rotation applied). ``frames`` is
    the number of animation frames of an image (1 for a still image). ``duration`` is in seconds
    (audio, video, and animated images whose frame delays are known). ``pages`` is a PDF's count.
    """

    mime_type: str
    width: int | None = None
    height: int | None = None
    frames: int | None = None
    duration: float | None = None
    sample_rate: int | None = None
    channels: int | None = None
    pages: int | None = None
