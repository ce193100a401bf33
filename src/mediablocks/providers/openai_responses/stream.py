"""The stream fold for OpenAI Responses stream events.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.
"""

from __future__ import annotations

import copy
from typing import Any

from .._fold import Folder


class OpenAIResponsesFolder(Folder):
    provider = "openai-responses"

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[int, dict[str, Any]] = {}  # output_index -> output item
        self.status: str | None = None
        self.final: dict[str, Any] = {}  # incomplete_details, error... from the last response

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type", "")
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self._response_fields(event.get("response") or {})
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = dict(event.get("item") or {})
            index = event.get("output_index", len(self.items))
            if kind.endswith("added") and index in self.items:
                item = {**item, **self.items[index]}  # deltas that came first are kept
            self.items[index] = item
            if item.get("type") == "function_call":
                call = self.call(_responses_key(item), item.get("call_id"), item.get("name"))
                if kind.endswith("done") and isinstance(item.get("arguments"), str):
                    call.fragments = [item["arguments"]]
        elif kind == "response.content_part.added":
            parts = self._item(event).setdefault("content", [])
            index = event.get("content_index", len(parts))
            while len(parts) <= index:
                parts.append({})
            for key, value in (event.get("part") or {}).items():
                parts[index].setdefault(key, value)  # in place: deltas may have come first
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            field = "text" if kind == "response.output_text.delta" else "refusal"
            part_type = "output_text" if field == "text" else "refusal"
            part = self._part(event, "content", {"type": part_type, field: ""})
            self.pieces.append(part, field, event.get("delta"))
            if part_type == "output_text":
                part.setdefault("annotations", [])
        elif kind == "response.output_text.annotation.added":
            part = self._part(event, "content", {"type": "output_text", "text": ""})
            part.setdefault("annotations", []).append(event.get("annotation"))
        elif kind == "response.reasoning_text.delta":
            part = self._part(event, "content", {"type": "reasoning_text", "text": ""})
            self.pieces.append(part, "text", event.get("delta"))
        elif kind == "response.reasoning_summary_text.delta":
            summary = self._item(event, "reasoning").setdefault("summary", [])
            index = event.get("summary_index", 0)
            while len(summary) <= index:
                summary.append({"type": "summary_text", "text": ""})
            self.pieces.append(summary[index], "text", event.get("delta"))
        elif kind == "response.function_call_arguments.delta":
            item = self._item(event, "function_call")
            self.call(_responses_key(item)).fragments.append(event.get("delta", ""))
        elif kind == "response.function_call_arguments.done":
            item = self._item(event, "function_call")
            self.call(_responses_key(item)).fragments = [event.get("arguments", "")]
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event.get("response") or {}
            self._response_fields(response)
            for index, item in enumerate(response.get("output") or []):
                self.items[index] = dict(item)
                if item.get("type") == "function_call":
                    call = self.call(_responses_key(item), item.get("call_id"), item.get("name"))
                    if isinstance(item.get("arguments"), str):
                        call.fragments = [item["arguments"]]
        elif kind == "error":
            skip = ("type", "sequence_number")
            self.error = {k: v for k, v in event.items() if k not in skip and v is not None}

    def _response_fields(self, response: dict[str, Any]) -> None:
        self.response_id = response.get("id") or self.response_id
        self.model = response.get("model") or self.model
        self.status = response.get("status") or self.status
        self.usage = response.get("usage") or self.usage
        for key in ("incomplete_details", "error"):
            if response.get(key) is not None:
                self.final[key] = response[key]

    def _item(self, event: dict[str, Any], kind: str = "message") -> dict[str, Any]:
        index = event.get("output_index", 0)
        item = self.items.get(index)
        if item is None:  # a delta whose item was never announced: make it up from the delta
            item = {"id": event.get("item_id"), "type": kind}
            if kind == "function_call":
                item.update({"call_id": event.get("item_id"), "name": "", "arguments": ""})
            self.items[index] = item
        return item

    def _part(self, event: dict[str, Any], field: str, empty: dict[str, Any]) -> dict[str, Any]:
        kind = "reasoning" if empty["type"] == "reasoning_text" else "message"
        parts = self._item(event, kind).setdefault(field, [])
        index = event.get("content_index", 0)
        while len(parts) <= index:
            parts.append(dict(empty))
        if not parts[index]:
            parts[index] = dict(empty)
        part: dict[str, Any] = parts[index]
        return part

    def response(self) -> dict[str, Any]:
        output = []
        for index in sorted(self.items):
            item = copy.deepcopy(self.items[index])
            if item.get("type") == "function_call":
                call = self.calls.get(_responses_key(item))
                if call is not None:
                    item["arguments"] = call.arguments_text()
                    item["call_id"] = item.get("call_id") or call.final_id
            if item.get("type") == "message":
                item.setdefault("role", "assistant")
                item.setdefault("status", "completed" if self.status else "in_progress")
                item.setdefault("content", [])
            output.append(item)
        response: dict[str, Any] = {
            "object": "response",
            "id": self.response_id or "",
            "model": self.model or "",
            "output": output,
            "status": self.status or "in_progress",
            **self.final,
        }
        if self.usage:
            response["usage"] = self.usage
        return response


def _responses_key(item: dict[str, Any]) -> str:
    """Function calls are keyed by their item id (deltas name only that)."""
    return f"item:{item.get('id')}"
