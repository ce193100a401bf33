"""Ollama's token formula: tokens from header facts, each constant with its source."""

from __future__ import annotations

from typing import Any

from .._formula import TokenFormula, match_model

# Local models differ; an approximation by family: LLaVA-style CLIP 336 px / 14 px encoders give
# 24 x 24 = 576 image tokens, Gemma 3's SigLIP gives 256 (Gemma 3 technical report).
_OLLAMA_IMAGE = [(r"gemma3", 256)]
_OLLAMA_DEFAULT_IMAGE = 576


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """A fixed count per image by model family."""
    count: int = match_model(model, _OLLAMA_IMAGE) or _OLLAMA_DEFAULT_IMAGE
    return count


def _needs_size(model: str | None) -> bool:
    return False


FORMULA = TokenFormula(image=image, image_needs_size=_needs_size)
