"""Fold streamed provider events into one `AssistantMessage`.

Each provider streams differently; a folder per wire format gathers the events into that provider's
own complete response (what a non-streamed call would have returned), and the message is then
decoded by the same translator `mb.decode` uses, so a streamed reply and a whole one give identical
blocks, opaque signatures included.

What the folders guarantee, for every provider:

- tool calls are keyed by their id where the provider sends one, and by index otherwise, and come
  out in first-seen order. A Bedrock stream has been seen to reuse one ``contentBlockIndex`` for two
  different ``toolUseId``s: keyed by index, one call would be lost and another duplicated;
- parallel calls whose fragments interleave stay apart;
- argument fragments are joined as text and parsed once, at the end. Arguments that are not a JSON
  object are kept verbatim in ``ToolCallBlock.raw_args`` (``args`` stays empty, never invented) and
  the call ids are listed in ``message.metadata["invalid_tool_args"]``;
- thinking text and signature deltas are joined; redacted thinking is kept;
- stop reason and usage are filled when the stream carries them (a stream cut short has no stop
  reason); an error event is kept in ``message.metadata["stream_error"]``;
- `StreamAccumulator.message()` works at any point: a stream cut short still yields what arrived.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterable, Iterable, Mapping, Sequence
from typing import Any

from .blocks import ContentBlock, ToolCallBlock, ToolResultBlock
from .errors import DecodeError, ToolResultMismatchError
from .messages import AssistantMessage, Message, ToolMessage
from .providers._common import as_dict
from .providers._fold import Folder
from .providers._options import canonical_provider

__all__ = ["StreamAccumulator", "afrom_stream", "from_stream", "tool_result_turn"]


_FOLDERS: dict[str, tuple[str, str]] = {
    "openai-chat": ("openai_chat", "OpenAIChatFolder"),
    "mistral": ("mistral", "MistralFolder"),
    "anthropic": ("anthropic", "AnthropicFolder"),
    "bedrock": ("bedrock", "BedrockFolder"),
    "gemini": ("gemini", "GeminiFolder"),
    "openai-responses": ("openai_responses", "OpenAIResponsesFolder"),
    "ollama": ("ollama", "OllamaFolder"),
}
"""Canonical provider name -> (its package in ``providers``, the fold class in its ``stream``)."""


def _new_folder(provider: str) -> Folder:
    """A fresh fold for ``provider``, its module imported on first use."""
    package, name = _FOLDERS[provider]
    module = importlib.import_module(f"{__package__}.providers.{package}.stream")
    folder: Folder = getattr(module, name)()
    return folder


class StreamAccumulator:
    """Fold a provider's stream events one at a time; `message()` is usable at any point.

    Events may be plain dicts (parsed SSE data, boto3 stream events) or the SDKs' event objects.
    ``events`` counts the events taken so far.
    """

    def __init__(self, provider: str) -> None:
        self.provider = canonical_provider(provider)
        self._folder = _new_folder(self.provider)
        self.events = 0

    def add(self, event: Any) -> None:
        """Take one event (a dict or an SDK event object)."""
        data = as_dict(event)
        if not isinstance(data, dict):
            raise DecodeError(
                f"{self.provider} stream event #{self.events + 1} is a "
                f"{type(event).__name__}, not an event object"
            )
        self._folder.add(data)
        self.events += 1

    def response(self) -> dict[str, Any]:
        """The events so far as the provider's own complete response (what `message` decodes)."""
        self._folder.pieces.apply()
        return self._folder.response()

    def message(self) -> AssistantMessage:
        """The reply so far, as one assistant message."""
        from .providers import decode

        decoded: list[Message] = decode(self.response(), self.provider)
        assistant = next((m for m in decoded if isinstance(m, AssistantMessage)), None)
        if assistant is None:
            assistant = AssistantMessage(provider=self.provider)
        assistant = _flag_invalid_arguments(assistant, self._folder.invalid_call_ids())
        if self._folder.error is not None:
            metadata = {**assistant.metadata, "stream_error": self._folder.error}
            assistant = assistant.model_copy(update={"metadata": metadata})
        return assistant


