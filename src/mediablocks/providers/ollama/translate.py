"""Ollama chat: `to_ollama` turns messages into ``ollama.chat`` fields, `from_ollama` reads
requests, message lists and ``/api/chat`` responses back.

An Ollama message is flat: ``role``, one ``content`` string, ``images`` (base64), ``thinking``,
``tool_calls`` (arguments as an object) and, on tool results, ``tool_name``. So (details in
``docs/providers/ollama.md``):

- several text blocks are joined with a blank line; decoding gives one text block;
- images go in ``images``; the order of text and images inside a message is not kept (decoding
  gives thinking, then text, then images, then tool calls);
- images are always sent inline: Ollama does not fetch URLs, so URL images are downloaded;
- only images: audio, video and files raise `UnsupportedBlockError`;
- Ollama's own thinking goes in ``thinking``; other thinking follows ``options.thinking``;
- tool results are ``tool`` messages with ``tool_name``; images in a tool result stay on that
  tool message (Ollama reads ``images`` on every message, whatever its role).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from typing_extensions import assert_never

from ...blocks import (
    Block,
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import DecodeError, MediaBlocksError
from ...media import ImageBlock, MediaBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
    UserMessage,
)
from .._chat_completions import NOTHING_SAID, ChatEncoder, chat_messages, tool_calls_of
from .._common import (
    as_dict,
    base64_data,
    call_names,
    file_id_of,
    is_own_thinking,
    pair_call,
    parse_args,
    synthetic_call_id,
    unsupported,
    usage_count,
    use_url,
)
from .._options import EncodeOptions
from .._payload import decode_payload

__all__ = ["from_ollama", "to_ollama"]

PROVIDER = "ollama"
TEXT_SEPARATOR = "\n\n"
"""What joins several text blocks of one message into Ollama's single ``content`` string."""

_MESSAGE_KEYS = frozenset({"role", "content", "images", "thinking", "tool_calls", "tool_name"})
_TOOL_KEYS = _MESSAGE_KEYS | {"tool_call_id"}
_OWN_ID = "own_id"
"""Marks (in ``provider_data["ollama"]``) a call id Ollama sent: it goes back (`sends_call_id`)."""


# -- encode -----------------------------------------------------------------------------------


def to_ollama(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
    """The ``messages`` field of ``ollama.chat(model=..., **fields)``.

    Images are base64 strings for both targets: the HTTP API wants base64, and the SDK passes
    base64 strings through unchanged.
    """
    encoder = _Encoder(options or EncodeOptions(), messages)
    return {"messages": encoder.run(messages)}


class _Encoder(ChatEncoder):
    """One encoding pass. An Ollama message is flat, so every role is written alike; images
    stay on the tool message that returned them (Ollama reads ``images`` on every message)."""

    provider = PROVIDER

    def __init__(self, options: EncodeOptions, messages: Sequence[Message]) -> None:
        super().__init__(options)
        self.names = call_names(messages)
        self.sent_ids = {
            block.id
            for message in messages
            for block in message.content
            if isinstance(block, ToolCallBlock) and sends_call_id(block)
        }

    def tool_result(self, result: ToolResultBlock, index: int, position: int) -> dict[str, Any]:
        return _tool_result_to_ollama(
            result, self.names, self.sent_ids, index, position, self.options
        )

    def system(self, message: SystemMessage, index: int) -> None:
        self._flat(message, index)

    def user(self, message: UserMessage, index: int) -> None:
        self._flat(message, index)

    def assistant(self, message: AssistantMessage, index: int) -> None:
        self._flat(message, index)

    def _flat(self, message: SystemMessage | UserMessage | AssistantMessage, index: int) -> None:
        """Tool results in a user message go out first as tool messages, then the rest."""
        rest: list[tuple[int, Block]] = []
        has_results = False
        for position, block in enumerate(message.content):
            if isinstance(block, ToolResultBlock):
                if not isinstance(message, UserMessage):
                    why = "tool results belong in tool messages"
                    raise unsupported(PROVIDER, block, index, position, why)
                has_results = True
                self.out.append(self.tool_result(block, index, position))
            else:
                rest.append((position, block))
        if rest or not has_results:
            encoded = _message_to_ollama(message.role, rest, index, self.options)
            if encoded != NOTHING_SAID:  # every block dropped: not sent
                self.out.append(encoded)


def _message_to_ollama(
    role: str, blocks: list[tuple[int, Block]], index: int, options: EncodeOptions
) -> dict[str, Any]:
    texts: list[str] = []
    thinking: list[str] = []
    images: list[str] = []
    calls: list[dict[str, Any]] = []
    extra: list[tuple[int, RawBlock]] = []
    for position, block in blocks:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ImageBlock):
            images.append(_image_to_ollama(block, index, position, options))
        elif isinstance(block, ThinkingBlock):
            if is_own_thinking(block, PROVIDER) and not block.redacted:
                thinking.append(block.thinking)
            elif options.thinking == "text" and block.thinking:
                texts.append(block.thinking)
        elif isinstance(block, ToolCallBlock):
            if role != "assistant":
                raise unsupported(
                    PROVIDER, block, index, position, "tool calls belong in assistant messages"
                )
            calls.append(_tool_call_to_ollama(block, index, position))
        elif isinstance(block, RawBlock):
            _check_raw(block, index, position)
            extra.append((position, block))
        elif isinstance(block, MediaBlock):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "Ollama takes images only (no audio, video or files)",
            )
        elif isinstance(block, ToolResultBlock):
            raise unsupported(PROVIDER, block, index, position)
        else:
            assert_never(block)
    message: dict[str, Any] = {"role": role, "content": TEXT_SEPARATOR.join(texts)}
    if thinking:
        message["thinking"] = TEXT_SEPARATOR.join(thinking)
    if images:
        message["images"] = images
    if calls:
        message["tool_calls"] = calls
    for position, raw in extra:
        _merge_fields(message, raw.data, raw, index, position)
    return message


