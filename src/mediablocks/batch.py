"""Write a provider's batch input file (JSONL), one request per line, media streamed in.

=====================  ==========================================================================
provider               one line
=====================  ==========================================================================
``openai-chat``        ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``
``openai-responses``   ``{"custom_id", "method": "POST", "url": "/v1/responses", "body"}``
``anthropic``          ``{"custom_id", "params"}`` (each line one ``requests`` item of
                       ``client.messages.batches.create``)
``gemini``             ``{"key", "request"}`` (a ``GenerateContentRequest``)
``bedrock``            ``{"recordId", "modelInput"}`` (the Converse/Nova body)
``anthropic-bedrock``  ``{"recordId", "modelInput"}`` (Claude's body with ``anthropic_version``;
                       also ``bedrock`` with ``bedrock_format="anthropic"``)
=====================  ==========================================================================

Each request is encoded with the same translators as `mb.encode_json`: its media base64 is
written into the line's one buffer, and the line goes to the file before the next request is
read, so memory is bounded by one request whatever the number of requests (a generator of
requests is never turned into a list).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO, Any, Literal

from pydantic import BaseModel

from ._batch_output import BatchOutput
from .errors import DecodeError, InvalidOptionError
from .messages import Message
from .providers import EncodeOptions, MediaSink, canonical_provider, translator
from .providers import _as_messages as as_messages
from .providers._json import write_json

__all__ = ["BATCH_LIMITS", "BATCH_PROVIDERS", "BatchIds", "batch_line", "write_batch"]

BATCH_PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "anthropic-bedrock",
)
"""Providers that take a batch input file."""

_OPENAI_URLS = {"openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses"}
_REQUEST_FIELDS = ("tools", "tool_choice", "settings")


def _split(item: Any, index: int) -> tuple[list[Message], dict[str, Any], Any]:
    """``(messages, per-request fields, the Request-like object or None)`` from one item.

    An item is a message list (or one message), a ``(messages, fields)`` pair, or an object
    with a ``messages`` attribute (`mb.Request`: its ``extra`` are fields too).
    """
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict):
        return as_messages(item[0]), dict(item[1]), None
    if isinstance(item, BaseModel) and hasattr(item, "messages") and not hasattr(item, "role"):
        extra = getattr(item, "extra", None) or {}
        return as_messages(item.messages), dict(extra), item
    try:
        return as_messages(item), {}, None
    except DecodeError as exc:
        raise DecodeError(f"batch request {index}: {exc}") from None


def _request_fields(request: Any, provider: str) -> dict[str, Any]:
    """The tools, tool choice and settings of a Request-like object as request fields.

    They are encoded by `mb.encode_request` (where this installation has it) on the request
    without its messages, so the messages' media still stream.
    """
    if request is None or not any(getattr(request, name, None) for name in _REQUEST_FIELDS):
        return {}
    from . import providers

    encode_request = getattr(providers, "encode_request", None)
    if encode_request is None:
        raise InvalidOptionError(
            "batch request has tools, tool_choice or settings, which need mb.encode_request"
        )
    bare = request.model_copy(update={"messages": [], "extra": {}})
    fields: dict[str, Any] = encode_request(bare, provider, target="json")
    encoder, _ = translator(provider)
    for key in encoder([], EncodeOptions(target="json")):
        fields.pop(key, None)
    return fields


def batch_line(
    item: Any,
    provider: str,
    custom_id: str,
    *,
    fields: dict[str, Any] | None = None,
    options: EncodeOptions | None = None,
    bedrock_format: Literal["converse", "anthropic"] = "converse",
    index: int = 0,
) -> bytes:
    """One line of ``provider``'s batch file (without the newline) for one request."""
    name = canonical_provider(provider)
    messages, own, request = _split(item, index)
    sink = MediaSink()
    chosen = (options or EncodeOptions()).replace(target="json", media_sink=sink)
    if name == "bedrock" and bedrock_format == "anthropic":
        name = "anthropic-bedrock"  # Claude's own body with Bedrock's anthropic_version
    encoder, _ = translator(name)
    encoded = encoder(messages, chosen)
    merged = {**(fields or {}), **_request_fields(request, name), **own}
    clashes = sorted(set(merged) & set(encoded))
    if clashes:
        raise InvalidOptionError(
            f"batch request {index} ({custom_id!r}): field(s) {', '.join(clashes)} come from "
            "the messages; do not pass them"
        )
    body = {**merged, **encoded}
    line: dict[str, Any]
    if name in _OPENAI_URLS:
        line = {"custom_id": custom_id, "method": "POST", "url": _OPENAI_URLS[name], "body": body}
    elif name == "anthropic":
        line = {"custom_id": custom_id, "params": body}
    elif name == "gemini":
        line = {"key": custom_id, "request": body}
    elif name in ("bedrock", "anthropic-bedrock"):
        line = {"recordId": custom_id, "modelInput": body}
    else:
        known = ", ".join(BATCH_PROVIDERS)
        raise InvalidOptionError(f"{name} takes no batch files (batch providers: {known})")
    return write_json(line, sink, chosen.policy)


