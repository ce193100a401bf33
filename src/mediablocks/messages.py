"""Messages: a ``role`` tag, an id, a timestamp and a tuple of blocks.

Messages are frozen all the way down: ``content`` is a tuple (`BlockTuple`, equal to a list of
the same blocks) and ``metadata`` a read-only mapping; `with_content` and ``model_copy`` make
changed copies.

`SystemMessage`, `UserMessage`, `AssistantMessage` and `ToolMessage` are what models see. The
session messages (`CustomMessage`, `BranchSummaryMessage`, `CompactionSummaryMessage`) are what an
agent keeps to rebuild its context; translators never send them. ``Message`` is the union of all
of them, and `dump_messages` / `load_messages` write and read a versioned JSON document, bytes
included.

Roles accept common aliases when parsing: ``human`` is ``user``; ``ai``, ``model``, ``bot`` are
``assistant``; ``developer`` is ``system``; ``function`` is ``tool``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Literal,
    TypeVar,
    Union,
    get_args,
    overload,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_validator,
)
from pydantic_core import core_schema

from ._base import assembled
from ._frozen import (
    EMPTY,
    EMPTY_BLOCKS,
    FROZEN,
    BlockTuple,
    freeze_blocks,
    freeze_json,
    refreeze,
)
from .blocks import (
    Block,
    ContentBlock,
    MediaList,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    _blocks_adapter,
)
from .media import AudioBlock, ImageBlock, MediaBlock
from .media_input import media_block
from .stop_reasons import StopReason, normalize_stop_reason
from .usage import Cost, Prices, Usage

__all__ = [
    "FORMAT_VERSION",
    "AssistantMessage",
    "BranchSummaryMessage",
    "CompactionSummaryMessage",
    "Cost",
    "CustomMessage",
    "Message",
    "Prices",
    "SystemMessage",
    "ToolMessage",
    "Usage",
    "UserMessage",
    "normalize_role",
]

FORMAT_VERSION = 1
"""The version of the JSON document `dump_messages` writes."""

ROLE_ALIASES: dict[str, str] = {
    "human": "user",
    "ai": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "developer": "system",
    "function": "tool",
}


def normalize_role(role: str) -> str:
    """The canonical role for a role name or a common alias (``human`` -> ``user``)."""
    lowered = role.strip().lower()
    return ROLE_ALIASES.get(lowered, lowered)


def _exact_first_from_json(
    exact: core_schema.CoreSchema, fallback: core_schema.CoreSchema, **union: Any
) -> core_schema.CoreSchema:
    """From JSON, ``exact`` first (what a stored history holds, matched with no Python call),
    then ``fallback``; from Python, ``fallback`` alone. ``union``: `union_schema` options."""
    return core_schema.json_or_python_schema(
        json_schema=core_schema.union_schema([exact, fallback], mode="left_to_right", **union),
        python_schema=fallback,
    )


def _canonical_role(value: Any) -> Any:
    return normalize_role(value) if isinstance(value, str) else value


class _CanonicalRole:
    """On each message's ``role`` field: an alias or another case names the canonical role.

    A field validator, not a model one, so pydantic-core hands it the role string alone (a model
    "before" validator would build the whole message as Python dicts first). From JSON the
    canonical role itself is matched first, with no Python call (what a stored history holds);
    anything else goes through `_canonical_role`, as from Python.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        exact = handler(source)
        aliased = core_schema.no_info_before_validator_function(_canonical_role, exact)
        return _exact_first_from_json(
            exact,
            aliased,
            custom_error_type="literal_error",  # one error, as from Python
            custom_error_context={"expected": repr(get_args(source)[0])},
        )


_CANONICAL_ROLE = _CanonicalRole()


