"""`encode`: mediablocks messages to the fields of a provider's SDK call or its JSON body.

The public face of translation, on the floor above the translators: the messages are read as
every entry point reads them (`mediablocks.message_input`: strings, ``(role, content)`` pairs,
dicts...) and checked once (tool arguments, text encodings, blocks left unread), uploaded media
are resolved for the provider (`mediablocks.providers._uploaded`), what the provider's API
refuses outright is refused (`check_sendable`), and the provider's translator
(`mediablocks.providers.translator`) writes the fields. `encode_json` writes a whole JSON request
body with the media base64 streamed straight into the output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Literal, TypedDict, overload

from ._unicode import check_text
from .blocks import RawBlock, ToolCallBlock, ToolResultBlock
from .errors import DecodeError, UnsupportedBlockError
from .fetching.policy import FetchPolicy, fetch_budget, use_policy
from .media import FileBlock
from .message_input import MessagesLike, as_messages
from .messages import Message
from .mime.encodings import is_text_type, text_encoding
from .providers import _typed, merge_fields, translator, with_uploads_resolved
from .providers._json import write_json
from .providers._model_media import check_model_media
from .providers._options import EncodeOptions, InvalidOptionError, MediaSink, canonical_provider
from .providers._report import EncodeReport
from .providers._rules import compaction_as_user, foreign_blocks_checked
from .providers._sendable import check_sendable
from .providers.registry import request_module
from .settings import Settings
from .tools import Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .sources.media_store import MediaStore
    from .uploading import Uploader

__all__ = ["as_sendable", "encode", "encode_json", "encode_with_report"]


def as_sendable(messages: Any, where: str = "encode") -> list[Message]:
    """A list of messages from anything message-like (`mediablocks.message_input`), each
    tool call's arguments checked to be JSON, and no block a dict left unread."""
    out = as_messages(messages, where)
    for index, item in enumerate(out):
        _check_tool_args(index, item)
        _check_unread(index, item)
        _check_text_encoding(index, item)
    return out


def _check_text_encoding(index: int, message: Message) -> None:
    """Text documents held in memory must be UTF-8, as every provider reads them: UTF-16 or
    UTF-32 without a byte-order mark is valid UTF-8 full of NULs and would arrive as garbage."""
    for position, block in enumerate(getattr(message, "content", ())):
        inner = block.content if isinstance(block, ToolResultBlock) else [block]
        for item in () if isinstance(inner, str) else inner:
            if not (isinstance(item, FileBlock) and item.loaded and is_text_type(item.mime_type)):
                continue
            encoding = text_encoding(item.read())
            if encoding in ("utf-8", "utf-8-sig"):
                continue
            found = f"{encoding} text" if encoding else "not text in any encoding"
            raise UnsupportedBlockError(
                f"message {index}, block {position}: {item.describe()} is {found}, not UTF-8 "
                "as providers read text; mb.prepare converts it",
                block=item,
            )


def _check_unread(index: int, message: Message) -> None:
    """A block dict mediablocks could not read is kept as ``RawBlock(provider="unknown")`` (the
    history utilities keep it); no provider takes it, so encoding says what it was."""
    for position, block in enumerate(getattr(message, "content", ())):
        if isinstance(block, RawBlock) and block.provider == "unknown":
            kind = block.data.get("type")
            raise DecodeError(
                f"message {index}, block {position} is not a mediablocks block (type {kind!r}); "
                "to read a provider's own format use mb.decode(payload, provider)",
                block=block,
            )


def _check_tool_args(index: int, message: Message) -> None:
    """Tool-call arguments must be JSON (every provider sends them as JSON): checked up front so a
    non-JSON value raises `UnsupportedBlockError` naming the call, never a raw `TypeError`."""
    for position, block in enumerate(getattr(message, "content", ())):
        if not isinstance(block, ToolCallBlock) or block.raw_args is not None:
            continue
        try:
            json.dumps(block.args)
        except (TypeError, ValueError, RecursionError) as exc:
            problem = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
            raise UnsupportedBlockError(
                f"message {index}, block {position}: tool call {block.name!r} ({block.id}) has "
                f"arguments that are not JSON ({problem})"
            ) from None


class EncodeKeywords(TypedDict, total=False):
    """The keyword options of `encode` besides ``target``, as a type checker sees them: one
    definition for every overload (each is described on `EncodeOptions`)."""

    url_media: Literal["auto", "url", "inline"]
    policy: FetchPolicy | None
    thinking: Literal["drop", "text"]
    tool_result_media: Literal["error", "user_message"]
    tools: Sequence[Tool] | None
    tool_choice: str | None
    settings: Settings | None
    unsupported: Literal["error", "drop"]
    compaction: Literal["skip", "user"]
    media_store: MediaStore | None
    uploader: Uploader | None


