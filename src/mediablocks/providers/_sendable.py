"""What a provider's API refuses outright, checked on every `encode`: empty or too long tool
call ids, nameless tool calls, strings past a wire format's length, and what an Amazon Bedrock
AgentCore Harness message cannot carry. `Problem` is one finding; `validate`
(`mediablocks.history.validation`) runs these block rules beside its history rules.

Kept below the translators (no import of `mediablocks.history`), so `encode` can call
`check_sendable` without loading the history utilities.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._unicode import surrogate_in, surrogate_note
from ..blocks import Block, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..errors import UnsupportedBlockError
from ..messages import Message
from .lengths import NO_CAPS, LengthLimits, caps_for

__all__ = [
    "HARNESS",
    "Problem",
    "SendableRules",
    "block_rules",
    "canonical_target",
    "check_sendable",
    "harness_rules",
    "wire_of",
]

# Amazon Bedrock AgentCore Harness: not a provider `encode` writes for (`harness_resume` builds its
# messages) but a ``validate`` target. Its messages are Converse-shaped; a resume carries the
# paused assistant turn first, so it may open with the assistant (``HarnessMessage`` role
# ``user | assistant``). Its content blocks are text, toolUse, toolResult and reasoningContent.
HARNESS = "bedrock-harness"
_HARNESS_BLOCKS = frozenset({"text", "tool_call", "tool_result", "thinking"})
# Wire formats that match results to calls by name, not id: an empty id is not sent.
_IDS_OPTIONAL = frozenset({"gemini", "ollama"})


@dataclass(frozen=True)
class Problem:
    """One problem: where it is (message and block index, -1 for the whole message) and what."""

    message_index: int
    block_index: int
    code: str
    message: str

    def __str__(self) -> str:
        where = f"message {self.message_index}"
        if self.block_index >= 0:
            where += f", block {self.block_index}"
        return f"{where}: {self.message} [{self.code}]"


_STRICT_CODES = frozenset(
    {
        "empty-tool-call-id",
        "empty-tool-name",
        "tool-call-id-too-long",
        "text-too-long",
    }
)
"""What `check_sendable` raises on: what the provider's API refuses outright."""


def check_sendable(messages: Sequence[Message], provider: str) -> None:
    """Raise `UnsupportedBlockError` for what ``provider``'s API refuses outright (an empty tool
    call id or name, an id or a string past its documented length): called by `encode`."""
    canonical = canonical_target(provider)
    SendableRules(provider, canonical, wire_of(canonical)).check(messages)


class SendableRules:
    """`check_sendable` for one provider, its name resolved by the caller: `encode` resolves the
    provider once and runs `check` on each message as its single pass reaches it."""

    __slots__ = ("caps", "ids_needed", "limited", "max_id", "max_string", "provider", "wire")

    def __init__(self, provider: str, canonical: str | None, wire: str | None) -> None:
        self.provider = provider  # as the caller named it, for the error
        self.wire = wire
        self.caps = caps_for(canonical, wire)
        self.max_string = self.caps.max_string or sys.maxsize
        self.max_id = self.caps.max_call_id or sys.maxsize
        self.ids_needed = wire not in _IDS_OPTIONAL
        self.limited = self.max_string < sys.maxsize

    def check(self, messages: Sequence[Message], start: int = 0) -> None:
        """Raise for the first block breaking a rule (``start``: the index of ``messages[0]``
        in the history, for the error)."""
        max_string, max_id = self.max_string, self.max_id
        ids_needed, limited = self.ids_needed, self.limited
        # Every encode pays this loop, so it only reads lengths, dispatched on the type tag
        # (faster than isinstance on pydantic models); the full rules run once something fails.
        for message in messages:
            blocks: Sequence[Any] = message.content  # read by tag: no union narrowing wanted
            for block in blocks:
                kind = block.type
                if kind == "tool_call":
                    ident = block.id
                    bad = not block.name or len(ident) > max_id or (ids_needed and not ident)
                elif kind == "tool_result":
                    ident = block.tool_call_id
                    bad = len(ident) > max_id or (ids_needed and not ident)
                    bad = bad or (limited and len(block.text) > max_string)
                elif not limited:
                    continue
                elif kind == "text":
                    bad = len(block.text) > max_string
                elif kind == "thinking":
                    bad = len(block.thinking) > max_string
                else:
                    continue
                if bad:
                    _raise_first(messages, self.provider, self.wire, self.caps, start)


