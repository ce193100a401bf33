"""Small helpers every translator shares: media fields, URL decisions, arguments, errors,
turn grouping (encode) and turn splitting (decode)."""

from __future__ import annotations

import hashlib
import json
import mimetypes
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, Union

from typing_extensions import assert_never

from ..blocks import (
    Block,
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ..datauri import b64decode, b64encode, is_data_uri
from ..errors import DecodeError, MediaBlocksError, UnsupportedBlockError
from ..fetching.policy import current_policy, decision_for
from ..media import MediaBlock
from ..messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
    built_message,
)
from ..sources import FileIdSource, URLSource
from ._options import EncodeOptions

__all__ = [
    "ModelMessage",
    "SystemBlock",
    "add_tool_result",
    "as_dict",
    "base64_data",
    "block_label",
    "blocks_from_content",
    "bytes_or_base64",
    "call_names",
    "data_uri",
    "default_filename",
    "dumped",
    "file_id_of",
    "group_turns",
    "inline_mime",
    "is_own_thinking",
    "media_from_reference",
    "object_args",
    "pair_call",
    "parse_args",
    "results_first",
    "sendable",
    "synthetic_call_id",
    "system_parts",
    "tool_args",
    "tool_result_content",
    "tool_results",
    "unsupported",
    "usage_count",
    "use_url",
    "user_turns",
]

_M = TypeVar("_M", bound=MediaBlock)

Part = dict[str, Any]
RoleEncoder = Callable[[Sequence[Block], int], list[Part]]
"""Encodes one message's blocks (and its index, for errors) into wire parts."""


ModelMessage = Union[SystemMessage, UserMessage, AssistantMessage, ToolMessage]
"""The messages a model sees (session messages are the application's)."""


def sendable(messages: Sequence[Message]) -> Iterator[tuple[int, ModelMessage]]:
    """``(index, message)`` for the messages a model sees: session messages are skipped."""
    for index, message in enumerate(messages):
        if isinstance(message, (SystemMessage, UserMessage, AssistantMessage, ToolMessage)):
            yield index, message


def group_turns(
    messages: Sequence[Message],
    *,
    system: RoleEncoder,
    assistant: RoleEncoder,
    tool: RoleEncoder,
    user: RoleEncoder,
    assistant_role: str = "assistant",
    lift_system: str = "all",
    starts_turn: Callable[[Message], bool] | None = None,
    role_for: Callable[[Message, str], str] | None = None,
) -> tuple[list[Part], list[tuple[str, list[Part]]]]:
    """``(system parts, turns)`` for APIs that lift the system prompt and alternate two roles.

    System messages are lifted, in order, into the system parts. Every other message becomes a
    ``(role, parts)`` turn: assistant messages ``assistant_role``, tool and user messages
    ``"user"``. Consecutive turns of the same role are merged and a turn with no parts is dropped.
    With ``lift_system="leading"`` only the system messages before any other are lifted; later
    ones stay in place as ``"system"`` turns (for APIs that take them there).
    ``starts_turn(message)`` true keeps a message out of the turn before even when the roles
    match (a wire format that had two turns of one role in a row gets them back); ``role_for``
    may give a message another role name (an empty one: a turn the wire format sent unnamed).
    """
    system_parts: list[Part] = []
    turns: list[tuple[str, list[Part]]] = []
    for index, message in sendable(messages):
        if isinstance(message, SystemMessage) and (lift_system == "all" or not turns):
            system_parts.extend(system(message.content, index))
            continue
        if isinstance(message, SystemMessage):
            role, parts = "system", system(message.content, index)
        elif isinstance(message, AssistantMessage):
            role, parts = assistant_role, assistant(message.content, index)
        elif isinstance(message, ToolMessage):
            role, parts = "user", tool(message.content, index)
        elif isinstance(message, UserMessage):
            role, parts = "user", user(message.content, index)
        else:
            assert_never(message)
        if not parts:
            continue
        if role_for is not None:
            role = role_for(message, role)
        if turns and turns[-1][0] == role and not (starts_turn and starts_turn(message)):
            turns[-1][1].extend(parts)
        else:
            turns.append((role, parts))
    return system_parts, turns


