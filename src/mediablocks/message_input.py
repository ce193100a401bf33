"""The one reading of message-like input, shared by every public function that takes messages.

`as_messages` turns what a caller may hand over into a list of `Message` objects, in one pass
over the input, the same way for `encode`, `encode_json`, `Request`, `validate`, `pretty`,
`prepare`, `estimate_tokens`, `count_tokens`, `redacted`, `normalize_messages`,
`regroup_messages`, `trim_messages`, `merge_consecutive`, `filter_messages`, `load_messages`
(given Python objects), `dump_messages`, `save_history`, `upload` and `write_batch`:

- a string is one user message: ``"hi"``;
- a message is itself: ``mb.UserMessage.text("hi")``;
- a dict is a message in mediablocks' JSON form (``{"role": "user", "content": "hi"}``); its
  ``content`` may hold block dicts, Claude-native block JSON, and blocks of types mediablocks does
  not know, kept verbatim as ``RawBlock(provider="unknown")``;
- a tuple of two whose first item is a string is a ``(role, content)`` pair:
  ``("user", "hi")``, ``("assistant", ["a", block])`` (roles take their aliases: ``"human"``);
- a list, tuple or other iterable of the above is those messages, in order.

Anything else raises `DecodeError` naming the item and what it is, never ``TypeError`` or
``AttributeError``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias, Union

from pydantic import BaseModel, ValidationError

from . import message_json as _stored
from ._depth import check_depth
from .errors import DecodeError
from .fetching.policy import FetchPolicy
from .messages import (
    ContentInput,
    Message,
    UserMessage,
    _message_adapter,
    _MessageBase,
    normalize_role,
)
from .sources._trust import loading

__all__ = [
    "MessageLike",
    "MessagesLike",
    "as_messages",
    "dump_messages",
    "is_role_pair",
    "load_messages",
    "message_from_dict",
    "message_of",
]

MessageLike: TypeAlias = Union[
    str, Message, Mapping[str, Any], tuple[str, Union[ContentInput, None]]
]
"""One message as any public function takes it: a string (a user message), a message, a dict in
mediablocks' JSON form, or a ``(role, content)`` pair."""

MessagesLike: TypeAlias = Union[MessageLike, Iterable[MessageLike]]
"""Messages as any public function takes them: one message-like value or an iterable of them."""

ROLES = frozenset(
    {"system", "user", "assistant", "tool", "custom", "branch_summary", "compaction_summary"}
)


def is_role_pair(value: object) -> bool:
    """True for a ``(role, content)`` pair: a tuple of two whose first item is a string."""
    return type(value) is tuple and len(value) == 2 and isinstance(value[0], str)


def as_messages(value: object, where: str = "messages") -> list[Message]:
    """``value`` (see `MessagesLike`) as a new list of messages; `DecodeError` for anything else.

    ``where`` names the caller in errors (``"prepare"``)."""
    if isinstance(value, _MessageBase):
        return [value]  # type: ignore[list-item]
    if isinstance(value, (str, Mapping)) or is_role_pair(value):
        return [message_of(value, where, None)]
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise DecodeError(
            f"{where}: expected messages, not a {type(value).__name__} (mb.load_messages reads "
            "a stored JSON history)"
        )
    if isinstance(value, BaseModel) or not isinstance(value, Iterable):
        raise DecodeError(f"{where}: expected messages, not a {type(value).__name__} ({_SHAPES})")
    messages: list[Message] = []
    append = messages.append
    for index, item in enumerate(value):
        if isinstance(item, _MessageBase):
            append(item)  # type: ignore[arg-type]
        else:
            append(message_of(item, where, index))
    return messages


