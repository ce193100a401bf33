"""What preparation changed (`Change`) and its default budgets: plain values, no Pillow, no PyAV.

`prepare` and the converters share these, and `import mediablocks` loads them without loading an
image or media library. `mediablocks.images` and `mediablocks.convert.video` re-export them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .usage import Usage

__all__ = ["DEFAULT_MAX_FRAMES", "DEFAULT_MAX_IMAGE_PIXELS", "Change"]

DEFAULT_MAX_IMAGE_PIXELS = 100_000_000
"""Images with more pixels than this are refused as decompression bombs (about 100 MP: every
phone and most cameras are below it). Pass ``max_image_pixels`` to change it."""

DEFAULT_MAX_FRAMES = 20
"""Frames taken from one video when the caller sets no budget."""


@dataclass(frozen=True)
class Change:
    """One thing preprocessing changed: ``kind`` is a short tag, ``detail`` says what exactly.

    Kinds: ``orientation``, ``metadata``, ``converted``, ``first_frame``, ``resized``,
    ``re-encoded``, ``transcoded``; ``transcribed`` and ``described`` when text stands in for
    media (``usage``: what the transcriber or describer said the call cost, ``None`` when it
    said nothing or when ``cached``: the stand-in cache answered and nothing was called).
    """

    kind: str
    detail: str
    usage: Usage | None = field(default=None, compare=False)
    cached: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"
