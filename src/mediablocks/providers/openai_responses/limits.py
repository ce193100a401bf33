"""OpenAI Responses limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ..openai_chat.limits import LIMITS as CHAT_LIMITS
from ..openai_chat.limits import OPENAI_FILES
from ..openai_chat.limits import for_model as for_model

LIMITS = replace(
    CHAT_LIMITS,
    provider="openai-responses",
    audio_types=frozenset(),
    # input_file takes far more than PDF here (text is extracted from non-PDF files).
    document_types=frozenset(
        {
            "application/pdf",
            "text/plain",
            "text/markdown",
            "text/html",
            "text/csv",
            "text/tab-separated-values",
            "application/json",
            "application/xml",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.ms-excel",
        }
    ),
    sources=MappingProxyType({**CHAT_LIMITS.sources, "document_types": OPENAI_FILES}),
)