def _flag_invalid_arguments(message: AssistantMessage, invalid: dict[str, str]) -> AssistantMessage:
    """Keep each invalid argument text in ``raw_args`` and list the calls in the metadata."""
    if not invalid:
        return message
    content = [
        block.model_copy(update={"args": {}, "raw_args": invalid[block.id]})
        if isinstance(block, ToolCallBlock) and block.id in invalid
        else block
        for block in message.content
    ]
    metadata = {**message.metadata, "invalid_tool_args": sorted(invalid)}
    return message.model_copy(update={"content": content, "metadata": metadata})


def from_stream(events: Iterable[Any], provider: str) -> AssistantMessage:
    """Fold a whole stream of events into one assistant message."""
    accumulator = StreamAccumulator(provider)
    for event in events:
        accumulator.add(event)
    return accumulator.message()


async def afrom_stream(events: AsyncIterable[Any], provider: str) -> AssistantMessage:
    """`from_stream` for an async iterator of events (the async SDK clients' streams)."""
    accumulator = StreamAccumulator(provider)
    async for event in events:
        accumulator.add(event)
    return accumulator.message()


ToolResultValue = str | Sequence[ContentBlock] | ToolResultBlock
"""What a caller may give as one tool's result: text, content blocks, or a whole result block."""


def tool_result_turn(
    message: AssistantMessage,
    results: Mapping[str, ToolResultValue] | Sequence[ToolResultBlock],
) -> tuple[AssistantMessage, ToolMessage]:
    """The next turn's two messages after a (streamed) reply that called tools.

    Returns the assistant message echoing its tool calls and a tool message with exactly one result
    per call, in the calls' order (Bedrock sends it as the user turn of ``toolResult`` blocks).
    ``results`` maps call ids to results, or lists `ToolResultBlock`s. Bedrock keeps no partial
    turn and rejects a toolResult without its toolUse, so a reply without tool calls, repeated call
    ids, or results that do not match the calls one to one raise `ToolResultMismatchError` naming
    the ids, instead of sending a request that cannot succeed.
    """
    calls = message.tool_calls
    if not calls:
        raise ToolResultMismatchError("the reply made no tool calls: there is nothing to answer")
    ids = [call.id for call in calls]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ToolResultMismatchError(f"the reply repeats tool call ids {duplicates}")
    by_id = _results_by_id(results)
    missing = [i for i in ids if i not in by_id]
    extra = sorted(set(by_id) - set(ids))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no result for {missing}")
        if extra:
            parts.append(f"results for calls the reply did not make: {extra}")
        raise ToolResultMismatchError(
            f"{len(ids)} tool call(s) and {len(by_id)} result(s): " + "; ".join(parts)
        )
    names = {call.id: call.name for call in calls}
    ordered = [
        by_id[i] if by_id[i].name else by_id[i].model_copy(update={"name": names[i]}) for i in ids
    ]
    return message, ToolMessage.from_results(ordered)


def _results_by_id(
    results: Mapping[str, ToolResultValue] | Sequence[ToolResultBlock],
) -> dict[str, ToolResultBlock]:
    by_id: dict[str, ToolResultBlock] = {}
    if isinstance(results, Mapping):
        for call_id, value in results.items():
            if isinstance(value, ToolResultBlock):
                if value.tool_call_id != call_id:
                    raise ToolResultMismatchError(
                        f"the result given for tool call {call_id!r} answers {value.tool_call_id!r}"
                    )
                by_id[call_id] = value
            else:
                content = value if isinstance(value, str) else list(value)
                by_id[call_id] = ToolResultBlock(tool_call_id=call_id, content=content)
        return by_id
    if isinstance(results, (str, bytes)):
        raise ToolResultMismatchError("results must map call ids to results, or list results")
    for number, result in enumerate(results):
        if not isinstance(result, ToolResultBlock):
            raise ToolResultMismatchError(
                f"result {number} is a {type(result).__name__}, not a ToolResultBlock"
            )
        if result.tool_call_id in by_id:
            raise ToolResultMismatchError(f"two results for tool call {result.tool_call_id!r}")
        by_id[result.tool_call_id] = result
    return by_id
