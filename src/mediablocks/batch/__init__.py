"""Write a provider's batch input file (JSONL), one request per line, media streamed in.

=====================  ==========================================================================
provider               one line
=====================  ==========================================================================
``openai-chat``        ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``
``openai-responses``   ``{"custom_id", "method": "POST", "url": "/v1/responses", "body"}``
``anthropic``          ``{"custom_id", "params"}`` (each line one ``requests`` item of
                       ``client.messages.batches.create``)
``gemini``             ``{"key", "request"}`` (a ``GenerateContentRequest``)
``bedrock``            ``{"recordId", "modelInput"}`` (the Converse body: create the job with
                       ``modelInvocationType="Converse"``)
``anthropic-bedrock``  ``{"recordId", "modelInput"}`` (Claude's body with ``anthropic_version``;
                       also ``bedrock`` with ``bedrock_format="anthropic"``; the job's
                       ``modelInvocationType`` is ``"InvokeModel"``)
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

from ..blocks import ToolCallBlock
from ..encoding import as_sendable as as_messages
from ..encoding import encode_messages_only
from ..errors import (
    DecodeError,
    InvalidOptionError,
    UnsupportedBlockError,
    UnsupportedSettingError,
)
from ..message_input import ROLES
from ..messages import Message, normalize_role
from ..providers import (
    EncodeOptions,
    MediaSink,
    canonical_provider,
    merge_fields,
)
from ..providers._fields import add_request_fields
from ..providers._json import write_json
from ..providers._model_media import check_model_media
from ..providers.registry import request_module
from ..settings import Settings
from ._output import BatchOutput

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
_SETTINGS = frozenset(Settings.model_fields)
_MODEL_IN_LINE = frozenset({"openai-chat", "openai-responses", "anthropic"})
# Fields each provider refuses a batch line without (the SDK types and API references mark them
# required; the provider would refuse the whole file only after upload). Gemini and Bedrock name
# the model on the job, not in the lines.
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "openai-chat": ("model",),
    "openai-responses": ("model",),
    "anthropic": ("model", "max_tokens"),
    "anthropic-bedrock": ("max_tokens",),
}


def _split(
    item: Any, index: int, written: dict[int, tuple[ToolCallBlock, str]]
) -> tuple[list[Message], dict[str, Any], Any]:
    """``(messages, per-request fields, the Request-like object or None)`` from one item, its
    messages checked as `encode` checks them (``written``: each call's arguments as JSON).

    An item is a message list (or one message), a ``(messages, fields)`` pair, or an object
    with a ``messages`` attribute (`mb.Request`: its ``extra`` are fields too).
    """
    if (
        isinstance(item, tuple)
        and len(item) == 2
        and isinstance(item[1], dict)
        and not (isinstance(item[0], str) and normalize_role(item[0]) in ROLES)
    ):  # ``(messages, fields)``; ``("user", {...block...})`` is a (role, content) pair
        return as_messages(item[0], written=written), dict(item[1]), None
    if isinstance(item, BaseModel) and hasattr(item, "messages") and not hasattr(item, "role"):
        extra = getattr(item, "extra", None) or {}
        return as_messages(item.messages, written=written), dict(extra), item
    try:
        return as_messages(item, written=written), {}, None
    except DecodeError as exc:
        raise DecodeError(f"batch request {index}: {exc}") from None


def _modelled(
    request: Any, verbatim: dict[str, Any], name: str, options: EncodeOptions
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(fields from tools, tool choice and settings, the verbatim fields left)``.

    Keyword fields named like `mb.Settings` fields (``temperature``, ``max_tokens``, ``stop``...)
    join the request's own settings and are written where ``name`` takes them (Gemini's
    ``generationConfig``, Bedrock's ``inferenceConfig``, OpenAI's ``max_completion_tokens``...),
    so one ``temperature=`` gives a valid line for every provider, or a clear error where the
    provider has no such setting.
    """
    tools = tuple(getattr(request, "tools", None) or ())
    tool_choice = getattr(request, "tool_choice", None)
    own = getattr(request, "settings", None)
    given = {key: verbatim.pop(key) for key in list(verbatim) if key in _SETTINGS}
    settings: Settings | None = own if isinstance(own, Settings) else None
    if given:
        base = settings.model_dump(exclude_none=True) if settings is not None else {}
        settings = Settings(**{**base, **given})
    if not tools and tool_choice is None and settings is None:
        return {}, verbatim
    fields = request_module(name).encode_fields(
        options.replace(tools=tools, tool_choice=tool_choice, settings=settings)
    )
    return dict(fields), verbatim


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
    """One line of ``provider``'s batch file (without the newline) for one request.

    Raises `InvalidOptionError` when the line would lack a field the provider requires
    (``model`` for OpenAI and Anthropic, ``max_tokens`` for Anthropic), naming it.
    """
    name = canonical_provider(provider)
    written: dict[int, tuple[ToolCallBlock, str]] = {}
    messages, own, request = _split(item, index, written)
    sink = MediaSink()
    chosen = (options or EncodeOptions()).replace(target="json", media_sink=sink)
    if name == "bedrock" and bedrock_format == "anthropic":
        name = "anthropic-bedrock"  # Claude's own body with Bedrock's anthropic_version
    where = f"batch request {index} ({custom_id!r})"
    verbatim = {**(fields or {}), **own}
    model = verbatim.get("model", getattr(request, "model", None))
    try:
        check_model_media(messages, name, model)
    except UnsupportedBlockError as exc:
        raise UnsupportedBlockError(f"{where}: {exc}", block=exc.block) from None
    try:  # encode's own checks and rules: a line holds only what encode would send
        encoded = encode_messages_only(messages, name, chosen, written)
    except UnsupportedBlockError as exc:
        raise UnsupportedBlockError(f"{where}: {exc}", block=exc.block) from None
    clashes = sorted(set(verbatim) & set(encoded))
    if clashes:
        raise InvalidOptionError(
            f"{where}: field(s) {', '.join(clashes)} come from the messages; do not pass them"
        )
    model = getattr(request, "model", None)
    try:
        modelled, verbatim = _modelled(request, verbatim, name, chosen)
        if name in _MODEL_IN_LINE and isinstance(model, str) and "model" not in verbatim:
            verbatim["model"] = model
        body = add_request_fields(merge_fields(encoded, modelled, name), "model", None, verbatim)
    except (InvalidOptionError, UnsupportedSettingError) as exc:
        raise type(exc)(f"{where}: {exc}") from None
    missing = [key for key in REQUIRED_FIELDS.get(name, ()) if body.get(key) is None]
    if missing:
        raise InvalidOptionError(
            f"{where}: {name} batch lines need {' and '.join(missing)}; pass "
            + ", ".join(f"{key}=..." for key in missing)
            + " to write_batch (or in the request's fields)"
        )
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
    ``(path, ids)`` pair per file written (one pair unless the batch rolled over; for a file
    object, one pair named ``"<stream>"``).
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
