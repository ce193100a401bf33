"""Which wire format a payload looks like, from the markers only that format has.

`mb.decode` uses these when a payload decoded under one provider's name yields nothing but
unrecognised content: if another format's markers are there (an OpenAI Chat ``tool_calls`` decoded
as ``"anthropic"``), the caller named the wrong provider and gets a `DecodeError` saying which one
the payload looks like, instead of raw blocks that look like a model that said nothing.

Each function looks at a bounded number of messages and parts (never the whole of a huge payload)
and takes any JSON value: it answers, it never raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = [
    "anthropic",
    "bedrock",
    "cohere",
    "gemini",
    "mistral",
    "ollama",
    "openai_chat",
    "openai_responses",
    "response_formats",
]

_SCAN = 64
"""How many messages, and parts of each, a sniff looks at."""

_MESSAGE_LISTS = ("messages", "contents", "input", "output")


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        for item in value[:_SCAN]:
            if isinstance(item, dict):
                yield item


def _messages(payload: Any) -> Iterator[dict[str, Any]]:
    """The message-like dicts of a payload: a list, a request's lists, a response's message."""
    if isinstance(payload, list):
        yield from _dicts(payload)
        return
    if not isinstance(payload, dict):
        return
    yield payload
    for key in _MESSAGE_LISTS:
        yield from _dicts(payload.get(key))
    for choice in _dicts(payload.get("choices")):
        if isinstance(choice.get("message"), dict):
            yield choice["message"]
    for candidate in _dicts(payload.get("candidates")):
        if isinstance(candidate.get("content"), dict):
            yield candidate["content"]
    output = payload.get("output")
    if isinstance(output, dict) and isinstance(output.get("message"), dict):
        yield output["message"]
    if isinstance(payload.get("message"), dict):
        yield payload["message"]


def _parts(message: dict[str, Any], key: str = "content") -> Iterator[dict[str, Any]]:
    yield from _dicts(message.get(key))


def _part_types(payload: Any, key: str = "content") -> set[str]:
    types: set[str] = set()
    for message in _messages(payload):
        for part in _parts(message, key):
            kind = part.get("type")
            if isinstance(kind, str):
                types.add(kind)
    return types


def openai_chat(payload: Any) -> bool:
    """``choices``, ``tool_calls`` with ``function``, ``image_url``/``input_audio`` parts, and
    ``file`` parts holding a ``file`` object (Mistral's ``file`` part holds a ``file_id``)."""
    if isinstance(payload, dict) and isinstance(payload.get("choices"), list):
        return True
    for message in _messages(payload):
        calls = list(_dicts(message.get("tool_calls")))
        if any(isinstance(call.get("function"), dict) and "type" in call for call in calls):
            return True
        if message.get("role") == "tool" and "tool_call_id" in message:
            return True
    if _has_part(payload, "file", lambda part: isinstance(part.get("file"), dict)):
        return True
    return bool(_part_types(payload) & {"image_url", "input_audio", "refusal"})


def _has_part(payload: Any, kind: str, shape: Any) -> bool:
    """True when a message has a part of type ``kind`` for which ``shape(part)`` holds."""
    for message in _messages(payload):
        for part in _parts(message):
            if part.get("type") == kind and shape(part):
                return True
    return False


def mistral(payload: Any) -> bool:
    """The OpenAI Chat markers, and Mistral's own parts (``document_url``, ``thinking``, a
    ``file`` part naming a ``file_id``)."""
    if openai_chat(payload):
        return True
    if _has_part(payload, "file", lambda part: "file_id" in part):
        return True
    return bool(_part_types(payload) & {"document_url", "thinking", "reference"})


def openai_responses(payload: Any) -> bool:
    """``object: response``, items typed ``message``/``function_call``/``reasoning``, parts typed
    ``input_text``/``output_text``/``input_image``/``input_file``."""
    if isinstance(payload, dict) and payload.get("object") == "response":
        return True
    item_types = {"function_call", "function_call_output", "reasoning", "message"}
    for message in _messages(payload):
        kind = message.get("type")
        if isinstance(kind, str) and kind in item_types and message is not payload:
            return True
    part_types = {"input_text", "output_text", "input_image", "input_file", "input_audio"}
    return bool(_part_types(payload) & part_types)


def anthropic(payload: Any) -> bool:
    """``type: message`` responses and Anthropic's typed blocks (``tool_use``, ``image`` with a
    ``source``, ``thinking``...)."""
    if isinstance(payload, dict) and payload.get("type") == "message":
        return True
    types = _part_types(payload)
    own = {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "document",
        "search_result",
    }
    if types & own:
        return True
    for message in _messages(payload):
        for part in _parts(message):
            if part.get("type") == "image" and isinstance(part.get("source"), dict):
                return True
    return False


def gemini(payload: Any) -> bool:
    """``contents``/``candidates``, ``parts`` lists, the ``model`` role."""
    if isinstance(payload, dict) and ("candidates" in payload or "contents" in payload):
        return True
    for message in _messages(payload):
        if isinstance(message.get("parts"), list) or message.get("role") == "model":
            return True
    return False


def bedrock(payload: Any) -> bool:
    """Converse's untyped blocks keyed by kind (``toolUse``, ``image`` with ``format``...)."""
    if isinstance(payload, dict) and ("stopReason" in payload or "modelId" in payload):
        return True
    own = {"toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent"}
    for message in _messages(payload):
        for part in _parts(message):
            if "type" not in part and (own & set(part) or _bedrock_media(part)):
                return True
    return False


def _bedrock_media(part: dict[str, Any]) -> bool:
    for kind in ("image", "document", "video", "audio"):
        media = part.get(kind)
        if isinstance(media, dict) and "format" in media:
            return True
    return False


def ollama(payload: Any) -> bool:
    """``images`` lists on messages, ``done`` on responses, ``tool_name`` on tool messages."""
    if isinstance(payload, dict) and "done" in payload and "message" in payload:
        return True
    for message in _messages(payload):
        if isinstance(message.get("images"), list) or "tool_name" in message:
            return True
    return False


def cohere(payload: Any) -> bool:
    """``finish_reason`` beside a ``message`` (responses), ``tool_plan``, ``citations``, and the
    OpenAI Chat markers Cohere shares (``tool_calls``, ``image_url``, ``tool`` messages)."""
    if isinstance(payload, dict) and "finish_reason" in payload and "message" in payload:
        return True
    for message in _messages(payload):
        if "tool_plan" in message or "citations" in message:
            return True
    return openai_chat(payload) or bool(_part_types(payload) & {"document", "thinking"})


_CHAT_RESPONSES = frozenset({"openai-chat", "mistral"})
"""Mistral answers in the Chat Completions envelope: the two cannot be told apart by it."""


def response_formats(payload: Any) -> frozenset[str]:
    """The wire formats whose response envelope ``payload`` has (empty when it has none).

    The envelope is decisive where part markers are not: a Claude reply's ``thinking`` part is
    also a Mistral and Cohere part type, but ``{"type": "message", ...}`` is Anthropic's alone.
    """
    if not isinstance(payload, dict):
        return frozenset()
    if payload.get("type") == "message" and "content" in payload:
        return frozenset({"anthropic"})
    if payload.get("object") == "response":
        return frozenset({"openai-responses"})
    if isinstance(payload.get("choices"), list):
        return _CHAT_RESPONSES
    if isinstance(payload.get("candidates"), list):
        return frozenset({"gemini"})
    output = payload.get("output")
    if isinstance(output, dict) and "message" in output and "stopReason" in payload:
        return frozenset({"bedrock"})
    if "done" in payload and isinstance(payload.get("message"), dict):
        return frozenset({"ollama"})
    if "finish_reason" in payload and isinstance(payload.get("message"), dict):
        return frozenset({"cohere"})
    return frozenset()
