"""DeepSeek chat request fields: OpenAI Chat's, in the names DeepSeek documents.

https://api-docs.deepseek.com/api/create-chat-completion documents ``max_tokens`` (not
``max_completion_tokens``) and ``response_format`` of type ``text`` or ``json_object`` only
(https://api-docs.deepseek.com/guides/json_mode): a JSON schema raises `UnsupportedSettingError`
(or is dropped and reported); JSON-object mode (``Settings.json_mode``) is sent. Thinking mode
takes ``reasoning_effort`` (https://api-docs.deepseek.com/guides/thinking_mode: ``low`` and
``medium`` run as ``high``), sent as given.
"""

from __future__ import annotations

from typing import Any

from ...messages import AssistantMessage
from .._fields import chat_settings_fields, chat_settings_from, unsupported_settings
from .._options import EncodeOptions
from ..openai_chat.request import MESSAGE_FIELDS, add_request_fields
from ..openai_chat.request import response_body as chat_response_body

__all__ = [
    "MESSAGE_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

PROVIDER = "deepseek"


def encode_fields(options: EncodeOptions) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and the settings DeepSeek takes, as chat fields."""
    unsupported_settings(
        options,
        PROVIDER,
        ("response_schema",),
        "DeepSeek documents JSON-object mode only (no json_schema response format)",
    )
    settings = options.settings
    if settings is not None:
        kept = settings.model_copy(update={"response_schema": None})
        options = options.replace(settings=kept)
    return chat_settings_fields(options, PROVIDER, max_tokens="max_tokens")


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a DeepSeek chat request body."""
    return chat_settings_from(body, PROVIDER, MESSAGE_FIELDS, max_tokens=("max_tokens",))


def response_body(message: AssistantMessage) -> dict[str, Any]:
    """``message`` as a DeepSeek ``chat.completion``: a reply from elsewhere gets its cache
    numbers in DeepSeek's own usage fields too (``prompt_cache_hit_tokens`` and
    ``prompt_cache_miss_tokens``, https://api-docs.deepseek.com/guides/kv_cache); a DeepSeek
    reply keeps its usage as it came."""
    body = chat_response_body(message)
    usage = body.get("usage")
    if isinstance(usage, dict) and "prompt_cache_hit_tokens" not in usage and message.usage:
        usage["prompt_cache_hit_tokens"] = message.usage.cache_read_tokens
        usage["prompt_cache_miss_tokens"] = message.usage.uncached_input_tokens
    return body
