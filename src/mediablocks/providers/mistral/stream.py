"""The stream fold for Mistral chat chunks.

The OpenAI Chat chunk shape, with Mistral's content chunks and its ``"null"`` call ids.
"""

from __future__ import annotations

from typing import Any

from ..openai_chat.stream import OpenAIChatFolder


class MistralFolder(OpenAIChatFolder):
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
