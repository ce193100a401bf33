"""Fold streamed provider events into one `AssistantMessage`.

Each provider streams differently; a folder per wire format gathers the events into that provider's
own complete content (the blocks a non-streamed response would hold), and the message is then
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
- stop reason and usage are filled when the stream carries them;
- `StreamAccumulator.message()` works at any point: a stream cut short still yields what arrived.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Iterable, Mapping, Sequence
from typing import Any

from .blocks import ContentBlock, ToolCallBlock, ToolResultBlock
from .errors import DecodeError, ToolResultMismatchError
from .messages import AssistantMessage, Message, ToolMessage
from .providers._common import as_dict
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


class _ToolCall:
    """A tool call being streamed: its id, name and argument text so far."""

    def __init__(self, call_id: str | None, name: str | None) -> None:
        self.id = call_id
        self.name = name
        self.fragments: list[str] = []
        self.whole: Any = None  # a complete argument object, when the provider sends one

    def arguments_text(self) -> str:
        if self.whole is not None:
            return json.dumps(self.whole)
        return "".join(self.fragments)

    def arguments(self) -> tuple[dict[str, Any], bool]:
        """``(args, valid)``: the parsed object, or ``({}, False)`` when not a JSON object."""
        if self.whole is not None:
            return (self.whole, True) if isinstance(self.whole, dict) else ({}, False)
        text = "".join(self.fragments)
        if not text.strip():
            return {}, True
        try:
            value = json.loads(text)
        except ValueError:
            return {}, False
        return (value, True) if isinstance(value, dict) else ({}, False)


class _Folder:
    """The state every provider folder shares: ordered parts, tool calls, usage, stop reason."""

    provider = ""

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self.calls: dict[str, _ToolCall] = {}
        self.call_order: list[str] = []
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] = {}
        self.model: str | None = None
        self.response_id: str | None = None

    def call(self, key: str, call_id: str | None = None, name: str | None = None) -> _ToolCall:
        existing = self.calls.get(key)
        if existing is None:
            existing = _ToolCall(call_id, name)
            self.calls[key] = existing
            self.call_order.append(key)
            self.parts.append({"kind": "tool_call", "key": key})
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
            if not call.arguments()[1]:
                invalid[call.id or key] = call.arguments_text()
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
        chunk = event.get("data", event) if "choices" not in event else event
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
                self.stop_reason = choice["finish_reason"]

    def _content(self, content: Any) -> None:
        if isinstance(content, str):
            self.text.append(content)
        elif isinstance(content, list):  # Mistral may stream content chunks
            for chunk in content:
                if chunk.get("type") == "text":
                    self.text.append(chunk.get("text", ""))
                elif chunk.get("type") == "thinking":
                    for inner in chunk.get("thinking") or []:
                        self.reasoning.append(inner.get("text", ""))

    def _tool_fragment(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index", 0)
        call_id = fragment.get("id")
        function = fragment.get("function") or {}
        if call_id:
            key = "id:" + call_id
            self.index_to_key[index] = key
        else:
            key = self.index_to_key.setdefault(index, f"index:{index}")
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
                    "id": call.id or key,
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
            "choices": [
                {"index": 0, "message": message, "finish_reason": self.stop_reason or "stop"}
            ],
        }
        if self.usage:
            response["usage"] = self.usage
        return response


class _MistralFolder(_OpenAIChatFolder):
    provider = "mistral"

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


class _AnthropicFolder(_Folder):
    provider = "anthropic"

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[int, dict[str, Any]] = {}
        self.order: list[int] = []

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.response_id = message.get("id")
            self.model = message.get("model")
            self.usage = dict(message.get("usage") or {})
        elif kind == "content_block_start":
            index = event.get("index", len(self.order))
            block = dict(event.get("content_block") or {})
            if block.get("type") in ("tool_use", "server_tool_use"):
                call = self.call(f"index:{index}", block.get("id"), block.get("name"))
                if block.get("input"):
                    call.whole = block["input"]
            self.blocks[index] = block
            self.order.append(index)
        elif kind == "content_block_delta":
            self._delta(event.get("index", 0), event.get("delta") or {})
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            for key, value in (event.get("usage") or {}).items():
                if value is not None:
                    self.usage[key] = value
        elif kind == "error":
            error = event.get("error") or {}
            self.stop_reason = f"error: {error.get('type', 'unknown')}"

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        if index not in self.order:
            self.order.append(index)
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.get("text", "")
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
        elif kind == "input_json_delta":
            call = self.call(f"index:{index}", block.get("id"), block.get("name"))
            call.whole = None
            call.fragments.append(delta.get("partial_json", ""))
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def response(self) -> dict[str, Any]:
        content = []
        for index in self.order:
            block = dict(self.blocks[index])
            if block.get("type") in ("tool_use", "server_tool_use"):
                call = self.calls[f"index:{index}"]
                args, valid = call.arguments()
                block["input"] = args if valid else {}
            content.append(block)
        response: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": self.response_id or "",
            "model": self.model or "",
            "content": content,
            "stop_reason": self.stop_reason,
        }
        if self.usage:
            response["usage"] = self.usage
        return response


# -- Bedrock ConverseStream ---------------------------------------------------------------------


class _BedrockFolder(_Folder):
    provider = "bedrock"

    def __init__(self) -> None:
        super().__init__()
        self.items: list[dict[str, Any]] = []  # {"kind": text|reasoning|tool, ...} in order
        self.current: dict[int, dict[str, Any]] = {}  # contentBlockIndex -> the item it feeds now

    def add(self, event: dict[str, Any]) -> None:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            index = start.get("contentBlockIndex", 0)
            tool = (start.get("start") or {}).get("toolUse")
            if tool is not None:
                key = "id:" + tool.get("toolUseId", f"index:{index}")
                self.call(key, tool.get("toolUseId"), tool.get("name"))
                item = {"kind": "tool", "key": key}
                if not any(i.get("key") == key for i in self.items):
                    self.items.append(item)
                self.current[index] = item
        elif "contentBlockDelta" in event:
            body = event["contentBlockDelta"]
            self._delta(body.get("contentBlockIndex", 0), body.get("delta") or {})
        elif "contentBlockStop" in event:
            self.current.pop(event["contentBlockStop"].get("contentBlockIndex", 0), None)
        elif "messageStop" in event:
            self.stop_reason = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            self.usage = dict((event["metadata"] or {}).get("usage") or {})

    def _item(self, index: int, kind: str) -> dict[str, Any]:
        item = self.current.get(index)
        if item is None or item["kind"] != kind:
            item = {"kind": kind, "text": "", "signature": "", "redacted": b""}
            self.items.append(item)
            self.current[index] = item
        return item

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        if "text" in delta:
            self._item(index, "text")["text"] += delta["text"]
        elif "toolUse" in delta:
            item = self.current.get(index)
            if item is None or item["kind"] != "tool":
                key = f"index:{index}"
                self.call(key)
                item = {"kind": "tool", "key": key}
                self.items.append(item)
                self.current[index] = item
            self.calls[item["key"]].fragments.append(delta["toolUse"].get("input", ""))
        elif "reasoningContent" in delta:
            reasoning = delta["reasoningContent"]
            item = self._item(index, "reasoning")
            item["text"] += reasoning.get("text", "")
            item["signature"] += reasoning.get("signature", "")
            redacted = reasoning.get("redactedContent")
            if isinstance(redacted, (bytes, bytearray)):
                item["redacted"] += bytes(redacted)

    def response(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for item in self.items:
            if item["kind"] == "text":
                content.append({"text": item["text"]})
            elif item["kind"] == "reasoning":
                if item["redacted"]:
                    content.append({"reasoningContent": {"redactedContent": item["redacted"]}})
                else:
                    reasoning: dict[str, Any] = {"text": item["text"]}
                    if item["signature"]:
                        reasoning["signature"] = item["signature"]
                    content.append({"reasoningContent": {"reasoningText": reasoning}})
            else:
                call = self.calls[item["key"]]
                args, valid = call.arguments()
                content.append(
                    {
                        "toolUse": {
                            "toolUseId": call.id or item["key"],
                            "name": call.name or "",
                            "input": args if valid else {},
                        }
                    }
                )
        response: dict[str, Any] = {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": self.stop_reason or "end_turn",
        }
        if self.usage:
            response["usage"] = self.usage
        return response


# -- Gemini streamed GenerateContentResponse chunks ------------------------------------------


class _GeminiFolder(_Folder):
    provider = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self.out: list[dict[str, Any]] = []  # parts in REST camelCase spelling

    def add(self, event: dict[str, Any]) -> None:
        self.response_id = _get(event, "responseId", "response_id") or self.response_id
        self.model = _get(event, "modelVersion", "model_version") or self.model
        usage = _get(event, "usageMetadata", "usage_metadata")
        if usage:
            self.usage = usage
        candidates = _get(event, "candidates", default=[]) or []
        if not candidates:
            return
        candidate = candidates[0]
        reason = _get(candidate, "finishReason", "finish_reason")
        if reason:
            self.stop_reason = str(reason)
        content = _get(candidate, "content", default={}) or {}
        for part in _get(content, "parts", default=[]) or []:
            self._part(part)

    def _part(self, part: dict[str, Any]) -> None:
        signature = _get(part, "thoughtSignature", "thought_signature")
        if isinstance(signature, (bytes, bytearray)):
            import base64

            signature = base64.b64encode(signature).decode("ascii")
        call = _get(part, "functionCall", "function_call")
        if call is not None:
            key = "id:" + call["id"] if call.get("id") else f"index:{len(self.call_order)}"
            tool = self.call(key, call.get("id"), call.get("name"))
            tool.whole = call.get("args") or {}
            item: dict[str, Any] = {"functionCall": {"name": call.get("name"), "args": tool.whole}}
            if call.get("id"):
                item["functionCall"]["id"] = call["id"]
            if signature:
                item["thoughtSignature"] = signature
            self.out.append(item)
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
                last["text"] += text
                if signature:
                    last["thoughtSignature"] = signature
            else:
                item = {"text": text}
                if thought:
                    item["thought"] = True
                if signature:
                    item["thoughtSignature"] = signature
                self.out.append(item)
            return
        self.out.append(_camel_part(part))

    def response(self) -> dict[str, Any]:
        response: dict[str, Any] = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [dict(p) for p in self.out]},
                    **({"finishReason": self.stop_reason} if self.stop_reason else {}),
                }
            ]
        }
        if self.usage:
            response["usageMetadata"] = self.usage
        if self.model:
            response["modelVersion"] = self.model
        if self.response_id:
            response["responseId"] = self.response_id
        return response


def _camel_part(part: dict[str, Any]) -> dict[str, Any]:
    """A Gemini part in REST spelling (SDK objects dump snake_case keys)."""

    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(word.title() for word in rest)

    return {camel(key): value for key, value in part.items()}


# -- OpenAI Responses stream events ---------------------------------------------------------


class _OpenAIResponsesFolder(_Folder):
    provider = "openai-responses"

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[int, dict[str, Any]] = {}
        self.status: str | None = None
        self.incomplete: Any = None

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("type", "")
        if kind in ("response.created", "response.in_progress"):
            response = event.get("response") or {}
            self.response_id = response.get("id") or self.response_id
            self.model = response.get("model") or self.model
        elif kind == "response.output_item.added":
            item = dict(event.get("item") or {})
            self.items[event.get("output_index", len(self.items))] = item
            if item.get("type") == "function_call":
                self.call(f"item:{item.get('id')}", item.get("call_id"), item.get("name"))
        elif kind == "response.output_item.done":
            item = dict(event.get("item") or {})
            self.items[event.get("output_index", len(self.items))] = item
            if item.get("type") == "function_call":
                call = self.call(f"item:{item.get('id')}", item.get("call_id"), item.get("name"))
                if isinstance(item.get("arguments"), str):
                    call.fragments = [item["arguments"]]
        elif kind == "response.output_text.delta":
            item = self._item(event)
            parts = item.setdefault("content", [])
            index = event.get("content_index", 0)
            while len(parts) <= index:
                parts.append({"type": "output_text", "text": "", "annotations": []})
            parts[index]["text"] = parts[index].get("text", "") + event.get("delta", "")
        elif kind == "response.function_call_arguments.delta":
            item = self._item(event)
            self.call(f"item:{item.get('id')}").fragments.append(event.get("delta", ""))
        elif kind == "response.function_call_arguments.done":
            item = self._item(event)
            self.call(f"item:{item.get('id')}").fragments = [event.get("arguments", "")]
        elif kind == "response.reasoning_summary_text.delta":
            item = self._item(event)
            summary = item.setdefault("summary", [])
            index = event.get("summary_index", 0)
            while len(summary) <= index:
                summary.append({"type": "summary_text", "text": ""})
            summary[index]["text"] += event.get("delta", "")
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event.get("response") or {}
            self.status = response.get("status")
            self.incomplete = response.get("incomplete_details")
            self.usage = response.get("usage") or self.usage
            self.model = response.get("model") or self.model
            self.response_id = response.get("id") or self.response_id
            for index, item in enumerate(response.get("output") or []):
                self.items[index] = dict(item)

    def _item(self, event: dict[str, Any]) -> dict[str, Any]:
        index = event.get("output_index", 0)
        return self.items.setdefault(index, {"id": event.get("item_id"), "type": "message"})

    def response(self) -> dict[str, Any]:
        output = []
        for index in sorted(self.items):
            item = dict(self.items[index])
            if item.get("type") == "function_call":
                call = self.calls.get(f"item:{item.get('id')}")
                if call is not None:
                    item["arguments"] = call.arguments_text()
            if item.get("type") == "message":
                item.setdefault("role", "assistant")
                item.setdefault("content", [])
            output.append(item)
        response: dict[str, Any] = {
            "object": "response",
            "id": self.response_id or "",
            "model": self.model or "",
            "output": output,
            "status": self.status or "incomplete",
        }
        if self.incomplete:
            response["incomplete_details"] = self.incomplete
        if self.usage:
            response["usage"] = self.usage
        return response


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
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            key = f"index:{len(self.call_order)}"
            tool = self.call(key, call.get("id"), function.get("name"))
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                tool.fragments.append(arguments)
            else:
                tool.whole = arguments or {}
        if event.get("done"):
            self.final = {k: v for k, v in event.items() if k != "message"}
            self.stop_reason = event.get("done_reason")

    def response(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text)}
        if self.thinking:
            message["thinking"] = "".join(self.thinking)
        calls = []
        for key in self.call_order:
            call = self.calls[key]
            calls.append({"function": {"name": call.name or "", "arguments": call.arguments()[0]}})
        if calls:
            message["tool_calls"] = calls
        return {**self.final, "model": self.model or "", "message": message, "done": True}


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
    """

    def __init__(self, provider: str) -> None:
        self.provider = canonical_provider(provider)
        self._folder = _FOLDERS[self.provider]()
        self.events = 0

    def add(self, event: Any) -> None:
        """Take one event."""
        data = as_dict(event)
        if not isinstance(data, dict):
            raise DecodeError(
                f"{self.provider} stream event #{self.events + 1} is a "
                f"{type(event).__name__}, not an event object"
            )
        self._folder.add(data)
        self.events += 1

    def message(self) -> AssistantMessage:
        """The reply so far, as one assistant message."""
        from .providers import decode

        decoded: list[Message] = decode(self._folder.response(), self.provider)
        assistant = next((m for m in decoded if isinstance(m, AssistantMessage)), None)
        if assistant is None:
            assistant = AssistantMessage(provider=self.provider)
        return _flag_invalid_arguments(assistant, self._folder.invalid_call_ids())


