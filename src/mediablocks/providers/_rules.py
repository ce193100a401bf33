"""Rules every translator shares, applied to the messages before a provider's translator sees
them: signed thinking must name its provider, other providers' server-side blocks may be dropped
with a report, Gemini clip settings are not lost silently, document notes move between Anthropic
and Bedrock, an audio reply keeps its transcript, and a compaction summary can be rendered."""

from __future__ import annotations

from typing import Any

from ..blocks import RawBlock, TextBlock, ThinkingBlock
from ..errors import UnsupportedBlockError
from ..media import AudioBlock, FileBlock, VideoBlock
from ..messages import AssistantMessage, CompactionSummaryMessage, Message
from ._common import unsupported
from ._options import EncodeOptions
from ._report import drop_or_raise

__all__ = ["compaction_as_user", "foreign_blocks_checked"]


def foreign_blocks_checked(
    messages: list[Message], provider: str, options: EncodeOptions
) -> list[Message]:
    """The messages ready for ``provider``'s translator, by two rules every translator shares.

    A `ThinkingBlock` with a signature (or redacted data) but no ``provider`` raises
    `UnsupportedBlockError`: a signature is valid only where it was made, and mediablocks will not
    guess. With ``unsupported="drop"``, another provider's `RawBlock` (server-side and built-in
    tool blocks: web search, code execution, MCP, guardrails, cache points...) is left out and
    reported, instead of raising in the translator. An assistant's audio reply (OpenAI Chat)
    going to another provider is followed by its transcript as text, so the words are not lost.
    """
    out: list[Message] = []
    for index, message in enumerate(messages):
        kept: list[Any] = []
        for position, block in enumerate(message.content):
            if (
                isinstance(block, ThinkingBlock)
                and block.provider is None
                and (block.signature or block.redacted_data)
            ):
                raise unsupported(
                    provider,
                    block,
                    index,
                    position,
                    "a signed thinking block must name the provider that signed it "
                    "(ThinkingBlock(provider=...)); the signature is replayed only there",
                )
            if (
                options.unsupported == "drop"
                and isinstance(block, RawBlock)
                and block.provider != provider
            ):
                drop_or_raise(
                    options,
                    provider,
                    f"{block.provider} block {block.data.get('type', '')!s}".rstrip(),
                    f"{provider} cannot replay another provider's content",
                    message=index,
                    position=position,
                )
                continue
            if isinstance(block, VideoBlock) and provider != "gemini":
                clip = block.for_provider("gemini").get("video_metadata")
                if clip:
                    drop_or_raise(
                        options,
                        provider,
                        f"the clip settings {clip} of {block!r}",
                        "only Gemini takes a video's start/end offsets and frame rate (the "
                        "whole video would be sent)",
                        message=index,
                        position=position,
                        error=UnsupportedBlockError,
                    )
            if isinstance(block, FileBlock) and provider in _DOCUMENT_NOTES:
                block = _document_notes_for(block, provider)
            kept.append(block)
            transcript = _audio_transcript(block) if isinstance(message, AssistantMessage) else None
            if transcript and provider != "openai-chat":
                kept.append(TextBlock(text=transcript))  # the spoken reply's words, kept
        if kept != list(message.content):
            message = message.model_copy(update={"content": kept})
        out.append(message)
    return out


_DOCUMENT_NOTES = {"anthropic": "bedrock", "bedrock": "anthropic"}
"""Providers whose documents take ``context`` and ``citations`` ({"enabled": ...}) alike."""


def _document_notes_for(block: FileBlock, provider: str) -> FileBlock:
    """A document's ``context`` and ``citations`` setting, carried from the other provider that
    takes them (Anthropic <-> Bedrock) when the block has none of its own for ``provider``."""
    own = block.for_provider(provider)
    other = block.for_provider(_DOCUMENT_NOTES[provider])
    moved: dict[str, Any] = {
        k: other[k] for k in ("context", "citations") if k in other and k not in own
    }
    if not moved:
        return block
    data: dict[str, dict[str, Any]] = {**block.provider_data, provider: {**own, **moved}}
    return block.model_copy(update={"provider_data": data})


def _audio_transcript(block: Any) -> str | None:
    """The transcript OpenAI Chat sent with an assistant audio reply, if this is one."""
    if not isinstance(block, AudioBlock):
        return None
    audio = block.for_provider("openai-chat").get("audio")
    transcript = audio.get("transcript") if isinstance(audio, dict) else None
    return transcript if isinstance(transcript, str) and transcript else None


def compaction_as_user(messages: list[Message]) -> list[Message]:
    """Each `CompactionSummaryMessage` replaced by a user message holding its summary, so the
    model sees the context that was compacted (``compaction="user"``)."""
    return [m.as_user() if isinstance(m, CompactionSummaryMessage) else m for m in messages]
