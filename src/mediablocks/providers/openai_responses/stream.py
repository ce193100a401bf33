"""The stream fold for OpenAI Responses stream events.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.

Streamed pieces (``output_text.delta``, ``reasoning_summary_text.delta``...) are kept apart from
the items the stream announces whole (``output_item.added``/``done``, ``response.completed``) and
merged when the response is built: a field the final item leaves empty keeps what was streamed
(an ``output_item.done`` with ``content: []`` keeps the text; a ``function_call`` named only in
``output_item.added`` keeps its name), and a field both have comes from the final item. Indexes
from the wire key dicts; no list is ever sized by one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from ...errors import DecodeError
from .._fold import END, Folder, text_piece, wire_index

_EMPTY: tuple[Any, ...] = (None, "", [], {})


def _merge(earlier: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    """``earlier`` updated by every field ``later`` actually fills (empty values do not erase)."""
    merged = dict(earlier)
    for key, value in later.items():
        if value not in _EMPTY or key not in merged:
            merged[key] = value
    return merged


def _object(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DecodeError(f"{what} is a {type(value).__name__}, not an object")
    return value


class OpenAIResponsesFolder(Folder):
    provider = "openai-responses"

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[int, dict[str, Any]] = {}  # output_index -> the item as announced
        # output_index -> "content" / "summary" -> part index -> the part as streamed
        self.streamed: dict[int, dict[str, dict[int, dict[str, Any]]]] = {}
        self.status: str | None = None
        self.final: dict[str, Any] = {}  # incomplete_details, error... from the last response

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type", "")
        if not isinstance(kind, str):
            raise DecodeError(f"the event type is a {type(kind).__name__}, not a string")
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self._response_fields(_object(event.get("response"), "response"))
        elif kind in ("response.output_item.added", "response.output_item.done"):
            index = wire_index(event.get("output_index", len(self.items)), "output_index")
            self._announce(index, _object(event.get("item"), "item"), kind.endswith("done"))
        elif kind == "response.content_part.added":
            part = self._part(event, "content", "content_index", {})
            for key, value in _object(event.get("part"), "part").items():
                part.setdefault(key, value)  # in place: deltas may have come first
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            field = "text" if kind == "response.output_text.delta" else "refusal"
            part_type = "output_text" if field == "text" else "refusal"
            part = self._part(event, "content", "content_index", {"type": part_type, field: ""})
            self.pieces.append(part, field, text_piece(event.get("delta")))
            if part_type == "output_text":
                part.setdefault("annotations", [])
        elif kind == "response.output_text.annotation.added":
            part = self._part(event, "content", "content_index", {"type": "output_text"})
            annotations = part.setdefault("annotations", [])
            if not isinstance(annotations, list):
                raise DecodeError("the part's annotations are not a list")
            annotations.append(event.get("annotation"))
        elif kind == "response.reasoning_text.delta":
            empty = {"type": "reasoning_text", "text": ""}
            part = self._part(event, "content", "content_index", empty, "reasoning")
            self.pieces.append(part, "text", text_piece(event.get("delta")))
        elif kind == "response.reasoning_summary_text.delta":
            empty = {"type": "summary_text", "text": ""}
            part = self._part(event, "summary", "summary_index", empty, "reasoning")
            self.pieces.append(part, "text", text_piece(event.get("delta")))
        elif kind == "response.function_call_arguments.delta":
            item = self._item(event, "function_call")
            self.call(_responses_key(item)).fragments.append(text_piece(event.get("delta")))
        elif kind == "response.function_call_arguments.done":
            item = self._item(event, "function_call")
            self.call(_responses_key(item)).fragments = [text_piece(event.get("arguments"))]
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = _object(event.get("response"), "response")
            self._response_fields(response)
            output = response.get("output") or []
            if not isinstance(output, list):
                raise DecodeError("response.output is not a list")
            for index, item in enumerate(output):
                self._announce(index, _object(item, f"response.output[{index}]"), True)
        elif kind == "error":
            skip = ("type", "sequence_number")
            self.error = {k: v for k, v in event.items() if k not in skip and v is not None}

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """The fast path: text deltas into a part already streamed (see `Folder.take`)."""
        taken = 0
        streamed = self.streamed
        fed_output: object = None  # the indexes the last delta fed
        fed_content: object = None
        pieces: list[str] = []  # and that part's pieces
        for taken, event in enumerate(events, 1):
            try:  # subscripts, not .get: a missing key or a wrong type leaves the fast path
                if type(event) is dict and event["type"] == "response.output_text.delta":
                    delta = event["delta"]
                    output_index = event["output_index"]
                    content_index = event["content_index"]
                    if type(delta) is str:
                        # The same int objects as the last delta's (small ints are shared):
                        # the same part. Anything else is checked and looked up.
                        if output_index is not fed_output or content_index is not fed_content:
                            if type(output_index) is not int or type(content_index) is not int:
                                return taken - 1, event
                            part = streamed[output_index]["content"][content_index]
                            if "annotations" not in part:
                                return taken - 1, event
                            fed_output, fed_content = output_index, content_index
                            pieces = self.pieces.list_for(part, "text")
                        if delta:
                            pieces.append(delta)
                        continue
            except (KeyError, TypeError, IndexError):
                pass
            return taken - 1, event
        return taken, END

    def _announce(self, index: int, item: dict[str, Any], final: bool) -> None:
        """An item the stream sends whole: merged with what is known of it already."""
        known = self.items.get(index)
        merged = _merge(known, item) if known is not None else dict(item)
        self.items[index] = merged
        if merged.get("type") == "function_call":
            name = merged.get("name")
            call_id = merged.get("call_id")
            call = self.call(
                _responses_key(merged),
                call_id if isinstance(call_id, str) else None,
                name if isinstance(name, str) else None,
            )
            arguments = item.get("arguments")
            if final and isinstance(arguments, str) and (arguments or not call.fragments):
                call.fragments = [arguments]

    def _response_fields(self, response: dict[str, Any]) -> None:
        self.response_id = response.get("id") or self.response_id
        self.model = response.get("model") or self.model
        self.status = response.get("status") or self.status
        self.usage = response.get("usage") or self.usage
        for key in ("incomplete_details", "error"):
            if response.get(key) is not None:
                self.final[key] = response[key]

    def _item(self, event: dict[str, Any], kind: str = "message") -> dict[str, Any]:
        index = wire_index(event.get("output_index", 0), "output_index")
        item = self.items.get(index)
        if item is None:  # a delta whose item was never announced: make it up from the delta
            item = {"id": event.get("item_id"), "type": kind}
            if kind == "function_call":
                item.update({"call_id": event.get("item_id"), "name": "", "arguments": ""})
            self.items[index] = item
        return item

    def _part(
        self,
        event: dict[str, Any],
        field: str,
        index_name: str,
        empty: dict[str, Any],
        kind: str = "message",
    ) -> dict[str, Any]:
        """The streamed part at the event's index (made from ``empty`` on first sight)."""
        self._item(event, kind)
        output_index = wire_index(event.get("output_index", 0), "output_index")
        index = wire_index(event.get(index_name, 0), index_name)
        parts = self.streamed.setdefault(output_index, {}).setdefault(field, {})
        part = parts.get(index)
        if part is None:
            part = parts[index] = dict(empty)
        elif not part:
            part.update(empty)
        return part

    def response(self) -> dict[str, Any]:
        output = []
        for index in sorted(self.items):
            item = copy.deepcopy(self.items[index])
            for field, parts in self.streamed.get(index, {}).items():
                item[field] = _merge_parts(parts, item.get(field))
            if item.get("type") == "function_call":
                call = self.calls.get(_responses_key(item))
                if call is not None:
                    item["arguments"] = call.arguments_text()
                    item["call_id"] = item.get("call_id") or call.final_id
                    item["name"] = item.get("name") or call.name or ""
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


def _merge_parts(streamed: dict[int, dict[str, Any]], final: Any) -> list[Any]:
    """The parts of one item field: the final item's, each filled in by what was streamed at its
    position, then streamed parts the final item lacks, in index order."""
    whole = list(final) if isinstance(final, list) else []
    merged: list[Any] = []
    for position, part in enumerate(whole):
        piece = streamed.get(position)
        if isinstance(part, dict) and piece is not None:
            merged.append(_merge(piece, part))
        else:
            merged.append(part)
    merged.extend(copy.deepcopy(streamed[i]) for i in sorted(streamed) if i >= len(whole))
    return merged


def _responses_key(item: dict[str, Any]) -> str:
    """Function calls are keyed by their item id (deltas name only that)."""
    return f"item:{item.get('id')}"
