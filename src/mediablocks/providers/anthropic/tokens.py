"""Anthropic's token formula: tokens from header facts, each constant with its source."""

from __future__ import annotations

import math
from typing import Any

from .._formula import PDF_PAGE_SIZE, PDF_TEXT_PER_PAGE, TokenFormula

# https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
# tokens = width * height / 750, after scaling down (aspect kept) to a long edge of at most
# 1568 px and at most about 1,600 tokens (1.2 megapixels).
_ANTHROPIC_PIXELS_PER_TOKEN = 750
_ANTHROPIC_MAX_EDGE = 1568
_ANTHROPIC_MAX_TOKENS = 1600


def scaled_image(width: int, height: int) -> int:
    """``w * h / 750`` after scaling down to 1568 px and about 1,600 tokens."""
    max_pixels = _ANTHROPIC_MAX_TOKENS * _ANTHROPIC_PIXELS_PER_TOKEN
    scale = min(
        1.0, _ANTHROPIC_MAX_EDGE / max(width, height), math.sqrt(max_pixels / (width * height))
    )
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    return math.ceil(w * h / _ANTHROPIC_PIXELS_PER_TOKEN)


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """Anthropic's rule: the same for every model."""
    return scaled_image(width, height)


def pdf_page(model: str | None, media_resolution: Any) -> int:
    """A PDF page: its text and its image."""
    return PDF_TEXT_PER_PAGE + scaled_image(*PDF_PAGE_SIZE)


FORMULA = TokenFormula(image=image, pdf_page=pdf_page)
