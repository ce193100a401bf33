"""Token estimates per provider, from header facts: no pixel decoding, no network.

`estimate_tokens` takes one block, one message, or a list of messages (or blocks). Text follows
`mediablocks.history.CHARS_PER_TOKEN` (one token per four characters, rounded up), the same rule
`count_tokens` uses, so the two agree. Media follow each provider's published rule; every
constant below names its source, and ``docs/tokens.md`` works through examples.

What is not knowable without I/O is refused loudly rather than guessed: a URL block not fetched
yet, or a provider file id, raises `SourceError` (read the block first, or count it yourself).
A kind of media a provider cannot take raises `UnsupportedBlockError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ._checks import check_size
from .blocks import RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from .errors import (
    DecodeError,
    MediaBlocksError,
    SourceError,
    UnsupportedBlockError,
)
from .history import CHARS_PER_TOKEN
from .media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from .probe import MediaInfo, probe
from .providers._options import canonical_provider
from .sources import FileIdSource, URLSource

__all__ = ["estimate_tokens", "image_tokens", "text_tokens"]


def text_tokens(text: str) -> int:
    """Tokens of plain text: ``ceil(len(text) / CHARS_PER_TOKEN)``, as `count_tokens` counts."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


# -- OpenAI -----------------------------------------------------------------------------------
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

# -- Anthropic ----------------------------------------------------------------------------------
# https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
# tokens = width * height / 750, after scaling down (aspect kept) to a long edge of at most
# 1568 px and at most about 1,600 tokens (1.2 megapixels).
_ANTHROPIC_PIXELS_PER_TOKEN = 750
_ANTHROPIC_MAX_EDGE = 1568
_ANTHROPIC_MAX_TOKENS = 1600
# https://docs.anthropic.com/en/docs/build-with-claude/pdf-support#estimate-your-costs
# "text token costs are typically 1,500-3,000 tokens per page", plus each page as an image.
# We take the low end for text and a US Letter page (8.5 x 11 in at 200 dpi) for the image.
_PDF_TEXT_PER_PAGE = 1500
_PDF_PAGE_SIZE = (1700, 2200)

# -- Gemini -------------------------------------------------------------------------------------
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

# -- Bedrock ------------------------------------------------------------------------------------
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

# -- Mistral ------------------------------------------------------------------------------------
# https://mistralai.github.io/mistral-common/usage/images : the image is scaled down to fit
# max_image_size, cut into (patch * spatial_merge) px squares, one token each, plus one
# [IMG_BREAK]/[IMG_END] token per row. Pixtral 12B: 16 px patches, 1024 px, no merge; later
# vision models (Mistral Small 3.1+, Medium, Pixtral Large): 14 px patches merged 2x2, 1540 px.
_MISTRAL_PIXTRAL_12B = (16, 1024)
_MISTRAL_DEFAULT = (28, 1540)
# Voxtral encodes audio at 12.5 frames per second (Voxtral technical report, arXiv 2507.13264).
_MISTRAL_AUDIO_PER_SECOND = 12.5

# -- Ollama -------------------------------------------------------------------------------------
# Local models differ; an approximation by family: LLaVA-style CLIP 336 px / 14 px encoders give
# 24 x 24 = 576 image tokens, Gemma 3's SigLIP gives 256 (Gemma 3 technical report).
_OLLAMA_IMAGE = [(r"gemma3", 256)]
_OLLAMA_DEFAULT_IMAGE = 576


# -- image rules ------------------------------------------------------------------------------


def _match(model: str | None, table: Sequence[tuple[str, Any]]) -> Any:
    if model is None:
        return None
    name = model.lower().rsplit("/", 1)[-1]
    for pattern, value in table:
        if re.match(pattern, name):
            return value
    return None


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


def _openai_image(width: int, height: int, model: str | None, detail: str | None) -> int:
    multiplier = _match(model, _OPENAI_PATCHES)
    if multiplier is not None:
        return _openai_patches(width, height, multiplier)  # detail does not change patches
    base, tile = _match(model, _OPENAI_TILES) or _OPENAI_DEFAULT_TILES
    if detail == "low":
        return int(base)
    return _openai_tiles(width, height, base, tile)


def _anthropic_image(width: int, height: int) -> int:
    max_pixels = _ANTHROPIC_MAX_TOKENS * _ANTHROPIC_PIXELS_PER_TOKEN
    scale = min(
        1.0, _ANTHROPIC_MAX_EDGE / max(width, height), math.sqrt(max_pixels / (width * height))
    )
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    return math.ceil(w * h / _ANTHROPIC_PIXELS_PER_TOKEN)


