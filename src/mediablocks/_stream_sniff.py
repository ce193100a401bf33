"""Whose stream an event is: so a stream folded under the wrong provider name raises, naming the
right one, instead of folding into an empty reply.

Each wire format streams events no other one sends (Anthropic's ``content_block_delta``,
Converse's ``contentBlockDelta`` key, OpenAI's ``chat.completion.chunk``, Responses'
``response.*`` types, Gemini's ``candidates``, Ollama's ``done``, Cohere's hyphenated types). An
event that says nothing for sure (a ``ping``, an error, an empty chunk) names no family. Families
are the stream folds: the OpenAI-compatible endpoints and Mistral share OpenAI's chunk shape, and
Claude on Bedrock and Vertex (``invoke_model_with_response_stream``, ``stream``) Anthropic's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["family_of_event", "family_of_folder", "suggested_provider"]

_ANTHROPIC_TYPES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)
_CONVERSE_KEYS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop"}
)
_COHERE_TYPES = frozenset(
    {
        "message-start",
        "message-end",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
    }
)

_FOLDER_FAMILY = {
    "AnthropicFolder": "anthropic",
    "BedrockFolder": "bedrock",
    "HarnessFolder": "bedrock",
    "OpenAIChatFolder": "openai-chat",
    "MistralFolder": "openai-chat",
    "OpenAIResponsesFolder": "openai-responses",
    "GeminiFolder": "gemini",
    "OllamaFolder": "ollama",
    "CohereFolder": "cohere",
}


def family_of_folder(folder: object) -> str | None:
    """The family of events a fold reads (None: one this module does not know)."""
    for cls in type(folder).__mro__:
        family = _FOLDER_FAMILY.get(cls.__name__)
        if family is not None:
            return family
    return None


def family_of_event(event: dict[str, Any]) -> str | None:
    """The family whose stream ``event`` (a dict) surely belongs to, or None when it says
    nothing for sure."""
    kind = event.get("type")
    if isinstance(kind, str):
        if kind in _ANTHROPIC_TYPES:
            return "anthropic"
        if kind.startswith("response."):
            return "openai-responses"
        if kind in _COHERE_TYPES:
            return "cohere"
    if len(event) <= 2 and not _CONVERSE_KEYS.isdisjoint(event):
        return "bedrock"
    if event.get("object") == "chat.completion.chunk":
        return "openai-chat"
    choices = event.get("choices")
    if (
        isinstance(choices, list)
        and choices
        and isinstance(choices[0], dict)
        and "delta" in choices[0]
    ):
        return "openai-chat"
    candidates = event.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
        return "gemini"
    if isinstance(event.get("done"), bool) and "model" in event and "created_at" in event:
        return "ollama"
    return None


def suggested_provider(family: str, chosen: str) -> str:
    """The provider name to fold a ``family`` stream with, given the wrong ``chosen`` one:
    Anthropic events on a Bedrock name are Claude's InvokeModel stream (``anthropic-bedrock``),
    Converse events on a Claude-on-Bedrock name are ``bedrock``'s."""
    if family == "anthropic" and chosen.startswith("bedrock"):
        return "anthropic-bedrock"
    return family
