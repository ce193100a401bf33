"""llama.cpp and LM Studio servers: OpenAI Chat Completions, with every image inlined.

The servers take ``image_url`` parts holding base64 data URIs and fetch no URLs, so URL media
is downloaded (under the fetch policy) and sent inline unless the caller asks otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...messages import Message
from .._options import EncodeOptions
from ..openai_chat.translate import from_openai_chat, to_openai_chat

__all__ = ["from_llama_cpp", "to_llama_cpp"]


def to_llama_cpp(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """OpenAI Chat fields, URL media inlined (``url_media="auto"`` means inline here)."""
    chosen = options or EncodeOptions()
    if chosen.url_media == "auto":
        chosen = chosen.replace(url_media="inline")
    return to_openai_chat(messages, chosen)


from_llama_cpp = from_openai_chat
"""llama.cpp speaks OpenAI Chat back: its ``reasoning_content`` becomes thinking."""
