"""Resuming an Amazon Bedrock AgentCore Harness after it paused on inline function calls.

When the model calls a tool declared with `Tool.to_harness`, ``InvokeHarness`` stops and returns
the call (a Converse-style ``toolUse``); the caller runs it and invokes the harness again on the
same session with the results as a user message of ``toolResult`` blocks
(https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/harness-tools.html, "Inline
functions"; ``HarnessMessage`` and ``HarnessToolResultBlock`` in the API reference).
`harness_resume` builds that ``messages`` argument in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..blocks import TextBlock, ToolResultBlock
from ..errors import InvalidOptionError, UnsupportedBlockError
from ..messages import ToolMessage

__all__ = ["harness_resume"]


def harness_resume(
    results: ToolMessage | ToolResultBlock | Sequence[ToolResultBlock],
) -> dict[str, Any]:
    """``{"messages": [...]}`` for the ``InvokeHarness`` call that resumes a paused harness:
    one user message with a ``toolResult`` per result (text, ``status`` ``error`` for an error
    result). Media in a result raises `UnsupportedBlockError`: Harness tool results take text
    and JSON only."""
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
    return {
        "messages": [
            {"role": "user", "content": [_tool_result(block, n) for n, block in enumerate(blocks)]}
        ]
    }


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
