"""`mb.encode` as users call it, with every keyword option: what each call's result is typed as.

Never run by the tests; type-checked by ``tests/test_typing_user_program.py`` with ``mypy
--strict`` and ``pyright`` (strict), which must both report 0 errors. The options are one
``Unpack`` TypedDict (`mediablocks.encoding.EncodeKeywords`); these lines pin that each option
keeps the type it had when every overload spelled it out, that a written-out provider name with
the SDK target still gives that SDK's typed fields, and that anything else gives a plain dict.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_type

import mediablocks as mb
from mediablocks.encoding import EncodeKeywords
from mediablocks.providers import (
    AnthropicFields,
    BedrockFields,
    GeminiFields,
    MistralFields,
    OllamaFields,
    OpenAIChatFields,
    OpenAIResponsesFields,
)

history: list[mb.Message] = [mb.UserMessage.text("What is the weather in Paris?")]
weather = mb.Tool(
    name="weather",
    description="The weather in a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
store = mb.MemoryMediaStore()

every_option = mb.encode(
    history,
    "anthropic",
    target="sdk",
    url_media="inline",
    policy=mb.FetchPolicy(),
    thinking="text",
    tool_result_media="error",
    tools=[weather],
    tool_choice="weather",
    settings=mb.Settings(max_tokens=100),
    unsupported="drop",
    compaction="user",
    media_store=store,
    uploader=None,
)
assert_type(every_option, AnthropicFields)

# Each typed SDK by its canonical name and an alias, SDK target written out or left to default.
assert_type(mb.encode(history, "openai-chat"), OpenAIChatFields)
assert_type(mb.encode(history, "openai", tools=[weather]), OpenAIChatFields)
assert_type(mb.encode(history, "openai-responses", target="sdk"), OpenAIResponsesFields)
assert_type(mb.encode(history, "responses", thinking="drop"), OpenAIResponsesFields)
assert_type(mb.encode(history, "gemini", settings=None), GeminiFields)
assert_type(mb.encode(history, "google", url_media="url"), GeminiFields)
assert_type(mb.encode(history, "bedrock", compaction="skip"), BedrockFields)
assert_type(mb.encode(history, "mistral", tool_choice=None), MistralFields)
assert_type(mb.encode(history, "ollama", tools=None), OllamaFields)

# The JSON target, a provider without SDK types, and a name only known at run time: a dict.
assert_type(mb.encode(history, "anthropic", target="json"), dict[str, Any])
assert_type(mb.encode(history, "cohere", unsupported="error"), dict[str, Any])
chosen: str = "deepseek"
assert_type(mb.encode("hello", chosen, tool_result_media="user_message"), dict[str, Any])

# Options gathered in a dict typed as the TypedDict, passed on with **.
options: EncodeKeywords = {"thinking": "text", "unsupported": "drop"}
assert_type(mb.encode(history, "anthropic", **options), AnthropicFields)