_KEYWORDS = frozenset(EncodeKeywords.__annotations__)


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.OpenAIChatName,
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.OpenAIChatFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.OpenAIResponsesName,
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.OpenAIResponsesFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: Literal["anthropic"],
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.AnthropicFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.GeminiName,
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.GeminiFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.BedrockName,
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.BedrockFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: Literal["mistral"],
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.MistralFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: Literal["ollama"],
    *,
    target: Literal["sdk"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> _typed.OllamaFields: ...


@overload
def encode(
    messages: MessagesLike,
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> dict[str, Any]: ...


def encode(
    messages: MessagesLike,
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    **options: Unpack[EncodeKeywords],
) -> Mapping[str, Any]:
    """The request fields for ``provider``: ``client.<call>(model=..., **encode(messages, ...))``.

    ``target="sdk"`` gives what the official Python SDK accepts (raw bytes where boto3 and
    google-genai take bytes); ``target="json"`` gives the HTTP API's JSON. With a provider name
    written out (``"anthropic"``) and the SDK target, a type checker sees the fields as the SDK's
    own parameter types (`AnthropicFields`...), so the SDK call keeps its return type.
    ``tools``, ``tool_choice`` and ``settings`` become the provider's own fields (for Gemini, one
    ``config`` holding them with the system instruction). The other options are described on
    `EncodeOptions`. Session messages are skipped; a block the provider cannot carry raises
    `UnsupportedBlockError` naming it and its position, and a setting it cannot honour
    `UnsupportedSettingError` (unless ``unsupported="drop"``).

    Media uploaded with `mb.upload` goes out by its copy's id where ``provider``'s file store
    has one, inline elsewhere (its bytes from memory, ``media_store``, or its origin); with an
    ``uploader`` (`mb.Uploader`), what the store lacks is uploaded first instead.

    For type checkers the options are written once, as `EncodeKeywords`
    (``**options: Unpack[EncodeKeywords]``). Overloads remain only where the return type needs
    them: a result typed by the literal value of ``provider`` (and ``target="sdk"``) can be
    spelled no other way, so there is one per typed SDK plus the general ``dict`` one.
    """
    unknown = sorted(options.keys() - _KEYWORDS)
    if unknown:
        raise TypeError(f"encode() got an unexpected keyword argument {unknown[0]!r}")
    chosen: dict[str, Any] = dict(options)
    tools = chosen.pop("tools", None)
    return _encode_with(
        messages, provider, EncodeOptions(target=target, tools=tuple(tools or ()), **chosen)
    )


def encode_with_report(
    messages: MessagesLike, provider: str, **options: Any
) -> tuple[dict[str, Any], EncodeReport]:
    """`encode`, plus an `EncodeReport` of everything left out because the caller allowed it
    (``unsupported="drop"``: settings, schema keywords, tool choices, other providers' blocks)."""
    report = EncodeReport()
    tools = options.pop("tools", None)
    chosen = EncodeOptions(tools=tuple(tools or ()), **options).replace(report=report)
    return _encode_with(messages, provider, chosen), report


def _encode_with(messages: MessagesLike, provider: str, options: EncodeOptions) -> dict[str, Any]:
    with fetch_budget():  # one FetchPolicy.max_total_bytes for every URL this call fetches
        return _encode_in_budget(messages, provider, options)


def _encode_in_budget(
    messages: MessagesLike, provider: str, options: EncodeOptions
) -> dict[str, Any]:
    encoder, _ = translator(provider)
    # The policy given to encode is the scope's for every read it makes, header peeks included:
    # a path outside its allowed_roots is not opened even to detect its type.
    scope = use_policy(options.policy) if options.policy is not None else nullcontext()
    with scope:
        listed = as_sendable(messages)
        listed = with_uploads_resolved(listed, canonical_provider(provider), options)
        if options.compaction == "user":
            listed = compaction_as_user(listed)
        listed = foreign_blocks_checked(listed, canonical_provider(provider), options)
        check_sendable(listed, provider)  # empty tool ids and names, documented length limits
        encoded = encoder(listed, options)
    if options.tools or options.tool_choice is not None or options.settings is not None:
        fields = request_module(provider).encode_fields(options)
        encoded = merge_fields(encoded, fields, canonical_provider(provider))
    return encoded


def encode_json(
    messages: MessagesLike,
    provider: str,
    /,
    *,
    options: EncodeOptions | Any = None,
    **fields: Any,
) -> bytes:
    """A whole JSON request body for ``provider``'s HTTP API, as UTF-8 bytes.

    ``fields`` are the other request fields (``model=...``, ``max_tokens=...``, ``tools=...``),
    written first; the messages are encoded with ``target="json"`` and merged in. Media base64 is
    streamed straight into the output buffer, never built as a separate string, so a 40 MB image
    costs about its base64 size in memory, once. A field that the encoding also produces (say
    ``messages``) raises `InvalidOptionError`.

    ``options`` given as `EncodeOptions` sets how messages are encoded (its ``target`` is always
    ``"json"`` here); any other value is the request field ``options`` (Ollama's model options).
    """
    if options is not None and not isinstance(options, EncodeOptions):
        fields = {"options": options, **fields}
        options = None
    with fetch_budget():
        return _encode_json_in_budget(messages, provider, options, fields)


def _encode_json_in_budget(
    messages: MessagesLike,
    provider: str,
    options: EncodeOptions | None,
    fields: dict[str, Any],
) -> bytes:
    sink = MediaSink()
    chosen = (options or EncodeOptions()).replace(target="json", media_sink=sink)
    listed = as_sendable(messages, "encode_json")
    check_model_media(listed, provider, fields.get("model"))
    encoded = _encode_with(listed, provider, chosen)
    clashes = sorted(set(fields) & set(encoded))
    if clashes:
        raise InvalidOptionError(
            f"encode_json: field(s) {', '.join(clashes)} come from the messages; do not pass them"
        )
    try:
        return write_json({**fields, **encoded}, sink, chosen.policy)
    except UnicodeError:
        check_text(listed)  # names the message and block with a lone surrogate
        raise