SystemBlock = Union[TextBlock, ThinkingBlock, RawBlock]
"""What a system prompt holds: text (thinking and verbatim blocks as the provider says)."""


def system_parts(
    provider: str,
    blocks: Sequence[Block],
    index: int,
    encode: Callable[[SystemBlock, int, int], Part | None],
    why: str,
) -> list[Part]:
    """A system message's parts, each block as ``encode(block, index, position)`` writes it
    (None: dropped); any block but text, thinking and verbatim ones raises, saying ``why``."""
    parts: list[Part] = []
    for position, block in enumerate(blocks):
        if not isinstance(block, (TextBlock, ThinkingBlock, RawBlock)):
            raise unsupported(provider, block, index, position, why)
        part = encode(block, index, position)
        if part is not None:
            parts.append(part)
    return parts


def tool_results(
    provider: str, blocks: Sequence[Block], index: int
) -> Iterator[tuple[int, ToolResultBlock]]:
    """``(position, block)`` for each block of a tool message; any other kind of block raises."""
    for position, block in enumerate(blocks):
        if not isinstance(block, ToolResultBlock):
            raise unsupported(
                provider, block, index, position, "a tool message holds tool results only"
            )
        yield position, block


def results_first(parts: list[Part], is_result: Callable[[Part], bool]) -> list[Part]:
    """Tool results lead a user turn (the APIs require it); other parts keep their order."""
    results = [p for p in parts if is_result(p)]
    if not results or len(results) == len(parts):
        return parts
    return results + [p for p in parts if not is_result(p)]


def user_turns(blocks: list[Block]) -> list[Message]:
    """A decoded user turn as messages: runs of tool results become `ToolMessage`s, other runs
    `UserMessage`s, in order (an empty turn is one empty `UserMessage`)."""
    out: list[Message] = []
    run: list[Block] = []
    for block in blocks:
        is_result = isinstance(block, ToolResultBlock)
        if run and isinstance(run[0], ToolResultBlock) != is_result:
            out.append(_user_run(run))
            run = []
        run.append(block)
    if run or not out:
        out.append(_user_run(run))
    return out


def _user_run(blocks: list[Block]) -> Message:
    if blocks and isinstance(blocks[0], ToolResultBlock):
        return built_message(ToolMessage, blocks)
    return built_message(UserMessage, blocks)


def blocks_from_content(
    content: Any, where: str, decode_part: Callable[[Any, str], Block], noun: str
) -> list[Block]:
    """Decoded message content that is text or a list of parts (each a ``noun``: "part",
    "chunk"): a text block for non-empty text, `decode_part` for each part, nothing for None."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    if isinstance(content, list):
        return [
            decode_part(part, f"{where}, {noun} {number}") for number, part in enumerate(content)
        ]
    raise DecodeError(f"{where}: content is a {type(content).__name__}, not text or {noun}s")


def tool_result_content(
    value: Any,
    where: str,
    decode_part: Callable[[Any, str], Block],
    field: str,
    noun: str,
    *,
    plural: str = "parts",
    kept_for: str | None = None,
) -> str | list[ContentBlock]:
    """A decoded tool result's ``field`` (``content``, ``output``): its text as is (None as
    ""), or each of its parts (each a ``noun``, ``plural`` in the error) decoded by
    `decode_part`. With ``kept_for`` (a provider), a part a tool result cannot hold (thinking)
    is kept verbatim as that provider's `RawBlock`."""
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, list):
        raise DecodeError(f"{where}: {field} is a {type(value).__name__}, not text or {plural}")
    content: list[ContentBlock] = []
    for number, raw in enumerate(value):
        block = decode_part(raw, f"{where}, {noun} {number}")
        cannot_hold = isinstance(block, (ThinkingBlock, ToolCallBlock, ToolResultBlock))
        if kept_for is not None and cannot_hold:
            block = RawBlock(provider=kept_for, data=as_dict(raw))
        assert not isinstance(block, (ThinkingBlock, ToolCallBlock, ToolResultBlock))
        content.append(block)
    return content