def _check_raw(block: RawBlock, index: int, position: int) -> None:
    if block.provider != PROVIDER:
        raise unsupported(
            PROVIDER, block, index, position, f"it holds {block.provider} content, not Ollama's"
        )


def _merge_fields(
    message: dict[str, Any], fields: dict[str, Any], block: Block, index: int, position: int
) -> None:
    """Put preserved unknown Ollama fields back on the message, never over a field we set."""
    for key, value in fields.items():
        if key in message:
            raise unsupported(
                PROVIDER, block, index, position, f"its field {key!r} clashes with the message's"
            )
        message[key] = value


def _image_to_ollama(block: ImageBlock, index: int, position: int, options: EncodeOptions) -> str:
    if file_id_of(block) is not None:
        raise unsupported(PROVIDER, block, index, position, "Ollama has no file ids")
    try:
        use_url(block, False, options)  # Ollama never fetches: URL images are downloaded
    except MediaBlocksError as exc:
        raise unsupported(PROVIDER, block, index, position, str(exc)) from None
    return base64_data(block, options)


def _image_from_ollama(value: Any, where: str) -> ImageBlock:
    """An image from base64 text (or a data URI), bytes, a path object, or the SDK's ``Image``."""
    inner = getattr(value, "value", None)
    if inner is not None and not isinstance(value, (str, bytes)):
        value = inner  # ollama.Image
    elif isinstance(value, dict) and "value" in value:
        value = value["value"]
    try:
        if isinstance(value, str):
            return ImageBlock.from_base64(value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            return ImageBlock.from_bytes(value)
        if isinstance(value, os.PathLike):
            return ImageBlock.from_path(value)
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc
    raise DecodeError(f"{where}: an image must be base64 text, got {type(value).__name__}")


def _tool_call_to_ollama(block: ToolCallBlock, index: int, position: int) -> dict[str, Any]:
    if block.raw_args is not None:
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            "its arguments are not a JSON object (raw_args) and Ollama needs an object",
        )
    stored = block.for_provider(PROVIDER)
    function: dict[str, Any] = {**stored.get("function", {}), "name": block.name}
    function["arguments"] = block.args
    call: dict[str, Any] = {**stored.get("call", {}), "function": function}
    if sends_call_id(block):
        call = {"id": block.id, **call}
    return call


def sends_call_id(block: ToolCallBlock) -> bool:
    """True when the call's id goes out: the id Ollama gave the call. Ollama's server reads
    ``tool_calls[].id`` and a result's ``tool_call_id`` (``api.ToolCall.ID``,
    ``api.Message.ToolCallID``); ollama-python's ``Message`` has neither field and drops both.
    So an id goes back where Ollama sent it, a result names its call exactly when the call's id
    goes out, and anything else is matched by ``tool_name``, as the SDK does."""
    return block.for_provider(PROVIDER).get(_OWN_ID) is True


