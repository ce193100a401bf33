"""Token estimates per provider, from header facts: no pixel decoding, no network.

`estimate_tokens` takes one block, one message, or a list of messages (or blocks). Text follows
`CHARS_PER_TOKEN` (one token per four characters, rounded up), the same rule `count_tokens` uses,
so the two agree. Media follow each provider's published rule, the ``FORMULA`` in its
``providers/<name>/tokens.py`` (every constant there names its source); ``docs/tokens.md`` works
through examples.

What is not knowable without I/O is refused loudly rather than guessed: a URL block not fetched
yet, or a provider file id, raises `SourceError` (read the block first, or count it yourself).
A kind of media a provider cannot take raises `UnsupportedBlockError`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Union

from pydantic import BaseModel

from ._base import BlockBase
from ._checks import check_size
from .blocks import RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from .errors import (
    DecodeError,
    MediaBlocksError,
    SourceError,
    UnsupportedBlockError,
)
from .media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from .messages import sent_content
from .probing import MediaInfo, probe
from .providers._formula import CHARS_PER_TOKEN, TokenFormula, match_model, text_tokens
from .providers._options import canonical_provider
from .providers.registry import limits_for, provider_entry
from .sources import FileIdSource, URLSource

if TYPE_CHECKING:
    from .blocks import Block
    from .message_input import MessageLike

TokenCounted = Union[
    "Block", MediaBlock, "MessageLike", Iterable[Union["Block", MediaBlock, "MessageLike"]]
]
"""What `estimate_tokens` counts: a block, messages as every entry point takes them
(`mediablocks.message_input`), or a list mixing blocks and messages."""

__all__ = [
    "CHARS_PER_TOKEN",
    "TokenFormula",
    "estimate_tokens",
    "image_tokens",
    "match_model",
    "text_tokens",
]


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
    formula = provider_entry(provider).token_formula()
    return formula.image(width, height, model, detail, media_resolution)


# -- blocks -----------------------------------------------------------------------------------


def _require_local(block: MediaBlock) -> None:
    """Refuse a block whose bytes are elsewhere: estimates never use the network."""
    source = block.source
    if isinstance(source, (FileIdSource, URLSource)) and not source.loaded:
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
    formula = provider_entry(provider).token_formula()
    resolution = block.for_provider(provider).get("media_resolution")
    if isinstance(block, ImageBlock):
        width, height = 1, 1  # a fixed count per image needs no header (Ollama, Gemini 3)
        if formula.image_needs_size(model):
            info = _local_info(block)
            if not info.width or not info.height:
                raise _unknown(block, "image size")
            width, height = info.width, info.height
        detail = block.detail or block.for_provider(provider).get("detail")
        return formula.image(width, height, model, detail, resolution)
    if isinstance(block, AudioBlock):
        if formula.audio_per_second is None:
            raise _unsupported(block, provider)
        info = _local_info(block)
        if info.duration is None:
            raise _unknown(block, "duration")
        return math.ceil(info.duration * formula.audio_per_second)
    if isinstance(block, VideoBlock):
        if formula.video_refusal is not None:
            raise UnsupportedBlockError(f"{block.describe()}: {formula.video_refusal}")
        if formula.video is None:
            raise _unsupported(block, provider)
        info = _local_info(block)
        if info.duration is None:
            raise _unknown(block, "duration")
        return formula.video(info.duration, model, resolution)
    return _file_tokens(block, provider, model, formula)


def _file_tokens(block: MediaBlock, provider: str, model: str | None, formula: TokenFormula) -> int:
    mime = block.mime_type
    if mime == "application/pdf":
        if formula.pdf_page is None:
            raise _unsupported(block, provider)
        info = _local_info(block)
        if info.pages is None:
            raise _unknown(block, "page count")
        resolution = block.for_provider(provider).get("media_resolution")
        return info.pages * formula.pdf_page(model, resolution)
    if mime.startswith("text/") or mime.endswith(("/json", "+json", "/xml", "+xml", "/csv")):
        _require_local(block)
        return math.ceil(len(block.read()) / CHARS_PER_TOKEN)  # bytes ~ characters
    raise UnsupportedBlockError(
        f"{block.describe()}: no token rule for {mime} documents (PDF and text files only)"
    )


def _unsupported(block: MediaBlock, provider: str) -> UnsupportedBlockError:
    """No estimate: the provider takes no such input, or takes it but publishes no token rule
    for it (Bedrock audio): the message says which, so nobody reads a gap as a refusal."""
    kind = type(block).__name__.removesuffix("Block").lower()
    if block.mime_type in limits_for(provider).types_for(kind):
        return UnsupportedBlockError(
            f"{block.describe()}: {provider} takes {kind} input but publishes no token rule "
            f"for it, so it has no estimate"
        )
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


def estimate_tokens(
    block_or_messages: TokenCounted, provider: str, *, model: str | None = None
) -> int:
    """An estimate of the input tokens a block, a message or messages cost at ``provider``.

    ``provider`` is a canonical name or alias (``"openai"``); ``model`` picks the model family's
    rule where a provider has several (OpenAI, Gemini 3, Bedrock Nova, Mistral, Ollama).
    Nothing is fetched and no pixel is decoded: sizes, durations and page counts come from
    headers (`mediablocks.probing.probe`).
    """
    from .message_input import as_messages, is_role_pair, message_of

    name = canonical_provider(provider)
    items: Any = block_or_messages
    if isinstance(items, BlockBase):
        return _block_tokens(items, name, model)
    single = isinstance(items, (str, bytes, bytearray, memoryview, Mapping, BaseModel))
    if single or is_role_pair(items) or not isinstance(items, Iterable):
        items = as_messages(items, "estimate_tokens")  # one message-like value, or refused
    total = 0
    for index, item in enumerate(items):
        if isinstance(item, BlockBase):
            total += _block_tokens(item, name, model)
        else:
            message = message_of(item, "estimate_tokens", index)
            total += sum(_block_tokens(b, name, model) for b in sent_content(message))
    return total
