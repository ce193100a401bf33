"""Mistral's token formula: tokens from header facts, each constant with its source."""

from __future__ import annotations

import math
from typing import Any

from .._formula import PDF_PAGE_SIZE, PDF_TEXT_PER_PAGE, TokenFormula

# https://mistralai.github.io/mistral-common/usage/images : the image is scaled down to fit
# max_image_size, cut into (patch * spatial_merge) px squares, one token each, plus one
# [IMG_BREAK]/[IMG_END] token per row. Pixtral 12B: 16 px patches, 1024 px, no merge; later
# vision models (Mistral Small 3.1+, Medium, Pixtral Large): 14 px patches merged 2x2, 1540 px.
_MISTRAL_PIXTRAL_12B = (16, 1024)
_MISTRAL_DEFAULT = (28, 1540)
# Voxtral encodes audio at 12.5 frames per second (Voxtral technical report, arXiv 2507.13264).
_MISTRAL_AUDIO_PER_SECOND = 12.5


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """Patch cells of the scaled image, plus one break token per row."""
    is_12b = model is not None and "pixtral-12b" in model.lower()
    cell, max_side = _MISTRAL_PIXTRAL_12B if is_12b else _MISTRAL_DEFAULT
    ratio = max(width / max_side, height / max_side)
    if ratio > 1:
        width, height = max(1, round(width / ratio)), max(1, round(height / ratio))
    columns, rows = math.ceil(width / cell), math.ceil(height / cell)
    return rows * columns + rows


def pdf_page(model: str | None, media_resolution: Any) -> int:
    """A PDF page: its text and its image."""
    return PDF_TEXT_PER_PAGE + image(*PDF_PAGE_SIZE, model, None, None)


FORMULA = TokenFormula(image=image, audio_per_second=_MISTRAL_AUDIO_PER_SECOND, pdf_page=pdf_page)
