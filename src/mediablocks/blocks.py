"""The block model: every piece of a message is one of these frozen, tagged pydantic models.

``Block`` is the discriminated union of all of them (tag ``type``), so a list of blocks round-trips
through JSON losslessly, media bytes included (as base64).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar, Union, overload

from pydantic import Field, TypeAdapter, ValidationError, field_validator

from ._base import BlockBase, assembled, summarize_validation_error
from ._frozen import EMPTY, EMPTY_LIST, FROZEN, measuring_depth
from ._loading import check_depth_near_limit
from .errors import DecodeError
from .media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock

_MediaT = TypeVar("_MediaT", bound=MediaBlock)

__all__ = [
    "Block",
    "ContentBlock",
    "MediaList",
    "RawBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "parse_block",
    "summarize_validation_error",
]


class MediaList(list[MediaBlock]):
    """The media blocks of a message or tool result: a list, also callable to keep one class.

    ``msg.media`` is the list; ``msg.media()`` the same as a plain list; ``msg.media(ImageBlock)``
    only the images, typed ``list[ImageBlock]`` (what a type checker cannot narrow by itself).
    """

    @overload
    def __call__(self) -> list[MediaBlock]: ...

    @overload
    def __call__(self, kind: type[_MediaT]) -> list[_MediaT]: ...

    def __call__(self, kind: type[MediaBlock] = MediaBlock) -> list[Any]:
        return [b for b in self if isinstance(b, kind)]


class TextBlock(BlockBase):
    """Plain text. ``annotations`` keeps provider citations and similar notes verbatim."""

    type: Literal["text"] = "text"
    text: str
    annotations: Annotated[list[dict[str, Any]], FROZEN] = Field(default_factory=lambda: EMPTY_LIST)


def text_block(
    text: str,
    annotations: list[dict[str, Any]] | None = None,
    provider_data: dict[str, dict[str, Any]] | None = None,
) -> TextBlock:
    """``TextBlock(text=text, annotations=..., provider_data=...)``, a field given as None left
    unset: the same block, made without validation when there is nothing to check (an exact
    ``str`` and empty containers), as for most text a decoder reads."""
    given: dict[str, Any] = {"text": text}
    if annotations is not None:
        given["annotations"] = annotations
    if provider_data is not None:
        given["provider_data"] = provider_data
    if type(text) is not str or annotations or provider_data:
        return TextBlock(**given)
    if annotations is not None:
        given["annotations"] = EMPTY_LIST  # what validation stores for an empty list
    if provider_data is not None:
        given["provider_data"] = EMPTY
    return assembled(TextBlock, given)


class ThinkingBlock(BlockBase):
    """Model reasoning, with the opaque signature some providers need to continue a thread.

    ``redacted`` marks reasoning the provider encrypted: its payload is in ``redacted_data`` and
    ``thinking`` is empty. ``provider`` names who produced the signature, so translators can drop a
    foreign one (another provider would reject it) and keep their own.
    """

    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str | None = None
    redacted: bool = False
    redacted_data: str | None = None
    provider: str | None = None


class ToolCallBlock(BlockBase):
    """A call the model made to a tool.

    ``kind`` and ``metadata`` are the application's (never sent to a model). ``args`` is the
    parsed argument object. When the model sent arguments that are not valid JSON,
    ``args`` is empty and ``raw_args`` keeps the text verbatim, so nothing is lost or invented.
    """

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: Annotated[dict[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)
    """The arguments, read-only all the way down (``{**call.args, key: value}`` to change)."""
    raw_args: str | None = None
    kind: str | None = None
    """The application's own label for the call (``"function"``, ``"mcp"``, ``"approval"``...:
    the ``kind`` other agent libraries keep on a tool call); kept in histories, never sent."""
    metadata: Annotated[Mapping[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)
    """The application's notes on the call (timings, who approved it), read-only; never sent."""

    @property
    def args_valid(self) -> bool:
        """False when the model's argument text was not a JSON object."""
        return self.raw_args is None


class RawBlock(BlockBase):
    """Provider content mediablocks does not model, kept verbatim and sent back to that provider."""

    type: Literal["raw"] = "raw"
    provider: str
    data: Annotated[dict[str, Any], FROZEN]


ContentBlock = Annotated[
    Union[TextBlock, ImageBlock, AudioBlock, VideoBlock, FileBlock, RawBlock],
    Field(discriminator="type"),
]
"""What a tool result may hold: text, media and raw provider blocks."""


class ToolResultBlock(BlockBase):
    """The result of a tool call: text, or a list of text and media blocks.

    ``name`` is the tool's name, which some providers (Gemini) require on the result. ``metadata``
    is for the application (timings, raw return values) and is never sent to a model.
    """

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    content: Annotated[str | list[ContentBlock], FROZEN] = ""
    """Text, or a read-only list of blocks."""
    is_error: bool = False
    name: str | None = None
    metadata: Annotated[Mapping[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)

    @field_validator("content", mode="before")
    @classmethod
    def _media_as_list(cls, value: Any) -> Any:
        if isinstance(value, (BlockBase, dict)):
            return [value]
        return value

    @property
    def text(self) -> str:
        """The text of the result: the string, or its text blocks joined by newlines."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def media(self) -> MediaList:
        """The media blocks in the result; call it to narrow by class, typed:
        ``result.media(ImageBlock)`` is a ``list[ImageBlock]``."""
        if isinstance(self.content, str):
            return MediaList()
        return MediaList(b for b in self.content if isinstance(b, MediaBlock))


Block = Annotated[
    Union[
        TextBlock,
        ThinkingBlock,
        ToolCallBlock,
        ToolResultBlock,
        ImageBlock,
        AudioBlock,
        VideoBlock,
        FileBlock,
        RawBlock,
    ],
    Field(discriminator="type"),
]
"""Any block, tagged by ``type``."""


@functools.cache
def _block_adapter() -> TypeAdapter[Block]:
    """The validator for one `Block`, built on first use rather than at import."""
    return TypeAdapter(Block)


@functools.cache
def _blocks_adapter() -> TypeAdapter[list[Block]]:
    """The validator for a list of blocks, built on first use rather than at import."""
    return TypeAdapter(list[Block])


def parse_block(data: Any) -> Block:
    """A block from a dict (or JSON text) in mediablocks' own format; `DecodeError` if invalid."""
    try:
        if isinstance(data, (str, bytes)):
            with measuring_depth() as deepest:
                block = _block_adapter().validate_json(data)
            check_depth_near_limit(block, "block", deepest[0])
            return block
        return _block_adapter().validate_python(data)
    except ValidationError as exc:
        raise DecodeError(f"not a valid block: {summarize_validation_error(exc)}") from None
