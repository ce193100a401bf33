"""Why a model stopped, in one vocabulary for every provider.

Each provider names its stop reasons its own way (``stop``, ``STOP``, ``end_turn``,
``tool_calls``...). `normalize_stop_reason` maps a provider's value to one of the `StopReason`
values, so "done / wants tools / hit the limit" is one check; `AssistantMessage` keeps the
provider's own value beside it (``provider_stop_reason``). `provider_stop_reason_for` goes the
other way, for `encode_response`.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "STOP_REASONS",
    "StopReason",
    "normalize_stop_reason",
    "provider_stop_reason_for",
]

StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "content_filter",
    "refusal",
    "pause",
    "error",
    "other",
]
"""The normalised stop reasons."""

STOP_REASONS: tuple[str, ...] = get_args(StopReason)

_TABLES: dict[str, dict[str, StopReason]] = {
    "anthropic": {
        "end_turn": "end_turn",
        "tool_use": "tool_use",
        "max_tokens": "max_tokens",
        "stop_sequence": "stop_sequence",
        "pause_turn": "pause",
        "refusal": "refusal",
        "model_context_window_exceeded": "max_tokens",
    },
    "openai-chat": {
        "stop": "end_turn",
        "length": "max_tokens",
        "tool_calls": "tool_use",
        "function_call": "tool_use",
        "content_filter": "content_filter",
    },
    "openai-responses": {
        "completed": "end_turn",
        "max_output_tokens": "max_tokens",
        "content_filter": "content_filter",
        "incomplete": "other",
        "failed": "error",
        "cancelled": "other",
        "in_progress": "other",
        "queued": "other",
    },
    "gemini": {
        "STOP": "end_turn",
        "MAX_TOKENS": "max_tokens",
        "SAFETY": "content_filter",
        "RECITATION": "content_filter",
        "BLOCKLIST": "content_filter",
        "PROHIBITED_CONTENT": "content_filter",
        "SPII": "content_filter",
        "IMAGE_SAFETY": "content_filter",
        "IMAGE_PROHIBITED_CONTENT": "content_filter",
        "MALFORMED_FUNCTION_CALL": "error",
        "UNEXPECTED_TOOL_CALL": "error",
        "TOO_MANY_TOOL_CALLS": "error",
        "LANGUAGE": "other",
        "OTHER": "other",
        "FINISH_REASON_UNSPECIFIED": "other",
    },
    "bedrock": {
        "end_turn": "end_turn",
        "tool_use": "tool_use",
        "max_tokens": "max_tokens",
        "stop_sequence": "stop_sequence",
        "guardrail_intervened": "content_filter",
        "content_filtered": "content_filter",
        "model_context_window_exceeded": "max_tokens",
        "malformed_model_output": "error",
        "malformed_tool_use": "error",
    },
    "mistral": {
        "stop": "end_turn",
        "length": "max_tokens",
        "model_length": "max_tokens",
        "tool_calls": "tool_use",
        "error": "error",
    },
    "cohere": {
        "COMPLETE": "end_turn",
        "TOOL_CALL": "tool_use",
        "MAX_TOKENS": "max_tokens",
        "STOP_SEQUENCE": "stop_sequence",
        "ERROR": "error",
        "TIMEOUT": "error",
    },
    "ollama": {
        "stop": "end_turn",
        "length": "max_tokens",
        "load": "other",
        "unload": "other",
    },
}

_REVERSE: dict[str, dict[StopReason, str]] = {
    "anthropic": {"pause": "pause_turn", "content_filter": "refusal", "error": "end_turn"},
    "openai-chat": {
        "end_turn": "stop",
        "stop_sequence": "stop",
        "refusal": "stop",
        "pause": "stop",
        "error": "stop",
        "other": "stop",
    },
    "openai-responses": {"max_tokens": "max_output_tokens", "error": "failed"},
    "gemini": {
        "end_turn": "STOP",
        "tool_use": "STOP",
        "stop_sequence": "STOP",
        "content_filter": "SAFETY",
        "refusal": "SAFETY",
        "pause": "OTHER",
        "error": "OTHER",
    },
    "bedrock": {"content_filter": "content_filtered", "refusal": "content_filtered"},
    "mistral": {"stop_sequence": "stop", "content_filter": "stop", "refusal": "stop"},
    "cohere": {"content_filter": "ERROR", "refusal": "COMPLETE", "pause": "COMPLETE"},
    "ollama": {"tool_use": "stop", "stop_sequence": "stop"},
}


def _canonical(provider: str | None) -> str | None:
    """The table key for a provider name as translators write it (``openai-chat``...).

    No lookup in the provider registry (this module is imported by the core message models): an
    alias or a profile (``groq``, ``anthropic-bedrock``) has no table of its own, and its values
    are found in the other tables, which is where its base provider's are.
    """
    if provider is None:
        return None
    return provider.strip().lower().replace("_", "-")


def normalize_stop_reason(
    value: str | None, provider: str | None = None, *, tool_calls: bool = False
) -> StopReason | None:
    """The normalised reason for a provider's stop value (``None`` stays ``None``).

    Values the provider's table does not know are looked up in the other providers' tables, then
    read as ``error`` when they start with ``error`` and ``other`` otherwise. ``tool_calls`` says
    the reply holds tool calls: providers that report a plain stop then (Gemini, Ollama, some
    OpenAI-compatible servers) give ``tool_use``.
    """
    if value is None:
        return None
    if value in STOP_REASONS and provider is None:
        reason: StopReason = value  # type: ignore[assignment]
    else:
        name = _canonical(provider)
        found = _TABLES.get(name, {}).get(value) if name else None
        if found is None:
            found = next((t[value] for t in _TABLES.values() if value in t), None)
        if found is None:
            found = "error" if value.lower().startswith("error") else "other"
        reason = found
    if tool_calls and reason == "end_turn":
        return "tool_use"
    return reason


def provider_stop_reason_for(reason: str | None, provider: str) -> str | None:
    """The provider's own value for a normalised reason (for writing a response back).

    Only values the provider documents are written: a reason it has no value for (``pause`` or
    ``other`` for Bedrock and Mistral) becomes its plain end-of-turn value."""
    if reason is None:
        return None
    name = _canonical(provider) or provider
    reverse = _REVERSE.get(name, {})
    if reason in reverse:
        return reverse[reason]
    table = _TABLES.get(name, {})
    for raw, normal in table.items():
        if normal == reason:
            return raw
    for raw, normal in table.items():
        if normal == "end_turn":
            return raw
    return reason
