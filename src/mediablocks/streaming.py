"""Fold streamed provider events into one `AssistantMessage`.

Each provider streams differently; a folder per wire format gathers the events into that provider's
own complete response (what a non-streamed call would have returned), and the message is then
decoded by the same translator `mb.decode` uses, so a streamed reply and a whole one give identical
blocks, opaque signatures included.

What the folders guarantee, for every provider:

- tool calls are keyed by their id where the provider sends one, and by index otherwise, and come
  out in first-seen order. A Bedrock stream has been seen to reuse one ``contentBlockIndex`` for two
  different ``toolUseId``s: keyed by index, one call would be lost and another duplicated;
- parallel calls whose fragments interleave stay apart;
- argument fragments are joined as text and parsed once, at the end. Arguments that are not a JSON
  object are kept verbatim in ``ToolCallBlock.raw_args`` (``args`` stays empty, never invented) and
  the call ids are listed in ``message.metadata["invalid_tool_args"]``;
- thinking text and signature deltas are joined; redacted thinking is kept;
- stop reason and usage are filled when the stream carries them (a stream cut short has no stop
  reason); an error event is kept in ``message.metadata["stream_error"]``;
- `StreamAccumulator.message()` works at any point: a stream cut short still yields what arrived.
"""

from __future__ import annotations

import base64
import copy
import enum
import json
import re
import uuid
from collections.abc import AsyncIterable, Iterable, Mapping, Sequence
from typing import Any

from .blocks import ContentBlock, ToolCallBlock, ToolResultBlock
from .datauri import b64decode
from .errors import DecodeError, ToolResultMismatchError
from .messages import AssistantMessage, Message, ToolMessage
from .providers._common import as_dict, parse_args
from .providers._options import canonical_provider

__all__ = ["StreamAccumulator", "afrom_stream", "from_stream", "tool_result_turn"]


def _get(data: Any, *names: str, default: Any = None) -> Any:
    """The first present key among spellings (``thought_signature`` / ``thoughtSignature``)."""
    if not isinstance(data, dict):
        return default
    for name in names:
        if name in data and data[name] is not None:
            return data[name]
    return default


def _plain(value: Any) -> Any:
    """An SDK enum (``FinishReason.STOP``) as its wire value (``"STOP"``)."""
    return value.value if isinstance(value, enum.Enum) else value


class _Pieces:
    """Text deltas kept as pieces and joined when read, not once per delta: a long reply has tens
    of thousands of deltas, and joining each into a growing string would be quadratic."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, str], tuple[dict[str, Any], list[str]]] = {}

    def append(self, target: dict[str, Any], field: str, piece: Any) -> None:
        """Add ``piece`` to ``target[field]`` (a string), later."""
        if not isinstance(piece, str) or not piece:
            return
        key = (id(target), field)
        entry = self._entries.get(key)
        if entry is None:
            entry = (target, [target.get(field) or ""])  # the target is kept alive: ids stay valid
            self._entries[key] = entry
        entry[1].append(piece)

    def apply(self) -> None:
        """Write the joined text into every target (cheap when nothing new arrived)."""
        for (_, field), (target, pieces) in self._entries.items():
            if len(pieces) > 1:
                pieces[:] = ["".join(pieces)]
            target[field] = pieces[0]


class _ToolCall:
    """A tool call being streamed: its id, name and argument text so far."""

    def __init__(self, call_id: str | None, name: str | None) -> None:
        self.id = call_id
        self.name = name
        self.fragments: list[str] = []
        self.whole: Any = None  # a complete argument object, when the provider sends one
        self._fallback_id = "call_" + uuid.uuid4().hex[:24]

    @property
    def final_id(self) -> str:
        """The provider's id, or (for providers that send none) one made up once, kept stable."""
        return self.id or self._fallback_id

    def arguments_text(self) -> str:
        """The argument text as the provider sent it (a whole object dumped as JSON)."""
        if self.whole is not None:
            return json.dumps(self.whole, ensure_ascii=False)
        return "".join(self.fragments)

    def arguments(self) -> tuple[dict[str, Any], str | None]:
        """``(args, raw_args)``: the parsed object, or ``({}, text)`` when not a JSON object."""
        if self.whole is not None:
            if isinstance(self.whole, dict):
                return self.whole, None
            return {}, self.arguments_text()
        return parse_args("".join(self.fragments))

    def wire_arguments(self) -> dict[str, Any] | str:
        """For formats whose arguments are an object: the object, or the raw text if invalid
        (every decoder turns a string argument into ``raw_args``)."""
        args, raw = self.arguments()
        return args if raw is None else raw


