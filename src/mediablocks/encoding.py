"""`encode`: mediablocks messages to the fields of a provider's SDK call or its JSON body.

The public face of translation, on the floor above the translators: the messages are read as
every entry point reads them (`mediablocks.message_input`: strings, ``(role, content)`` pairs,
dicts...), the provider is looked up once, and one pass over the history makes it ready for the
translator: each message checked (tool arguments, text encodings, blocks left unread), its
uploaded media resolved for the provider (`mediablocks.providers._uploaded`), the rules every
translator shares applied (`ForeignRules`) and what the provider's API refuses outright refused
(`SendableRules`). The provider's translator (`mediablocks.providers.translator`) then writes the
fields, reusing the tool arguments' JSON text written by the check. `encode_json` writes a whole
JSON request body with the media base64 streamed straight into the output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict, overload

from ._unicode import check_text
from .blocks import RawBlock, TextBlock, ToolCallBlock, ToolResultBlock
from .errors import DecodeError, UnsupportedBlockError
from .fetching.policy import FetchPolicy, fetch_budget, use_policy
from .media import FileBlock, MediaBlock
from .message_input import MessagesLike, as_messages
from .messages import CompactionSummaryMessage, Message
from .mime.encodings import is_text_type, text_encoding
from .providers import Encoder, _typed, entry_translator, merge_fields, with_uploads_resolved
from .providers._args import ARGS_JSON, args_written
from .providers._json import write_json
from .providers._media_walk import map_media
from .providers._model_media import check_model_media
from .providers._options import EncodeOptions, InvalidOptionError, MediaSink
from .providers._report import EncodeReport
from .providers._rules import ForeignRules
from .providers._sendable import SendableRules
from .providers._uploaded import is_portable_upload, upload_resolver
from .providers.registry import Provider, provider_entry, request_part
from .settings import Settings
from .tools import Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .sources.media_store import MediaStore
    from .uploading import Uploader

__all__ = ["as_sendable", "encode", "encode_json", "encode_with_report"]


def as_sendable(
    messages: Any,
    where: str = "encode",
    written: dict[int, tuple[ToolCallBlock, str]] | None = None,
) -> list[Message]:
    """A list of messages from anything message-like (`mediablocks.message_input`), each
    tool call's arguments checked to be JSON, and no block a dict left unread. ``written``
    collects each call's arguments as the JSON text a request carries (see `args_written`)."""
    out = as_messages(messages, where)
    written = {} if written is None else written
    for index, item in enumerate(out):
        _checked(index, item, written)
    return out


def _checked(index: int, message: Message, written: dict[int, tuple[ToolCallBlock, str]]) -> bool:
    """Check one message's blocks by position (see `as_sendable`); True when it holds media
    `mb.upload` made, which is resolved for the provider next."""
    uploaded = False
    for position, block in enumerate(message.content):
        if isinstance(block, TextBlock):
            continue
        if isinstance(block, ToolCallBlock):
            if block.raw_args is None:
                written[id(block)] = (block, _args_text(index, position, block))
        elif isinstance(block, RawBlock):
            _check_read(index, position, block)
        elif isinstance(block, MediaBlock):
            uploaded = uploaded or is_portable_upload(block)
            _check_media(index, position, block)
        elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
            for item in block.content:
                if isinstance(item, MediaBlock):
                    uploaded = uploaded or is_portable_upload(item)
                    _check_media(index, position, item)
    return uploaded


def _holds_upload(message: Message) -> bool:
    """True when a message already checked holds media `mb.upload` made."""
    for block in message.content:
        inner = block.content if isinstance(block, ToolResultBlock) else (block,)
        for item in () if isinstance(inner, str) else inner:
            if isinstance(item, MediaBlock) and is_portable_upload(item):
                return True
    return False


def _check_media(index: int, position: int, item: MediaBlock) -> None:
    """Media held in memory: its type known (base64 that does not decode, e.g. in a stored
    history, is named here with its place, not deep in a translator), and text documents
    UTF-8, as every provider reads them: UTF-16 or UTF-32 without a byte-order mark is valid
    UTF-8 full of NULs and would arrive as garbage."""
    if not item.loaded:
        return
    try:
        mime = item.mime_type
    except DecodeError as exc:
        raise DecodeError(f"message {index}, block {position}: {exc}", block=item) from None
    if not (isinstance(item, FileBlock) and is_text_type(mime)):
        return
    encoding = text_encoding(item.read())
    if encoding in ("utf-8", "utf-8-sig"):
        return
    found = f"{encoding} text" if encoding else "not text in any encoding"
    raise UnsupportedBlockError(
        f"message {index}, block {position}: {item.describe()} is {found}, not UTF-8 "
        "as providers read text; mb.prepare converts it",
        block=item,
    )


