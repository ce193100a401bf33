"""The Chat Completions shape that OpenAI Chat (and every endpoint speaking it), Mistral, Cohere
and Ollama share: a list of ``role`` / ``content`` messages whose content is a string or typed
parts, tool results as ``tool`` messages, and media a tool message cannot carry moved into a
user message after them.

`ChatEncoder` walks a history once in that shape; each provider's encoder subclasses it and
says what differs (how a block becomes a part, what its messages add, its error sentences), in
that provider's package (Ollama, whose messages are flat, replaces the message writers and
keeps the walk). `chat_messages`, `tool_calls_of` and `image_url_block` read such lists back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from typing_extensions import assert_never

from ..blocks import Block, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..errors import DecodeError, MediaBlocksError
from ..media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ..messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..sources import URLSource
from ._common import (
    add_tool_result,
    data_uri,
    is_own_thinking,
    media_from_reference,
    sendable,
    system_parts,
    unsupported,
)
from ._common import use_url as _use_url
from ._options import EncodeOptions
from ._payload import wire_object

__all__ = [
    "IMAGE_DETAILS",
    "NOTHING_SAID",
    "ChatEncoder",
    "MovedMedia",
    "Part",
    "Reply",
    "chat_messages",
    "image_url_block",
    "tool_calls_of",
]

Part = dict[str, Any]
MovedMedia = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]

NOTHING_SAID: Part = {"role": "assistant", "content": ""}
"""An assistant message left with nothing to send: not sent, as for every provider."""

_MOVES = "tool_result_media='user_message' moves the media into a user message"
_TEXT_KEYS = frozenset({"type", "text"})


@dataclass
class Reply:
    """An assistant message being encoded."""

    parts: list[Part] = field(default_factory=list)
    calls: list[Part] = field(default_factory=list)
    """Its ``tool_calls`` entries."""
    fields: Part = field(default_factory=lambda: {"role": "assistant"})
    """The message itself: what goes beside its content and calls, in the order written."""


class ChatEncoder:
    """One encoding pass over a history: the wire messages so far and the media moved out of
    tool results, waiting for the user message that follows them.

    A subclass sets `provider` and its sentences, and overrides the block hooks
    (`image_part`...) for what it carries; a media hook left as it is refuses that kind.
    """

    provider: ClassVar[str]
    system_only: ClassVar[str]
    """Why a system message cannot hold media (``"Mistral system messages take text only"``)."""
    tool_media_refusal: ClassVar[str]
    """Why media in a tool result raises with ``tool_result_media="error"``."""
    media_refusal: ClassVar[str] = "not allowed here"
    """Why a media kind the provider lacks raises (``"Mistral models take no video"``)."""
    foreign_raw: ClassVar[str] = "it holds {provider} content"
    """Why another provider's verbatim block raises (``{provider}``: its provider)."""
    moved_kinds: ClassVar[tuple[type[MediaBlock], ...]] = (
        ImageBlock,
        AudioBlock,
        VideoBlock,
        FileBlock,
    )
    """The media a tool message cannot carry: moved to the user message after it."""
    place_url_errors: ClassVar[bool] = True
    """Whether a refused URL raises `UnsupportedBlockError` naming the block's place."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.out: list[Part] = []
        self.moved: list[Part] = []
        """Parts for the user message that follows a run of tool messages."""

    def run(self, messages: Sequence[Message]) -> list[Part]:
        """The wire messages for ``messages`` (session messages skipped)."""
        for index, message in sendable(messages):
            if isinstance(message, ToolMessage):
                for position, block in enumerate(message.content):
                    if isinstance(block, ToolResultBlock):
                        self.out.append(self.tool_result(block, index, position))
                    else:
                        self.tool_message_extra(block, index, position)
            elif isinstance(message, UserMessage):
                self.user(message, index)
            elif isinstance(message, SystemMessage):
                self.flush_moved()
                self.system(message, index)
            elif isinstance(message, AssistantMessage):
                self.flush_moved()
                self.assistant(message, index)
            else:
                assert_never(message)
        self.flush_moved()
        return self.out

    def flush_moved(self) -> None:
        """Send the media moved out of tool results as a user message of their own."""
        if self.moved:
            self.out.append({"role": "user", "content": self.moved})
            self.moved = []

    # -- messages -----------------------------------------------------------------------------

    def tool_message_extra(self, block: Block, index: int, position: int) -> None:
        """A block of a tool message that is not a tool result."""
        raise unsupported(
            self.provider, block, index, position, "a tool message holds tool results"
        )

    def system(self, message: SystemMessage, index: int) -> None:
        parts = self.system_parts(message.content, index)
        self.out.append({"role": "system", "content": self.content_value(parts)})

    def system_parts(self, blocks: Sequence[Block], index: int) -> list[Part]:
        """A system message's parts: text only (thinking and verbatim parts as `part` says)."""
        return system_parts(self.provider, blocks, index, self.part, self.system_only)

    def user(self, message: UserMessage, index: int) -> None:
        """Tool results in a user message go out first as tool messages, then the moved media,
        then the rest (none when the message held only results)."""
        parts, has_results = self.user_parts(message.content, index)
        self.flush_moved()
        if parts or not has_results:
            self.out.append({"role": "user", "content": self.content_value(parts)})

    def user_parts(self, blocks: Sequence[Block], index: int) -> tuple[list[Part], bool]:
        """A user message's parts, its tool results sent as tool messages on the way, and
        whether it held any."""
        parts: list[Part] = []
        has_results = False
        for position, block in enumerate(blocks):
            if isinstance(block, ToolResultBlock):
                has_results = True
                self.out.append(self.tool_result(block, index, position))
            elif isinstance(block, ToolCallBlock):
                raise unsupported(
                    self.provider, block, index, position, "tool calls belong in assistant messages"
                )
            else:
                part = self.part(block, index, position)
                if part is not None:
                    parts.append(part)
        return parts, has_results

    def assistant(self, message: AssistantMessage, index: int) -> None:
        reply = self.reply(message, index)
        if reply != NOTHING_SAID:  # every block dropped (say, foreign thinking)
            self.out.append(reply)

    def reply(self, message: AssistantMessage, index: int) -> Part:
        """An assistant message: its parts, and its tool calls in ``tool_calls``."""
        reply = self.gather_reply(message.content, index)
        out = reply.fields
        if reply.parts or not reply.calls:
            out["content"] = self.content_value(reply.parts)
        if reply.calls:
            out["tool_calls"] = reply.calls
        return out

    def gather_reply(self, blocks: Sequence[Block], index: int) -> Reply:
        """An assistant message's parts and tool calls; `reply_block` takes what a provider
        writes elsewhere first."""
        reply = Reply()
        for position, block in enumerate(blocks):
            if isinstance(block, ToolCallBlock):
                reply.calls.append(self.tool_call(block))
            elif self.reply_block(block, index, position, reply):
                continue
            elif isinstance(block, ToolResultBlock):
                why = "tool results belong in tool messages"
                raise unsupported(self.provider, block, index, position, why)
            else:
                part = self.part(block, index, position)
                if part is not None:
                    reply.parts.append(part)
        return reply

    def reply_block(self, block: Block, index: int, position: int, reply: Reply) -> bool:
        """Whether the provider wrote this assistant block somewhere of its own (a field of the
        message, a verbatim call...); False sends it as a part."""
        return False

    def tool_call(self, block: ToolCallBlock) -> Part:
        """A ``tool_calls`` entry, arguments as JSON text."""
        raise NotImplementedError

    def tool_result(self, result: ToolResultBlock, index: int, position: int) -> Part:
        """A ``tool`` message; its media move out per ``tool_result_media``."""
        content: str | list[Part]
        if isinstance(result.content, str):
            content = result.content
        else:
            parts: list[Part] = []
            media: list[MovedMedia] = []
            for block in result.content:
                if isinstance(block, self.moved_kinds):
                    assert isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock))
                    media.append(block)
                    continue
                part = self.result_part(block, index, position)
                if part is not None:
                    parts.append(part)
            if media:
                self.move_media(media, self.moved_label(result), index, position)
            content = self.result_value(parts)
        return self.tool_message(result, content)

    def tool_message(self, result: ToolResultBlock, content: str | list[Part]) -> Part:
        return {"role": "tool", "tool_call_id": result.tool_call_id, "content": content}

    def result_part(self, block: Block, index: int, position: int) -> Part | None:
        """A tool result's part (what is not moved out)."""
        return self.part(block, index, position)

    def result_value(self, parts: list[Part]) -> str | list[Part]:
        """A tool message's content: its parts, or "" for none."""
        return parts if parts else ""

    def moved_label(self, result: ToolResultBlock) -> str:
        """The text that leads the media moved out of ``result``."""
        return f"Media returned by tool call {result.tool_call_id}:"

    def move_media(self, media: list[MovedMedia], label: str, index: int, position: int) -> None:
        if self.options.tool_result_media == "error":
            refusal = f"{self.tool_media_refusal}; {_MOVES}"
            raise unsupported(self.provider, media[0], index, position, refusal)
        self.moved.append({"type": "text", "text": label})
        for block in media:
            part = self.part(block, index, position)
            if part is not None:
                self.moved.append(part)

    def content_value(self, parts: list[Part]) -> str | list[Part]:
        """A lone plain text part goes out as a string (the form every chat model takes)."""
        if not parts:
            return ""
        if len(parts) == 1 and parts[0].get("type") == "text" and parts[0].keys() == _TEXT_KEYS:
            text: str = parts[0]["text"]
            return text
        return parts

    # -- blocks -------------------------------------------------------------------------------

    def part(self, block: Block, index: int, position: int) -> Part | None:
        """One content part (None when a documented option drops the block)."""
        if isinstance(block, TextBlock):
            return self.text_part(block)
        if isinstance(block, ThinkingBlock):
            return self.thinking_part(block)
        if isinstance(block, RawBlock):
            return self.raw_part(block, index, position)
        if isinstance(block, ImageBlock):
            return self.image_part(block, index, position)
        if isinstance(block, AudioBlock):
            return self.audio_part(block, index, position)
        if isinstance(block, FileBlock):
            return self.file_part(block, index, position)
        if isinstance(block, VideoBlock):
            return self.video_part(block, index, position)
        if isinstance(block, (ToolCallBlock, ToolResultBlock)):
            raise unsupported(self.provider, block, index, position, "not allowed here")
        assert_never(block)

    def text_part(self, block: TextBlock) -> Part:
        return {"type": "text", "text": block.text}

    def thinking_part(self, block: ThinkingBlock) -> Part | None:
        """The provider's own thinking as `own_thinking` writes it; any other follows
        ``options.thinking`` (dropped, or sent as text)."""
        if is_own_thinking(block, self.provider) and not block.redacted:
            own = self.own_thinking(block)
            if own is not None:
                return own
        if self.options.thinking == "text" and block.thinking:
            return {"type": "text", "text": block.thinking}
        return None

    def own_thinking(self, block: ThinkingBlock) -> Part | None:
        """The provider's own thinking replayed (None: it cannot be, like any other)."""
        return None

    def raw_part(self, block: RawBlock, index: int, position: int) -> Part:
        """A verbatim part of this provider's, as it came."""
        if block.provider != self.provider:
            why = self.foreign_raw.format(provider=block.provider)
            raise unsupported(self.provider, block, index, position, why)
        return dict(block.data)

    def image_part(self, block: ImageBlock, index: int, position: int) -> Part | None:
        raise unsupported(self.provider, block, index, position, self.media_refusal)

    def audio_part(self, block: AudioBlock, index: int, position: int) -> Part | None:
        raise unsupported(self.provider, block, index, position, self.media_refusal)

    def file_part(self, block: FileBlock, index: int, position: int) -> Part | None:
        raise unsupported(self.provider, block, index, position, self.media_refusal)

    def video_part(self, block: VideoBlock, index: int, position: int) -> Part | None:
        raise unsupported(self.provider, block, index, position, self.media_refusal)

    # -- media helpers ------------------------------------------------------------------------

    def use_url(self, block: MovedMedia, index: int, position: int, fetches: bool = True) -> bool:
        """`use_url`: whether the block goes out as its URL (``fetches``: the provider's
        default), a refusal placed at the block when `place_url_errors`."""
        if not self.place_url_errors:
            return _use_url(block, fetches, self.options)
        try:
            return _use_url(block, fetches, self.options)
        except MediaBlocksError as exc:
            raise unsupported(self.provider, block, index, position, str(exc)) from None

    def url_or_data_uri(
        self,
        block: MovedMedia,
        index: int,
        position: int,
        check_inline: Callable[[], object] | None = None,
    ) -> str:
        """The block's URL where the provider fetches it, else a data URI (``check_inline``
        first raises when the inline bytes will not do)."""
        if self.use_url(block, index, position):
            assert isinstance(block.source, URLSource)
            return block.source.url
        if check_inline is not None:
            check_inline()
        return data_uri(block, self.options)


