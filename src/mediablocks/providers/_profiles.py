"""What a profile adds to the translator it shares: refusing media its endpoint does not take.

An OpenAI-compatible endpoint (DeepSeek, xAI, Groq...) speaks OpenAI Chat's wire format, so
OpenAI Chat's translator encodes for it; but each endpoint takes fewer kinds and types of media
than OpenAI. `checked_encoder` wraps the shared encoder so a block the endpoint cannot take
raises `UnsupportedBlockError` naming it, as every translator does, instead of a 400 later.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..blocks import Block, ToolResultBlock
from ..errors import UnsupportedBlockError
from ..media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ..messages import AssistantMessage, Message
from ..sources import FileIdSource, URLSource
from ._common import sendable
from ._options import EncodeOptions

__all__ = ["checked_encoder", "labelled_decoder", "profile_encoder"]

Encoder = Callable[[Sequence[Message], "EncodeOptions | None"], dict[str, Any]]
Decoder = Callable[[Any], list[Message]]

_KINDS: tuple[tuple[type[MediaBlock], str], ...] = (
    (ImageBlock, "image"),
    (AudioBlock, "audio"),
    (VideoBlock, "video"),
    (FileBlock, "document"),
)


def checked_encoder(name: str, encoder: Encoder, limits: Any) -> Encoder:
    """``encoder``, after a check that every media block's kind and type is one ``limits``
    (the profile's `ProviderLimits`) accepts."""

    def encode(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
        for index, position, block in _media(messages):
            _check(name, limits, block, index, position)
        return encoder(messages, (options or EncodeOptions()).replace(endpoint=name))

    return encode


def profile_encoder(profile: Any, encoder: Encoder) -> Encoder:
    """``encoder`` as ``profile`` (a `registry.Profile`) says: ``video_url`` parts, URL media
    inlined where the endpoint fetches none (``url_media="auto"`` only: an explicit choice
    stands), and its tool-result media default."""
    if profile.video_url:
        openai_chat: Any = encoder  # OpenAI Chat's encoder takes the keyword
        encoder = functools.partial(openai_chat, video_url=True)
    if profile.fetches_urls and profile.tool_result_media == "user_message":
        return encoder
    shared = encoder

    def encode(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
        chosen = options or EncodeOptions()
        if not profile.fetches_urls and chosen.url_media == "auto":
            chosen = chosen.replace(url_media="inline")
        if profile.tool_result_media == "error":
            chosen = chosen.replace(tool_result_media="error")
        return shared(messages, chosen)

    return encode


def labelled_decoder(name: str, decoder: Decoder) -> Decoder:
    """``decoder``, with each decoded reply's ``provider`` set to the profile's name.

    Blocks keep the base provider's name (a Bedrock-hosted Claude's thinking is Anthropic's
    thinking, replayable wherever Anthropic's translator runs); the reply says where it came from.
    """

    def decode(payload: Any) -> list[Message]:
        messages = decoder(payload)
        return [
            message.model_copy(update={"provider": name})
            if isinstance(message, AssistantMessage) and message.provider is not None
            else message
            for message in messages
        ]

    return decode


def _media(messages: Sequence[Message]) -> Iterator[tuple[int, int, MediaBlock]]:
    for index, message in sendable(messages):
        for position, block in enumerate(message.content):
            yield from _media_in(index, position, block)


def _media_in(index: int, position: int, block: Block) -> Iterator[tuple[int, int, MediaBlock]]:
    if isinstance(block, MediaBlock):
        yield index, position, block
    elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
        for inner in block.content:
            if isinstance(inner, MediaBlock):
                yield index, position, inner


def _check(name: str, limits: Any, block: MediaBlock, index: int, position: int) -> None:
    kind = next(label for cls, label in _KINDS if isinstance(block, cls))
    types: frozenset[str] = limits.types_for(kind)
    where = f"message {index}, block {position}"
    if not types:
        raise UnsupportedBlockError(
            f"{name} cannot carry {block.describe()} ({where}): it takes no {kind} input; "
            f"mb.prepare(messages, {name!r}) converts what can be converted"
        )
    if isinstance(block.source, (URLSource, FileIdSource)) and not block.loaded:
        return  # the type of media not read yet is the server's to judge
    mime = block.mime_type
    if mime not in types:
        accepted = ", ".join(sorted(types))
        raise UnsupportedBlockError(
            f"{name} cannot carry {block.describe()} ({where}): it takes {accepted}; "
            f"mb.prepare(messages, {name!r}) converts it"
        )
