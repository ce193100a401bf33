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
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from ..blocks import summarize_validation_error
from ..errors import DecodeError, UnknownProviderError
from ..messages import Message, _message_adapter
from ..policy import FetchPolicy
from ._json import write_json
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
from ._response import decode_response
from .registry import REGISTRY, provider_entry

__all__ = [
    "ALIASES",
    "PROVIDERS",
    "TRANSLATORS",
    "EncodeOptions",
    "InvalidOptionError",
    "MediaSink",
    "ProviderName",
    "canonical_provider",
    "decode",
    "decode_response",
    "encode",
    "encode_json",
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
        # came from, and (sharing the translator as is) it refuses what its endpoint cannot take.
        decoder = labelled_decoder(name, decoder)
        if entry.package == TRANSLATORS[entry.profile.base][0]:
            encoder = checked_encoder(name, encoder, entry.limits())
    with _lock:
        pair = _loaded.setdefault(name, (encoder, decoder))
    return pair


def _as_messages(messages: Message | Sequence[Message] | Any) -> list[Message]:
    """A list of messages from one message, a sequence of them, or mediablocks-format dicts."""
    items = [messages] if isinstance(messages, (BaseModel, dict)) else messages
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise DecodeError(
            f"encode takes a message or a list of messages, not a {type(messages).__name__}"
        )
    out: list[Message] = []
    for index, item in enumerate(items):
        if isinstance(item, dict):
            try:
                item = _message_adapter().validate_python(item)
            except ValidationError as exc:
                raise DecodeError(
                    f"message {index} is not a mediablocks message "
                    f"({summarize_validation_error(exc)}); to read a provider's own format use "
                    "mb.decode(payload, provider)"
                ) from None
        elif not isinstance(item, BaseModel) or not isinstance(getattr(item, "role", None), str):
            raise DecodeError(
                f"message {index} is a {type(item).__name__}, not a mediablocks message"
            )
        out.append(item)
    return out


def encode(
    messages: Message | Sequence[Message],
    provider: str,
    *,
    target: Literal["sdk", "json"] = "sdk",
    url_media: Literal["auto", "url", "inline"] = "auto",
    policy: FetchPolicy | None = None,
    thinking: Literal["drop", "text"] = "drop",
    tool_result_media: Literal["error", "user_message"] = "user_message",
) -> dict[str, Any]:
    """The request fields for ``provider``: ``client.<call>(model=..., **encode(messages, ...))``.

    ``target="sdk"`` gives what the official Python SDK accepts (raw bytes where boto3 and
    google-genai take bytes); ``target="json"`` gives the HTTP API's JSON. The other options are
    described on `EncodeOptions`. Session messages are skipped; a block the provider cannot carry
    raises `UnsupportedBlockError` naming it and its position.
    """
    options = EncodeOptions(
        target=target,
        url_media=url_media,
        policy=policy,
        thinking=thinking,
        tool_result_media=tool_result_media,
    )
    encoder, _ = translator(provider)
    return encoder(_as_messages(messages), options)


def decode(payload: Any, provider: str) -> list[Message]:
    """Messages from a provider's request body, message list or response.

    ``payload`` may be a dict or list, an SDK object (``ChatCompletion``, ``anthropic.types.
    Message``...) or JSON text/bytes. Content mediablocks does not model becomes `RawBlock`.
    """
    _, decoder = translator(provider)
    if isinstance(payload, (str, bytes, bytearray, memoryview)):
        try:
            payload = json.loads(bytes(payload) if not isinstance(payload, str) else payload)
        except ValueError as exc:
            raise DecodeError(
                f"{canonical_provider(provider)} payload is not JSON: {exc}"
            ) from None
    return decoder(payload)


def encode_json(
    messages: Message | Sequence[Message],
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
    encoder, _ = translator(provider)
    encoded = encoder(_as_messages(messages), chosen)
    clashes = sorted(set(fields) & set(encoded))
    if clashes:
        raise InvalidOptionError(
            f"encode_json: field(s) {', '.join(clashes)} come from the messages; do not pass them"
        )
    return write_json({**fields, **encoded}, sink, chosen.policy)