def _new_id() -> str:
    """``msg_`` and a random UUID (version 4) in hex, as ``uuid.uuid4().hex`` spells it; set
    from 16 random bytes directly, a third of the cost (a decode makes one per message)."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # RFC 4122 variant
    return "msg_" + raw.hex()


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _as_blocks(value: Any) -> Any:
    """Let ``content`` be given as a string, one block, or a list mixing strings and blocks."""
    if value is None:
        return []
    if isinstance(value, str):
        return [TextBlock(text=value)]
    if isinstance(value, (BaseModel, dict)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [TextBlock(text=item) if isinstance(item, str) else item for item in value]
    return value


class _ContentInput:
    """On ``content``: the shorthands of `_as_blocks` (a string, one block, strings in a list).

    From Python, every value goes through `_as_blocks`. From JSON, the stored form (a list of
    block objects) is validated as it is first: a Python function in the way would make
    pydantic-core build the whole list as Python dicts before validating it. Shorthands in JSON
    still work, through `_as_blocks`.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        blocks = handler(source)
        given = core_schema.no_info_before_validator_function(_as_blocks, blocks)
        return _exact_first_from_json(blocks, given)


ContentInput = Union[str, Block, MediaBlock, Sequence[Union[str, Block, MediaBlock]]]
"""What ``content=`` accepts: a string (one text block), one block, or a list mixing strings and
blocks (``media_block(...)``'s `MediaBlock` included: it is always one of the media classes).
The model always stores a tuple of blocks; the ``__init__`` signatures below, seen only by type
checkers, say what is accepted (the field's own type would refuse a plain string or a list)."""


_MessageT = TypeVar("_MessageT", bound="_MessageBase")
_MediaT = TypeVar("_MediaT", bound=MediaBlock)


class _TextAccessor:
    """``Message.text``: a constructor on the class, the joined text on an instance."""

    @overload
    def __get__(self, instance: None, owner: type[_MessageT]) -> Callable[..., _MessageT]: ...

    @overload
    def __get__(self, instance: _MessageBase, owner: type[Any]) -> str: ...

    def __get__(self, instance: _MessageBase | None, owner: type[Any]) -> Any:
        if instance is None:

            def build(text: str, **fields: Any) -> Any:
                return owner(content=[TextBlock(text=text)], **fields)

            build.__doc__ = (
                f"A {owner.__name__} holding one text block; other fields (``id=``...) as given."
            )
            return build
        return "\n".join(b.text for b in instance.content if isinstance(b, TextBlock))


