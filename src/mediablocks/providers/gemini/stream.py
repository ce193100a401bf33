"""The stream fold for Gemini streamed GenerateContentResponse chunks.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

from ..._depth import MAX_DEPTH, check_depth
from ...errors import DecodeError
from .._fold import END, Folder, ToolCall, field, plain

_FAST_KEYS = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId", "createTime"})
"""The chunk fields the fast path knows (others, snake_case spellings included, go to ``add``)."""

_JSON_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


class GeminiFolder(Folder):
    provider = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self.out: list[dict[str, Any]] = []  # parts in REST camelCase spelling
        # a call streamed in pieces (willContinue) and the part that holds it
        self.continuing: tuple[ToolCall, dict[str, Any]] | None = None
        self.partial_open: set[str] = set()  # JSON paths whose string value continues
        self.extra: dict[str, Any] = {}
        self.unchecked = False  # whether `take` kept fields whose depth `response` must check

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """The fast path: chunks of one text part that continues the last text (see
        `Folder.take`). The usage, id and model they carry replace the earlier ones unchecked: only
        the last are kept, and `response` checks their depth once."""
        last = self.out[-1] if self.out else {}
        if "text" not in last or last.get("thought") or "thoughtSignature" in last:
            return 0, next(events, END)  # nothing a plain text part could merge into
        pieces = self.pieces.list_for(last, "text")
        taken = 0
        usage = response_id = model = None  # the last given, kept on `self` when the run ends
        for taken, event in enumerate(events, 1):
            try:  # subscripts, not .get: a missing key or a wrong type leaves the fast path
                if type(event) is dict and event.keys() <= _FAST_KEYS:
                    (candidate,) = event["candidates"]
                    (part,) = candidate["content"]["parts"]
                    text = part["text"]
                    if type(text) is str and len(part) == 1 and "finishReason" not in candidate:
                        usage = event.get("usageMetadata") or usage
                        response_id = event.get("responseId") or response_id
                        model = event.get("modelVersion") or model
                        if text:
                            pieces.append(text)
                        continue
            except (KeyError, TypeError, IndexError, ValueError, AttributeError):
                pass
            self._keep(taken - 1, usage, response_id, model)
            return taken - 1, event
        self._keep(taken, usage, response_id, model)
        return taken, END

    def _keep(self, taken: int, usage: Any, response_id: Any, model: Any) -> None:
        """The usage, id and model of the last chunks `take` folded (each when one was given)."""
        if taken:
            self.unchecked = True
            self.usage = usage or self.usage
            self.response_id = response_id or self.response_id
            self.model = model or self.model

    def add(self, event: dict[str, Any]) -> None:
        self.response_id = field(event, "responseId", "response_id") or self.response_id
        self.model = field(event, "modelVersion", "model_version") or self.model
        usage = field(event, "usageMetadata", "usage_metadata")
        if usage:
            self.usage = usage
        feedback = field(event, "promptFeedback", "prompt_feedback")
        if feedback:
            self.extra["promptFeedback"] = feedback
        candidates = field(event, "candidates", default=[]) or []
        if not candidates:
            return
        candidate = candidates[0]
        reason = field(candidate, "finishReason", "finish_reason")
        if reason:
            self.stop_reason = str(plain(reason))
        content = field(candidate, "content", default={}) or {}
        for part in field(content, "parts", default=[]) or []:
            self._part(part)

    def _part(self, part: dict[str, Any]) -> None:
        signature = field(part, "thoughtSignature", "thought_signature")
        if isinstance(signature, (bytes, bytearray)):
            signature = base64.b64encode(signature).decode("ascii")
        call = field(part, "functionCall", "function_call")
        if call is not None:
            self._function_call(call, signature)
            return
        text = field(part, "text")
        thought = bool(field(part, "thought", default=False))
        if isinstance(text, str):
            last = self.out[-1] if self.out else None
            mergeable = (
                last is not None
                and "text" in last
                and bool(last.get("thought")) == thought
                and "thoughtSignature" not in last
            )
            if mergeable and last is not None:
                self.pieces.append(last, "text", text)
                if signature:
                    last["thoughtSignature"] = signature
            else:
                item: dict[str, Any] = {"text": text}
                if thought:
                    item["thought"] = True
                if signature:
                    item["thoughtSignature"] = signature
                self.out.append(item)
            return
        self.out.append(_camel_part(part))

    def _function_call(self, call: dict[str, Any], signature: str | None) -> None:
        call_id = call.get("id") or None
        if self.continuing is None or (
            call_id and self.continuing[0].id and call_id != self.continuing[0].id
        ):
            key = f"id:{call_id}" if call_id else f"index:{len(self.call_order)}"
            tool = self.call(key, call_id, call.get("name"))
            tool.whole = {}
            self.partial_open = set()
            item: dict[str, Any] = {"functionCall": {"key": key}}
            self.out.append(item)
        else:
            tool, item = self.continuing
            tool.id = tool.id or call_id
            tool.name = tool.name or call.get("name")
        if isinstance(call.get("args"), dict):
            tool.whole = {**tool.whole, **call["args"]}
        for partial in field(call, "partialArgs", "partial_args", default=[]) or []:
            self._partial_arg(tool, partial)
        if signature:
            item["thoughtSignature"] = signature
        will_continue = field(call, "willContinue", "will_continue", default=False)
        self.continuing = (tool, item) if will_continue else None

    def _partial_arg(self, tool: ToolCall, partial: dict[str, Any]) -> None:
        """Vertex streams arguments as values at JSON paths; string pieces of one path join."""
        path = field(partial, "jsonPath", "json_path", default="$")
        steps: list[str | int] = []
        for match in _JSON_PATH_STEP.finditer(path[1:] if path.startswith("$") else path):
            name, number, quoted, double = match.groups()
            steps.append(int(number) if number is not None else (name or quoted or double or ""))
        if len(steps) > MAX_DEPTH:
            raise DecodeError(f"partialArgs jsonPath has more than {MAX_DEPTH} steps")
        if "stringValue" in partial or "string_value" in partial:
            value: Any = field(partial, "stringValue", "string_value", default="")
            if path in self.partial_open:
                value = str(_json_path_get(tool.whole, steps) or "") + value
        elif "numberValue" in partial or "number_value" in partial:
            value = field(partial, "numberValue", "number_value")
            if isinstance(value, float) and value.is_integer():
                value = int(value)
        elif "boolValue" in partial or "bool_value" in partial:
            value = bool(field(partial, "boolValue", "bool_value"))
        else:
            value = None
        tool.whole = _json_path_set(tool.whole, steps, value)
        if field(partial, "willContinue", "will_continue", default=False):
            self.partial_open.add(path)
        else:
            self.partial_open.discard(path)

    def response(self) -> dict[str, Any]:
        if self.unchecked:  # what the fast path kept: the last usage, id and model seen
            check_depth([self.usage, self.response_id, self.model], "gemini stream chunk fields")
            self.unchecked = False
        parts = []
        for item in self.out:
            if "functionCall" in item:
                call = self.calls[item["functionCall"]["key"]]
                function: dict[str, Any] = {"name": call.name or "", "args": call.whole or {}}
                if call.id:
                    function["id"] = call.id
                item = {**item, "functionCall": function}
            parts.append(dict(item))
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
        if self.stop_reason:
            candidate["finishReason"] = self.stop_reason
        response: dict[str, Any] = {"candidates": [candidate], **self.extra}
        if self.usage:
            response["usageMetadata"] = self.usage
        if self.model:
            response["modelVersion"] = self.model
        if self.response_id:
            response["responseId"] = self.response_id
        return response


def _json_path_get(node: Any, steps: list[str | int]) -> Any:
    for step in steps:
        if isinstance(step, int):
            node = node[step] if isinstance(node, list) and step < len(node) else None
        else:
            node = node.get(step) if isinstance(node, dict) else None
    return node


def _json_path_set(node: Any, steps: list[str | int], value: Any) -> Any:
    """``node`` with ``value`` at ``steps``, creating objects and lists on the way."""
    if not steps:
        return value
    step, rest = steps[0], steps[1:]
    if isinstance(step, int):
        items = list(node) if isinstance(node, list) else []
        if step > len(items):  # indexes are data: a list grows by one element at a time
            raise DecodeError(
                f"partialArgs jsonPath index [{step}] skips past the {len(items)} element(s) so far"
            )
        if step == len(items):
            items.append(None)
        items[step] = _json_path_set(items[step], rest, value)
        return items
    mapping = dict(node) if isinstance(node, dict) else {}
    mapping[step] = _json_path_set(mapping.get(step), rest, value)
    return mapping


def _camel_part(part: dict[str, Any]) -> dict[str, Any]:
    """A Gemini part in REST spelling (dicts written by hand may use snake_case keys)."""

    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(word.title() for word in rest)

    return {camel(key): value for key, value in part.items()}
