"""The stream fold for Anthropic Messages server-sent events.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._fold import END, Folder, wire_index

_ANTHROPIC_TOOL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


class AnthropicFolder(Folder):
    provider = "anthropic"

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[dict[str, Any]] = []  # content blocks in order
        self.keys: dict[int, str] = {}  # id(block) -> tool call key, for tool blocks
        self.open: dict[int, dict[str, Any]] = {}  # stream index -> the block it feeds now
        self.notes: dict[str, Any] = {}

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.response_id = message.get("id") or self.response_id
            self.model = message.get("model") or self.model
            self.usage = dict(message.get("usage") or {})
        elif kind == "content_block_start":
            index = wire_index(event.get("index", len(self.blocks)), "index")
            self._start(index, event.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(wire_index(event.get("index", 0), "index"), event.get("delta") or {})
        elif kind == "content_block_stop":
            self.open.pop(wire_index(event.get("index", 0), "index"), None)
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            for key in ("stop_sequence", "stop_details", "container"):
                if delta.get(key) is not None:
                    self.notes[key] = delta[key]
            for key, value in (event.get("usage") or {}).items():
                if value is not None:
                    self.usage[key] = value
        elif kind == "error":
            self.error = dict(event.get("error") or {})
            self.stop_reason = f"error: {self.error.get('type', 'unknown')}"

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """The fast path: ``text_delta`` events into an open block (see `Folder.take`)."""
        taken = 0
        block: dict[str, Any] | None = None  # the block the last delta fed, and its pieces
        pieces: list[str] = []
        open_blocks = self.open
        for taken, event in enumerate(events, 1):
            try:  # subscripts, not .get: a missing key or a wrong type leaves the fast path
                if type(event) is dict and event["type"] == "content_block_delta":
                    delta = event["delta"]
                    if delta["type"] == "text_delta":
                        text = delta["text"]
                        index = event["index"]
                        target = open_blocks[index]
                        if type(text) is str and type(index) is int:  # 3.0 finds block 3 too
                            if target is not block:
                                block, pieces = target, self.pieces.list_for(target, "text")
                            if text:
                                pieces.append(text)
                            continue
            except (KeyError, TypeError, IndexError):
                pass
            return taken - 1, event
        return taken, END

    def _start(self, index: int, content_block: dict[str, Any]) -> None:
        block = dict(content_block)
        if block.get("type") in _ANTHROPIC_TOOL_TYPES:
            call_id = block.get("id")
            key = f"id:{call_id}" if call_id else f"index:{index}:{len(self.blocks)}"
            call = self.call(key, call_id, block.get("name"))
            if block.get("input"):
                call.whole = block["input"]
            self.keys[id(block)] = key
        self.blocks.append(block)
        self.open[index] = block

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.open.get(index)
        if block is None:  # a delta without its start: keep its content all the same
            kind = delta.get("type")
            start: dict[str, Any] = {"type": "tool_use", "id": None, "name": None, "input": {}}
            if kind in ("thinking_delta", "signature_delta"):
                start = {"type": "thinking", "thinking": "", "signature": ""}
            elif kind != "input_json_delta":
                start = {"type": "text", "text": ""}
            self._start(index, start)
            block = self.open[index]
        kind = delta.get("type")
        if kind == "text_delta":
            self.pieces.append(block, "text", delta.get("text"))
        elif kind == "thinking_delta":
            self.pieces.append(block, "thinking", delta.get("thinking"))
        elif kind == "signature_delta":
            self.pieces.append(block, "signature", delta.get("signature"))
        elif kind == "input_json_delta":
            key = self.keys.get(id(block))
            if key is None:  # a block kind newer than this code that streams input: a call too
                key = f"index:{index}:{len(self.blocks)}"
                self.call(key, block.get("id"), block.get("name"))
                self.keys[id(block)] = key
            call = self.calls[key]
            call.whole = None
            call.fragments.append(delta.get("partial_json", ""))
        elif kind == "citations_delta":
            if not isinstance(block.get("citations"), list):
                block["citations"] = []
            block["citations"].append(delta.get("citation"))
        else:
            block.setdefault("unknown_deltas", []).append(delta)

    def response(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for original in self.blocks:
            block = dict(original)
            key = self.keys.get(id(original))
            if key is not None:
                call = self.calls[key]
                block["id"] = call.final_id
                block["name"] = call.name or ""
                block["input"] = call.wire_arguments()
            content.append(block)
        response: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": self.response_id or "",
            "model": self.model or "",
            "content": content,
            "stop_reason": self.stop_reason,
            **self.notes,
        }
        if self.usage:
            response["usage"] = self.usage
        return response