def _flag_invalid_arguments(message: AssistantMessage, invalid: dict[str, str]) -> AssistantMessage:
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


_ResultValue = str | Sequence[ContentBlock] | ToolResultBlock


def tool_result_turn(
    message: AssistantMessage,
    results: Mapping[str, str | Sequence[ContentBlock] | ToolResultBlock]
    | Sequence[ToolResultBlock],
) -> tuple[AssistantMessage, ToolMessage]:
    """The next turn's two messages after a streamed reply that called tools.

    Returns the assistant message echoing its tool calls (ids checked unique) and a tool message
    with exactly one result per call, in the calls' order. Bedrock keeps no partial turn and rejects
    a toolResult without its toolUse, so a count or id mismatch raises `ToolResultMismatchError`
    naming the ids instead of sending a request that cannot succeed.
    """
    calls = message.tool_calls
    ids = [call.id for call in calls]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ToolResultMismatchError(f"the reply repeats tool call ids {duplicates}")
    if isinstance(results, Mapping):
        by_id = {
            call_id: value
            if isinstance(value, ToolResultBlock)
            else ToolResultBlock(
                tool_call_id=call_id,
                content=value if isinstance(value, str) else list(value),
            )
            for call_id, value in results.items()
        }
    else:
        by_id = {}
        for result in results:
            if result.tool_call_id in by_id:
                raise ToolResultMismatchError(f"two results for tool call {result.tool_call_id!r}")
            by_id[result.tool_call_id] = result
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