def _gemini_image(width: int, height: int) -> int:
    if width <= _GEMINI_SMALL_SIDE and height <= _GEMINI_SMALL_SIDE:
        return _GEMINI_TILE_TOKENS
    tiles = math.ceil(width / _GEMINI_TILE) * math.ceil(height / _GEMINI_TILE)
    return _GEMINI_TILE_TOKENS * tiles


def _nova_image(width: int, height: int) -> int:
    long, short = max(width, height), min(width, height)

    def distance(row: tuple[int, int, int]) -> tuple[float, float]:
        aspect = abs(math.log((long / short) / (row[0] / row[1])))
        area = abs(math.log(long * short / (row[0] * row[1])))
        return round(aspect, 2), area

    return min(_NOVA_TABLE, key=distance)[2]


def _mistral_image(width: int, height: int, model: str | None) -> int:
    is_12b = model is not None and "pixtral-12b" in model.lower()
    cell, max_side = _MISTRAL_PIXTRAL_12B if is_12b else _MISTRAL_DEFAULT
    ratio = max(width / max_side, height / max_side)
    if ratio > 1:
        width, height = max(1, round(width / ratio)), max(1, round(height / ratio))
    columns, rows = math.ceil(width / cell), math.ceil(height / cell)
    return rows * columns + rows


def image_tokens(
    width: int,
    height: int,
    provider: str,
    *,
    model: str | None = None,
    detail: str | None = None,
    media_resolution: str | None = None,
) -> int:
    """Tokens for an image of ``width`` x ``height`` pixels (its display size) at a provider.

    ``detail`` is OpenAI's image detail (``"low"`` = the base cost of tile models);
    ``media_resolution`` is Gemini 3's level (``"low"``, ``"medium"``, ``"high"``,
    ``"ultra_high"``). Both are ignored where they do not apply.
    """
    check_size("image_tokens", "width", width)  # a positive int: not NaN, "5" or True
    check_size("image_tokens", "height", height)
    name = canonical_provider(provider)
    if name in ("openai-chat", "openai-responses"):
        return _openai_image(width, height, model, detail)
    if name == "anthropic":
        return _anthropic_image(width, height)
    if name == "gemini":
        if _is_gemini3(model):
            return _GEMINI3_IMAGE[_gemini_level(media_resolution, "image")]
        return _gemini_image(width, height)
    if name == "bedrock":
        family = (model or "").lower()
        if "nova-2" in family:
            return _NOVA2_IMAGE
        if "nova" in family:
            return _nova_image(width, height)
        return _anthropic_image(width, height)  # Claude, and the rule we use for other families
    if name == "mistral":
        return _mistral_image(width, height, model)
    return _match(model, _OLLAMA_IMAGE) or _OLLAMA_DEFAULT_IMAGE


def _is_gemini3(model: str | None) -> bool:
    return model is not None and bool(re.match(r"gemini-([3-9]|\d\d)", model.lower()))


def _gemini_level(value: Any, kind: str) -> str:
    if isinstance(value, dict):
        value = value.get("level")
    if isinstance(value, str):
        level = value.lower().removeprefix("media_resolution_")
        if level in _GEMINI3_IMAGE:
            return level
    return _GEMINI3_DEFAULT[kind]


# -- blocks -----------------------------------------------------------------------------------

_AUDIO_PER_SECOND: dict[str, float] = {
    "openai-chat": _OPENAI_AUDIO_PER_SECOND,
    "openai-responses": _OPENAI_AUDIO_PER_SECOND,
    "gemini": _GEMINI_AUDIO_PER_SECOND,
    "mistral": _MISTRAL_AUDIO_PER_SECOND,
}


def _require_local(block: MediaBlock) -> None:
    """Refuse a block whose bytes are elsewhere: estimates never use the network."""
    source = block.source
    if isinstance(source, FileIdSource) or (isinstance(source, URLSource) and not source.loaded):
        where = "stored at a provider" if isinstance(source, FileIdSource) else "not fetched yet"
        raise SourceError(
            f"{block.describe()}: cannot estimate tokens: its bytes are {where}, and "
            "estimate_tokens never uses the network (read the block first)"
        )


def _local_info(block: MediaBlock) -> MediaInfo:
    """Header facts without network I/O."""
    _require_local(block)
    return probe(block)


def _unknown(block: MediaBlock, what: str) -> DecodeError:
    return DecodeError(f"{block.describe()}: cannot estimate tokens: the header gives no {what}")


