"""Cohere's token estimate: images cost by 512 px tiles, text by the shared estimate."""

from __future__ import annotations

import math
from typing import Any

from .._formula import TokenFormula

# An estimate, not a published formula: Command A Vision is documented to take a 512 x 512
# image as about 1,610 tokens (Oracle's Command A Vision page, the same model served there), and
# "low" detail as one small tile. We count 1,610 per started 512 px tile at high detail.
_TOKENS_PER_TILE = 1610
_TILE = 512
_LOW_DETAIL = 256


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """About 1,610 tokens per 512 px tile (``detail="low"``: one small tile)."""
    if detail == "low":
        return _LOW_DETAIL
    return math.ceil(width / _TILE) * math.ceil(height / _TILE) * _TOKENS_PER_TILE


FORMULA = TokenFormula(image=image)
