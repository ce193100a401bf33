"""Translate messages to and from every provider's wire format.

`encode` turns mediablocks messages into the fields of a provider's official SDK call (or its
REST JSON), `decode` reads a provider's request body, message list or response back, and
`encode_json` writes a whole JSON request body with the media base64 streamed straight into the
output. Each wire format lives in its own module (``openai_chat``, ``anthropic``...), imported on
first use, so a translator that is missing or broken only affects its own provider.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, overload

from .._depth import check_depth, loads
from .._unicode import check_text
from ..blocks import RawBlock, ToolCallBlock, ToolResultBlock
from ..errors import (
    DecodeError,
    MediaBlocksError,
    UnknownProviderError,
    UnsupportedBlockError,
)
from ..fetching.policy import FetchPolicy
from ..history.validation import check_sendable
from ..media import FileBlock
from ..message_input import MessagesLike, as_messages
from ..messages import AssistantMessage, Message
from ..mime.encodings import is_text_type, text_encoding
from ..settings import Settings
from ..stop_reasons import STOP_REASONS, normalize_stop_reason
from ..tools import Tool
from ..usage import Prices
from . import _sniff, _typed
from ._common import as_dict, malformed_field, wrong_typed_field
from ._json import write_json
from ._model_media import check_model_media
from ._options import (
    ALIASES,
    PROVIDERS,
    EncodeOptions,
    InvalidOptionError,
    MediaSink,
    ProviderName,
    canonical_provider,
)
from ._profiles import checked_encoder, labelled_decoder
from ._report import EncodeReport
from ._response import one_reply
from ._rules import compaction_as_user, foreign_blocks_checked
from ._typed import (
    AnthropicFields,
    BedrockFields,
    GeminiFields,
    MistralFields,
    OllamaFields,
    OpenAIChatFields,
    OpenAIResponsesFields,
)
from .registry import REGISTRY, provider_entry, request_module

__all__ = [
    "ALIASES",
    "PROVIDERS",
    "TRANSLATORS",
    "AnthropicFields",
    "BedrockFields",
    "EncodeOptions",
    "GeminiFields",
    "InvalidOptionError",
    "MediaSink",
    "MistralFields",
    "OllamaFields",
    "OpenAIChatFields",
    "OpenAIResponsesFields",
    "ProviderName",
    "canonical_provider",
    "decode",
    "decode_response",
    "encode",
    "encode_json",
    "encode_with_report",
    "translator",
]

Encoder = Callable[[Sequence[Message], "EncodeOptions | None"], dict[str, Any]]
Decoder = Callable[[Any], list[Message]]

TRANSLATORS: dict[str, tuple[str, str, str]] = {
    entry.name: (entry.package, entry.encoder, entry.decoder) for entry in REGISTRY
}
"""Canonical provider name -> (provider package here, encode function, decode function)."""

_loaded: dict[str, tuple[Encoder, Decoder]] = {}
_lock = threading.Lock()


def translator(provider: str) -> tuple[Encoder, Decoder]:
    """The ``(to_<name>, from_<name>)`` pair for a provider name or alias, imported on first use.

    Raises `UnknownProviderError` for a name mediablocks does not know, or whose translator
    module is not part of this installation. Any other error while importing the module is raised
    as is (it is a bug in that translator, and only that provider is affected).
    """
    name = canonical_provider(provider)
    pair = _loaded.get(name)
    if pair is not None:
        return pair
    module_name, to_name, from_name = TRANSLATORS[name]
    qualified = f"{__name__}.{module_name}"
    try:
        module = importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name != qualified:
            raise
        raise UnknownProviderError(
            f"the {name} translator ({qualified}) is not part of this installation"
        ) from None
    encoder = getattr(module, to_name, None)
    decoder = getattr(module, from_name, None)
    if not callable(encoder) or not callable(decoder):
        raise UnknownProviderError(
            f"the {name} translator ({qualified}) lacks {to_name}() or {from_name}()"
        )
    entry = provider_entry(name)
    if entry.profile is not None:
        # A profile over another provider's translator: its replies say which endpoint they
        # came from, and it refuses what its endpoint cannot take (also where it wraps the
        # translator: llama.cpp's inlines URLs but takes no PDF or audio either).
        decoder = labelled_decoder(name, decoder)
        encoder = checked_encoder(name, encoder, entry.limits())
    with _lock:
        pair = _loaded.setdefault(name, (encoder, decoder))
    return pair


def _as_messages(messages: Any, where: str = "encode") -> list[Message]:
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


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.OpenAIChatName,
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.OpenAIChatFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.OpenAIResponsesName,
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.OpenAIResponsesFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: Literal["anthropic"],
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.AnthropicFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.GeminiName,
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.GeminiFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: _typed.BedrockName,
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.BedrockFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: Literal["mistral"],
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.MistralFields: ...


@overload
def encode(  # type: ignore[overload-overlap]
    messages: MessagesLike,
    provider: Literal["ollama"],
    *,
    target: Literal["sdk"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> _typed.OllamaFields: ...


@overload
def encode(
    messages: MessagesLike,
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = ...,
    policy: FetchPolicy | None = ...,
    thinking: Literal["drop", "text"] = ...,
    tool_result_media: Literal["error", "user_message"] = ...,
    tools: Sequence[Tool] | None = ...,
    tool_choice: str | None = ...,
    settings: Settings | None = ...,
    unsupported: Literal["error", "drop"] = ...,
    compaction: Literal["skip", "user"] = ...,
) -> dict[str, Any]: ...


def encode(
    messages: MessagesLike,
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = "auto",
    policy: FetchPolicy | None = None,
    thinking: Literal["drop", "text"] = "drop",
    tool_result_media: Literal["error", "user_message"] = "user_message",
    tools: Sequence[Tool] | None = None,
    tool_choice: str | None = None,
    settings: Settings | None = None,
    unsupported: Literal["error", "drop"] = "error",
    compaction: Literal["skip", "user"] = "skip",
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
    """
    options = EncodeOptions(
        target=target,
        url_media=url_media,
        policy=policy,
        thinking=thinking,
        tool_result_media=tool_result_media,
        tools=tuple(tools or ()),
        tool_choice=tool_choice,
        settings=settings,
        unsupported=unsupported,
        compaction=compaction,
    )
    return _encode_with(messages, provider, options)


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
    encoder, _ = translator(provider)
    listed = _as_messages(messages)
    if options.compaction == "user":
        listed = compaction_as_user(listed)
    listed = foreign_blocks_checked(listed, canonical_provider(provider), options)
    check_sendable(listed, provider)  # empty tool ids and names, documented length limits
    encoded = encoder(listed, options)
    if options.tools or options.tool_choice is not None or options.settings is not None:
        fields = request_module(provider).encode_fields(options)
        encoded = merge_fields(encoded, fields, canonical_provider(provider))
    return encoded


