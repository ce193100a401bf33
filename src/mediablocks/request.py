"""Whole requests and responses, for any provider: `Request`, `decode_request`,
`encode_request`, `encode_response`.

A `Request` is what a chat call holds besides the model's reply: the messages, the tools and
the tool choice, the settings, the model name, and every other field verbatim in ``extra``
(``metadata``, ``service_tier``, ``cache_control``...). `decode_request` reads a provider's
request body into one; `encode_request` writes it back for any provider, so a gateway can take
an Anthropic request and send it to Gemini. `encode_response` writes an `AssistantMessage` as
the provider's response JSON, the inverse of `mb.decode` on a response.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .errors import DecodeError, InvalidOptionError
from .messages import AssistantMessage, Message, coerce_messages
from .providers.registry import request_module
from .settings import Settings
from .tools import Tool, check_tool_choice

__all__ = ["Request", "decode_request", "encode_request", "encode_response"]


class Request(BaseModel):
    """A provider-neutral chat request.

    Two requests are equal when their fields are, comparing messages without their ``id`` and
    ``timestamp`` (which a provider's wire format does not carry), so
    ``decode_request(encode_request(r, p), p) == r``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Message] = []
    tools: list[Tool] = []
    tool_choice: str | None = None
    settings: Settings = Field(default_factory=Settings)
    model: str | None = None
    extra: dict[str, Any] = {}
    """Request fields mediablocks does not model, verbatim, under the provider's own names."""

    @field_validator("messages", mode="before")
    @classmethod
    def _plain_messages(cls, value: Any) -> Any:
        # "text" is one user message, ("user", "hi") pairs are messages (as `encode` takes them)
        return coerce_messages(value)

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
        data = self.model_dump(exclude={"messages"})
        data["messages"] = [
            message.model_dump(exclude={"id", "timestamp"}) for message in self.messages
        ]
        return data


def _body(payload: Any, provider: str) -> dict[str, Any]:
    if isinstance(payload, (str, bytes, bytearray)):
        try:
            payload = json.loads(payload)
        except ValueError as exc:
            raise DecodeError(f"{provider} request is not JSON: {exc}") from None
    if isinstance(payload, BaseModel):
        payload = payload.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(payload, dict):
        raise DecodeError(
            f"a {provider} request body is a JSON object, not {type(payload).__name__}"
        )
    return payload


def decode_request(body: Any, provider: str) -> Request:
    """The `Request` in a provider's request body (a dict, JSON text, or the keyword arguments
    of its SDK call): messages, tools, tool choice and settings decoded, the model name kept,
    every other field verbatim in ``extra``."""
    from .providers import decode

    data = _body(body, provider)
    module = request_module(provider)
    fields, rest = module.decode_fields(data)
    messages = decode({k: v for k, v in data.items() if k in module.MESSAGE_FIELDS}, provider)
    return Request(messages=messages, extra=rest, **fields)


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
    `InvalidOptionError`. ``options`` are `mb.encode`'s other keyword arguments."""
    from .providers import encode

    if not isinstance(request, Request):
        raise InvalidOptionError(f"encode_request takes a mb.Request, not {type(request).__name__}")
    out = encode(
        request.messages,
        provider,
        target=target,
        tools=request.tools or None,
        tool_choice=request.tool_choice,
        settings=request.settings,
        **options,
    )
    module = request_module(provider)
    body: dict[str, Any] = module.add_request_fields(out, request.model, request.extra, target)
    return body


def encode_response(message: AssistantMessage, provider: str) -> dict[str, Any]:
    """``message`` as ``provider``'s response JSON (what its HTTP API returns), so that
    ``mb.decode(encode_response(m, p), p)`` gives ``m`` back: content, usage (the provider's
    raw numbers when it has them), stop reason, model and response id."""
    if not isinstance(message, AssistantMessage):
        raise InvalidOptionError(
            f"encode_response takes an AssistantMessage, not {type(message).__name__}"
        )
    return dict(request_module(provider).response_body(message))