def add_tool_result(out: list[Message], block: Block, *, join: bool) -> None:
    """Append a decoded tool result: to the `ToolMessage` just before it when ``join`` (the
    previous wire message was a tool result too), else as a new `ToolMessage`."""
    last = out[-1] if out else None
    if join and isinstance(last, ToolMessage):
        out[-1] = last.model_copy(update={"content": [*last.content, block]})
    else:
        out.append(ToolMessage(content=[block]))


def call_names(messages: Sequence[Message]) -> dict[str, str]:
    """Tool name by call id, from the history's tool calls (for APIs whose results need it)."""
    names: dict[str, str] = {}
    for _, message in sendable(messages):
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                names.setdefault(block.id, block.name)
    return names


def pair_call(pending: list[tuple[str, str]], name: str | None) -> str | None:
    """The id of the unanswered ``(id, name)`` call a result without an id answers: the first
    with the result's tool name (any when it has none), else the first; None when none is left.
    The call is taken off ``pending``."""
    for number, (call_id, call_name) in enumerate(pending):
        if name is None or call_name == name:
            del pending[number]
            return call_id
    if pending:
        return pending.pop(0)[0]
    return None


def block_label(block: Block) -> str:
    """How a block is named in errors: ``ImageBlock(path 'x.png', image/png)`` or its type."""
    if isinstance(block, MediaBlock):
        return block.describe()
    return type(block).__name__


def unsupported(
    provider: str, block: Block, message_index: int, block_index: int, why: str = ""
) -> UnsupportedBlockError:
    """The error for a block a provider cannot carry: kind, position and provider named."""
    role_note = f"message {message_index}, block {block_index}"
    reason = f": {why}" if why else ""
    return UnsupportedBlockError(
        f"{provider} cannot carry {block_label(block)} ({role_note}){reason}"
    )


def base64_data(block: MediaBlock, options: EncodeOptions) -> str:
    """The block's base64 text (or an `encode_json` placeholder that streams it later)."""
    if options.media_sink is not None:
        return options.media_sink.add(block, "base64")
    return block.to_base64(options.policy)[0]


def data_uri(block: MediaBlock, options: EncodeOptions) -> str:
    """The block as a data URI (or an `encode_json` placeholder)."""
    if options.media_sink is not None:
        return options.media_sink.add(block, "data_uri")
    return block.to_data_uri(options.policy)


def bytes_or_base64(block: MediaBlock, options: EncodeOptions) -> bytes | str:
    """Raw bytes for SDKs that take bytes (boto3, google-genai), base64 text for JSON targets."""
    if options.target == "sdk":
        return block.read(options.policy)
    return base64_data(block, options)


def use_url(block: MediaBlock, provider_fetches: bool, options: EncodeOptions) -> bool:
    """Whether a URL block goes out as its URL (True) or is downloaded and inlined (False).

    Who decides, first to last: the policy's ``url_hook`` (`URLDecision.fetch`; a refusal
    raises `BlockedURLError` before the URL goes anywhere), the block's own ``url_media`` hint,
    the call's ``url_media``, and the provider's default (``provider_fetches``). Raises
    `UnsupportedBlockError` when the URL was asked for and the provider cannot fetch.
    """
    if not isinstance(block.source, URLSource):
        return False
    decision = decision_for(block.source.url, current_policy(options.policy))
    choice = decision.fetch if decision.fetch != "auto" else block.url_media or options.url_media
    if choice == "inline":
        return False
    if choice == "url":
        if not provider_fetches:
            raise UnsupportedBlockError(
                f"{block.describe()}: this provider cannot fetch URLs for this kind of media; "
                "use url_media='inline' to download and send the bytes"
            )
        return True
    if choice == "auto":
        return provider_fetches
    assert_never(choice)


def inline_mime(block: MediaBlock, options: EncodeOptions) -> str:
    """The exact MIME type of a block we send inline (a URL block is downloaded first)."""
    if isinstance(block.source, URLSource):
        block.read(options.policy)
    return block.mime_type


def default_filename(mime: str) -> str:
    """``document.pdf`` and the like, for APIs that want a filename the block does not have."""
    return "document" + (mimetypes.guess_extension(mime) or "")