def _check_read(index: int, position: int, block: RawBlock) -> None:
    """A block dict mediablocks could not read is kept as ``RawBlock(provider="unknown")`` (the
    history utilities keep it); no provider takes it, so encoding says what it was."""
    if block.provider == "unknown":
        kind = block.data.get("type")
        raise DecodeError(
            f"message {index}, block {position} is not a mediablocks block (type {kind!r}); "
            "to read a provider's own format use mb.decode(payload, provider)",
            block=block,
        )


def _args_text(index: int, position: int, block: ToolCallBlock) -> str:
    """Tool-call arguments as the JSON text a request carries. They must be JSON (every provider
    sends them as JSON): checked up front so a non-JSON value raises `UnsupportedBlockError`
    naming the call, never a raw `TypeError`; the text is kept, and never written twice."""
    try:
        return ARGS_JSON.encode(block.args)
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


@dataclass(frozen=True)
class _Target:
    """The provider of one encode call, looked up once."""

    named: str
    """As the caller wrote it (errors repeat it)."""
    name: str
    """Canonical."""
    wire: str
    """The wire format it speaks (a profile's base)."""
    entry: Provider
    encoder: Encoder


def _target(provider: str) -> _Target:
    entry = provider_entry(provider)
    encoder, _ = entry_translator(entry)
    wire = entry.profile.base if entry.profile is not None else entry.name
    return _Target(provider, entry.name, wire, entry, encoder)


def _encode_with(
    messages: MessagesLike,
    provider: str,
    options: EncodeOptions,
    written: dict[int, tuple[ToolCallBlock, str]] | None = None,
) -> dict[str, Any]:
    """Encode; ``written`` is given when the messages were already checked (`as_sendable`)."""
    with fetch_budget():  # one FetchPolicy.max_total_bytes for every URL this call fetches
        return _encode_in_budget(messages, provider, options, written)


def _encode_in_budget(
    messages: MessagesLike,
    provider: str,
    options: EncodeOptions,
    written: dict[int, tuple[ToolCallBlock, str]] | None,
    with_fields: bool = True,
) -> dict[str, Any]:
    target = _target(provider)
    checked = written is not None
    written = {} if written is None else written
    # The policy given to encode is the scope's for every read it makes, header peeks included:
    # a path outside its allowed_roots is not opened even to detect its type.
    scope = use_policy(options.policy) if options.policy is not None else nullcontext()
    with scope:
        listed = as_messages(messages, "encode")
        if options.uploader is not None:
            # Uploads are the slow part: only a history already checked is uploaded.
            if not checked:
                for index, message in enumerate(listed):
                    _checked(index, message, written)
                checked = True
            listed = with_uploads_resolved(listed, target.name, options)
        listed = _ready(listed, target, options, written, checked)
        with args_written(written):
            encoded = target.encoder(listed, options)
    if not with_fields:
        return encoded
    if options.tools or options.tool_choice is not None or options.settings is not None:
        fields = request_part(target.entry).encode_fields(options)
        encoded = merge_fields(encoded, fields, target.name)
    return encoded


def encode_messages_only(
    messages: MessagesLike,
    provider: str,
    options: EncodeOptions,
    written: dict[int, tuple[ToolCallBlock, str]] | None = None,
) -> dict[str, Any]:
    """The fields `encode` writes from the messages alone (no tools, tool choice or settings),
    through the same checks and rules: what a batch line holds before its own fields join.
    ``written`` is given when the messages were already checked (`as_sendable`)."""
    return _encode_in_budget(messages, provider, options, written, with_fields=False)


def _ready(
    listed: list[Message],
    target: _Target,
    options: EncodeOptions,
    written: dict[int, tuple[ToolCallBlock, str]],
    checked: bool,
) -> list[Message]:
    """The history as the translator is to see it, in one pass: each message checked
    (`as_sendable`), its uploaded media resolved for the provider (`with_uploads_resolved`),
    a compaction summary made a user message if asked, the rules every translator shares applied
    (`ForeignRules`), and what the provider's API refuses outright refused (`check_sendable`).
    A history with several problems raises for the first message holding one."""
    foreign = ForeignRules(target.name, target.wire, options)
    sendable = SendableRules(target.named, target.name, target.wire)
    as_user = options.compaction == "user"
    resolve: Callable[[MediaBlock], MediaBlock] | None = None
    out: list[Message] = []
    for index, message in enumerate(listed):
        if _holds_upload(message) if checked else _checked(index, message, written):
            if resolve is None:
                resolve = upload_resolver(
                    target.name, policy=options.policy, media_store=options.media_store
                )
            message = map_media([message], resolve)[0]
        if as_user and isinstance(message, CompactionSummaryMessage):
            message = message.as_user()
        message = foreign.message(index, message)
        sendable.check((message,), index)
        out.append(message)
    return out


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
    written: dict[int, tuple[ToolCallBlock, str]] = {}
    listed = as_sendable(messages, "encode_json", written)
    check_model_media(listed, provider, fields.get("model"))
    encoded = _encode_with(listed, provider, chosen, written)
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