def merge_fields(encoded: dict[str, Any], fields: dict[str, Any], provider: str) -> dict[str, Any]:
    """The message fields and the tool/settings fields in one request: a field both give as an
    object (Gemini's ``config``, Ollama's ``options``) is merged key by key; any other clash
    raises `InvalidOptionError`."""
    out = dict(encoded)
    for key, value in fields.items():
        before = out.get(key)
        if before is None:
            out[key] = value
        elif isinstance(before, dict) and isinstance(value, dict):
            clashes = sorted(set(before) & set(value))
            if clashes:
                raise InvalidOptionError(
                    f"{provider}: {key}.{', '.join(clashes)} set twice (messages and settings)"
                )
            out[key] = {**before, **value}
        else:
            raise InvalidOptionError(f"{provider}: {key} set twice (messages and settings)")
    return out


def decode(payload: Any, provider: str) -> list[Message]:
    """Messages from a provider's request body, message list or response.

    ``payload`` may be a dict or list, an SDK object (``ChatCompletion``, ``anthropic.types.
    Message``...) or JSON text/bytes. Content mediablocks does not model becomes `RawBlock`.
    Whatever the payload, only `DecodeError` (or another `MediaBlocksError`) comes out: a field of
    the wrong JSON type is named by its path, nesting past `MAX_DEPTH` levels is refused, and a
    payload that carries nothing of ``provider``'s format but another's says which it looks like.
    """
    entry = provider_entry(provider)
    _, decoder = translator(entry.name)
    if isinstance(payload, (str, bytes, bytearray, memoryview)):
        text = payload if isinstance(payload, str) else bytes(payload)
        payload = loads(text, f"{entry.name} payload", "is not JSON")
    else:
        check_depth(payload, f"{entry.name} payload")
    if isinstance(payload, (dict, list)):
        wrong = wrong_typed_field(payload)
        if wrong is not None:
            raise DecodeError(f"{entry.name} payload: {wrong}")
    try:
        messages = decoder(payload)
    except MediaBlocksError as exc:
        _raise_if_foreign(entry.name, payload, str(exc))
        raise
    except (TypeError, AttributeError, KeyError, ValueError, IndexError, RecursionError) as exc:
        _raise_if_foreign(entry.name, payload, f"{type(exc).__name__}: {exc}")
        raise DecodeError(
            f"{entry.name} payload is malformed: {malformed_field(payload)}"
            f" ({type(exc).__name__}: {exc})"
        ) from None
    if _nothing_recognised(messages, payload):
        _raise_if_foreign(entry.name, payload, "nothing in it was recognised")
    else:
        # Decoding something is no proof: an Anthropic text reply decodes as OpenAI Chat text
        # parts. A payload with another format's markers and none of this one's is refused.
        _raise_if_foreign(entry.name, payload, "it carries another format's markers")
    _raise_if_other_envelope(entry, payload)
    return [_stop_reason_normalized(message, entry.name) for message in messages]