class _Folder:
    """The state every provider folder shares: tool calls, usage, stop reason, errors."""

    provider = ""

    def __init__(self) -> None:
        self.calls: dict[str, _ToolCall] = {}
        self.call_order: list[str] = []
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] = {}
        self.model: str | None = None
        self.response_id: str | None = None
        self.error: dict[str, Any] | None = None
        self.pieces = _Pieces()

    def call(self, key: str, call_id: str | None = None, name: str | None = None) -> _ToolCall:
        """The call under ``key``, made on first sight (first-seen order is kept)."""
        existing = self.calls.get(key)
        if existing is None:
            existing = _ToolCall(call_id, name)
            self.calls[key] = existing
            self.call_order.append(key)
        else:
            existing.id = existing.id or call_id
            existing.name = existing.name or name
        return existing

    def add(self, event: dict[str, Any]) -> None:  # pragma: no cover - each folder overrides
        raise NotImplementedError

    def response(self) -> dict[str, Any]:  # pragma: no cover - each folder overrides
        raise NotImplementedError

    def invalid_call_ids(self) -> dict[str, str]:
        """Ids of calls whose arguments were not a JSON object, with their raw text."""
        invalid: dict[str, str] = {}
        for key in self.call_order:
            call = self.calls[key]
            raw = call.arguments()[1]
            if raw is not None:
                invalid[call.final_id] = raw
        return invalid


# -- OpenAI Chat Completions (and Mistral, which streams the same chunk shape) ---------------