def chat_messages(
    items: Any,
    label: str,
    *,
    assistant: Callable[[dict[str, Any], str], AssistantMessage],
    tool_result: Callable[[dict[str, Any], str, list[tuple[str, str]]], Block],
    content: Callable[[Any, str], list[Block]] | None = None,
    others: Mapping[str, Callable[[dict[str, Any], str], Message]] | None = None,
    tool_roles: tuple[str, ...] = ("tool",),
    roles: str = "system, user, assistant or tool",
) -> list[Message]:
    """Decoded messages of a Chat Completions-shaped list: ``assistant`` turns, ``tool``
    messages (``tool_roles``) joined into `ToolMessage`s, system and user messages of their
    ``content`` decoded, and the roles in ``others`` (``"developer"``...) read whole by their
    own function. ``tool_result`` gets the ``(id, name)`` calls of the last assistant turn still
    unanswered, to pair results without ids. ``label`` names the format in errors
    (``"Mistral"``), ``roles`` the roles it takes."""
    if not isinstance(items, list):
        raise DecodeError(f"{label} 'messages' is not a list")
    out: list[Message] = []
    pending: list[tuple[str, str]] = []  # (id, name) of calls not answered yet
    previous_was_tool = False
    for position, raw in enumerate(items):
        where = f"{label} message {position}"
        item = wire_object(raw, where, "a message object")
        role = item.get("role")
        if role in tool_roles:
            add_tool_result(out, tool_result(item, where, pending), join=previous_was_tool)
            previous_was_tool = True
            continue
        previous_was_tool = False
        if role == "assistant":
            reply = assistant(item, where)
            pending = [(call.id, call.name) for call in reply.tool_calls]
            out.append(reply)
        elif others is not None and isinstance(role, str) and role in others:
            out.append(others[role](item, where))
        elif content is not None and role == "system":
            out.append(SystemMessage(content=content(item.get("content"), where)))
        elif content is not None and role == "user":
            out.append(UserMessage(content=content(item.get("content"), where)))
        else:
            raise DecodeError(f"{where} has role {role!r}, not {roles}")
    return out