# Per-file limits of each provider's batch input (defaults; a smaller ``max_requests`` /
# ``max_bytes`` may be passed). Sources, read 2026-11:
# - OpenAI: "up to 50,000 requests, and can be up to 200 MB in size"
#   (https://platform.openai.com/docs/api-reference/batch/create, input_file_id).
# - Anthropic: "limited to either 100,000 Message requests or 256 MB in size, whichever is
#   reached first" (https://platform.claude.com/docs/en/build-with-claude/batch-processing).
# - Gemini: the JSONL input goes through the Files API, 2 GB per file
#   (https://ai.google.dev/gemini-api/docs/batch-mode, https://ai.google.dev/gemini-api/docs/files).
# - Bedrock: default quotas "Records per input file per batch inference job" 50,000 and
#   "Batch inference input file size" 1 GB, adjustable per account
#   (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas.html).
_MB = 1024 * 1024
BATCH_LIMITS: dict[str, tuple[int, int]] = {
    "openai-chat": (50_000, 200 * _MB),
    "openai-responses": (50_000, 200 * _MB),
    "anthropic": (100_000, 256 * _MB),
    "gemini": (1_000_000_000, 2048 * _MB),
    "bedrock": (50_000, 1024 * _MB),
    "anthropic-bedrock": (50_000, 1024 * _MB),
}
"""Provider -> (requests, bytes) one batch input file may hold."""


class BatchIds(list[str]):
    """The request ids `write_batch` wrote, in order; ``files`` says which file holds which.

    A plain list of ids for every use that predates file splitting; ``files`` is one
    ``(path, ids)`` pair per file written (one pair unless the batch rolled over).
    """

    files: list[tuple[str, list[str]]]


def _ids(ids: Iterable[str] | None) -> Iterator[str | None]:
    if ids is None:
        while True:
            yield None
    else:
        yield from ids


def _limit(value: int | None, default: int, name: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidOptionError(f"write_batch: {name} must be a positive integer, got {value!r}")
    return min(value, default)


def write_batch(
    requests: Iterable[Any],
    provider: str,
    path: str | os.PathLike[str] | IO[bytes],
    *,
    ids: Iterable[str] | None = None,
    options: EncodeOptions | None = None,
    bedrock_format: Literal["converse", "anthropic"] = "converse",
    max_requests: int | None = None,
    max_bytes: int | None = None,
    **fields: Any,
) -> BatchIds:
    """Write ``provider``'s batch input file and return the request ids in order.

    ``requests`` is any iterable (a generator is read one request at a time) of message lists,
    ``(messages, fields)`` pairs or `mb.Request` objects. ``ids`` gives each request's id
    (``custom_id`` / ``key`` / ``recordId``); by default ``request-0``, ``request-1``... Ids must
    be unique. ``fields`` go into every request (``model=...``, ``max_tokens=...``); a pair's
    own fields override them. ``path`` is a file path or a binary file object.

    A path is written through a temporary file beside it, renamed into place only when every
    line is written and synced: on any failure the old file is left as it was (or no file), and
    the error is a `MediaBlocksError` (a write error is `SourceError`). A path that is a FIFO or
    a device is written directly and never removed. A batch larger than one file may hold
    (`BATCH_LIMITS`, or ``max_requests`` / ``max_bytes`` when smaller) rolls over to numbered
    files ``<stem>-001<suffix>``...; the returned list's ``files`` names them. A line missing a
    field the provider requires (``model``, ``max_tokens``) is refused here, naming the field.
    """
    name = canonical_provider(provider)
    if name not in BATCH_PROVIDERS:
        known = ", ".join(BATCH_PROVIDERS)
        raise InvalidOptionError(f"{name} takes no batch files (batch providers: {known})")
    if bedrock_format not in ("converse", "anthropic"):
        raise InvalidOptionError(
            f"bedrock_format={bedrock_format!r} is not 'converse' or 'anthropic'"
        )
    line_name = "anthropic-bedrock" if name == "bedrock" and bedrock_format == "anthropic" else name
    count_limit, byte_limit = BATCH_LIMITS[line_name]
    output = BatchOutput(
        path,
        max_requests=_limit(max_requests, count_limit, "max_requests"),
        max_bytes=_limit(max_bytes, byte_limit, "max_bytes"),
        limits=f"{line_name} batch file limit"
        if max_requests is None and max_bytes is None
        else "the limits passed",
    )
    written = BatchIds()
    seen: set[str] = set()
    id_iter = _ids(ids)
    try:
        for index, item in enumerate(requests):
            given = next(id_iter, None)
            if given is None and ids is not None:
                raise InvalidOptionError(f"ids ran out at request {index}")
            custom_id = f"request-{index}" if given is None else str(given)
            if custom_id in seen:
                raise InvalidOptionError(f"batch request {index}: id {custom_id!r} is not unique")
            seen.add(custom_id)
            line = batch_line(
                item,
                name,
                custom_id,
                fields=fields,
                options=options,
                bedrock_format=bedrock_format,
                index=index,
            )
            output.write(line, custom_id, index)
            written.append(custom_id)
        parts = output.finish()
    except BaseException:
        output.abort()  # removes only this call's temporary files, never the caller's path
        raise
    written.files = [(part.path, part.ids) for part in parts]
    return written