class _OpenAIChatFolder(_Folder):
    provider = "openai-chat"

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.refusal: list[str] = []
        self.index_to_key: dict[int, str] = {}

    def add(self, event: dict[str, Any]) -> None:
        chunk = event
        if "choices" not in event:
            # Mistral wraps the chunk in a CompletionEvent's ``data``; the OpenAI SDK's
            # ``chat.completions.stream()`` helper yields ``chunk`` events holding it (and
            # derived events, which repeat what the chunks say and are skipped).
            for wrapper in ("data", "chunk"):
                if isinstance(event.get(wrapper), dict):
                    chunk = event[wrapper]
                    break
        self.response_id = chunk.get("id") or self.response_id
        self.model = chunk.get("model") or self.model
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # only the first choice becomes the message
            delta = choice.get("delta") or {}
            self._content(delta.get("content"))
            for name in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(name), str):
                    self.reasoning.append(delta[name])
            if delta.get("refusal"):
                self.refusal.append(delta["refusal"])
            for fragment in delta.get("tool_calls") or []:
                self._tool_fragment(fragment)
            if choice.get("finish_reason"):
                self.stop_reason = _plain(choice["finish_reason"])

    def _content(self, content: Any) -> None:
        if isinstance(content, str):
            self.text.append(content)
        elif isinstance(content, list):  # Mistral streams content chunks
            for chunk in content:
                if chunk.get("type") == "text":
                    self.text.append(chunk.get("text", ""))
                elif chunk.get("type") == "thinking":
                    for inner in chunk.get("thinking") or []:
                        self.reasoning.append(inner.get("text", ""))

    def _call_id(self, fragment: dict[str, Any]) -> str | None:
        call_id = fragment.get("id")
        return call_id if isinstance(call_id, str) and call_id else None

    def _continues(self, key: str, function: dict[str, Any]) -> bool:
        """Whether a fragment without an id continues the call already at its index."""
        return True

    def _tool_fragment(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index") or 0
        call_id = self._call_id(fragment)
        function = fragment.get("function") or {}
        known = self.index_to_key.get(index)
        if call_id is None:
            if known is not None and not self._continues(known, function):
                known = f"index:{index}:{len(self.call_order)}"
            key = known or f"index:{index}"
        elif known is not None and self.calls[known].id in (None, call_id):
            key = known  # the id arrived after the first fragment, or is repeated: same call
        else:
            key = "id:" + call_id
        self.index_to_key[index] = key
        call = self.call(key, call_id, function.get("name"))
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.fragments.append(arguments)
        elif isinstance(arguments, dict):
            call.whole = arguments

    def response(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        tool_calls = []
        for key in self.call_order:
            call = self.calls[key]
            tool_calls.append(
                {
                    "id": call.final_id,
                    "type": "function",
                    "function": {"name": call.name or "", "arguments": call.arguments_text()},
                }
            )
        if tool_calls:
            message["tool_calls"] = tool_calls
        response: dict[str, Any] = {
            "object": "chat.completion",
            "id": self.response_id or "",
            "model": self.model or "",
            "choices": [{"index": 0, "message": message, "finish_reason": self.stop_reason}],
        }
        if self.usage:
            response["usage"] = self.usage
        return response


class _MistralFolder(_OpenAIChatFolder):
    provider = "mistral"

    def _call_id(self, fragment: dict[str, Any]) -> str | None:
        call_id = super()._call_id(fragment)
        return None if call_id == "null" else call_id  # the SDK's default for "no id"

    def _continues(self, key: str, function: dict[str, Any]) -> bool:
        # Mistral sends each call whole, and every call at index 0 unless told otherwise: a
        # named fragment after a complete call at that index is the next call, not more of it.
        call = self.calls[key]
        complete = call.whole is not None or (call.arguments()[1] is None and bool(call.fragments))
        return not (function.get("name") and call.name and complete)

    def response(self) -> dict[str, Any]:
        response = super().response()
        message = response["choices"][0]["message"]
        reasoning = message.pop("reasoning_content", None)
        if reasoning:
            text = message.get("content") or ""
            message["content"] = [
                {"type": "thinking", "thinking": [{"type": "text", "text": reasoning}]},
                *([{"type": "text", "text": text}] if text else []),
            ]
        for call in message.get("tool_calls", []):
            call.pop("type", None)
        return response


# -- Anthropic Messages SSE --------------------------------------------------------------------

_ANTHROPIC_TOOL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


class _AnthropicFolder(_Folder):
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
            self._start(event.get("index", len(self.blocks)), event.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(event.get("index", 0), event.get("delta") or {})
        elif kind == "content_block_stop":
            self.open.pop(event.get("index", 0), None)
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


# -- Bedrock ConverseStream ---------------------------------------------------------------------


class _BedrockFolder(_Folder):
    provider = "bedrock"

    def __init__(self) -> None:
        super().__init__()
        self.items: list[dict[str, Any]] = []  # {"kind": text|reasoning|tool|start, ...} in order
        self.current: dict[int, dict[str, Any]] = {}  # contentBlockIndex -> the item it feeds now
        self.extra: dict[str, Any] = {}  # response fields kept as sent (metrics, trace...)

    def add(self, event: dict[str, Any]) -> None:
        if "contentBlockStart" in event:
            body = event["contentBlockStart"] or {}
            self._start(body.get("contentBlockIndex", 0), body.get("start") or {})
        elif "contentBlockDelta" in event:
            body = event["contentBlockDelta"] or {}
            self._delta(body.get("contentBlockIndex", 0), body.get("delta") or {})
        elif "contentBlockStop" in event:
            self.current.pop((event["contentBlockStop"] or {}).get("contentBlockIndex", 0), None)
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
                redacted = b64decode(redacted, what="Bedrock redactedContent")
            if isinstance(redacted, (bytes, bytearray)):
                item["redacted"] += redacted
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


# -- Gemini streamed GenerateContentResponse chunks ------------------------------------------

_JSON_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


class _GeminiFolder(_Folder):
    provider = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self.out: list[dict[str, Any]] = []  # parts in REST camelCase spelling
        # a call streamed in pieces (willContinue) and the part that holds it
        self.continuing: tuple[_ToolCall, dict[str, Any]] | None = None
        self.partial_open: set[str] = set()  # JSON paths whose string value continues
        self.extra: dict[str, Any] = {}

    def add(self, event: dict[str, Any]) -> None:
        self.response_id = _get(event, "responseId", "response_id") or self.response_id
        self.model = _get(event, "modelVersion", "model_version") or self.model
        usage = _get(event, "usageMetadata", "usage_metadata")
        if usage:
            self.usage = usage
        feedback = _get(event, "promptFeedback", "prompt_feedback")
        if feedback:
            self.extra["promptFeedback"] = feedback
        candidates = _get(event, "candidates", default=[]) or []
        if not candidates:
            return
        candidate = candidates[0]
        reason = _get(candidate, "finishReason", "finish_reason")
        if reason:
            self.stop_reason = str(_plain(reason))
        content = _get(candidate, "content", default={}) or {}
        for part in _get(content, "parts", default=[]) or []:
            self._part(part)

    def _part(self, part: dict[str, Any]) -> None:
        signature = _get(part, "thoughtSignature", "thought_signature")
        if isinstance(signature, (bytes, bytearray)):
            signature = base64.b64encode(signature).decode("ascii")
        call = _get(part, "functionCall", "function_call")
        if call is not None:
            self._function_call(call, signature)
            return
        text = _get(part, "text")
        thought = bool(_get(part, "thought", default=False))
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
        for partial in _get(call, "partialArgs", "partial_args", default=[]) or []:
            self._partial_arg(tool, partial)
        if signature:
            item["thoughtSignature"] = signature
        will_continue = _get(call, "willContinue", "will_continue", default=False)
        self.continuing = (tool, item) if will_continue else None

    def _partial_arg(self, tool: _ToolCall, partial: dict[str, Any]) -> None:
        """Vertex streams arguments as values at JSON paths; string pieces of one path join."""
        path = _get(partial, "jsonPath", "json_path", default="$")
        steps: list[str | int] = []
        for match in _JSON_PATH_STEP.finditer(path[1:] if path.startswith("$") else path):
            name, number, quoted, double = match.groups()
            steps.append(int(number) if number is not None else (name or quoted or double or ""))
        if "stringValue" in partial or "string_value" in partial:
            value: Any = _get(partial, "stringValue", "string_value", default="")
            if path in self.partial_open:
                value = str(_json_path_get(tool.whole, steps) or "") + value
        elif "numberValue" in partial or "number_value" in partial:
            value = _get(partial, "numberValue", "number_value")
            if isinstance(value, float) and value.is_integer():
                value = int(value)
        elif "boolValue" in partial or "bool_value" in partial:
            value = bool(_get(partial, "boolValue", "bool_value"))
        else:
            value = None
        tool.whole = _json_path_set(tool.whole, steps, value)
        if _get(partial, "willContinue", "will_continue", default=False):
            self.partial_open.add(path)
        else:
            self.partial_open.discard(path)

    def response(self) -> dict[str, Any]:
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
        while len(items) <= step:
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


# -- OpenAI Responses stream events ---------------------------------------------------------


class _OpenAIResponsesFolder(_Folder):
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


# -- Ollama chat chunks --------------------------------------------------------------------


class _OllamaFolder(_Folder):
    provider = "ollama"

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.final: dict[str, Any] = {}

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
        for key in self.call_order:
            call = self.calls[key]
            function = {"name": call.name or "", "arguments": call.wire_arguments()}
            calls.append({"id": call.final_id, "function": function})
        if calls:
            message["tool_calls"] = calls
        return {"model": self.model or "", **self.final, "message": message}


_FOLDERS: dict[str, type[_Folder]] = {
    "openai-chat": _OpenAIChatFolder,
    "mistral": _MistralFolder,
    "anthropic": _AnthropicFolder,
    "bedrock": _BedrockFolder,
    "gemini": _GeminiFolder,
    "openai-responses": _OpenAIResponsesFolder,
    "ollama": _OllamaFolder,
}


class StreamAccumulator:
    """Fold a provider's stream events one at a time; `message()` is usable at any point.

    Events may be plain dicts (parsed SSE data, boto3 stream events) or the SDKs' event objects.
    ``events`` counts the events taken so far.
    """

    def __init__(self, provider: str) -> None:
        self.provider = canonical_provider(provider)
        self._folder = _FOLDERS[self.provider]()
        self.events = 0

    def add(self, event: Any) -> None:
        """Take one event (a dict or an SDK event object)."""
        data = as_dict(event)
        if not isinstance(data, dict):
            raise DecodeError(
                f"{self.provider} stream event #{self.events + 1} is a "
                f"{type(event).__name__}, not an event object"
            )
        self._folder.add(data)
        self.events += 1

    def response(self) -> dict[str, Any]:
        """The events so far as the provider's own complete response (what `message` decodes)."""
        self._folder.pieces.apply()
        return self._folder.response()

    def message(self) -> AssistantMessage:
        """The reply so far, as one assistant message."""
        from .providers import decode

        decoded: list[Message] = decode(self.response(), self.provider)
        assistant = next((m for m in decoded if isinstance(m, AssistantMessage)), None)
        if assistant is None:
            assistant = AssistantMessage(provider=self.provider)
        assistant = _flag_invalid_arguments(assistant, self._folder.invalid_call_ids())
        if self._folder.error is not None:
            metadata = {**assistant.metadata, "stream_error": self._folder.error}
            assistant = assistant.model_copy(update={"metadata": metadata})
        return assistant


def _flag_invalid_arguments(message: AssistantMessage, invalid: dict[str, str]) -> AssistantMessage:
    """Keep each invalid argument text in ``raw_args`` and list the calls in the metadata."""
    if not invalid:
        return message
    content = [
        block.model_copy(update={"args": {}, "raw_args": invalid[block.id]})
        if isinstance(block, ToolCallBlock) and block.id in invalid
        else block
        for block in message.content
    ]
    metadata = {**message.metadata, "invalid_tool_args": sorted(invalid)}
    return message.model_copy(update={"content": content, "metadata": metadata})


def from_stream(events: Iterable[Any], provider: str) -> AssistantMessage:
    """Fold a whole stream of events into one assistant message."""
    accumulator = StreamAccumulator(provider)
    for event in events:
        accumulator.add(event)
    return accumulator.message()


async def afrom_stream(events: AsyncIterable[Any], provider: str) -> AssistantMessage:
    """`from_stream` for an async iterator of events (the async SDK clients' streams)."""
    accumulator = StreamAccumulator(provider)
    async for event in events:
        accumulator.add(event)
    return accumulator.message()


ToolResultValue = str | Sequence[ContentBlock] | ToolResultBlock
"""What a caller may give as one tool's result: text, content blocks, or a whole result block."""


def tool_result_turn(
    message: AssistantMessage,
    results: Mapping[str, ToolResultValue] | Sequence[ToolResultBlock],
) -> tuple[AssistantMessage, ToolMessage]:
    """The next turn's two messages after a (streamed) reply that called tools.

    Returns the assistant message echoing its tool calls and a tool message with exactly one result
    per call, in the calls' order (Bedrock sends it as the user turn of ``toolResult`` blocks).
    ``results`` maps call ids to results, or lists `ToolResultBlock`s. Bedrock keeps no partial
    turn and rejects a toolResult without its toolUse, so a reply without tool calls, repeated call
    ids, or results that do not match the calls one to one raise `ToolResultMismatchError` naming
    the ids, instead of sending a request that cannot succeed.
    """
    calls = message.tool_calls
    if not calls:
        raise ToolResultMismatchError("the reply made no tool calls: there is nothing to answer")
    ids = [call.id for call in calls]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ToolResultMismatchError(f"the reply repeats tool call ids {duplicates}")
    by_id = _results_by_id(results)
    missing = [i for i in ids if i not in by_id]
    extra = sorted(set(by_id) - set(ids))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no result for {missing}")
        if extra:
            parts.append(f"results for calls the reply did not make: {extra}")
        raise ToolResultMismatchError(
            f"{len(ids)} tool call(s) and {len(by_id)} result(s): " + "; ".join(parts)
        )
    names = {call.id: call.name for call in calls}
    ordered = [
        by_id[i] if by_id[i].name else by_id[i].model_copy(update={"name": names[i]}) for i in ids
    ]
    return message, ToolMessage.from_results(ordered)


def _results_by_id(
    results: Mapping[str, ToolResultValue] | Sequence[ToolResultBlock],
) -> dict[str, ToolResultBlock]:
    by_id: dict[str, ToolResultBlock] = {}
    if isinstance(results, Mapping):
        for call_id, value in results.items():
            if isinstance(value, ToolResultBlock):
                if value.tool_call_id != call_id:
                    raise ToolResultMismatchError(
                        f"the result given for tool call {call_id!r} answers {value.tool_call_id!r}"
                    )
                by_id[call_id] = value
            else:
                content = value if isinstance(value, str) else list(value)
                by_id[call_id] = ToolResultBlock(tool_call_id=call_id, content=content)
        return by_id
    if isinstance(results, (str, bytes)):
        raise ToolResultMismatchError("results must map call ids to results, or list results")
    for number, result in enumerate(results):
        if not isinstance(result, ToolResultBlock):
            raise ToolResultMismatchError(
                f"result {number} is a {type(result).__name__}, not a ToolResultBlock"
            )
        if result.tool_call_id in by_id:
            raise ToolResultMismatchError(f"two results for tool call {result.tool_call_id!r}")
        by_id[result.tool_call_id] = result
    return by_id
