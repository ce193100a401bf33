"""Whole requests and responses, for any provider: `Request`, `decode_request`,
`encode_request`, `encode_response`.

A `Request` is what a chat call holds besides the model's reply: the messages, the tools and
the tool choice, the settings, the model name, and every other field verbatim in ``extra``
(``metadata``, ``service_tier``, ``cache_control``...). `decode_request` reads a provider's
request body into one; `encode_request` writes it back for any provider, so a gateway can take
an Anthropic request and send it to Gemini. `encode_response` writes an `AssistantMessage` as
the provider's response JSON, the inverse of `mb.decode` on a response.

``extra`` belongs to one provider (``Request.provider``, set by `decode_request`): it goes back
into that provider's body only. Encoding for another provider raises `UnsupportedSettingError`
naming each field, or with ``unsupported="drop"`` leaves them out and reports them
(`encode_request_with_report`), so one provider's fields never reach another's body.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ._depth import MAX_DEPTH, check_depth, loads
from .blocks import ToolResultBlock, summarize_validation_error
from .errors import DecodeError, InvalidOptionError, MediaBlocksError
from .fetching.policy import FetchPolicy
from .media import MediaBlock
from .message_input import MessagesLike, as_messages
from .messages import AssistantMessage, Message
from .providers._model_media import check_model_media
from .providers._options import EncodeOptions
from .providers._portable import portable_extra
from .providers._report import EncodeReport, drop_or_raise
from .providers._schema import portable_schema
from .providers._tool_order import mark_tool_order, rekeyed, restore_tool_order
from .providers._wire_check import malformed_field
from .providers.registry import canonical_provider, provider_entry, request_module
from .settings import Settings
from .sources import FileIdSource, URLSource
from .sources._trust import loading
from .tools import Tool, check_tool_choice

__all__ = [
    "Request",
    "decode_request",
    "encode_request",
    "encode_request_with_report",
    "encode_response",
]


class Request(BaseModel):
    """A provider-neutral chat request.

    Two requests are equal when their fields are, comparing messages without their ``id`` and
    ``timestamp`` (which a provider's wire format does not carry) and without ``provider``, and
    media by content (their bytes and type, whether held as bytes, base64 or a local file), so
    ``decode_request(encode_request(r, p), p) == r`` with media too.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Message] = []
    tools: list[Tool] = []
    tool_choice: str | list[str] | None = None
    """``auto``, ``none``, ``required``, a tool's name, or a list of tools' names (one of
    them must be called)."""
    settings: Settings = Field(default_factory=Settings)
    model: str | None = None
    extra: dict[str, Any] = {}
    """Request fields mediablocks does not model, verbatim, under the provider's own names."""
    provider: str | None = None
    """The provider whose names ``extra`` uses (`decode_request` sets it): ``extra`` is sent to
    that provider only. ``None`` (a request built by hand) sends ``extra`` to any provider."""

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            messages: MessagesLike = ...,
            tools: Sequence[Tool] = ...,
            tool_choice: str | Sequence[str] | None = ...,
            settings: Settings | None = ...,
            model: str | None = ...,
            extra: Mapping[str, Any] = ...,
            provider: str | None = ...,
        ) -> None: ...

    else:

        def __init__(self, **data: Any) -> None:
            # Every field error is a library error: the one a validator raised (messages that
            # are not messages: `DecodeError`), else `InvalidOptionError` naming the field.
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise _request_error(exc) from None

    @field_validator("messages", mode="before")
    @classmethod
    def _plain_messages(cls, value: Any) -> Any:
        # Messages as every entry point takes them (`mediablocks.message_input`).
        return as_messages(value, "Request")

    @field_validator("settings", mode="before")
    @classmethod
    def _default_settings(cls, value: Any) -> Any:
        return Settings() if value is None else value

    def model_post_init(self, context: Any, /) -> None:
        check_tool_choice(self.tool_choice, self.tools)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Request):
            return NotImplemented
        return self._comparable() == other._comparable()

    __hash__ = None  # type: ignore[assignment]

    def _comparable(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"messages", "provider"})
        data["messages"] = [_comparable_message(message) for message in self.messages]
        return data


def _comparable_message(message: Message) -> dict[str, Any]:
    """A message as a request compares it: no ``id`` or ``timestamp``, media by content."""
    data = message.model_dump(exclude={"id", "timestamp", "content"})
    content = getattr(message, "content", None)
    if isinstance(content, (list, tuple)):
        data["content"] = [_comparable_block(block) for block in content]
    return data