def _nothing_recognised(messages: list[Message], payload: Any) -> bool:
    """True when a payload with content decoded to raw blocks only (or to nothing)."""
    blocks = [block for message in messages for block in message.content]
    if not blocks:
        return bool(payload)
    return all(isinstance(block, RawBlock) for block in blocks)


def _raise_if_other_envelope(entry: Any, payload: Any) -> None:
    """`DecodeError` when ``payload`` is another format's response envelope (decisive, unlike
    part types that several formats share)."""
    formats = _sniff.response_formats(as_dict(payload))
    base = entry.profile.base if entry.profile is not None else entry.name
    if formats and base not in formats:
        raise DecodeError(
            f"this payload is not {entry.name}'s format: it is a response of "
            f"{' or '.join(sorted(formats))}; decode it with that provider name"
        )


def _raise_if_foreign(name: str, payload: Any, problem: str) -> None:
    """`DecodeError` naming the format ``payload`` looks like, when it is not ``name``'s."""
    plain = as_dict(payload)
    if provider_entry(name).sniff(plain):
        return
    others = [entry.name for entry in REGISTRY if entry.name != name and entry.sniff(plain)]
    if others:
        raise DecodeError(
            f"this payload does not look like {name}'s format ({problem}); it looks like "
            f"{' or '.join(others)}: decode it with that provider name"
        )


def decode_response(
    payload: Any, provider: str, *, prices: Prices | None = None
) -> AssistantMessage:
    """The one assistant reply in a provider's response.

    With ``prices`` (yours, per million tokens), the reply's ``usage.cost`` is filled from its
    token counts (`Usage.priced`).

    ``payload`` is what the provider answered: a dict, JSON text or bytes, or the SDK's own
    response object (``ChatCompletion``, ``anthropic.types.Message``, ``GenerateContentResponse``,
    boto3's ``converse`` dict...). It is typed ``Any`` because those SDK objects share no type.

    Raises `DecodeError` when the payload is not a response holding exactly one reply: a request
    body or message list (it has user messages), an empty response, or an OpenAI response with
    several ``choices`` (use `decode` to read them all).
    """
    reply = one_reply(decode(payload, provider), canonical_provider(provider))
    if prices is not None and reply.usage is not None:
        reply = reply.model_copy(update={"usage": reply.usage.priced(prices)})
    return reply


def _stop_reason_normalized(message: Message, provider: str) -> Message:
    """An assistant reply whose ``stop_reason`` a translator set to the provider's own value:
    that value moves to ``provider_stop_reason`` and ``stop_reason`` is normalised."""
    if not isinstance(message, AssistantMessage) or message.stop_reason is None:
        return message
    raw = message.provider_stop_reason or message.stop_reason
    if message.provider_stop_reason is not None and message.stop_reason in STOP_REASONS:
        return message
    reason = normalize_stop_reason(
        raw, message.provider or provider, tool_calls=bool(message.tool_calls)
    )
    return message.model_copy(update={"stop_reason": reason, "provider_stop_reason": raw})


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
    sink = MediaSink()
    chosen = (options or EncodeOptions()).replace(target="json", media_sink=sink)
    listed = _as_messages(messages, "encode_json")
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