def message_of(item: object, where: str, index: int | None) -> Message:
    """One message-like item as a message (``index``: its place in a list, for errors)."""
    place = f"{where}: " if index is None else f"{where}: message {index} "
    if isinstance(item, str):
        return UserMessage(content=item)
    if isinstance(item, _MessageBase):
        return item  # type: ignore[return-value]
    if isinstance(item, Mapping):
        return message_from_dict(item, place.rstrip(": ") if index is not None else where)
    if is_role_pair(item):
        return _from_pair(item, place)  # type: ignore[arg-type]
    if index is None:
        raise DecodeError(f"{where}: expected messages, not a {type(item).__name__} ({_SHAPES})")
    raise DecodeError(
        f"{place}is a {type(item).__name__}, not a mediablocks message (messages are {_SHAPES})"
    )


def _from_pair(pair: tuple[str, Any], place: str) -> Message:
    role = normalize_role(pair[0])
    if role not in ROLES:
        raise DecodeError(
            f"{place}({pair[0]!r}, ...) is not a (role, content) pair mediablocks takes: "
            f"{pair[0]!r} is not a role (system, user, assistant, tool, or an alias: human, ai)"
        )
    try:
        return _message_adapter().validate_python({"role": role, "content": pair[1]})
    except ValidationError as exc:
        from .blocks import summarize_validation_error

        raise DecodeError(
            f"{place}({pair[0]!r}, ...) is not a (role, content) pair mediablocks takes: "
            f"{summarize_validation_error(exc)}"
        ) from None


def message_from_dict(data: Mapping[str, Any], where: str = "message") -> Message:
    """A message from a dict in mediablocks' JSON form; its ``content`` may be a raw JSON list of
    blocks, whose types mediablocks does not know are kept as ``RawBlock(provider="unknown")``."""
    if not isinstance(data, dict):
        data = dict(data)
    check_depth(data, where)
    content = data.get("content")
    if isinstance(content, (list, tuple)) and any(isinstance(b, dict) for b in content):
        from .parsing import parse_blocks

        parsed = [
            parse_blocks([b], unknown="raw")[0] if isinstance(b, dict) else b for b in content
        ]
        data = {**data, "content": parsed}
    try:
        return _message_adapter().validate_python(data)
    except ValidationError as exc:
        from .blocks import summarize_validation_error

        raise DecodeError(
            f"{where} is not a valid message ({summarize_validation_error(exc)}); to read a "
            "provider's own format use mb.decode(payload, provider)"
        ) from None


_SHAPES = "a string, a (role, content) pair, a message or its dict, or a list of them"


def dump_messages(messages: MessagesLike, *, indent: int | None = None) -> str:
    """A versioned JSON document holding the messages, media bytes inline as base64.

    Takes messages as every entry point does (a string, a ``(role, content)`` pair, dicts...),
    and writes only what `load_messages` reads back: anything that cannot be written so raises
    (`InvalidTextError` for a lone surrogate, `DecodeError` for a value that is not JSON, naming
    the message), and nothing is written half.
    """
    return _stored.dump_messages(as_messages(messages, "dump_messages"), indent=indent)


def load_messages(
    data: str | bytes | bytearray | MessagesLike,
    *,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> list[Message]:
    """Messages from `dump_messages` output (or a bare JSON list of messages).

    Text or bytes are the JSON document; a dict is the parsed document (or one message in
    mediablocks' JSON form); anything else is messages as every entry point takes them (a list of
    dicts, messages, strings or ``(role, content)`` pairs; one message; one pair). Raises
    `DecodeError` for anything that is not a message document, or a version newer than this
    library understands.

    What is loaded is untrusted: a path or URL it names is read only under ``allow_paths`` /
    ``policy`` (or a read's own policy), never because the history names it (docs/history.md).
    """
    if isinstance(data, (str, bytes, bytearray)) or (
        isinstance(data, dict) and ("format" in data or "role" not in data)
    ):
        return _stored.load_messages(data, allow_paths=allow_paths, policy=policy)
    if isinstance(data, list) and all(type(item) is dict for item in data):
        return _stored.load_messages(data, allow_paths=allow_paths, policy=policy)
    with loading("a loaded history", "load_messages", allow_paths, policy):
        return as_messages(data, "load_messages")
