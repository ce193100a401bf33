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
- `StreamAccumulator.message()` works at any point: a stream cut short still yields what arrived;
- a stream folded under the wrong provider name raises `DecodeError` naming the provider whose
  events they are (as `mb.decode` does for a payload), at the first event that says so, instead of
  folding into an empty reply; ``"bedrock-harness"`` folds an AgentCore ``InvokeHarness`` stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Mapping, Sequence
from typing import Any

from ._depth import check_depth
from ._stream_sniff import family_of_event, family_of_folder, suggested_provider
from .blocks import ContentBlock, ToolCallBlock, ToolResultBlock
from .errors import DecodeError, MediaBlocksError, ToolResultMismatchError
from .messages import AssistantMessage, Message, ToolMessage
from .providers._common import as_dict
from .providers._fold import END, Folder
from .providers._options import canonical_provider
from .providers._wire_check import malformed_field
from .providers.registry import provider_entry
from .stop_reasons import normalize_stop_reason

__all__ = ["StreamAccumulator", "afrom_stream", "from_stream", "tool_result_turn"]

HARNESS = "bedrock-harness"
"""Amazon Bedrock AgentCore Harness: not a provider `encode` writes for, but a stream to fold."""

_MALFORMED = (TypeError, AttributeError, KeyError, ValueError, IndexError, RecursionError)
"""What a fold raises on events of the wrong shape; turned into `DecodeError` at the boundary."""


def _kind(event: dict[str, Any]) -> str:
    kind = event.get("type")
    if isinstance(kind, str):
        return repr(kind[:60])
    return "keys " + ", ".join(sorted(str(key)[:40] for key in list(event)[:5]))


class StreamAccumulator:
    """Fold a provider's stream events one at a time; `message()` is usable at any point.

    Events may be plain dicts (parsed SSE data, boto3 stream events) or the SDKs' event objects.
    ``events`` counts the events taken so far.
    """

    def __init__(self, provider: str) -> None:
        if isinstance(provider, str) and provider.strip().lower() == HARNESS:
            from .providers.bedrock.harness_stream import HarnessFolder

            self.provider = HARNESS
            self._decoder = "bedrock"  # a Harness run decodes as a Converse response
            self._folder: Folder = HarnessFolder()
        else:
            self.provider = canonical_provider(provider)
            self._decoder = self.provider
            self._folder = provider_entry(self.provider).new_folder()
        self._family = family_of_folder(self._folder)  # None once an event proved it right
        self.events = 0

    def add(self, event: Any) -> None:
        """Take one event (a dict or an SDK event object).

        An event that is not one this provider sends, or has fields of the wrong JSON type, or nests
        past `MAX_DEPTH`, raises `DecodeError` naming the event; the events before it stay folded.
        """
        if self._folder.take(iter((event,)))[0]:  # a plain text delta: nothing in it can nest
            self.events += 1
            self._family = None  # the fold's own fast path took it: the right provider
            return
        self._add_checked(event)

    def _add_checked(self, event: Any) -> None:
        """`add` for an event the fold's fast path did not take: the depth check, then the fold."""
        number = self.events + 1
        data = as_dict(event)
        if not isinstance(data, dict):
            raise DecodeError(
                f"{self.provider} stream event #{number} is a "
                f"{type(event).__name__}, not an event object"
            )
        check_depth(data, f"{self.provider} stream event #{number}")
        if self._family is not None:
            self._check_family(data, number)
        try:
            self._folder.add(data)
        except MediaBlocksError as exc:
            raise DecodeError(f"{self.provider} stream event #{number}: {exc}") from None
        except _MALFORMED as exc:
            raise DecodeError(
                f"{self.provider} stream event #{number} ({_kind(data)}) is malformed: "
                f"{malformed_field(data)} ({type(exc).__name__}: {exc})"
            ) from None
        self.events += 1

    def _check_family(self, data: dict[str, Any], number: int) -> None:
        """Until an event proves the provider right, raise at the first that is another's."""
        try:
            family = family_of_event(data)
        except Exception:  # a malformed event says nothing here; the fold names what is wrong
            return
        if family is None:
            return
        if family == self._family:
            self._family = None
            return
        right = suggested_provider(family, self.provider)
        raise DecodeError(
            f"{self.provider} stream event #{number} ({_kind(data)}) is a {right} stream "
            f"event, not {self.provider}'s: fold these events with "
            f"mb.from_stream(events, {right!r})"
        )

    def _add_all(self, events: Iterable[Any]) -> None:
        """Take every event of ``events`` in order (what `from_stream` does).

        Runs of plain text deltas go through the fold's fast path in one loop; every other event
        goes through `add`'s checks. ``events`` that is not iterable raises `DecodeError`.
        """
        try:
            iterator = iter(events)
        except TypeError:
            raise DecodeError(
                f"{self.provider} stream: the events are a {type(events).__name__}, "
                "not an iterable of events"
            ) from None
        take = self._folder.take
        while True:
            taken, event = take(iterator)
            self.events += taken
            if taken:
                self._family = None  # the fold's own fast path took them: the right provider
            if event is END:
                return
            self._add_checked(event)

    def response(self) -> dict[str, Any]:
        """The events so far as the provider's own complete response (what `message` decodes)."""
        try:
            self._folder.pieces.apply()
            return self._folder.response()
        except _MALFORMED as exc:
            raise DecodeError(
                f"{self.provider} stream: the events so far do not make a response "
                f"({type(exc).__name__}: {exc})"
            ) from None

    def message(self) -> AssistantMessage:
        """The reply so far, as one assistant message."""
        from .providers import decode

        decoded: list[Message] = decode(self.response(), self._decoder)
        assistant = next((m for m in decoded if isinstance(m, AssistantMessage)), None)
        if assistant is None:
            assistant = AssistantMessage(provider=self.provider)
        try:
            invalid = self._folder.invalid_call_ids()
        except _MALFORMED as exc:
            raise DecodeError(
                f"{self.provider} stream: tool call arguments cannot be read "
                f"({type(exc).__name__}: {exc})"
            ) from None
        assistant = _flag_invalid_arguments(assistant, invalid)
        if self._folder.error is not None:
            metadata = {**assistant.metadata, "stream_error": self._folder.error}
            assistant = assistant.model_copy(update={"metadata": metadata})
        if self._decoder != self.provider:  # a Harness run: its last stop is the run's
            raw = assistant.provider_stop_reason
            reason = normalize_stop_reason(raw, self._decoder, tool_calls=raw == "tool_use")
            update = {"provider": self.provider, "stop_reason": reason}
            assistant = assistant.model_copy(update=update)
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
    accumulator._add_all(events)
    return accumulator.message()


async def afrom_stream(events: AsyncIterable[Any], provider: str) -> AssistantMessage:
    """`from_stream` for an async iterator of events (the async SDK clients' streams)."""
    accumulator = StreamAccumulator(provider)
    if not isinstance(events, AsyncIterable):
        raise DecodeError(
            f"{accumulator.provider} stream: the events are a {type(events).__name__}, "
            "not an async iterable of events"
        )
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
