"""Read a provider's batch results file (JSONL) back into ids and assistant messages.

Each line becomes a `BatchResult`: the request id, the decoded `AssistantMessage` when the
request succeeded, or an error text saying why not (the provider's own error, a canceled or
expired request, or a line mediablocks could not read). Errors are reported per line, never
raised, so one bad line does not hide a million good ones. The file is read one line at a time.

Formats read: OpenAI Batch output (``custom_id``, ``response.body``, ``error``), Anthropic
Message Batches results (``custom_id``, ``result.type``), Gemini batch output (``key``,
``response`` or ``error``/``status``) and Bedrock batch inference output (``recordId``,
``modelOutput`` or ``error``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from .._depth import loads
from ..errors import InvalidOptionError, MediaBlocksError, SourceError
from ..messages import AssistantMessage
from ..providers import canonical_provider, decode_response
from ..sources._files import open_descriptor

__all__ = ["MAX_LINE_BYTES", "BatchResult", "iter_batch_results", "read_batch_results"]


@dataclass(frozen=True)
class BatchResult:
    """One line of a batch results file."""

    id: str | None
    """The request's ``custom_id`` / ``key`` / ``recordId`` (None when the line has none)."""
    message: AssistantMessage | None = None
    """The reply, when the request succeeded."""
    error: str | None = None
    """Why there is no reply: the provider's error, ``canceled``, ``expired``, or a bad line."""
    line: int = 0
    """The 1-based line number in the file."""
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    """The line as parsed JSON (empty when it was not JSON)."""

    @property
    def ok(self) -> bool:
        return self.message is not None


def _reply(payload: Any, provider: str) -> AssistantMessage:
    return decode_response(payload, provider)


def _error_text(value: Any) -> str:
    """A short text from the many shapes providers give errors."""
    if isinstance(value, dict):
        inner = value.get("error")
        if isinstance(inner, dict):
            return _error_text(inner)
        message = value.get("message") or value.get("errorMessage")
        code = value.get("code") or value.get("type") or value.get("errorCode")
        if message is not None:
            return f"{code}: {message}" if code is not None else str(message)
    return json.dumps(value) if not isinstance(value, str) else value


_Outcome = tuple[AssistantMessage | None, str | None]


def _openai(line: dict[str, Any], provider: str) -> _Outcome:
    if line.get("error"):
        return None, _error_text(line["error"])
    response = line.get("response")
    if not isinstance(response, dict):
        return None, "line has neither response nor error"
    body = response.get("body")
    status = response.get("status_code", 200)
    if status != 200 or (isinstance(body, dict) and "error" in body):
        return None, f"HTTP {status}: {_error_text(body)}"
    return _reply(body, provider), None


def _anthropic(line: dict[str, Any], provider: str) -> _Outcome:
    result = line.get("result")
    if not isinstance(result, dict):
        return None, "line has no result"
    kind = result.get("type")
    if kind == "succeeded":
        return _reply(result.get("message"), provider), None
    if kind == "errored":
        return None, _error_text(result.get("error"))
    return None, str(kind)


def _gemini(line: dict[str, Any], provider: str) -> _Outcome:
    for name in ("error", "status"):
        if isinstance(line.get(name), dict) and line[name]:
            return None, _error_text(line[name])
    response = line.get("response")
    if not isinstance(response, dict):
        return None, "line has neither response nor error"
    return _reply(response, provider), None


def _bedrock(line: dict[str, Any], provider: str) -> _Outcome:
    if line.get("error"):
        return None, _error_text(line["error"])
    output = line.get("modelOutput")
    if not isinstance(output, dict):
        return None, "line has neither modelOutput nor error"
    if output.get("type") == "message" and "content" in output:  # an Anthropic model's reply
        return _reply(output, "anthropic"), None
    return _reply(output, "bedrock"), None


_ID_KEYS = {
    "openai-chat": "custom_id",
    "openai-responses": "custom_id",
    "anthropic": "custom_id",
    "gemini": "key",
    "bedrock": "recordId",
    "anthropic-bedrock": "recordId",
}
_READERS = {
    "openai-chat": _openai,
    "openai-responses": _openai,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "anthropic-bedrock": _bedrock,
}


MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest results line read by default (a reply with inline images fits many times over)."""

_CHUNK = 1024 * 1024


def _lines(handle: IO[bytes], limit: int) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, line)`` pairs; a line longer than ``limit`` is ``None``, skipped in
    chunks so memory stays bounded by ``limit`` whatever the file holds."""
    number = 0
    while True:
        text = handle.readline(limit + 1)
        if not text:
            return
        number += 1
        if len(text) > limit and not text.endswith(b"\n"):
            while True:  # drop the rest of the over-long line
                rest = handle.readline(_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None
            continue
        yield number, text


def _open(path: str | os.PathLike[str] | IO[bytes]) -> tuple[IO[bytes], str, bool]:
    """``(handle, name, owned)``: a path opened as a regular file only, or the caller's file.

    A FIFO, a device (``/dev/zero``, a terminal) or a socket never ends, or blocks: it is refused
    before a byte is read (opened non-blocking and judged on the descriptor, so not even opening
    a FIFO can hang). A file object the caller opened is read as it is, and left open.
    """
    if not isinstance(path, (str, os.PathLike)):
        if not callable(getattr(path, "readline", None)):
            raise InvalidOptionError(
                f"batch results must be a path or a binary file object, not {type(path).__name__}"
            )
        return path, str(getattr(path, "name", "<stream>")), False
    name = os.fspath(path)
    if not isinstance(name, str):
        name = os.fsdecode(name)
    what = f"batch results {name!r}"
    fd, _ = open_descriptor(name, what, None)
    return os.fdopen(fd, "rb"), name, True


def iter_batch_results(
    path: str | os.PathLike[str] | IO[bytes],
    provider: str,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[BatchResult]:
    """`read_batch_results`, one result at a time (for files too large to hold as a list)."""
    name = canonical_provider(provider)
    reader = _READERS.get(name)
    if reader is None:
        raise InvalidOptionError(f"{name} has no batch results format")
    if isinstance(max_line_bytes, bool) or not isinstance(max_line_bytes, int):
        raise InvalidOptionError(f"max_line_bytes must be an integer, got {max_line_bytes!r}")
    if max_line_bytes < 1:
        raise InvalidOptionError(f"max_line_bytes must be >= 1, got {max_line_bytes}")
    handle, shown, owned = _open(path)
    try:
        for number, text in _lines(handle, max_line_bytes):
            if text is None:
                error = f"line {number} is longer than max_line_bytes ({max_line_bytes} bytes)"
                yield BatchResult(None, error=error, line=number)
            elif text.strip():
                yield _one(text, number, name, reader)
    except OSError as exc:
        if isinstance(exc, SourceError):
            raise
        raise SourceError(f"batch results {shown!r}: cannot read: {exc}") from None
    finally:
        if owned:
            handle.close()


def _one(text: bytes, number: int, provider: str, reader: Any) -> BatchResult:
    try:
        line = loads(text, f"line {number}", "is not JSON")
    except MediaBlocksError as exc:
        return BatchResult(None, error=str(exc), line=number)
    if not isinstance(line, dict):
        return BatchResult(None, error=f"line {number} is not a JSON object", line=number)
    rid = line.get(_ID_KEYS[provider])
    rid = rid if isinstance(rid, str) else None
    message: AssistantMessage | None
    try:
        message, error = reader(line, provider)
    except MediaBlocksError as exc:
        message, error = None, f"line {number}: {exc}"
    except Exception as exc:  # one bad line must not lose the rest of the file
        message, error = None, f"line {number}: cannot be read ({type(exc).__name__}: {exc})"
    return BatchResult(rid, message, error, number, line)


def read_batch_results(
    path: str | os.PathLike[str] | IO[bytes],
    provider: str,
    *,
    on: Literal["all", "ok", "errors"] = "all",
    max_line_bytes: int = MAX_LINE_BYTES,
) -> list[BatchResult]:
    """Every result line of ``provider``'s batch results file, in file order.

    A request that failed, or a line that cannot be read, is a `BatchResult` with ``error`` set
    and ``message`` None: nothing is raised for it (a line that is not JSON, nests past the
    library's nesting limit, or is longer than ``max_line_bytes`` included: memory stays bounded
    by one line). ``on="ok"`` or ``"errors"`` keeps only those.

    ``path`` must be a regular file: a FIFO, a device (``/dev/zero``) or a socket has no end and
    is refused with `SourceError` before anything is read; to read a pipe on purpose, open it
    and pass the binary file object. Replies are decoded as untrusted input: media URLs in them
    are fetched only under a policy the caller passes to the read.
    """
    if on not in ("all", "ok", "errors"):
        raise InvalidOptionError(f"on={on!r} is not 'all', 'ok' or 'errors'")
    results = iter_batch_results(path, provider, max_line_bytes=max_line_bytes)
    if on == "ok":
        return [r for r in results if r.ok]
    if on == "errors":
        return [r for r in results if not r.ok]
    return list(results)