def _media_tokens(block: MediaBlock, provider: str, model: str | None) -> int:
    if isinstance(block, ImageBlock):
        width, height = 1, 1  # a fixed count per image needs no header (Ollama, Gemini 3)
        if provider != "ollama" and not (provider == "gemini" and _is_gemini3(model)):
            info = _local_info(block)
            if not info.width or not info.height:
                raise _unknown(block, "image size")
            width, height = info.width, info.height
        options = block.for_provider(provider)
        return image_tokens(
            width,
            height,
            provider,
            model=model,
            detail=block.detail or options.get("detail"),
            media_resolution=options.get("media_resolution"),
        )
    if isinstance(block, AudioBlock):
        rate = _AUDIO_PER_SECOND.get(provider)
        if rate is None:
            raise _unsupported(block, provider)
        info = _local_info(block)
        if info.duration is None:
            raise _unknown(block, "duration")
        return math.ceil(info.duration * rate)
    if isinstance(block, VideoBlock):
        if provider == "bedrock":  # Nova takes video, but Amazon publishes no token rule for it
            raise UnsupportedBlockError(
                f"{block.describe()}: no documented token rule for video at bedrock"
            )
        if provider != "gemini":
            raise _unsupported(block, provider)
        info = _local_info(block)
        if info.duration is None:
            raise _unknown(block, "duration")
        if _is_gemini3(model):
            level = _gemini_level(block.for_provider(provider).get("media_resolution"), "video")
            per_second = _GEMINI3_FRAME[level] + _GEMINI_AUDIO_PER_SECOND  # 1 frame/s + audio
            return math.ceil(info.duration * per_second)
        return math.ceil(info.duration * _GEMINI_VIDEO_PER_SECOND)
    return _file_tokens(block, provider, model)


def _file_tokens(block: MediaBlock, provider: str, model: str | None) -> int:
    mime = block.mime_type
    if mime == "application/pdf":
        if provider == "ollama":
            raise _unsupported(block, provider)
        info = _local_info(block)
        if info.pages is None:
            raise _unknown(block, "page count")
        if provider == "gemini":
            if _is_gemini3(model):
                level = _gemini_level(block.for_provider(provider).get("media_resolution"), "pdf")
                return info.pages * _GEMINI3_PDF[level]
            return info.pages * _GEMINI_PDF_PAGE
        page_image = image_tokens(*_PDF_PAGE_SIZE, provider, model=model)
        return info.pages * (_PDF_TEXT_PER_PAGE + page_image)
    if mime.startswith("text/") or mime.endswith(("/json", "+json", "/xml", "+xml", "/csv")):
        _require_local(block)
        return math.ceil(len(block.read()) / CHARS_PER_TOKEN)  # bytes ~ characters
    raise UnsupportedBlockError(
        f"{block.describe()}: no token rule for {mime} documents (PDF and text files only)"
    )


def _unsupported(block: MediaBlock, provider: str) -> UnsupportedBlockError:
    kind = type(block).__name__.removesuffix("Block").lower()
    return UnsupportedBlockError(
        f"{block.describe()}: {provider} takes no {kind} input, so it has no token estimate"
    )


def _block_tokens(block: Any, provider: str, model: str | None) -> int:
    if isinstance(block, TextBlock):
        return text_tokens(block.text)
    if isinstance(block, ThinkingBlock):
        return text_tokens(block.thinking or block.redacted_data or "")
    if isinstance(block, ToolCallBlock):
        return text_tokens(block.name) + text_tokens(block.raw_args or json.dumps(block.args))
    if isinstance(block, ToolResultBlock):
        if isinstance(block.content, str):
            return text_tokens(block.content)
        return sum(_block_tokens(b, provider, model) for b in block.content)
    if isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
        try:
            return _media_tokens(block, provider, model)
        except MediaBlocksError:
            raise
        except Exception as exc:  # a header parser on hostile bytes
            raise DecodeError(
                f"{block.describe()}: cannot read the media's header ({type(exc).__name__})"
            ) from None
    if isinstance(block, RawBlock):
        return text_tokens(str(block.data))
    raise TypeError(f"estimate_tokens takes blocks and messages, not {type(block).__name__}")


def estimate_tokens(block_or_messages: Any, provider: str, *, model: str | None = None) -> int:
    """An estimate of the input tokens a block, a message or messages cost at ``provider``.

    ``provider`` is a canonical name or alias (``"openai"``); ``model`` picks the model family's
    rule where a provider has several (OpenAI, Gemini 3, Bedrock Nova, Mistral, Ollama).
    Nothing is fetched and no pixel is decoded: sizes, durations and page counts come from
    headers (`mediablocks.probe.probe`).
    """
    name = canonical_provider(provider)
    items = block_or_messages
    if isinstance(items, BaseModel):
        items = [items]
    total = 0
    for item in items:
        if isinstance(item, BaseModel) and hasattr(item, "role"):
            total += sum(_block_tokens(b, name, model) for b in getattr(item, "content", []))
        else:
            total += _block_tokens(item, name, model)
    return total
