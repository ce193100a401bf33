"""What the OpenAI Chat encoder and decoder share: the provider name and the OpenAI file stores."""

from __future__ import annotations

PROVIDER = "openai-chat"
FILE_STORE = "openai"
"""``FileIdSource.provider`` of decoded OpenAI file ids: the Chat and Responses APIs share one
file store, so ids marked ``openai``, ``openai-chat`` or ``openai-responses`` all go out."""
OPENAI_STORES = frozenset({"openai", "openai-chat", "openai-responses"})
"""``FileIdSource.provider`` values whose ids both OpenAI APIs take (no provider is taken too)."""