def _comparable_block(block: Any) -> Any:
    """A block for comparison: a media block by its bytes (a digest) and their type, however it
    holds them (bytes, base64, a local file); a URL or file id by the reference itself."""
    if isinstance(block, MediaBlock):
        data = block.model_dump(exclude={"source", "declared_mime", "strict"})
        if isinstance(block.source, (URLSource, FileIdSource)) and not block.loaded:
            data["content"] = (block.source.model_dump(), block.declared_mime)
        else:
            digest = hashlib.sha256(block.read()).hexdigest()
            data["content"] = (digest, block.mime_type)
        return data
    if isinstance(block, ToolResultBlock) and isinstance(block.content, list):
        data = block.model_dump(exclude={"content"})
        data["content"] = [_comparable_block(inner) for inner in block.content]
        return data
    return block.model_dump() if isinstance(block, BaseModel) else block


def _body(payload: Any, provider: str) -> dict[str, Any]:
    """The body as a dict, refused past `MAX_DEPTH` levels before anything recursive sees it."""
    what = f"{provider} request"
    if isinstance(payload, (str, bytes, bytearray)):
        payload = loads(payload, what, "is not JSON")
    if isinstance(payload, BaseModel):
        try:
            payload = payload.model_dump(mode="json", by_alias=True, exclude_none=True)
        except RecursionError:
            raise DecodeError(f"{what} is nested more than {MAX_DEPTH} levels deep") from None
    if not isinstance(payload, dict):
        raise DecodeError(
            f"a {provider} request body is a JSON object, not {type(payload).__name__}"
        )
    check_depth(payload, what)
    return payload


def _request_error(exc: ValidationError) -> MediaBlocksError:
    """The library error a field validator raised inside ``exc``, else `InvalidOptionError`
    naming what was wrong."""
    for error in exc.errors():
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, MediaBlocksError):
            return cause
    return InvalidOptionError(f"not a valid request: {summarize_validation_error(exc)}")