def _tool_call_from_ollama(raw: Any, where: str) -> ToolCallBlock:
    call = as_dict(raw)
    function = as_dict(call.get("function")) if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise DecodeError(f"{where}: tool call has no function name")
    arguments = function.get("arguments")
    raw_args: str | None = None
    if isinstance(arguments, dict):
        args = arguments
    elif arguments is None or isinstance(arguments, str):
        args, raw_args = parse_args(arguments)
    else:
        raise DecodeError(f"{where}: tool call arguments are a {type(arguments).__name__}")
    call_id = call.get("id")
    stored: dict[str, Any] = {}
    if not isinstance(call_id, str) or not call_id:
        call_id = synthetic_call_id("call_", function["name"], arguments, where)
    else:
        stored[_OWN_ID] = True  # Ollama's id: it goes back
    function_extra = {k: v for k, v in function.items() if k not in ("name", "arguments")}
    call_extra = {k: v for k, v in call.items() if k not in ("id", "function")}
    if function_extra:
        stored["function"] = function_extra
    if call_extra:
        stored["call"] = call_extra
    return ToolCallBlock(
        id=call_id,
        name=function["name"],
        args=args,
        raw_args=raw_args,
        provider_data={PROVIDER: stored} if stored else {},
    )


def _tool_result_to_ollama(
    result: ToolResultBlock,
    names: dict[str, str],
    sent_ids: set[str],
    index: int,
    position: int,
    options: EncodeOptions,
) -> dict[str, Any]:
    texts: list[str] = []
    images: list[str] = []
    extra: list[RawBlock] = []
    if isinstance(result.content, str):
        texts.append(result.content)
    else:
        for block in result.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
            elif isinstance(block, ImageBlock):
                images.append(_image_to_ollama(block, index, position, options))
            elif isinstance(block, RawBlock):
                _check_raw(block, index, position)
                extra.append(block)
            elif isinstance(block, MediaBlock):
                raise unsupported(
                    PROVIDER,
                    block,
                    index,
                    position,
                    "in a tool result; Ollama takes images only (no audio, video or files)",
                )
            else:
                assert_never(block)
    message: dict[str, Any] = {"role": "tool", "content": TEXT_SEPARATOR.join(texts)}
    if images:
        message["images"] = images
    name = result.name or names.get(result.tool_call_id)
    if name:
        message["tool_name"] = name
    stored = result.for_provider(PROVIDER)
    if stored.get("tool_call_id", result.tool_call_id in sent_ids):
        # the id goes out with its call (see `sends_call_id`): Ollama pairs the two by it
        message["tool_call_id"] = result.tool_call_id
    _merge_fields(message, result.for_provider(PROVIDER).get("extra", {}), result, index, position)
    for raw in extra:
        _merge_fields(message, raw.data, raw, index, position)
    return message


# -- decode -----------------------------------------------------------------------------------


def from_ollama(payload: Any) -> list[Message]:
    """Messages from an Ollama chat request body, a message list, or a chat response.

    ``ollama.ChatResponse`` and ``ollama.Message`` objects are read like dicts. Image strings are
    base64 (never taken for paths).
    """
    return decode_payload(
        payload,
        "an Ollama payload",
        _messages_from_ollama,
        ("a response with 'message'", _is_response, _response_from_ollama),
    )


def _is_response(data: dict[str, Any]) -> bool:
    return "message" in data and "role" not in data


_USAGE_KEYS = (
    "prompt_eval_count",
    "eval_count",
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
)


def _response_from_ollama(data: dict[str, Any]) -> AssistantMessage:
    message = as_dict(data.get("message"))
    if not isinstance(message, dict):
        raise DecodeError("Ollama response: 'message' is not an object")
    usage = None
    if data.get("prompt_eval_count") is not None or data.get("eval_count") is not None:
        usage = Usage(
            input_tokens=usage_count(data.get("prompt_eval_count")),
            output_tokens=usage_count(data.get("eval_count")),
            raw={key: data[key] for key in _USAGE_KEYS if data.get(key) is not None},
        )
    reason = data.get("done_reason")
    model = data.get("model")
    reply = _assistant_from_ollama(
        message,
        "Ollama response message",
        usage=usage,
        stop_reason=reason if isinstance(reason, str) and reason else None,
        model=model if isinstance(model, str) and model else None,
    )
    # logprobs, context, the creation time as written...: what the response had, as it had it
    notes = {
        key: value
        for key, value in data.items()
        if key not in _RESPONSE_KEYS and not (key in _USAGE_KEYS and value is not None)
    }
    for key in ("created_at", "done", "done_reason"):
        if key not in data:
            notes[key] = ABSENT
    nulls = [key for key, value in message.items() if value is None]
    if nulls:
        notes["message_nulls"] = nulls  # "images": null in a reply, written back so
    update: dict[str, Any] = {"metadata": {PROVIDER: notes}} if notes else {}
    created = _created_at(data.get("created_at"))
    if created is not None:
        update["timestamp"] = created
    return reply.model_copy(update=update) if update else reply


