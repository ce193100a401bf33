"""Bedrock's token formula: tokens from header facts, each constant with its source."""

from __future__ import annotations

import math
from typing import Any

from .._formula import PDF_PAGE_SIZE, PDF_TEXT_PER_PAGE, TokenFormula
from ..anthropic.tokens import scaled_image

# Claude on Bedrock: the Anthropic rule. Amazon Nova (v1):
# https://docs.aws.amazon.com/nova/latest/userguide/modalities-image.html#modalities-image-tokens
# gives approximate counts for sample sizes; the image counts as the nearest row (by aspect
# ratio, then area). Nova 2 bills a flat 230 tokens per image:
# https://docs.aws.amazon.com/nova/latest/nova2-userguide/using-multimodal-models.html
_NOVA_TABLE: list[tuple[int, int, int]] = [
    (900, 450, 800),
    (900, 900, 1300),
    (1400, 900, 1800),
    (1800, 900, 2400),
    (1300, 1300, 2600),
]
_NOVA2_IMAGE = 230


def _nova_image(width: int, height: int) -> int:
    long, short = max(width, height), min(width, height)

    def distance(row: tuple[int, int, int]) -> tuple[float, float]:
        aspect = abs(math.log((long / short) / (row[0] / row[1])))
        area = abs(math.log(long * short / (row[0] * row[1])))
        return round(aspect, 2), area

    return min(_NOVA_TABLE, key=distance)[2]


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """Nova 2: flat; Nova: the nearest row of Amazon's table; Claude and others: Anthropic's."""
    family = (model or "").lower()
    if "nova-2" in family:
        return _NOVA2_IMAGE
    if "nova" in family:
        return _nova_image(width, height)
    return scaled_image(width, height)


def pdf_page(model: str | None, media_resolution: Any) -> int:
    """A PDF page: its text and its image."""
    return PDF_TEXT_PER_PAGE + image(*PDF_PAGE_SIZE, model, None, None)


FORMULA = TokenFormula(
    image=image,
    pdf_page=pdf_page,
    video_refusal="no documented token rule for video at bedrock",
)
