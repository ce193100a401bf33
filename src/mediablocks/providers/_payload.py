"""Reading a decoder's payload: which kind of object it is (a response, a request, one message)
and each wire object checked to be one, so every ``from_<provider>`` tells them apart, and says
what it expected, the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import DecodeError
from ..messages import Message
from ._common import as_dict

__all__ = ["PayloadRoute", "decode_payload", "has_messages", "wire_object"]

PayloadRoute = tuple[
    str, Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], "Message | list[Message]"]
]
"""A kind of payload object: what it is (``"a response with 'choices'"``), how to tell it, and
its decoder."""


def has_messages(data: dict[str, Any]) -> bool:
    """Whether a payload object is a request: it has ``messages``."""
    return "messages" in data


def _has_role(data: dict[str, Any]) -> bool:
    return "role" in data


def wire_object(
    raw: Any, where: str, what: str, plain: Callable[[Any], Any] = as_dict
) -> dict[str, Any]:
    """``raw`` as a dict (an SDK object dumped by ``plain``), or `DecodeError`: ``{where} is a
    list, not {what}``."""
    value = plain(raw)
    if not isinstance(value, dict):
        raise DecodeError(f"{where} is a {type(raw).__name__}, not {what}")
    return value


def decode_payload(
    payload: Any,
    what: str,
    items: Callable[[Any], list[Message]],
    response: PayloadRoute,
    *,
    request: PayloadRoute | None = None,
    item: tuple[str, Callable[[dict[str, Any]], bool]] = ("a message with 'role'", _has_role),
    plain: Callable[[Any], Any] = as_dict,
    item_types: tuple[type, ...] = (list,),
) -> list[Message]:
    """What every ``from_<provider>`` does with its payload: an object is a ``response``, a
    ``request`` (by default one with ``messages``, for `items`) or an ``item`` of a list; a
    list (``item_types``) goes to `items`. Each route says what it is (for the error), how to
    tell it, and (but an item) its decoder. Anything else raises `DecodeError` saying it is not
    ``what`` (``"a Mistral payload"``). ``plain`` turns SDK objects into dicts first."""
    data = plain(payload)
    if isinstance(data, dict):
        if request is None:
            request = ("a request with 'messages'", has_messages, lambda d: items(d["messages"]))
        for _, tells, decode in (response, request):
            if tells(data):
                decoded = decode(data)
                return decoded if isinstance(decoded, list) else [decoded]
        if item[1](data):
            return items([data])
        raise DecodeError(f"not {what}: expected {request[0]}, {response[0]}, or {item[0]}")
    if isinstance(data, item_types):
        return items(data)
    raise DecodeError(f"not {what}: a {type(payload).__name__}")
