"""Translate messages to and from every provider's wire format.

`translator` gives a provider's ``(to_<name>, from_<name>)`` pair, `decode` reads a provider's
request body, message list or response back, and `decode_response` its one reply. Each wire
format lives in its own module (``openai_chat``, ``anthropic``...), imported on first use, so a
translator that is missing or broken only affects its own provider. `mb.encode` lives a floor up
(`mediablocks.encoding`): it reads message-like input the way every entry point does.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .._depth import loads
from ..blocks import RawBlock
from ..errors import DecodeError, MediaBlocksError, UnknownProviderError
from ..fetching.policy import FetchPolicy
from ..messages import AssistantMessage, Message
from ..sources._trust import loading
from ..stop_reasons import STOP_REASONS, normalize_stop_reason
from ..usage import Prices
from . import _sniff
from ._common import as_dict
from ._options import (
    ALIASES,
    PROVIDERS,
    EncodeOptions,
    InvalidOptionError,
    MediaSink,
    ProviderName,
    canonical_provider,
)
from ._profiles import checked_encoder, labelled_decoder, profile_encoder
from ._response import one_reply
from ._typed import (
    AnthropicFields,
    BedrockFields,
    GeminiFields,
    MistralFields,
    OllamaFields,
    OpenAIChatFields,
    OpenAIResponsesFields,
)
from ._wire_check import check_payload, malformed_field, wrong_typed_field
from .registry import REGISTRY, Provider, provider_entry

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
    "entry_translator",
    "merge_fields",
    "normalized_stop_reason",
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
    return entry_translator(provider_entry(provider))


def entry_translator(entry: Provider) -> tuple[Encoder, Decoder]:
    """`translator` for a provider already looked up (`provider_entry`)."""
    name = entry.name
    pair = _loaded.get(name)
    if pair is not None:
        return pair
    # Shipped providers through TRANSLATORS; profiles declared at run time through their entry.
    module_name, to_name, from_name = (
        (entry.package, entry.encoder, entry.decoder)
        if entry.declared_limits is not None
        else TRANSLATORS[name]
    )
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
    if entry.profile is not None:
        # A profile over another provider's translator: its replies say which endpoint they
        # came from, and it refuses what its endpoint cannot take (also where it wraps the
        # translator: llama.cpp's inlines URLs but takes no PDF or audio either).
        decoder = labelled_decoder(name, decoder)
        encoder = profile_encoder(entry.profile, encoder)
        encoder = checked_encoder(name, encoder, entry.limits())
    with _lock:
        pair = _loaded.setdefault(name, (encoder, decoder))
    return pair


def forget_translator(provider: str) -> None:
    """Drop the translator pair made for ``provider`` (a profile declared again)."""
    with _lock:
        _loaded.pop(provider, None)


def with_uploads_resolved(
    messages: list[Message], provider: str, options: EncodeOptions
) -> list[Message]:
    """Media uploaded with `mb.upload` as ``provider`` takes it: its copy's file id where its
    file store has one, else inline bytes (`mediablocks.providers._uploaded`)."""
    from ._uploaded import for_provider

    return for_provider(
        messages,
        provider,
        policy=options.policy,
        media_store=options.media_store,
        uploader=options.uploader,
    )


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


def decode(
    payload: Any,
    provider: str,
    *,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> list[Message]:
    """Messages from a provider's request body, message list or response.

    ``payload`` may be a dict or list, an SDK object (``ChatCompletion``, ``anthropic.types.
    Message``...) or JSON text/bytes. Content mediablocks does not model becomes `RawBlock`.
    Whatever the payload, only `DecodeError` (or another `MediaBlocksError`) comes out: a field of
    the wrong JSON type is named by its path, nesting past `MAX_DEPTH` levels is refused, and a
    payload that carries nothing of ``provider``'s format but another's says which it looks like.

    A payload is untrusted input: URLs (and paths) it names are kept as references and read only
    under ``policy`` (``allow_paths``), or a policy given to the read, never because the payload
    names them (docs/history.md). ``mb.decode`` also takes ``provider="auto"``
    (`mediablocks.integrations.auto.decode`).
    """
    with loading(f"a decoded {str(provider)[:40]} payload", "decode", allow_paths, policy):
        return _decode(payload, provider)


def _decode(payload: Any, provider: str) -> list[Message]:
    entry = provider_entry(provider)
    _, decoder = translator(entry.name)
    if isinstance(payload, (str, bytes, bytearray, memoryview)):
        text = payload if isinstance(payload, str) else bytes(payload)
        payload = loads(text, f"{entry.name} payload", "is not JSON")
        if isinstance(payload, (dict, list)):
            wrong = wrong_typed_field(payload)
            if wrong is not None:
                raise DecodeError(f"{entry.name} payload: {wrong}")
    else:
        check_payload(payload, f"{entry.name} payload")
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
    return [normalized_stop_reason(message, entry.name) for message in messages]


def _nothing_recognised(messages: list[Message], payload: Any) -> bool:
    """True when a payload with content decoded to raw blocks only (or to nothing)."""
    any_block = False
    for message in messages:
        for block in message.content:
            if not isinstance(block, RawBlock):
                return False  # the first recognised block answers: no list of them all
            any_block = True
    return any_block or bool(payload)


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
    payload: Any,
    provider: str,
    *,
    prices: Prices | None = None,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
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

    Media URLs in the reply are read only under ``policy`` (or a read's own), as for `decode`.
    """
    origin = f"a decoded {str(provider)[:40]} response"
    with loading(origin, "decode_response", allow_paths, policy):
        reply = one_reply(decode(payload, provider), canonical_provider(provider))
    if prices is not None and reply.usage is not None:
        reply = reply.model_copy(update={"usage": reply.usage.priced(prices)})
    return reply


def normalized_stop_reason(message: Message, provider: str) -> Message:
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
