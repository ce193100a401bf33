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

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._unicode import surrogate_in, surrogate_note
from ..blocks import TextBlock, ToolCallBlock, ToolResultBlock
from ..errors import HistoryError
from ..messages import SESSION_ROLES, AssistantMessage, Message, SystemMessage
from ..providers.lengths import caps_for

if TYPE_CHECKING:
    from ..tools import Tool

from ..providers._sendable import (
    HARNESS,
    Problem,
    block_rules,
    canonical_target,
    check_sendable,
    harness_rules,
    wire_of,
)

__all__ = ["HistoryError", "Problem", "check_sendable", "ensure_valid", "validate"]

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
# The longest string and call id each provider takes: `mediablocks.providers.lengths`
# (documented defaults, configurable per provider with `set_length_limits`).


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
    canonical = canonical_target(provider)
    wire = wire_of(canonical)
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
            problems.extend(block_rules(block, index, block_index, wire, known, caps=caps))
            if canonical == HARNESS:
                problems.extend(harness_rules(block, index, block_index))
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