def decode_request(
    body: Any,
    provider: str,
    *,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> Request:
    """The `Request` in a provider's request body (a dict, JSON text, or the keyword arguments
    of its SDK call): messages, tools, tool choice and settings decoded, the model name kept,
    every other field verbatim in ``extra``.

    The body is untrusted input: nesting past `MAX_DEPTH` raises `DecodeError`, and media URLs
    in it are read only under ``policy`` (or a read's own), as for `mb.decode`.
    """
    from .providers import decode

    data = _body(body, provider)
    module = request_module(provider)
    with loading(f"a decoded {str(provider)[:40]} request", "decode_request", allow_paths, policy):
        try:
            fields, rest = module.decode_fields(data)
        except RecursionError:
            raise DecodeError(f"{provider} request is nested too deeply to decode") from None
        except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
            # a field of the wrong JSON type: named, never a raw TypeError
            problem = f"{type(exc).__name__}: {exc}"
            raise DecodeError(
                f"{provider} request is malformed: {malformed_field(data)} ({problem})"
            ) from None
        name = canonical_provider(provider)
        base = _wire_format(name)
        tools = mark_tool_order(fields.get("tools") or [], data, rest, base)
        fields["tools"] = [rekeyed(tool, base, name) for tool in tools]
        if isinstance(fields.get("settings"), Settings):
            fields["settings"] = rekeyed(fields["settings"], base, name)
        given = {k: v for k, v in data.items() if k in module.MESSAGE_FIELDS}
        # a request may carry no messages at all (a Responses call continuing a stored response)
        messages = decode(given, provider) if given else []
    return Request(messages=messages, extra=rest, provider=name, **fields)


def _wire_format(name: str) -> str:
    """The provider whose request module a profile uses (its tools' fields are kept under the
    profile's own name, so they go back to that endpoint only)."""
    entry = provider_entry(name)
    return entry.profile.base if entry.profile is not None else entry.name


def encode_request(
    request: Request,
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    **options: Any,
) -> dict[str, Any]:
    """The request body (``target="json"``) or SDK keyword arguments for ``provider``:
    `mb.encode` of the messages with the request's tools, tool choice and settings, then its
    model and ``extra`` fields. An ``extra`` field that the encoding also produces raises
    `InvalidOptionError`; ``extra`` of another provider's request raises
    `UnsupportedSettingError` (``unsupported="drop"`` leaves it out, with a `DroppedWarning`).
    ``options`` are `mb.encode`'s other keyword arguments."""
    return _encode_request(request, provider, target, None, options)


def encode_request_with_report(
    request: Request,
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    **options: Any,
) -> tuple[dict[str, Any], EncodeReport]:
    """`encode_request`, plus an `EncodeReport` of everything left out because the caller
    allowed it (``unsupported="drop"``): settings, schema keywords, tool choices, other
    providers' blocks, and the fields of another provider's ``extra``."""
    report = EncodeReport()
    return _encode_request(request, provider, target, report, options), report


def _encode_request(
    request: Request,
    provider: str,
    target: str,
    report: EncodeReport | None,
    options: dict[str, Any],
) -> dict[str, Any]:
    from .encoding import encode, encode_with_report

    if not isinstance(request, Request):
        raise InvalidOptionError(f"encode_request takes a mb.Request, not {type(request).__name__}")
    module = request_module(provider)
    check_model_media(request.messages, provider, request.model)
    name = canonical_provider(provider)
    base = _wire_format(name)
    fields: dict[str, Any] = {
        "target": target,
        "tools": [rekeyed(tool, name, base) for tool in request.tools] or None,
        "tool_choice": request.tool_choice,
        "settings": rekeyed(
            _portable_settings(_model_settings(request, provider, module, options, report), base),
            name,
            base,
        ),
        **options,
    }
    if report is None:
        out = encode(request.messages, provider, **fields)
    else:
        out, found = encode_with_report(request.messages, provider, **fields)
        report.dropped.extend(found.dropped)
    extra = _own_extra(request, name, {**options, "target": target}, report)
    body: dict[str, Any] = module.add_request_fields(out, request.model, extra, target)
    sent_tools = [rekeyed(tool, name, base) for tool in request.tools]
    own_order = getattr(module, "restore_tool_order", None)
    if own_order is not None:
        own_order(body, sent_tools)
    else:
        restore_tool_order(body, sent_tools, base)
    if target == "json":
        _check_required(body, name, getattr(module, "REQUIRED_FIELDS", ()))
    return body


def _check_required(body: dict[str, Any], provider: str, required: tuple[str, ...]) -> None:
    """`InvalidOptionError` naming each field the provider's API refuses a request body without
    (its API reference and SDK types mark them required), instead of a body it would refuse.
    SDK keyword arguments are not checked: the SDK call takes them beside (``max_tokens=...``)."""
    missing = [field for field in required if body.get(field) is None]
    if missing:
        raise InvalidOptionError(
            f"{provider} request bodies need {' and '.join(missing)}: set "
            + ", ".join(_where(field) for field in missing)
        )


def _where(field: str) -> str:
    return "Settings.max_tokens" if field == "max_tokens" else f"Request.{field}"


def _model_settings(
    request: Request,
    provider: str,
    module: Any,
    options: dict[str, Any],
    report: EncodeReport | None,
) -> Settings:
    """The settings without those the request's model rejects (xAI's reasoning models refuse
    ``stop``...): each one raised, or dropped and reported."""
    refuses = getattr(module, "model_refuses", None)
    if refuses is None or request.model is None:
        return request.settings
    chosen = EncodeOptions(unsupported=options.get("unsupported", "error"), report=report)
    cleared: dict[str, Any] = {}
    for name, reason in refuses(request.model).items():
        if getattr(request.settings, name) is not None:
            drop_or_raise(chosen, canonical_provider(provider), f"setting {name}", reason)
            cleared[name] = None
    return request.settings.model_copy(update=cleared) if cleared else request.settings


def _portable_settings(settings: Settings, base: str) -> Settings:
    """The settings for ``base``: a response schema Gemini sent in its OpenAPI subset
    (``responseSchema``: upper-case types, ``nullable``) goes to any other provider as JSON
    Schema."""
    noted = settings.for_provider("gemini").get("schema_field") == "response_schema"
    if not noted or base == "gemini" or settings.response_schema is None:
        return settings
    schema = portable_schema(settings.response_schema)
    return settings.model_copy(update={"response_schema": schema})


def _own_extra(
    request: Request, provider: str, options: dict[str, Any], report: EncodeReport | None
) -> dict[str, Any]:
    """``request.extra`` when it is ``provider``'s (or nobody's); else each field is raised or
    dropped and reported: another provider's field names mean something else here, or
    nothing."""
    source = request.provider
    if source is None or not request.extra or canonical_provider(source) == provider:
        return request.extra
    unsupported = options.get("unsupported", "error")
    target = options.get("target", "sdk")
    chosen = EncodeOptions(unsupported=unsupported, report=report, target=target)

    def foreign(left: dict[str, Any]) -> None:
        for key in left:
            drop_or_raise(
                chosen,
                provider,
                f"{source} request field {key!r}",
                f"it is {source}'s own field, never copied into another provider's body",
            )

    # stream, user, metadata, service_tier, logprobs, n...: moved to the target's own field
    return portable_extra(request.extra, source, provider, chosen, foreign)


def encode_response(message: AssistantMessage, provider: str) -> dict[str, Any]:
    """``message`` as ``provider``'s response JSON (what its HTTP API returns), so that
    ``mb.decode(encode_response(m, p), p)`` gives ``m`` back: content, usage (the provider's
    raw numbers when it has them), stop reason, model and response id."""
    if not isinstance(message, AssistantMessage):
        raise InvalidOptionError(
            f"encode_response takes an AssistantMessage, not {type(message).__name__}"
        )
    return dict(request_module(provider).response_body(message))
