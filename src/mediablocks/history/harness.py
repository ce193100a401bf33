"""Resuming an Amazon Bedrock AgentCore Harness after it paused on inline function calls.

When the model calls a tool declared with `Tool.to_harness`, ``InvokeHarness`` stops and returns
the call (a Converse-style ``toolUse``); the caller runs it and invokes the harness again on the
same session with the results as a user message of ``toolResult`` blocks
(https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/harness-tools.html, "Inline
functions"; ``HarnessMessage`` and ``HarnessToolResultBlock`` in the API reference).
`harness_resume` builds that ``messages`` argument in one call: with ``reply`` (the paused
assistant message) it carries that turn's ``toolUse`` blocks first, then the results, the
two-message resume for a harness session that did not keep the paused turn (checked by
``validate(..., "bedrock-harness")``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..blocks import TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..errors import InvalidOptionError, UnsupportedBlockError
from ..messages import AssistantMessage, ToolMessage

__all__ = ["harness_resume"]


def harness_resume(
    results: ToolMessage | ToolResultBlock | Sequence[ToolResultBlock],
    *,
    reply: AssistantMessage | None = None,
) -> dict[str, Any]:
    """``{"messages": [...]}`` for the ``InvokeHarness`` call that resumes a paused harness:
    one user message with a ``toolResult`` per result (text, ``status`` ``error`` for an error
    result), after the paused assistant message's text, reasoning and ``toolUse`` blocks when
    ``reply`` is given. Media in a result raises `UnsupportedBlockError`: Harness tool results
    take text and JSON only; results that do not answer ``reply``'s calls one to one raise
    `HistoryError`."""
    if isinstance(results, ToolMessage):
        blocks: list[Any] = list(results.results)
    elif isinstance(results, ToolResultBlock):
        blocks = [results]
    else:
        blocks = list(results)
    if not blocks or not all(isinstance(block, ToolResultBlock) for block in blocks):
        raise InvalidOptionError(
            "harness_resume takes a ToolMessage or ToolResultBlocks (at least one)"
        )
    user = {"role": "user", "content": [_tool_result(block, n) for n, block in enumerate(blocks)]}
    if reply is None:
        return {"messages": [user]}
    if not isinstance(reply, AssistantMessage):
        raise InvalidOptionError(
            f"harness_resume reply= takes the paused AssistantMessage, not {type(reply).__name__}"
        )
    from ..providers._sendable import HARNESS
    from .validation import ensure_valid

    ensure_valid([reply, ToolMessage.from_results(blocks)], HARNESS)
    return {"messages": [{"role": "assistant", "content": _assistant(reply)}, user]}


def _assistant(reply: AssistantMessage) -> list[dict[str, Any]]:
    """The paused turn as Harness content blocks (`ensure_valid` has refused anything else)."""
    content: list[dict[str, Any]] = []
    for block in reply.content:
        if isinstance(block, TextBlock):
            content.append({"text": block.text})
        elif isinstance(block, ToolCallBlock):
            call = {"toolUseId": block.id, "name": block.name, "input": dict(block.args)}
            content.append({"toolUse": call})
        elif isinstance(block, ThinkingBlock) and not block.redacted:
            reasoning: dict[str, Any] = {"text": block.thinking}
            if block.signature:
                reasoning["signature"] = block.signature
            content.append({"reasoningContent": {"reasoningText": reasoning}})
        else:  # redacted reasoning: its bytes are the provider's, kept out rather than guessed
            raise UnsupportedBlockError(
                f"bedrock harness: the paused reply's {type(block).__name__} cannot be resent "
                "(redacted reasoning); resume without reply="
            )
    return content


def _tool_result(block: ToolResultBlock, position: int) -> dict[str, Any]:
    if isinstance(block.content, str):
        texts = [block.content]
    else:
        texts = []
        for inner in block.content:
            if not isinstance(inner, TextBlock):
                raise UnsupportedBlockError(
                    f"bedrock harness cannot carry {type(inner).__name__} in tool result "
                    f"{position} ({block.tool_call_id!r}): Harness tool results take text and "
                    "JSON only"
                )
            texts.append(inner.text)
    content = [{"text": text} for text in texts if text] or [{"text": ""}]
    result: dict[str, Any] = {"toolUseId": block.tool_call_id, "content": content}
    result["status"] = "error" if block.is_error else "success"
    return {"toolResult": result}