def _raise_first(
    messages: Sequence[Message],
    provider: str,
    wire: str | None,
    caps: LengthLimits,
    start: int = 0,
) -> None:
    """Raise for the first block breaking a rule `check_sendable` enforces, by position."""
    for index, message in enumerate(messages, start):
        for position, block in enumerate(message.content):
            rules = block_rules(block, index, position, wire, None, deep=False, caps=caps)
            for problem in rules:
                if problem.code in _STRICT_CODES:
                    raise UnsupportedBlockError(f"{provider}: {problem}")


def block_rules(
    block: Block,
    index: int,
    position: int,
    wire: str | None,
    known: set[str] | None,
    *,
    deep: bool = True,
    caps: LengthLimits = NO_CAPS,
) -> list[Problem]:
    """The rules on one block alone: tool ids and names, the tools given, string lengths."""
    found: list[Problem] = []
    if isinstance(block, ToolCallBlock):
        if not block.name:
            found.append(Problem(index, position, "empty-tool-name", "tool call has no name"))
        elif known is not None and block.name not in known:
            found.append(
                Problem(
                    index,
                    position,
                    "unknown-tool",
                    f"tool call {block.id!r} is to {block.name!r}, not among the request's tools"
                    f" ({', '.join(sorted(known)) or 'none'})",
                )
            )
    call_id = (
        block.id
        if isinstance(block, ToolCallBlock)
        else block.tool_call_id
        if isinstance(block, ToolResultBlock)
        else None
    )
    if call_id is not None and wire is not None:
        if not call_id and wire not in _IDS_OPTIONAL:
            what = "tool call" if isinstance(block, ToolCallBlock) else "tool result"
            found.append(
                Problem(index, position, "empty-tool-call-id", f"{what} has an empty call id")
            )
        limit = caps.max_call_id
        if limit is not None and len(call_id) > limit:
            found.append(
                Problem(
                    index,
                    position,
                    "tool-call-id-too-long",
                    f"call id {call_id[:20]!r}... is {len(call_id)} characters; {wire} takes "
                    f"at most {limit}",
                )
            )
    elif call_id == "":
        found.append(Problem(index, position, "empty-tool-call-id", "empty tool call id"))
    text = _long_text(block)
    bad = surrogate_in(block if deep else text)
    if bad is not None:
        found.append(Problem(index, position, "invalid-unicode", surrogate_note(bad)))
    limit = caps.max_string
    if limit is not None and text is not None and len(text) > limit:
        found.append(
            Problem(
                index,
                position,
                "text-too-long",
                f"{block.type} of {len(text):,} characters; {wire} takes at most "
                f"{limit:,} in one string",
            )
        )
    return found


def harness_rules(block: Block, index: int, position: int) -> list[Problem]:
    """What a Harness message cannot carry: media anywhere, also inside a tool result (its
    ``HarnessToolResultContentBlock`` is text or JSON)."""
    inner: list[Any] = []
    if block.type not in _HARNESS_BLOCKS:
        inner = [block]
    elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
        inner = [b for b in block.content if b.type != "text"]
    return [
        Problem(
            index,
            position,
            "unsupported-block",
            f"{HARNESS} messages take text, tool calls, tool results (text only) and reasoning, "
            f"not {type(b).__name__}",
        )
        for b in inner
    ]


def _long_text(block: Block) -> str | None:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        return block.thinking
    if isinstance(block, ToolResultBlock):
        return block.text
    return None


def canonical_target(provider: str | None) -> str | None:
    if provider is None:
        return None
    if isinstance(provider, str) and provider.strip().lower().replace("_", "-") == HARNESS:
        return HARNESS
    from .registry import canonical_provider

    return canonical_provider(provider)


def wire_of(canonical: str | None) -> str | None:
    """The wire format a provider speaks (a profile's base: ``deepseek`` -> ``openai-chat``)."""
    if canonical is None:
        return None
    if canonical == HARNESS:
        return "bedrock"
    from .registry import provider_entry

    profile = provider_entry(canonical).profile
    return profile.base if profile is not None else canonical
