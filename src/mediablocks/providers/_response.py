"""`decode_response`: a provider's response to the one assistant reply it holds, typed as such.

`decode` returns ``list[Message]`` because it also reads request bodies and message lists; an
agent loop that reads ``reply.tool_calls`` needs an `AssistantMessage`, and a checker cannot know
which member of the union ``decode(...)[-1]`` is. This is the narrow entry point for responses.
"""

from __future__ import annotations

from typing import Any

from ..errors import DecodeError
from ..messages import AssistantMessage
from ._options import canonical_provider

__all__ = ["decode_response"]


def decode_response(payload: Any, provider: str) -> AssistantMessage:
    """The one assistant reply in a provider's response.

    ``payload`` is what the provider answered: a dict, JSON text or bytes, or the SDK's own
    response object (``ChatCompletion``, ``anthropic.types.Message``, ``GenerateContentResponse``,
    boto3's ``converse`` dict...). It is typed ``Any`` because those SDK objects share no type.

    Raises `DecodeError` when the payload is not a response holding exactly one reply: a request
    body or message list (it has user messages), an empty response, or an OpenAI response with
    several ``choices`` (use `decode` to read them all).
    """
    from . import decode  # the package imports this module; decode lives there

    name = canonical_provider(provider)
    messages = decode(payload, name)
    replies = [message for message in messages if isinstance(message, AssistantMessage)]
    others = sorted({m.role for m in messages if not isinstance(m, AssistantMessage)})
    if others:
        raise DecodeError(
            f"{name} payload is not a response: it holds {', '.join(others)} message(s); "
            "to read a request body or a message list use mb.decode(payload, provider)"
        )
    if len(replies) != 1:
        found = "no assistant reply" if not replies else f"{len(replies)} assistant replies"
        raise DecodeError(
            f"{name} response holds {found}, not one; to read them all use "
            "mb.decode(payload, provider)"
        )
    return replies[0]