IMAGE_DETAILS = ("auto", "low", "high")
"""The ``detail`` levels `ImageBlock.detail` models."""


def image_url_block(value: Any, where: str, provider: str, what: str) -> ImageBlock:
    """The image of an ``image_url`` part: a URL or data URI, alone or as ``{"url", "detail"}``;
    a detail level `ImageBlock` does not model is kept in ``provider_data[provider]``. ``what``
    names the part in errors."""
    detail: Any = None
    if isinstance(value, dict):
        detail = value.get("detail")
        value = value.get("url")
    if not isinstance(value, str):
        raise DecodeError(f"{where}: {what} has no URL string")
    block = media_from_reference(ImageBlock, value, None, None, where)
    if detail in IMAGE_DETAILS:
        return block.model_copy(update={"detail": detail})
    if detail is not None:
        return block.model_copy(update={"provider_data": {provider: {"detail": detail}}})
    return block


def tool_calls_of(
    item: dict[str, Any], where: str, decode_call: Callable[[Any, str], Block]
) -> list[Block]:
    """An assistant message's ``tool_calls``, each read by ``decode_call`` (none when absent)."""
    calls = item.get("tool_calls") or []
    if not isinstance(calls, list):
        raise DecodeError(f"{where}: tool_calls is not a list")
    return [decode_call(call, f"{where}, tool call {number}") for number, call in enumerate(calls)]
