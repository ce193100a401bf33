"""How a Gemini response was laid out beyond its first candidate's content: kept so that
`encode_response` writes the response back as it came, and the finish reasons google-genai
knows beyond the shared table."""

from __future__ import annotations

from typing import Any

from ._wire import _camel_key, _get, _json_safe, _plain, _respell

_FINISH_REASONS: dict[str, str] = {
    "MODEL_ARMOR": "content_filter",  # Vertex AI: Model Armor blocked the response
    "IMAGE_RECITATION": "content_filter",
    "IMAGE_OTHER": "other",
    "NO_IMAGE": "other",
    "MISSING_THOUGHT_SIGNATURE": "error",
    "MALFORMED_RESPONSE": "error",
    "ESCALATION": "other",
    "CONTINUATION": "other",
}
"""Finish reasons of google-genai's ``FinishReason`` beyond the shared table, normalised here.
A blocked prompt (``promptFeedback.blockReason``, no candidate) is ``content_filter``, or
``refusal`` for ``JAILBREAK``: the request was refused before the model answered."""


def _envelope_notes(sent: Any, candidate: dict[str, Any], content: Any) -> dict[str, Any]:
    """How the response was laid out, where it differs from what `response_body` writes by
    default, so the reply goes back as it came: the candidate's ``index``, a candidate with no
    content or a content with no role, unknown content fields, no candidates at all (a blocked
    prompt), and the candidates after the first (kept verbatim, never dropped)."""
    notes: dict[str, Any] = {}
    if sent is None:
        notes["candidates"] = None
    elif sent == []:
        notes["candidates"] = []
    elif len(sent) > 1:
        notes["other_candidates"] = _json_safe(_respell(_plain(sent[1:]), _camel_key))
    if "index" in candidate:
        notes["index"] = candidate["index"]
    if sent and _get(candidate, "content") is None:
        notes["content"] = None
    elif isinstance(content, dict):
        if "role" not in content:
            notes["content_role"] = None
        if "parts" not in content:
            notes["content_parts"] = None
        extra = {k: v for k, v in content.items() if k not in ("role", "parts")}
        if extra:
            notes["content_fields"] = _json_safe(extra)
    return notes


_RESPONSE_FIELDS = frozenset(
    {"candidates", "usage_metadata", "prompt_feedback", "model_version", "response_id"}
)
