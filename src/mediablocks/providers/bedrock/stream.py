"""The stream fold for Bedrock ConverseStream events.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import DecodeError
from .._common import strict_b64decode
from .._fold import END, Folder, wire_index


class BedrockFolder(Folder):
    provider = "bedrock"

    def __init__(self) -> None:
        super().__init__()
        self.items: list[dict[str, Any]] = []  # {"kind": text|reasoning|tool|start, ...} in order
        self.current: dict[int, dict[str, Any]] = {}  # contentBlockIndex -> the item it feeds now
        self.extra: dict[str, Any] = {}  # response fields kept as sent (metrics, trace...)

    def add(self, event: dict[str, Any]) -> None:
        if "contentBlockStart" in event:
            body = event["contentBlockStart"] or {}
            self._start(_index(body), body.get("start") or {})
        elif "contentBlockDelta" in event:
            body = event["contentBlockDelta"] or {}
            self._delta(_index(body), body.get("delta") or {})
        elif "contentBlockStop" in event:
            self.current.pop(_index(event["contentBlockStop"] or {}), None)
        elif "messageStop" in event:
            stop = event["messageStop"] or {}
            self.stop_reason = stop.get("stopReason") or self.stop_reason
            if stop.get("additionalModelResponseFields") is not None:
                self.extra["additionalModelResponseFields"] = stop["additionalModelResponseFields"]
        elif "metadata" in event:
            metadata = event["metadata"] or {}
            if metadata.get("usage"):
                self.usage = dict(metadata["usage"])
            for key in ("metrics", "trace", "serviceTier", "performanceConfig"):
                if metadata.get(key) is not None:
                    self.extra[key] = metadata[key]
        else:
            for key, value in event.items():
                if key.endswith("Exception"):  # modelStreamErrorException, throttlingException...
                    self.error = {"type": key, **(value if isinstance(value, dict) else {})}
                    self.stop_reason = f"error: {key}"

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """The fast path: text deltas into the open text block (see `Folder.take`)."""
        taken = 0
        current = self.current
        block: dict[str, Any] | None = None  # the item the last delta fed, and its pieces
        pieces: list[str] = []
        for taken, event in enumerate(events, 1):
            try:  # subscripts, not .get: a missing key or a wrong type leaves the fast path
                if type(event) is dict and len(event) == 1:
                    body = event["contentBlockDelta"]
                    text = body["delta"]["text"]
                    index = body["contentBlockIndex"]
                    item = current[index]
                    if type(text) is str and type(index) is int and item["kind"] == "text":
                        if item is not block:
                            block, pieces = item, self.pieces.list_for(item, "text")
                        if text:
                            pieces.append(text)
                        continue
            except (KeyError, TypeError, IndexError):
                pass
            return taken - 1, event
        return taken, END

    def _start(self, index: int, start: dict[str, Any]) -> None:
        tool = start.get("toolUse")
        if tool is not None:
            call_id = tool.get("toolUseId")
            key = f"id:{call_id}" if call_id else f"index:{index}:{len(self.items)}"
            self.call(key, call_id, tool.get("name"))
            item = next((i for i in self.items if i.get("key") == key), None)
            if item is None:
                item = {"kind": "tool", "key": key}
                self.items.append(item)
            if tool.get("type"):  # server-side tools say so: kept, as a whole response has it
                item["type"] = tool["type"]
            self.current[index] = item
        else:  # toolResult, image... : their content comes in the deltas
            item = {"kind": "start", "start": start, "deltas": []}
            self.items.append(item)
            self.current[index] = item

    def _item(self, index: int, kind: str) -> dict[str, Any]:
        item = self.current.get(index)
        if item is None or item["kind"] != kind:
            item = {
                "kind": kind,
                "text": "",
                "signature": "",
                "redacted": bytearray(),
                "citations": [],
            }
            self.items.append(item)
            self.current[index] = item
        return item

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        if "text" in delta:
            self.pieces.append(self._item(index, "text"), "text", delta["text"])
        elif "toolUse" in delta:
            item = self.current.get(index)
            if item is None or item["kind"] != "tool":  # a delta without its start
                key = f"index:{index}:{len(self.items)}"
                self.call(key)
                item = {"kind": "tool", "key": key}
                self.items.append(item)
                self.current[index] = item
            self.calls[item["key"]].fragments.append((delta["toolUse"] or {}).get("input", ""))
        elif "reasoningContent" in delta:
            reasoning = delta["reasoningContent"] or {}
            item = self._item(index, "reasoning")
            self.pieces.append(item, "text", reasoning.get("text"))
            self.pieces.append(item, "signature", reasoning.get("signature"))
            redacted = reasoning.get("redactedContent")
            if isinstance(redacted, str):  # the HTTP API's JSON spells blobs as base64
                redacted = strict_b64decode(redacted, "Bedrock redactedContent")
            if isinstance(redacted, (bytes, bytearray)):
                item["redacted"] += redacted
            elif redacted is not None:
                raise DecodeError("Bedrock redactedContent is neither bytes nor base64 text")
        elif "citation" in delta:
            self._item(index, "text")["citations"].append(delta["citation"])
        else:  # toolResult and image deltas, and kinds newer than this code: kept verbatim
            item = self.current.get(index)
            if item is None or item["kind"] != "start":
                item = {"kind": "start", "start": {}, "deltas": []}
                self.items.append(item)
                self.current[index] = item
            item["deltas"].append(delta)

    def response(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for item in self.items:
            if item["kind"] == "text":
                content.append(_bedrock_text(item))
            elif item["kind"] == "reasoning":
                if item["redacted"]:
                    redacted = bytes(item["redacted"])
                    content.append({"reasoningContent": {"redactedContent": redacted}})
                else:
                    reasoning: dict[str, Any] = {"text": item["text"]}
                    if item["signature"]:
                        reasoning["signature"] = item["signature"]
                    content.append({"reasoningContent": {"reasoningText": reasoning}})
            elif item["kind"] == "tool":
                call = self.calls[item["key"]]
                tool_use = {
                    "toolUseId": call.final_id,
                    "name": call.name or "",
                    "input": call.wire_arguments(),
                    **({"type": item["type"]} if item.get("type") else {}),
                }
                content.append({"toolUse": tool_use})
            else:
                content.append(_bedrock_started_block(item["start"], item["deltas"]))
        response: dict[str, Any] = {
            "output": {"message": {"role": "assistant", "content": content}},
            **self.extra,
        }
        if self.stop_reason:
            response["stopReason"] = self.stop_reason
        if self.usage:
            response["usage"] = self.usage
        return response


def _index(body: dict[str, Any]) -> int:
    """``contentBlockIndex`` (0 when absent): a non-negative integer, or `DecodeError`. A ``"0"``
    would key another block than ``0`` and route a call's arguments to a phantom call."""
    return wire_index(body.get("contentBlockIndex", 0), "contentBlockIndex")


def _bedrock_text(item: dict[str, Any]) -> dict[str, Any]:
    """A text block, or (when citations streamed with it) the ``citationsContent`` block a
    non-streamed Converse response holds."""
    if not item["citations"]:
        return {"text": item["text"]}
    citations = [
        {key: value for key, value in citation.items() if value is not None}
        for citation in item["citations"]
    ]
    return {"citationsContent": {"content": [{"text": item["text"]}], "citations": citations}}


def _bedrock_started_block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> dict[str, Any]:
    """A tool result or image block from its start and deltas, as a whole response holds it."""
    if "toolResult" in start:
        parts: list[dict[str, Any]] = []
        for delta in deltas:
            for piece in delta.get("toolResult") or []:
                if "text" in piece and parts and set(parts[-1]) == {"text"}:
                    parts[-1] = {"text": parts[-1]["text"] + piece["text"]}
                else:
                    parts.append(dict(piece))
        return {"toolResult": {**start["toolResult"], "content": parts}}
    source = next((d["image"]["source"] for d in deltas if "source" in d.get("image", {})), None)
    if "image" in start and source is not None:
        return {"image": {**start["image"], "source": source}}
    return {"streamedBlock": {"start": start, "deltas": deltas}}
