"""The vLLM profile over OpenAI Chat: its own limits (`limits`); the rest is
``openai_chat``'s (see the registry entry)."""
