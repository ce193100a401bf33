"""The narrowing behind `decode_response`: a decoded response to its one `AssistantMessage`.

`decode` returns ``list[Message]`` because it also reads request bodies and message lists; an
agent loop that reads ``reply.tool_calls`` needs an `AssistantMessage`, and a checker cannot know
which member of the union ``decode(...)[-1]`` is. ``decode_response`` (in the package, beside
``decode``) decodes, then this checks that what came back is one reply and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import DecodeError
from ..messages import AssistantMessage, Message

__all__ = ["one_reply"]


def one_reply(messages: Sequence[Message], provider: str) -> AssistantMessage:
    """The single `AssistantMessage` of a decoded response; `DecodeError` for anything else."""
    replies = [message for message in messages if isinstance(message, AssistantMessage)]
    others = sorted({m.role for m in messages if not isinstance(m, AssistantMessage)})
    if others:
        raise DecodeError(
            f"{provider} payload is not a response: it holds {', '.join(others)} message(s); "
            "to read a request body or a message list use mb.decode(payload, provider)"
        )
    if len(replies) != 1:
        found = "no assistant reply" if not replies else f"{len(replies)} assistant replies"
        raise DecodeError(
            f"{provider} response holds {found}, not one; to read them all use "
            "mb.decode(payload, provider)"
        )
    return replies[0]