class _MessageBase(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        ser_json_bytes="base64",
        val_json_bytes="base64",
        defer_build=True,  # the schema is built on first use, not by `import mediablocks`
    )

    id: str = Field(default_factory=_new_id)
    timestamp: datetime = Field(default_factory=_now)
    content: Annotated[tuple[Block, ...], _ContentInput(), AfterValidator(BlockTuple)] = (
        EMPTY_BLOCKS
    )
    """The blocks, a tuple: a frozen message cannot change in place (see `with_content`)."""
    metadata: Annotated[Mapping[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)
    """The application's own notes, read-only (a `FrozenDict`); never sent to a model."""

    text: ClassVar[_TextAccessor] = _TextAccessor()
    """On an instance, the text blocks joined with newlines; on the class, a constructor:
    ``UserMessage.text("hi")`` is a user message holding one text block."""

    @property
    def media(self) -> MediaList:
        """The media blocks directly in this message; call it to narrow by class, typed:
        ``msg.media(ImageBlock)`` is a ``list[ImageBlock]``."""
        return MediaList(b for b in self.content if isinstance(b, MediaBlock))

    def with_content(self: _MessageT, *items: str | Block | MediaBlock) -> _MessageT:
        """A copy of this message (same id and fields) with ``items`` appended to its content.

        Strings become text blocks. Messages are frozen: this is how a block is added.
        """
        added = _blocks_adapter().validate_python(_as_blocks(list(items)))
        return self.model_copy(update={"content": [*self.content, *added]})

    def __deepcopy__(self: _MessageT, memo: dict[int, Any] | None = None) -> _MessageT:
        copied = refreeze(super().__deepcopy__(memo))
        copied.__dict__["content"] = freeze_blocks(copied.__dict__["content"])
        return copied  # type: ignore[no-any-return]

    def model_copy(
        self: _MessageT, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> _MessageT:
        """A copy with ``update`` applied; content stays a tuple and metadata read-only."""
        if update:
            update = {key: freeze_json(value) for key, value in update.items()}
            if "content" in update:
                update["content"] = freeze_blocks(_as_blocks(update["content"]))
        return super().model_copy(update=update, deep=deep)


class SystemMessage(_MessageBase):
    """Instructions for the model (OpenAI's ``developer`` role parses to this too)."""

    role: Annotated[Literal["system"], _CANONICAL_ROLE] = "system"

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            id: str = ...,
            timestamp: datetime = ...,
            content: ContentInput | None = ...,
            metadata: Mapping[str, Any] = ...,
            role: Literal["system"] = ...,
        ) -> None: ...


class UserMessage(_MessageBase):
    """What the user says: text, media, and (for providers that put them here) tool results."""

    role: Annotated[Literal["user"], _CANONICAL_ROLE] = "user"
    name: str | None = None

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            id: str = ...,
            timestamp: datetime = ...,
            content: ContentInput | None = ...,
            metadata: Mapping[str, Any] = ...,
            role: Literal["user"] = ...,
            name: str | None = ...,
        ) -> None: ...

    @classmethod
    def with_images(cls, text: str | None, images: Iterable[Any]) -> UserMessage:
        """Text followed by images: blocks, bytes, ``Path`` objects, URLs or data URIs."""
        blocks: list[Any] = [TextBlock(text=text)] if text else []
        for item in images:
            block = item if isinstance(item, MediaBlock) else media_block(item)
            if not isinstance(block, ImageBlock):
                block = ImageBlock.from_source(
                    block.source, block.declared_mime, block.filename, block.strict
                )
            blocks.append(block)
        return cls(content=blocks)

    @classmethod
    def with_audio(cls, text: str | None, clips: Iterable[Any]) -> UserMessage:
        """Text followed by audio clips: blocks, bytes, ``Path`` objects, URLs or data URIs."""
        blocks: list[Any] = [TextBlock(text=text)] if text else []
        for item in clips:
            block = item if isinstance(item, MediaBlock) else media_block(item)
            if not isinstance(block, AudioBlock):
                block = AudioBlock.from_source(
                    block.source, block.declared_mime, block.filename, block.strict
                )
            blocks.append(block)
        return cls(content=blocks)


class _UnknownStopReason(str):
    """A ``stop_reason`` outside the vocabulary, on its way to ``provider_stop_reason``."""


