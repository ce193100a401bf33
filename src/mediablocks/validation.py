"""`validate`: every problem in a history at once, before a provider rejects it.

Checks that hold everywhere: empty text blocks, duplicate tool-call ids, tool results without a
matching earlier call, and a ToolCallBlock whose arguments were not valid JSON. With a provider,
also what that provider refuses: tool calls left without results, system messages after the start, a
conversation that does not begin with a user turn, and consecutive turns of one role where the wire
format needs alternation (providers whose translators merge them are not flagged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .blocks import TextBlock, ToolCallBlock, ToolResultBlock
from .errors import MediaBlocksError
from .messages import SESSION_ROLES, Message, SystemMessage

__all__ = ["HistoryError", "Problem", "ensure_valid", "validate"]

# Providers that reject an assistant tool call not answered by a result in the next turn.
_RESULTS_REQUIRED = frozenset(
    {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "mistral"}
)
# Providers whose system prompt is a separate field: a system message mid-history has no place.
_SYSTEM_FIRST_ONLY = frozenset({"anthropic", "gemini", "bedrock"})
# Providers that require the first sent turn to be the user's.
_USER_FIRST = frozenset({"anthropic", "gemini", "bedrock"})


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


class HistoryError(MediaBlocksError, ValueError):
    """A history with problems; ``problems`` lists every one."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in the history:\n{lines}")


def validate(messages: Sequence[Message], provider: str | None = None) -> list[Problem]:
    """Every problem found in ``messages`` (an empty list when there is none)."""
    canonical = _canonical(provider)
    problems: list[Problem] = []
    calls: dict[str, int] = {}
    answered: set[str] = set()
    pending: dict[str, tuple[int, int]] = {}
    sent = [(i, m) for i, m in enumerate(messages) if m.role not in SESSION_ROLES]

    for position, (index, message) in enumerate(sent):
        for block_index, block in enumerate(message.content):
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
        if canonical in _RESULTS_REQUIRED and message.role == "assistant":
            next_message = sent[position + 1][1] if position + 1 < len(sent) else None
            for call in (b for b in message.content if isinstance(b, ToolCallBlock)):
                answered_next = next_message is not None and any(
                    isinstance(b, ToolResultBlock) and b.tool_call_id == call.id
                    for b in next_message.content
                )
                if next_message is not None and not answered_next:
                    problems.append(
                        Problem(
                            index,
                            message.content.index(call),
                            "tool-call-without-result",
                            f"{canonical} needs the result of tool call {call.id!r} in the "
                            "next message",
                        )
                    )
    if canonical in _USER_FIRST:
        first = next((m for _, m in sent if not isinstance(m, SystemMessage)), None)
        if first is not None and first.role != "user":
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


def ensure_valid(messages: Sequence[Message], provider: str | None = None) -> None:
    """Raise `HistoryError` listing every problem, or return quietly."""
    problems = validate(messages, provider)
    if problems:
        raise HistoryError(problems)


def _canonical(provider: str | None) -> str | None:
    if provider is None:
        return None
    from .providers._options import canonical_provider

    return canonical_provider(provider)
