"""The stream fold for OpenAI Chat Completions chunks.

Events in (dicts or SDK event objects made dicts), the provider's whole response out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._fold import END, Folder, plain, wire_index


def _only_content(delta: dict[str, Any]) -> bool:
    """Whether a chunk's delta says nothing but its content (a role, or fields set to null)."""
    return all(value is None or key in ("content", "role") for key, value in delta.items())


class OpenAIChatFolder(Folder):
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
        groq = chunk.get("x_groq")
        if isinstance(groq, dict) and isinstance(groq.get("usage"), dict) and groq["usage"]:
            self.usage = groq["usage"]  # Groq streams the usage in x_groq.usage
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
                self.stop_reason = plain(choice["finish_reason"])

    def take(self, events: Iterator[Any]) -> tuple[int, Any]:
        """The fast path: chunks whose only news is a content string (see `Folder.take`)."""
        taken = 0
        text = self.text
        for taken, event in enumerate(events, 1):
            try:  # subscripts, not .get: a missing key or a wrong type leaves the fast path
                if (
                    type(event) is dict
                    and event.get("id") == self.response_id
                    and event.get("model") == self.model
                    and not event.get("usage")
                    and "x_groq" not in event
                ):
                    choices = event["choices"]
                    if type(choices) is list and len(choices) == 1:
                        choice = choices[0]
                        delta = choice["delta"]
                        content = delta["content"]
                        if (
                            type(content) is str
                            and choice["index"] == 0
                            and choice.get("finish_reason") is None
                            and (len(delta) == 1 or _only_content(delta))
                        ):
                            text.append(content)
                            continue
            except (KeyError, TypeError, IndexError, AttributeError):
                pass
            return taken - 1, event
        return taken, END

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
        raw_index = fragment.get("index")
        index = 0 if raw_index is None else wire_index(raw_index, "tool_calls[].index")
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
