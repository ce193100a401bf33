"""OpenAI's token formula: tokens from header facts, each constant with its source."""

from __future__ import annotations

import math
from typing import Any

from .._formula import PDF_PAGE_SIZE, PDF_TEXT_PER_PAGE, TokenFormula, match_model

# https://platform.openai.com/docs/guides/images-vision#calculating-costs
# Tile models: fit in 2048x2048, shortest side to 768 (downscale only), 512 px tiles;
# tokens = base + tile * tiles; detail "low" = base. Per-model (base, tile):
_OPENAI_TILES: list[tuple[str, tuple[int, int]]] = [
    (r"gpt-4o-mini", (2833, 5667)),
    (r"gpt-5", (70, 140)),  # gpt-5, gpt-5-chat-latest and later full-size gpt-5.x
    (r"o1|o3", (75, 150)),  # o1, o1-pro, o3
    (r"computer-use-preview", (65, 129)),
    (r"gpt-4o|gpt-4\.1|gpt-4\.5|chatgpt-4o|gpt-4-turbo", (85, 170)),
]
# Patch models: 32 px patches, at most 1536 (the image is scaled down to fit), times a multiplier.
_OPENAI_PATCHES: list[tuple[str, float]] = [
    (r"gpt-5(\.\d+)?-mini", 1.62),
    (r"gpt-5(\.\d+)?-nano", 2.46),
    (r"gpt-4\.1-mini", 1.62),
    (r"gpt-4\.1-nano", 2.46),
    (r"o4-mini", 1.72),
]
_OPENAI_DEFAULT_TILES = (85, 170)  # no model given: the gpt-4o / gpt-4.1 rule
_OPENAI_PATCH = 32
_OPENAI_MAX_PATCHES = 1536
# OpenAI does not publish a per-second rule for audio input in Chat Completions; its Realtime
# guide counts user audio at one token per 100 ms, which we use as the estimate.
_OPENAI_AUDIO_PER_SECOND = 10


def _openai_tiles(width: int, height: int, base: int, tile: int) -> int:
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return base + tile * math.ceil(w / 512) * math.ceil(h / 512)


def _openai_patches(width: int, height: int, multiplier: float) -> int:
    patches = math.ceil(width / _OPENAI_PATCH) * math.ceil(height / _OPENAI_PATCH)
    if patches > _OPENAI_MAX_PATCHES:
        shrink = math.sqrt(_OPENAI_PATCH**2 * _OPENAI_MAX_PATCHES / (width * height))
        across, down = width * shrink / _OPENAI_PATCH, height * shrink / _OPENAI_PATCH
        shrink *= min(math.floor(across) / across, math.floor(down) / down)
        w, h = int(width * shrink), int(height * shrink)
        patches = math.ceil(w / _OPENAI_PATCH) * math.ceil(h / _OPENAI_PATCH)
    return round(min(patches, _OPENAI_MAX_PATCHES) * multiplier)


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """Tile models by tiles (``detail=\"low\"``: the base), patch models by patches."""
    multiplier = match_model(model, _OPENAI_PATCHES)
    if multiplier is not None:
        return _openai_patches(width, height, multiplier)  # detail does not change patches
    base, tile = match_model(model, _OPENAI_TILES) or _OPENAI_DEFAULT_TILES
    if detail == "low":
        return int(base)
    return _openai_tiles(width, height, base, tile)


def pdf_page(model: str | None, media_resolution: Any) -> int:
    """A PDF page: its text and its image (OpenAI sends both to the model)."""
    return PDF_TEXT_PER_PAGE + image(*PDF_PAGE_SIZE, model, None, None)


FORMULA = TokenFormula(image=image, audio_per_second=_OPENAI_AUDIO_PER_SECOND, pdf_page=pdf_page)
