"""The stream fold for Cohere v2 chat events (``client.v2.chat_stream``).

Events: ``message-start``, ``content-start``/``-delta``/``-end`` (text or thinking, by index),
``tool-plan-delta``, ``tool-call-start``/``-delta``/``-end``, ``citation-start``/``-end`` and
``message-end`` (finish reason and usage). Content and calls are keyed by their index in a dict,
never allocated by it, so an index from the wire cannot grow memory.
"""

from __future__ import annotations

from typing import Any

from ...errors import DecodeError
from .._fold import Folder

_MAX_INDEX = 1 << 20
"""Larger content or call indexes than this are refused as malformed."""


def _index(event: dict[str, Any], kind: str) -> int:
    index = event.get("index", 0)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < _MAX_INDEX:
        raise DecodeError(f"Cohere {kind} event: index {index!r} is not a small whole number")
    return index


def _message_delta(event: dict[str, Any]) -> dict[str, Any]:
    delta = event.get("delta")
    message = delta.get("message") if isinstance(delta, dict) else None
    return message if isinstance(message, dict) else {}


class CohereFolder(Folder):
    provider = "cohere"

    def __init__(self) -> None:
        super().__init__()
        self.content: dict[int, dict[str, Any]] = {}
        self.plan: list[str] = []
        self.citations: list[Any] = []

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if not isinstance(kind, str):
            raise DecodeError(f"Cohere stream event has no type: {str(event)[:80]}")
        message = _message_delta(event)
        if kind == "message-start":
            response_id = event.get("id")
            self.response_id = response_id if isinstance(response_id, str) else self.response_id
        elif kind in ("content-start", "content-delta"):
            self._content(_index(event, kind), message.get("content"))
        elif kind == "tool-plan-delta":
            plan = message.get("tool_plan")
            if isinstance(plan, str):
                self.plan.append(plan)
        elif kind in ("tool-call-start", "tool-call-delta"):
            self._tool_call(_index(event, kind), message.get("tool_calls"))
        elif kind == "citation-start":
            citation = message.get("citations")
            if isinstance(citation, dict):
                self.citations.append(citation)
        elif kind == "message-end":
            delta = event.get("delta")
            if isinstance(delta, dict):
                reason = delta.get("finish_reason")
                self.stop_reason = reason if isinstance(reason, str) else self.stop_reason
                usage = delta.get("usage")
                if isinstance(usage, dict):
                    self.usage = usage
                error = delta.get("error")
                if error is not None:
                    self.error = {"message": str(error)}

    def _content(self, index: int, content: Any) -> None:
        if not isinstance(content, dict):
            return
        part = self.content.get(index)
        if part is None:
            kind = "thinking" if "thinking" in content else content.get("type", "text")
            if kind not in ("text", "thinking"):
                kind = "text"
            part = {"type": kind, kind: ""}
            self.content[index] = part
        kind = part["type"]
        self.pieces.append(part, kind, content.get(kind))

    def _tool_call(self, index: int, call: Any) -> None:
        if not isinstance(call, dict):
            return
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = call.get("id")
        name = function.get("name")
        tool = self.call(
            f"index:{index}",
            call_id if isinstance(call_id, str) and call_id else None,
            name if isinstance(name, str) and name else None,
        )
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            tool.fragments.append(arguments)

    def response(self) -> dict[str, Any]:
        self.pieces.apply()
        message: dict[str, Any] = {"role": "assistant"}
        message["content"] = [self.content[index] for index in sorted(self.content)]
        if self.plan:
            message["tool_plan"] = "".join(self.plan)
        calls = []
        for key in self.call_order:
            call = self.calls[key]
            function = {"name": call.name or "", "arguments": call.arguments_text()}
            calls.append({"id": call.final_id, "type": "function", "function": function})
        if calls:
            message["tool_calls"] = calls
        if self.citations:
            message["citations"] = self.citations
        response: dict[str, Any] = {"message": message}
        if self.response_id is not None:
            response["id"] = self.response_id
        if self.stop_reason is not None:  # a cut stream gets no invented finish reason
            response["finish_reason"] = self.stop_reason
        if self.usage:
            response["usage"] = self.usage
        return response