def media_from_reference(
    cls: type[_M], value: str, mime: str | None, filename: str | None, where: str
) -> _M:
    """A media block from a URL, a data URI or bare base64 text, with errors placed."""
    try:
        if is_data_uri(value):
            return cls.from_data_uri(value, mime, filename=filename)
        if value[:8].lower().startswith(("http://", "https://")):
            return cls.from_url(value, mime, filename=filename)
        return cls.from_base64(value, mime, filename=filename)
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc


def file_id_of(block: MediaBlock) -> FileIdSource | None:
    """The block's provider file id source, if it has one."""
    return block.source if isinstance(block.source, FileIdSource) else None


def parse_args(text: str | None) -> tuple[dict[str, Any], str | None]:
    """Tool-call argument text as ``(args, raw_args)``: raw text is kept only when not an object."""
    if text is None or text.strip() == "":
        return {}, None
    try:
        value = json.loads(text)
    except ValueError:
        return {}, text
    if isinstance(value, dict):
        return value, None
    return {}, text


def tool_args(arguments: Any) -> tuple[dict[str, Any], str | None]:
    """Decoded tool-call arguments as ``(args, raw_args)``: JSON text (as `parse_args`), an
    object (some OpenAI-compatible servers send one), or anything else kept as JSON text."""
    if isinstance(arguments, dict):
        return arguments, None
    if arguments is None or isinstance(arguments, str):
        return parse_args(arguments)
    return {}, json.dumps(arguments)


def object_args(
    provider: str, api: str, block: ToolCallBlock, index: int, position: int
) -> dict[str, Any]:
    """The call's arguments for APIs that take them as an object (``api`` names it in the
    error): arguments the model sent as something other than a JSON object raise."""
    if block.raw_args is not None:
        raise unsupported(
            provider,
            block,
            index,
            position,
            f"tool call {block.id!r} has arguments that are not a JSON object "
            f"({block.raw_args[:60]!r}) and {api} requires an object; repair it with "
            "block.model_copy(update={'args': {...}, 'raw_args': None})",
        )
    return dict(block.args)


def is_own_thinking(block: ThinkingBlock, provider: str) -> bool:
    """True when this provider produced the thinking block (so its signature is valid there)."""
    return block.provider == provider


def usage_count(value: Any) -> int:
    """A token count from a usage object: an int, or 0 when missing or not a count."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def as_dict(payload: Any) -> Any:
    """A plain dict/list for an SDK object (pydantic ``model_dump``, ``to_dict``) or as is."""
    if isinstance(payload, (dict, list, str, bytes)) or payload is None:
        return payload
    dump = getattr(payload, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="python", exclude_none=True, by_alias=True)
        except TypeError:
            return dump()
    to_dict = getattr(payload, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return payload


def dumped(value: Any, **dump: Any) -> Any:
    """A dict for an SDK object, from its ``model_dump(**dump)`` (`as_dict` where that fails),
    or the value as is: for decoders that want other dump settings than `as_dict`'s."""
    if isinstance(value, (dict, list, str, bytes)) or value is None:
        return value
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        try:
            return model_dump(**dump)
        except TypeError:
            return as_dict(value)
    return as_dict(value)


def strict_b64decode(text: str, what: str) -> bytes:
    """Base64 read from a wire payload, decoded strictly: only canonical standard base64 (what
    the providers send) is taken, so the bytes decoded are exactly the bytes sent back out.

    Anything else (invalid characters, missing padding, line breaks, URL-safe letters) raises
    `DecodeError` naming ``what``.
    """
    data = b64decode(text, what=what)
    if b64encode(data) != text:
        raise DecodeError(f"{what} is not canonical base64 (as the provider sends it)")
    return data


def synthetic_call_id(prefix: str, name: Any, args: Any, where: str) -> str:
    """A tool-call id for a provider that sent none: made from the call and its place in the
    payload, so decoding the same payload twice gives the same ids."""
    digest = hashlib.sha256(
        json.dumps([name, args, where], sort_keys=True, default=str).encode("utf-8")
    ).hexdigest()
    return f"{prefix}{digest[:20]}"