_RESPONSE_KEYS = frozenset({"model", "message", "done_reason"})
ABSENT = "<absent>"
"""Stands for a response field the reply did not have, where writing it is the default."""


def _created_at(value: Any) -> datetime | None:
    """Ollama's ``created_at`` (RFC 3339, nanoseconds and any offset) as a timestamp."""
    if not isinstance(value, str):
        return None
    text = re.sub(r"(\.\d{6})\d+", r"\1", value.replace("Z", "+00:00"))
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _messages_from_ollama(items: Any) -> list[Message]:
    sent_ids: set[str] = set()  # ids Ollama gave the calls so far

    def assistant(item: dict[str, Any], where: str) -> AssistantMessage:
        reply = _assistant_from_ollama(item, where)
        sent_ids.update(call.id for call in reply.tool_calls if sends_call_id(call))
        return reply

    def tool_result(
        item: dict[str, Any], where: str, pending: list[tuple[str, str]]
    ) -> ToolResultBlock:
        return _tool_result_from_ollama(item, where, pending, sent_ids)

    return chat_messages(
        items, "Ollama", assistant=assistant, tool_result=tool_result, others=_ROLE_READERS
    )


def _system_from_ollama(item: dict[str, Any], where: str) -> Message:
    return SystemMessage(content=_blocks_from_ollama(item, where))


def _user_from_ollama(item: dict[str, Any], where: str) -> Message:
    return UserMessage(content=_blocks_from_ollama(item, where))


_ROLE_READERS = {"system": _system_from_ollama, "user": _user_from_ollama}


def _assistant_from_ollama(item: dict[str, Any], where: str, **fields: Any) -> AssistantMessage:
    return AssistantMessage(content=_blocks_from_ollama(item, where), provider=PROVIDER, **fields)


def _blocks_from_ollama(item: dict[str, Any], where: str) -> list[Block]:
    """Thinking, then text, then images, then tool calls, then unknown fields as a RawBlock."""
    blocks: list[Block] = []
    thinking = item.get("thinking")
    if isinstance(thinking, str) and thinking:
        blocks.append(ThinkingBlock(thinking=thinking, provider=PROVIDER))
    blocks.extend(_text_from_ollama(item.get("content"), where))
    blocks.extend(_images_from_ollama(item.get("images"), where))
    blocks.extend(tool_calls_of(item, where, _tool_call_from_ollama))
    extra = {k: v for k, v in item.items() if k not in _MESSAGE_KEYS and v is not None}
    if extra:
        blocks.append(RawBlock(provider=PROVIDER, data=extra))
    return blocks


def _text_from_ollama(content: Any, where: str) -> list[TextBlock]:
    if content is None or content == "":
        return []
    if not isinstance(content, str):
        raise DecodeError(f"{where}: content is a {type(content).__name__}, not a string")
    return [TextBlock(text=content)]


def _images_from_ollama(images: Any, where: str) -> list[ImageBlock]:
    if images is None:
        return []
    if not isinstance(images, (list, tuple)):
        raise DecodeError(f"{where}: images is not a list")
    return [
        _image_from_ollama(image, f"{where}, image {number}") for number, image in enumerate(images)
    ]


def _tool_result_from_ollama(
    item: dict[str, Any], where: str, pending: list[tuple[str, str]], sent_ids: set[str]
) -> ToolResultBlock:
    name = item.get("tool_name") if isinstance(item.get("tool_name"), str) else None
    given = item.get("tool_call_id")
    paired: set[str] = set()
    if isinstance(given, str) and given:
        call_id = given
        pending[:] = [entry for entry in pending if entry[0] != given]
    else:
        # Ollama names the tool, not the call: pair with the previous turn's unanswered calls.
        paired = {entry[0] for entry in pending}
        call_id = pair_call(pending, name) or synthetic_call_id("call_", name, None, where)
    texts = _text_from_ollama(item.get("content"), where)
    images = _images_from_ollama(item.get("images"), where)
    text = texts[0].text if texts else ""
    content: str | list[ContentBlock] = [*texts, *images] if images else text
    extra = {k: v for k, v in item.items() if k not in _TOOL_KEYS and v is not None}
    stored: dict[str, Any] = {"extra": extra} if extra else {}
    if isinstance(given, str) and given:
        stored["tool_call_id"] = True
    elif call_id in sent_ids and call_id in paired:
        stored["tool_call_id"] = False  # its call had Ollama's id, the result did not name it
    return ToolResultBlock(
        tool_call_id=call_id,
        content=content,
        name=name,
        provider_data={PROVIDER: stored} if stored else {},
    )
