"""The stream fold for Amazon Bedrock AgentCore Harness (``InvokeHarness``) events.

A Harness streams Converse-shaped events (``messageStart``, ``contentBlockStart`` /
``contentBlockDelta`` / ``contentBlockStop``, ``messageStop``, ``metadata``; the
``InvokeHarnessStreamOutput`` union in the AgentCore API reference), but one invocation may run
several model turns: the harness calls its own tools (``server_tool_use``, ``mcp_tool_use``)
and streams their ``toolResult`` blocks between the turns, and it pauses on an inline function's
``toolUse``. The fold keeps the whole run as one assistant reply, in order: text, reasoning, tool
calls and the harness's own tool results; each message's block indexes start again at 0. Token
usage is added up over the ``metadata`` events; ``runtimeClientError`` and the exceptions are
kept in ``message.metadata["stream_error"]``; ``hookEvent``\\ s are kept in the response's
``hookEvents``.
"""

from __future__ import annotations

from typing import Any

from .stream import BedrockFolder

__all__ = ["HarnessFolder"]


class HarnessFolder(BedrockFolder):
    """`BedrockFolder` for a Harness run: several messages, usage added up, its own errors."""

    provider = "bedrock-harness"

    def add(self, event: dict[str, Any]) -> None:
        if "messageStart" in event:
            self.current.clear()  # the next message numbers its blocks from 0 again
            return
        if "metadata" in event:
            usage = (event["metadata"] or {}).get("usage")
            if isinstance(usage, dict) and self.usage:
                self.usage = _added(self.usage, usage)
                return
        if "hookEvent" in event:
            self.extra.setdefault("hookEvents", []).append(event["hookEvent"])
            return
        if "runtimeClientError" in event:
            body = event["runtimeClientError"]
            self.error = {"type": "runtimeClientError", **(body if isinstance(body, dict) else {})}
            self.stop_reason = "error: runtimeClientError"
            return
        super().add(event)


def _added(before: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Two token usages added key by key (numbers summed; anything else from the later one)."""
    out = dict(before)
    for key, value in more.items():
        earlier = out.get(key)
        numbers = isinstance(value, int) and isinstance(earlier, int)
        out[key] = earlier + value if numbers and not isinstance(value, bool) else value
    return out