def _keep_unknown_stop_reason(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """``stop_reason`` as validated; any other string marked for `AssistantMessage` to move."""
    try:
        return handler(value)
    except ValidationError:
        if isinstance(value, str):
            return _UnknownStopReason(value)
        raise


class _KeepUnknownStopReason:
    """On ``stop_reason``: `_keep_unknown_stop_reason`, called from JSON only for a value outside
    the vocabulary (a stored history holds normalised ones, matched with no Python call)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        known = handler(source)
        kept = core_schema.no_info_wrap_validator_function(_keep_unknown_stop_reason, known)
        return _exact_first_from_json(known, kept)


_KEEP_UNKNOWN_STOP_REASON = _KeepUnknownStopReason()


class AssistantMessage(_MessageBase):
    """The model's reply: text, thinking, tool calls, media, raw provider blocks.

    ``provider`` and ``model`` say who produced it; ``usage`` and the stop reason come from the
    response; ``response_id`` is the provider's id for the response, when it has one.

    ``stop_reason`` is one vocabulary for every provider (see `StopReason`: ``end_turn``,
    ``tool_use``, ``max_tokens``...); ``provider_stop_reason`` is the provider's own value,
    verbatim. Given only ``provider_stop_reason``, ``stop_reason`` is worked out from it and
    ``provider``; a ``stop_reason`` outside the vocabulary (a provider's value, as older
    mediablocks stored it) moves to ``provider_stop_reason`` and is normalised.
    """

    role: Annotated[Literal["assistant"], _CANONICAL_ROLE] = "assistant"
    usage: Usage | None = None
    stop_reason: Annotated[StopReason | None, _KEEP_UNKNOWN_STOP_REASON] = None
    provider_stop_reason: str | None = None
    model: str | None = None
    provider: str | None = None
    response_id: str | None = None

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            id: str = ...,
            timestamp: datetime = ...,
            content: ContentInput | None = ...,
            metadata: Mapping[str, Any] = ...,
            role: Literal["assistant"] = ...,
            usage: Usage | None = ...,
            stop_reason: str | None = ...,
            provider_stop_reason: str | None = ...,
            model: str | None = ...,
            provider: str | None = ...,
            response_id: str | None = ...,
        ) -> None: ...

    @model_validator(mode="after")
    def _normalized_stop_reason(self) -> AssistantMessage:
        # An "after" validator: a "before" one would make pydantic-core build every assistant
        # message as Python dicts first. A value outside the vocabulary reached here as
        # `_UnknownStopReason` (see `_keep_unknown_stop_reason`).
        reason, raw = self.stop_reason, self.provider_stop_reason
        if isinstance(reason, _UnknownStopReason):
            reason, raw = None, raw or str(reason)
        if reason is None and isinstance(raw, str):
            calls = any(isinstance(b, ToolCallBlock) for b in self.content)
            reason = normalize_stop_reason(raw, self.provider, tool_calls=calls)
        if reason is not self.stop_reason or raw is not self.provider_stop_reason:
            # Still inside validation: the frozen model is set up here, not changed later.
            self.__dict__.update(stop_reason=reason, provider_stop_reason=raw)
            self.__pydantic_fields_set__.update(("stop_reason", "provider_stop_reason"))
        return self

    @property
    def usage_or_zero(self) -> Usage:
        """``usage``, or an all-zero `Usage` when the provider reported none: typed code reads
        ``reply.usage_or_zero.output_tokens`` without a None check."""
        return self.usage if self.usage is not None else Usage()

    @property
    def tool_calls(self) -> list[ToolCallBlock]:
        """The tool calls in order."""
        return [b for b in self.content if isinstance(b, ToolCallBlock)]

    @property
    def thinking(self) -> list[ThinkingBlock]:
        """The thinking blocks in order."""
        return [b for b in self.content if isinstance(b, ThinkingBlock)]


class ToolMessage(_MessageBase):
    """Results of tool calls, one `ToolResultBlock` each."""

    role: Annotated[Literal["tool"], _CANONICAL_ROLE] = "tool"

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            id: str = ...,
            timestamp: datetime = ...,
            content: ContentInput | None = ...,
            metadata: Mapping[str, Any] = ...,
            role: Literal["tool"] = ...,
        ) -> None: ...

    @classmethod
    def from_result(
        cls,
        tool_call_id: str | ToolResultBlock,
        content: str | Sequence[ContentBlock] | ContentBlock = "",
        *,
        is_error: bool = False,
        name: str | None = None,
    ) -> ToolMessage:
        """A message holding one tool result: a call id and its content, or a ready
        `ToolResultBlock` (``ToolMessage.from_result(result_block)``)."""
        if isinstance(tool_call_id, ToolResultBlock):
            return cls(content=[tool_call_id])
        result = ToolResultBlock(
            tool_call_id=tool_call_id,
            content=content if isinstance(content, str) else _as_list(content),
            is_error=is_error,
            name=name,
        )
        return cls(content=[result])

    @classmethod
    def from_results(cls, results: Iterable[ToolResultBlock]) -> ToolMessage:
        """A message holding several tool results (parallel calls)."""
        return cls(content=list(results))

    @property
    def results(self) -> list[ToolResultBlock]:
        """The tool results in order."""
        return [b for b in self.content if isinstance(b, ToolResultBlock)]


def _as_list(content: Sequence[ContentBlock] | ContentBlock) -> list[ContentBlock]:
    if isinstance(content, BaseModel):
        return [content]
    return list(content)


class CustomMessage(_MessageBase):
    """An application's own entry in a session (a UI note, a file attachment record...).

    Kept in history for context reconstruction; never sent to a model.
    """

    role: Annotated[Literal["custom"], _CANONICAL_ROLE] = "custom"
    custom_type: str
    data: Annotated[dict[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)
    """The application's record, read-only all the way down."""


class BranchSummaryMessage(_MessageBase):
    """A summary of a conversation branch that was left, kept for context; never sent."""

    role: Annotated[Literal["branch_summary"], _CANONICAL_ROLE] = "branch_summary"
    summary: str
    from_id: str | None = None


class CompactionSummaryMessage(_MessageBase):
    """A summary replacing compacted history, kept for context; never sent as is."""

    role: Annotated[Literal["compaction_summary"], _CANONICAL_ROLE] = "compaction_summary"
    summary: str
    tokens_before: int | None = None
    first_kept_id: str | None = None

    def as_user(self) -> UserMessage:
        """The user message sent in its place with ``encode(..., compaction="user")`` (same id
        and time): what the model sees, and what token counts count."""
        return UserMessage(
            id=self.id,
            timestamp=self.timestamp,
            content=f"Summary of the earlier conversation:\n{self.summary}",
        )


_BLOCK_CLASSES: frozenset[type[Any]] = frozenset(get_args(get_args(Block)[0]))
"""The classes of the `Block` union: a block of one of them is stored by validation as it is."""
_PLAIN_FIELDS = frozenset({"name", "model", "provider", "response_id"})
"""The ``str | None`` fields validation stores as given (an assistant's stop reasons are not
among them: its model validator normalises them)."""


def built_message(
    cls: type[_MessageT], content: Sequence[Block], **fields: str | None
) -> _MessageT:
    """``cls(content=content, **fields)``, the same message (set fields included) made without
    validating again blocks a decoder has just built: a long history holds thousands of messages.

    Validation stores blocks of the block classes as they are, in a `BlockTuple`, and a plain
    string field as it is: those are taken straight. Anything else (another class, a field not
    in `_PLAIN_FIELDS`, a value not an exact ``str`` or None) is validated as usual.
    """
    if _BLOCK_CLASSES.issuperset(map(type, content)) and _plain_fields(cls, fields):
        return assembled(cls, {"content": BlockTuple(content), **fields})
    return cls(content=content, **fields)


def _plain_fields(cls: type[_MessageBase], fields: dict[str, str | None]) -> bool:
    plain = _plain_fields_of(cls)
    for name, value in fields.items():
        if name not in plain or (value is not None and type(value) is not str):
            return False
    return True


@functools.cache
def _plain_fields_of(cls: type[_MessageBase]) -> frozenset[str]:
    return _PLAIN_FIELDS & cls.model_fields.keys()


def sent_content(message: Any) -> Sequence[Any]:
    """The blocks a model is sent for ``message``: its content; a compaction summary's as a user
    turn (as ``compaction="user"`` sends it); nothing for the other session messages."""
    if isinstance(message, CompactionSummaryMessage):
        return message.as_user().content
    if isinstance(message, (CustomMessage, BranchSummaryMessage)):
        return ()
    content: Sequence[Any] = getattr(message, "content", ())
    return content


def _role_of(value: Any) -> str | None:
    role = value.get("role") if isinstance(value, dict) else getattr(value, "role", None)
    return normalize_role(role) if isinstance(role, str) else None


Message = Annotated[
    Union[
        Annotated[SystemMessage, Tag("system")],
        Annotated[UserMessage, Tag("user")],
        Annotated[AssistantMessage, Tag("assistant")],
        Annotated[ToolMessage, Tag("tool")],
        Annotated[CustomMessage, Tag("custom")],
        Annotated[BranchSummaryMessage, Tag("branch_summary")],
        Annotated[CompactionSummaryMessage, Tag("compaction_summary")],
    ],
    Discriminator(_role_of),
]
"""Any message, tagged by ``role`` (aliases accepted)."""

SESSION_ROLES = frozenset({"custom", "branch_summary", "compaction_summary"})
"""Roles kept for context reconstruction that translators never send."""


@functools.cache
def _message_adapter() -> TypeAdapter[Message]:
    """The validator for one `Message`, built on first use rather than at import."""
    return TypeAdapter(Message)


@functools.cache
def _messages_adapter() -> TypeAdapter[list[Message]]:
    """The validator for a list of messages, built on first use rather than at import."""
    return TypeAdapter(list[Message])
