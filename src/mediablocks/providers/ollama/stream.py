"""The stream fold for Ollama chat chunks.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._common import synthetic_call_id
from .._fold import END, Folder


class OllamaFolder(Folder):
    provider = "ollama"

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.final: dict[str, Any] = {}

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """The fast path: chunks carrying only content text (see `Folder.take`)."""
        text = self.text
        start = len(text)  # each chunk taken appends one piece: no counter in the loop
        model = self.model
        for event in events:
            try:  # subscripts, not .get: a missing key or a wrong type leaves the fast path
                if type(event) is dict and event["done"] is False and event["model"] == model:
                    message = event["message"]
                    content = message["content"]
                    if type(content) is str and (
                        len(message) <= 2
                        or not (message.get("thinking") or message.get("tool_calls"))
                    ):
                        text.append(content)
                        continue
            except (KeyError, TypeError, IndexError, AttributeError):
                pass
            return len(text) - start, event
        return len(text) - start, END

    def add(self, event: dict[str, Any]) -> None:
        self.model = event.get("model") or self.model
        message = event.get("message") or {}
        if message.get("content"):
            self.text.append(message["content"])
        if message.get("thinking"):
            self.thinking.append(message["thinking"])
        for call in message.get("tool_calls") or []:  # Ollama sends each call whole
            function = call.get("function") or {}
            call_id = call.get("id") or None
            key = f"id:{call_id}" if call_id else f"index:{len(self.call_order)}"
            tool = self.call(key, call_id, function.get("name"))
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                tool.fragments.append(arguments)
            else:
                tool.whole = arguments if arguments is not None else {}
        if event.get("done"):
            self.final = {k: v for k, v in event.items() if k not in ("message", "model")}
            self.stop_reason = event.get("done_reason")

    def response(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text)}
        if self.thinking:
            message["thinking"] = "".join(self.thinking)
        calls = []
        for number, key in enumerate(self.call_order):
            call = self.calls[key]
            function = {"name": call.name or "", "arguments": call.wire_arguments()}
            if not call.id:
                # Ollama sent no id: none goes in the response, and the call's stand-in id is
                # the one decoding the whole response gives it (`from_ollama`)
                where = f"Ollama response message, tool call {number}"
                call.fallback = synthetic_call_id("call_", call.name, function["arguments"], where)
            calls.append({**({"id": call.id} if call.id else {}), "function": function})
        if calls:
            message["tool_calls"] = calls
        return {"model": self.model or "", **self.final, "message": message}
