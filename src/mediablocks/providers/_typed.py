"""What `encode` returns for each provider, typed with the official SDK's own parameter types.

``client.messages.create(model=..., **mb.encode(messages, "anthropic"))`` keeps the SDK's return
type for a type checker only if the splatted fields have types the SDK's signature accepts; a
``dict[str, Any]`` would turn the response into ``Any``. These TypedDicts name, field by field,
the SDK parameter each key fills. The SDK types are imported only by type checkers
(``TYPE_CHECKING``), so every SDK stays optional at run time: at run time these are plain dicts.
A checker without a given SDK installed sees that provider's fields as untyped, nothing worse.

Bedrock's types come from ``boto3-stubs[bedrock-runtime]`` (``mypy_boto3_bedrock_runtime``), the
stubs boto3 users install for typed clients.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Union

if TYPE_CHECKING:
    from anthropic.types import MessageParam, TextBlockParam
    from google.genai.types import ContentDict, GenerateContentConfigDict
    from mistralai.client.models import ChatCompletionRequestMessageTypedDict
    from mypy_boto3_bedrock_runtime.type_defs import MessageTypeDef, SystemContentBlockTypeDef
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses import ResponseInputParam

__all__ = [
    "AnthropicFields",
    "BedrockFields",
    "GeminiFields",
    "MistralFields",
    "OllamaFields",
    "OpenAIChatFields",
    "OpenAIResponsesFields",
]

OpenAIChatName = Literal["openai-chat", "openai", "openai-chat-completions", "openai-completions"]
OpenAIResponsesName = Literal["openai-responses", "responses"]
GeminiName = Literal["gemini", "google", "google-genai"]
BedrockName = Literal["bedrock", "bedrock-converse", "aws-bedrock"]
"""The provider names (canonical and aliases) each typed result answers to."""


class OpenAIChatFields(TypedDict):
    """``client.chat.completions.create(model=..., **fields)``."""

    messages: list[ChatCompletionMessageParam]


class _OpenAIResponsesRequired(TypedDict):
    input: ResponseInputParam


class OpenAIResponsesFields(_OpenAIResponsesRequired, total=False):
    """``client.responses.create(model=..., **fields)``; ``instructions`` when a system message
    is not the first item."""

    instructions: str


class _AnthropicRequired(TypedDict):
    messages: list[MessageParam]


class AnthropicFields(_AnthropicRequired, total=False):
    """``client.messages.create(model=..., max_tokens=..., **fields)``."""

    system: Union[str, list[TextBlockParam]]


class _GeminiRequired(TypedDict):
    contents: list[ContentDict]


class GeminiFields(_GeminiRequired, total=False):
    """``client.models.generate_content(model=..., **fields)``; ``config`` carries the system
    instruction."""

    config: GenerateContentConfigDict


class _BedrockRequired(TypedDict):
    messages: list[MessageTypeDef]


class BedrockFields(_BedrockRequired, total=False):
    """``bedrock_runtime.converse(modelId=..., **fields)`` (boto3)."""

    system: list[SystemContentBlockTypeDef]


class MistralFields(TypedDict):
    """``client.chat.complete(model=..., **fields)``."""

    messages: list[ChatCompletionRequestMessageTypedDict]


class OllamaFields(TypedDict):
    """``ollama.chat(model=..., **fields)``; Ollama's own type for a message is a mapping."""

    messages: list[Mapping[str, Any]]
