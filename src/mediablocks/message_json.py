"""The JSON document form of a history: `dump_messages` writes it, `load_messages` reads it.

A stored history is untrusted input, read by pydantic-core's path keyed by the exact ``role``
(`_KeyedByRole`) with the checks of `mediablocks._loading`. ``mb.dump_messages`` and
``mb.load_messages`` (`mediablocks.message_input`) first read message-like input and call these.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import GetCoreSchemaHandler, TypeAdapter
from pydantic_core import PydanticSerializationError, core_schema

from ._checks import check_count
from ._loading import load_document, load_json_messages
from ._unicode import check_text
from .errors import DecodeError
from .fetching.policy import FetchPolicy
from .messages import (
    FORMAT_VERSION,
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
    _message_adapter,
    _MessageBase,
    _messages_adapter,
)
from .sources._trust import loading

__all__ = ["dump_messages", "load_messages", "load_stored_text"]

_CLASS_OF_ROLE: dict[str, type[_MessageBase]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool": ToolMessage,
    "custom": CustomMessage,
    "branch_summary": BranchSummaryMessage,
    "compaction_summary": CompactionSummaryMessage,
}


class _KeyedByRole:
    """A message union that pydantic-core picks by the exact JSON ``role`` string.

    `Message`'s own discriminator is a Python function (it accepts aliases and any case), which
    makes pydantic-core build each message as Python dicts before validating it. Stored
    histories hold canonical roles (`dump_messages` writes them), so `load_messages` first tries
    this lookup; an alias or anything else it refuses takes `Message`'s path.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        choices = {role: handler.generate_schema(cls) for role, cls in _CLASS_OF_ROLE.items()}
        return core_schema.tagged_union_schema(choices, discriminator="role")


_StoredMessage = Annotated[Any, _KeyedByRole()]
"""A `Message` with a canonical role, as `dump_messages` writes it (one object: cache key)."""


@functools.cache
def _stored_messages_adapter() -> TypeAdapter[list[Message]]:
    """The validator for a stored list of messages with canonical roles (see `_KeyedByRole`)."""
    return TypeAdapter(list[_StoredMessage])


_FORMAT_NAME = "mediablocks.messages"


def dump_messages(messages: Sequence[Message], *, indent: int | None = None) -> str:
    """A versioned JSON document holding the messages, media bytes inline as base64.

    Writes only what `load_messages` reads back: anything that cannot be written so raises
    (`InvalidTextError` for a lone surrogate, `DecodeError` for a value that is not JSON or an item
    that is not a message, naming the message), and nothing is written half. ``mb.dump_messages``
    first reads message-like input (`mediablocks.message_input`); this one takes messages.
    """
    if indent is not None:
        check_count("dump_messages", "indent", indent)
    listed = list(messages)
    try:
        body = (
            _messages_adapter().dump_json(listed, indent=indent, warnings="error").decode("utf-8")
        )
    except (PydanticSerializationError, UnicodeError) as exc:
        check_text(listed)  # names the message and block holding a lone surrogate
        raise DecodeError(
            f"dump_messages: {_unwritable(listed)} cannot be written as JSON that load_messages "
            f"reads ({str(exc).splitlines()[0][:200]})"
        ) from None
    return f'{{"format": "{_FORMAT_NAME}", "version": {FORMAT_VERSION}, "messages": {body}}}'


def _unwritable(messages: list[Message]) -> str:
    """Which message holds a value JSON cannot carry (a set, an object...), for the error."""
    adapter = _message_adapter()
    for index, message in enumerate(messages):
        try:
            adapter.dump_json(message, warnings="error")
        except (PydanticSerializationError, UnicodeError):
            return f"message {index} ({message.role})"
    return "a message"


def load_stored_text(data: str | bytes) -> list[Message] | None:
    """The messages of `dump_messages` text (or a bare JSON list of messages in that form) by
    pydantic-core's path, or None for anything else, invalid input included (the caller takes
    its checked path, which names the error). Sources are built under the caller's `loading`."""
    return load_json_messages(
        data, _StoredMessage, _stored_messages_adapter(), _FORMAT_NAME, FORMAT_VERSION
    )


def load_messages(
    data: str | bytes | bytearray | dict[str, Any] | list[Any],
    *,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> list[Message]:
    """Messages from `dump_messages` output (or a bare JSON list of messages).

    A stored history is untrusted input: its path and URL media are kept as they are (a dump
    writes them back unchanged) but never read because the history names them. A path is read
    only under the folders in ``allow_paths`` (reached by descriptor, links followed only while
    they stay inside), a URL fetched only under ``policy``; without them, only where a read's
    own policy allows (``block.read(policy)``, ``encode(..., policy=...)``, `use_policy`), else
    `PathNotAllowedError` / `BlockedURLError` at the read. Media stored inline are read as usual.
    See docs/history.md.

    Text or bytes are the JSON document; a dict the parsed document (or one message in
    mediablocks' JSON form); a list the messages as dicts. Raises `DecodeError` for anything that
    is not a message document, or a version newer than this library understands.
    ``mb.load_messages`` also takes Python messages in every shape `mediablocks.message_input`
    reads.
    """
    with loading("a loaded history", "load_messages", allow_paths, policy):
        return load_document(
            data,
            _StoredMessage,
            _stored_messages_adapter(),
            _messages_adapter(),
            _FORMAT_NAME,
            FORMAT_VERSION,
        )
