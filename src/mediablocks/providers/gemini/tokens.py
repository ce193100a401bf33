"""Gemini's token formula: tokens from header facts, each constant with its source."""

from __future__ import annotations

import math
import re
from typing import Any

from .._formula import TokenFormula

# https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens
# Images with both sides <= 384 px: 258 tokens; larger ones are cropped and scaled into
# 768x768 tiles of 258 tokens each. Audio: 32 tokens/s. Video: 263 tokens/s. PDF: 258/page.
_GEMINI_SMALL_SIDE = 384
_GEMINI_TILE = 768
_GEMINI_TILE_TOKENS = 258
_GEMINI_AUDIO_PER_SECOND = 32
_GEMINI_VIDEO_PER_SECOND = 263
_GEMINI_PDF_PAGE = 258
# https://ai.google.dev/gemini-api/docs/media-resolution#token-counts (Gemini 3 only):
# a fixed budget per image / PDF page / video frame by media_resolution level.
_GEMINI3_IMAGE = {"low": 280, "medium": 560, "high": 1120, "ultra_high": 2240}
_GEMINI3_PDF = {"low": 280, "medium": 560, "high": 1120, "ultra_high": 1120}
_GEMINI3_FRAME = {"low": 70, "medium": 70, "high": 280, "ultra_high": 280}
_GEMINI3_DEFAULT = {"image": "high", "pdf": "medium", "video": "low"}


def _tiles(width: int, height: int) -> int:
    if width <= _GEMINI_SMALL_SIDE and height <= _GEMINI_SMALL_SIDE:
        return _GEMINI_TILE_TOKENS
    tiles = math.ceil(width / _GEMINI_TILE) * math.ceil(height / _GEMINI_TILE)
    return _GEMINI_TILE_TOKENS * tiles


def is_gemini3(model: str | None) -> bool:
    return model is not None and bool(re.match(r"gemini-([3-9]|\d\d)", model.lower()))


def _gemini_level(value: Any, kind: str) -> str:
    if isinstance(value, dict):
        value = value.get("level")
    if isinstance(value, str):
        level = value.lower().removeprefix("media_resolution_")
        if level in _GEMINI3_IMAGE:
            return level
    return _GEMINI3_DEFAULT[kind]


def image(
    width: int, height: int, model: str | None, detail: str | None, media_resolution: Any
) -> int:
    """Gemini 3: a fixed budget by ``media_resolution``; earlier models: 768 px tiles."""
    if is_gemini3(model):
        return _GEMINI3_IMAGE[_gemini_level(media_resolution, "image")]
    return _tiles(width, height)


def _needs_size(model: str | None) -> bool:
    return not is_gemini3(model)


def video(seconds: float, model: str | None, media_resolution: Any) -> int:
    """Gemini 3: one frame a second at its level, plus the audio; earlier: 263 tokens/s."""
    if is_gemini3(model):
        level = _gemini_level(media_resolution, "video")
        return math.ceil(seconds * (_GEMINI3_FRAME[level] + _GEMINI_AUDIO_PER_SECOND))
    return math.ceil(seconds * _GEMINI_VIDEO_PER_SECOND)


def pdf_page(model: str | None, media_resolution: Any) -> int:
    """A PDF page: Gemini 3 by level, earlier models 258."""
    if is_gemini3(model):
        return _GEMINI3_PDF[_gemini_level(media_resolution, "pdf")]
    return _GEMINI_PDF_PAGE


FORMULA = TokenFormula(
    image=image,
    image_needs_size=_needs_size,
    audio_per_second=_GEMINI_AUDIO_PER_SECOND,
    video=video,
    pdf_page=pdf_page,
)
