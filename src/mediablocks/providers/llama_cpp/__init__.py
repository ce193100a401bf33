"""The llama.cpp / LM Studio profile over OpenAI Chat: its own limits and URL rule; the stream
fold and token estimate are ``openai_chat``'s (see the registry entry)."""

from __future__ import annotations

from .translate import from_llama_cpp, to_llama_cpp

__all__ = ["from_llama_cpp", "to_llama_cpp"]
