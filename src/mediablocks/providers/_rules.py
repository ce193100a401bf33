"""Rules every translator shares, applied to the messages before a provider's translator sees
them: signed thinking must name its provider, other providers' server-side blocks may be dropped
with a report, Gemini clip settings are not lost silently, document notes move between Anthropic
and Bedrock, citations in another provider's form are not sent, and an audio reply keeps its
transcript. `ForeignRules` holds them for one provider; `encode` applies them to each message in
its one pass over the history."""

from __future__ import annotations

from typing import Any

from ..blocks import RawBlock, TextBlock, ThinkingBlock
from ..errors import MediaBlocksError, UnsupportedBlockError
from ..media import AudioBlock, FileBlock, VideoBlock
from ..messages import AssistantMessage, Message
from ._common import unsupported
from ._options import EncodeOptions
from ._report import drop_or_raise

__all__ = ["ForeignRules"]


class ForeignRules:
    """The rules every translator shares, for one canonical ``provider`` speaking ``wire``
    (resolved once by the caller; `encode` applies `message` to each message in its one pass).

    A `ThinkingBlock` with a signature (or redacted data) but no ``provider`` raises
    `UnsupportedBlockError`: a signature is valid only where it was made, and mediablocks will not
    guess. With ``unsupported="drop"``, another provider's `RawBlock` (server-side and built-in
    tool blocks: web search, code execution, MCP, guardrails, cache points...) is left out and
    reported, instead of raising in the translator. An assistant's audio reply (OpenAI Chat)
    going to another provider is followed by its transcript as text, so the words are not lost.
    """

    __slots__ = ("_bases", "options", "provider", "wire")

    def __init__(self, provider: str, wire: str, options: EncodeOptions) -> None:
        self.provider = provider
        self.wire = wire
        self.options = options
        self._bases: dict[str, str] = {}  # a message's provider -> its wire format, this call

    def base(self, name: str) -> str:
        """The wire format ``name`` speaks, looked up once per name."""
        found = self._bases.get(name)
        if found is None:
            found = self._bases[name] = _base(name)
        return found

    def message(self, index: int, message: Message) -> Message:
        """``message`` (at ``index`` in the history) as the translator is to see it."""
        provider, options = self.provider, self.options
        assistant = isinstance(message, AssistantMessage)
        source = message.provider if isinstance(message, AssistantMessage) else None
        kept: list[Any] = []
        changed = False
        for position, block in enumerate(message.content):
            if isinstance(block, TextBlock):  # most blocks: only a reply's citations concern them
                if assistant and (block.annotations or block.provider_data):
                    text = self._citations_for(block, source, index, position)
                    changed = changed or text is not block
                    block = text
                kept.append(block)
                continue
            original = block
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
                changed = True
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
            elif isinstance(block, FileBlock):
                self._document_notes_lost(block, index, position)
            kept.append(block)
            changed = changed or block is not original
            transcript = _audio_transcript(block) if assistant else None
            if transcript and provider != "openai-chat":
                kept.append(TextBlock(text=transcript))  # the spoken reply's words, kept
                changed = True
        if changed and kept != list(message.content):
            message = message.model_copy(update={"content": kept})
        return message

    def _document_notes_lost(self, block: FileBlock, index: int, position: int) -> None:
        """A document's ``context`` or ``citations`` setting (Anthropic, Bedrock) going where no
        field takes it: raised, or dropped and reported."""
        if self.wire in _DOCUMENT_NOTES:
            return
        for source in _DOCUMENT_NOTES:
            notes = block.for_provider(source)
            for note in ("context", "citations"):
                if notes.get(note) is not None:
                    drop_or_raise(
                        self.options,
                        self.provider,
                        f"the {source} document {note} of {block.describe()}",
                        f"{self.provider} has no field for a document's {note}",
                        message=index,
                        position=position,
                        error=UnsupportedBlockError,
                    )

    def _citations_for(
        self, block: TextBlock, source: str | None, index: int, position: int
    ) -> TextBlock:
        """A reply's citations going to another provider: each format is its provider's own
        (Anthropic's ``citations``, OpenAI's ``annotations``...), so they are raised, or dropped
        and reported, instead of being sent in a shape the target refuses or silently lost."""
        chat_notes = block.for_provider("openai-chat").get("annotations")
        if chat_notes and self.wire != "openai-chat":
            _lost_citations(self.options, self.provider, "openai-chat", index, position)
        if not block.annotations or not source:
            return block
        own = self.base(source)
        if own == self.wire:
            return block
        _lost_citations(self.options, self.provider, own, index, position)
        return block.model_copy(update={"annotations": []})


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


def _lost_citations(
    options: EncodeOptions, provider: str, source: str, index: int, position: int
) -> None:
    drop_or_raise(
        options,
        provider,
        f"the {source} citations of a text block",
        f"{provider} takes no {source} citations in a request",
        message=index,
        position=position,
        error=UnsupportedBlockError,
    )


def _base(provider: str) -> str:
    """The wire format a provider name speaks (a profile's base); an unknown name as it is."""
    from .registry import provider_entry

    try:
        entry = provider_entry(provider)
    except MediaBlocksError:
        return provider
    return entry.profile.base if entry.profile is not None else entry.name


def _audio_transcript(block: Any) -> str | None:
    """The transcript OpenAI Chat sent with an assistant audio reply, if this is one."""
    if not isinstance(block, AudioBlock):
        return None
    audio = block.for_provider("openai-chat").get("audio")
    transcript = audio.get("transcript") if isinstance(audio, dict) else None
    return transcript if isinstance(transcript, str) and transcript else None
