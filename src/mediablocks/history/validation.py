"""`validate`: every problem in a history at once, before a provider rejects it.

Checks that hold everywhere: empty text blocks, empty messages, duplicate tool-call ids, tool
results without a matching earlier call (or a second result for one call), and a ToolCallBlock
whose arguments were not valid JSON. With a provider, also what that provider refuses: tool calls
left without results, system messages after the start, a conversation that does not begin with a
user turn, and role orders the wire format refuses (tool results not right after their calls for
OpenAI Chat and Mistral; a user message right after tool results for Mistral). Consecutive turns of
one role are not flagged: the Anthropic, Bedrock and Gemini translators merge them.

``provider="bedrock-harness"`` checks the ``messages`` of an Amazon Bedrock AgentCore Harness
``InvokeHarness`` call: Bedrock's rules, except that a resume may open with the assistant message
holding the paused inline-function calls (the two-message resume `harness_resume` builds), and
only text, tool calls, tool results and reasoning may go (the ``HarnessContentBlock`` union).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._unicode import surrogate_in, surrogate_note
from ..blocks import Block, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..errors import HistoryError, UnsupportedBlockError
from ..messages import SESSION_ROLES, AssistantMessage, Message, SystemMessage
from .lengths import NO_CAPS, LengthLimits, caps_for

if TYPE_CHECKING:
    from ..tools import Tool

__all__ = ["HistoryError", "Problem", "check_sendable", "ensure_valid", "validate"]

# Amazon Bedrock AgentCore Harness: not a provider `encode` writes for (`harness_resume` builds its
# messages) but a ``validate`` target. Its messages are Converse-shaped; a resume carries the
# paused assistant turn first, so it may open with the assistant (``HarnessMessage`` role
# ``user | assistant``). Its content blocks are text, toolUse, toolResult and reasoningContent.
HARNESS = "bedrock-harness"
_HARNESS_BLOCKS = frozenset({"text", "tool_call", "tool_result", "thinking"})
# Providers that reject an assistant tool call not answered by a result in the next turn.
_RESULTS_REQUIRED = frozenset(
    {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "mistral", HARNESS}
)
# Providers whose system prompt is a separate field: a system message mid-history has no place.
_SYSTEM_FIRST_ONLY = frozenset({"anthropic", "gemini", "bedrock", HARNESS})
# Providers that require the first sent turn to be the user's.
_USER_FIRST = frozenset({"anthropic", "gemini", "bedrock"})
# Providers whose tool messages must come right after the assistant message making the calls
# (the others merge a run of user and tool messages into the one user turn answering them).
_RESULTS_RIGHT_AFTER = frozenset({"openai-chat", "mistral"})
# Providers that refuse a user message right after tool results ("Unexpected role 'user' after
# role 'tool'"): an assistant message must come between.
_ASSISTANT_AFTER_RESULTS = frozenset({"mistral"})
# Wire formats that match results to calls by name, not id: an empty id is not sent.
_IDS_OPTIONAL = frozenset({"gemini", "ollama"})
# The longest string and call id each provider takes: `mediablocks.history.lengths` (documented
# defaults, configurable per provider with `set_length_limits`).


def _is_results(message: Message) -> bool:
    """A tool message, or a user message holding only tool results (how some formats carry them)."""
    if message.role == "tool":
        return True
    return (
        message.role == "user"
        and bool(message.content)
        and all(isinstance(b, ToolResultBlock) for b in message.content)
    )


def _answers(sent: list[tuple[int, Message]], position: int, provider: str) -> set[str]:
    """The call ids answered by the turn after ``sent[position]``: the run of tool messages right
    after it, or for providers that merge them, the run of user and tool messages."""
    answered: set[str] = set()
    for _, message in sent[position + 1 :]:
        if provider in _RESULTS_RIGHT_AFTER and not _is_results(message):
            break
        if message.role not in ("user", "tool"):
            break
        answered.update(b.tool_call_id for b in message.content if isinstance(b, ToolResultBlock))
    return answered


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


def validate(
    messages: Sequence[Message] | Message | Any,
    provider: str | None = None,
    *,
    tools: Iterable[Tool | str] | None = None,
) -> list[Problem]:
    """Every problem found in ``messages`` (an empty list when there is none).

    ``messages`` may also be one message or dicts in mediablocks' JSON form. With ``tools`` (the
    request's `Tool`s or their names), a call to a tool not among them is flagged too.
    """
    from ..message_input import as_messages

    messages = as_messages(messages, "validate")
    canonical = _canonical(provider)
    wire = _wire(canonical)
    caps = caps_for(canonical, wire)
    known = None if tools is None else {t if isinstance(t, str) else t.name for t in tools}
    problems: list[Problem] = []
    calls: dict[str, int] = {}
    answered: set[str] = set()
    pending: dict[str, tuple[int, int]] = {}
    sent = [
        (i, m)
        for i, m in enumerate(messages)
        if m.role not in SESSION_ROLES or m.role == "compaction_summary"
    ]

    for position, (index, message) in enumerate(sent):
        is_last = position == len(sent) - 1
        own = surrogate_in({k: v for k, v in message.__dict__.items() if k != "content"})
        if own is not None:  # metadata, a summary...
            problems.append(Problem(index, -1, "invalid-unicode", surrogate_note(own)))
        if message.role == "compaction_summary":
            continue  # sent as a user turn (compaction="user") or not at all
        if not message.content and not (is_last and isinstance(message, AssistantMessage)):
            problems.append(Problem(index, -1, "empty-message", f"{message.role} message is empty"))
        for block_index, block in enumerate(message.content):
            problems.extend(_block_rules(block, index, block_index, wire, known, caps=caps))
            if canonical == HARNESS:
                problems.extend(_harness_rules(block, index, block_index))
            if isinstance(block, TextBlock) and not block.text.strip():
                problems.append(Problem(index, block_index, "empty-text", "empty text block"))
            elif isinstance(block, ToolCallBlock):
                if block.id in calls:
                    problems.append(
                        Problem(
                            index,
                            block_index,
                            "duplicate-tool-call-id",
                            f"tool call id {block.id!r} was already used in message "
                            f"{calls[block.id]}",
                        )
                    )
                calls.setdefault(block.id, index)
                pending[block.id] = (index, block_index)
                if not block.args_valid:
                    problems.append(
                        Problem(
                            index,
                            block_index,
                            "invalid-tool-arguments",
                            f"tool call {block.id!r} ({block.name}) has arguments that are not "
                            "a JSON object",
                        )
                    )
            elif isinstance(block, ToolResultBlock):
                if block.tool_call_id not in calls:
                    problems.append(
                        Problem(
                            index,
                            block_index,
                            "orphan-tool-result",
                            f"tool result for {block.tool_call_id!r} has no earlier tool call",
                        )
                    )
                elif block.tool_call_id in answered:
                    problems.append(
                        Problem(
                            index,
                            block_index,
                            "duplicate-tool-result",
                            f"tool call {block.tool_call_id!r} already has a result",
                        )
                    )
                answered.add(block.tool_call_id)
                pending.pop(block.tool_call_id, None)
        if canonical is None:
            continue
        if canonical in _SYSTEM_FIRST_ONLY and isinstance(message, SystemMessage):
            earlier = [m for _, m in sent[:position] if not isinstance(m, SystemMessage)]
            if earlier:
                problems.append(
                    Problem(
                        index,
                        -1,
                        "system-not-first",
                        f"{canonical} takes the system prompt only before the conversation",
                    )
                )
        if canonical in _RESULTS_REQUIRED and message.role == "assistant" and not is_last:
            answers = _answers(sent, position, canonical)
            for block_index, block in enumerate(message.content):
                if isinstance(block, ToolCallBlock) and block.id not in answers:
                    problems.append(
                        Problem(
                            index,
                            block_index,
                            "tool-call-without-result",
                            f"{canonical} needs the result of tool call {block.id!r} in the "
                            "turn right after it",
                        )
                    )
        previous = sent[position - 1][1] if position > 0 else None
        if canonical in _RESULTS_RIGHT_AFTER and message.role == "tool":
            after_calls = previous is not None and (
                _is_results(previous)
                or (isinstance(previous, AssistantMessage) and bool(previous.tool_calls))
            )
            if not after_calls:
                problems.append(
                    Problem(
                        index,
                        -1,
                        "role-order",
                        f"{canonical} takes tool results only right after the assistant message "
                        "that made the calls",
                    )
                )
        if (
            canonical in _ASSISTANT_AFTER_RESULTS
            and message.role == "user"
            and not _is_results(message)
            and previous is not None
            and _is_results(previous)
        ):
            problems.append(
                Problem(
                    index,
                    -1,
                    "role-order",
                    f"{canonical} refuses a user message right after tool results; an assistant "
                    "message must come between",
                )
            )
    if canonical in _USER_FIRST:
        # A compaction summary is what the model sees first when it is sent (as a user turn).
        first = next((m for _, m in sent if not isinstance(m, SystemMessage)), None)
        if first is not None and first.role not in ("user", "compaction_summary"):
            first_index = next(i for i, m in sent if m is first)
            problems.append(
                Problem(
                    first_index,
                    -1,
                    "first-turn-not-user",
                    f"{canonical} needs the conversation to start with a user turn",
                )
            )
    return sorted(problems, key=lambda p: (p.message_index, p.block_index))


def ensure_valid(
    messages: Sequence[Message] | Message | Any,
    provider: str | None = None,
    *,
    tools: Iterable[Tool | str] | None = None,
) -> None:
    """Raise `HistoryError` listing every problem, or return quietly."""
    problems = validate(messages, provider, tools=tools)
    if problems:
        raise HistoryError(problems)


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
    canonical = _canonical(provider)
    wire = _wire(canonical)
    caps = caps_for(canonical, wire)
    max_string = caps.max_string or sys.maxsize
    max_id = caps.max_call_id or sys.maxsize
    ids_needed = wire not in _IDS_OPTIONAL
    # Every encode pays this loop, so it only reads lengths, dispatched on the type tag (faster
    # than isinstance on pydantic models); the full rules run only once something fails.
    limited = max_string < sys.maxsize
    for message in messages:
        blocks: Sequence[Any] = message.content  # read by tag: no union narrowing wanted here
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
                _raise_first(messages, provider, wire, caps)


def _raise_first(
    messages: Sequence[Message], provider: str, wire: str | None, caps: LengthLimits
) -> None:
    """Raise for the first block breaking a rule `check_sendable` enforces, by position."""
    for index, message in enumerate(messages):
        for position, block in enumerate(message.content):
            rules = _block_rules(block, index, position, wire, None, deep=False, caps=caps)
            for problem in rules:
                if problem.code in _STRICT_CODES:
                    raise UnsupportedBlockError(f"{provider}: {problem}")


def _block_rules(
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


def _harness_rules(block: Block, index: int, position: int) -> list[Problem]:
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


def _canonical(provider: str | None) -> str | None:
    if provider is None:
        return None
    if isinstance(provider, str) and provider.strip().lower().replace("_", "-") == HARNESS:
        return HARNESS
    from ..providers._options import canonical_provider

    return canonical_provider(provider)


def _wire(canonical: str | None) -> str | None:
    """The wire format a provider speaks (a profile's base: ``deepseek`` -> ``openai-chat``)."""
    if canonical is None:
        return None
    if canonical == HARNESS:
        return "bedrock"
    from ..providers.registry import provider_entry

    profile = provider_entry(canonical).profile
    return profile.base if profile is not None else canonical
