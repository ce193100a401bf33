"""The token-formula schema every provider fills in, and the shared text rule.

Each provider's ``tokens.py`` defines a ``FORMULA`` (a `TokenFormula`) from its published rules;
`mediablocks.tokens.estimate_tokens` looks it up in the registry. Kept here, below the registry
and the provider packages, so they import nothing above them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CHARS_PER_TOKEN",
    "PDF_PAGE_SIZE",
    "PDF_TEXT_PER_PAGE",
    "TokenFormula",
    "match_model",
    "text_tokens",
]


CHARS_PER_TOKEN = 4
"""Characters per token for text estimates (`count_tokens` and `estimate_tokens` share it)."""

# https://docs.anthropic.com/en/docs/build-with-claude/pdf-support#estimate-your-costs
# "text token costs are typically 1,500-3,000 tokens per page", plus each page as an image.
# We take the low end for text and a US Letter page (8.5 x 11 in at 200 dpi) for the image.
PDF_TEXT_PER_PAGE = 1500
PDF_PAGE_SIZE = (1700, 2200)


def text_tokens(text: str) -> int:
    """Tokens of plain text: ``ceil(len(text) / CHARS_PER_TOKEN)``, as `count_tokens` counts."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _always(model: str | None) -> bool:
    return True


@dataclass(frozen=True)
class TokenFormula:
    """One provider's published token rules (``providers/<name>/tokens.py`` defines ``FORMULA``).

    ``image(width, height, model, detail, media_resolution)`` counts one image;
    ``image_needs_size(model)`` is False where the count is fixed (no header read);
    ``audio_per_second`` is None where the provider takes no audio; ``video(seconds, model,
    media_resolution)`` is None where it takes no video, and ``video_refusal`` says why a video it
    takes has no estimate; ``pdf_page(model, media_resolution)`` is None where it takes no PDF.
    """

    image: Callable[[int, int, str | None, str | None, Any], int]
    image_needs_size: Callable[[str | None], bool] = _always
    audio_per_second: float | None = None
    video: Callable[[float, str | None, Any], int] | None = None
    video_refusal: str | None = None
    pdf_page: Callable[[str | None, Any], int] | None = None


def match_model(model: str | None, table: Sequence[tuple[str, Any]]) -> Any:
    """The value of the first ``(pattern, value)`` row whose pattern matches the model name."""
    if model is None:
        return None
    name = model.lower().rsplit("/", 1)[-1]
    for pattern, value in table:
        if re.match(pattern, name):
            return value
    return None
