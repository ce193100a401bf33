"""The one error tree of mediablocks.

Every error the library raises on purpose is a `MediaBlocksError`. Each subclass also inherits
the builtin exception a caller would naturally catch, so ``except ValueError`` and
``except OSError`` keep working in code that does not know about mediablocks::

                                                       code                  HTTP
    MediaBlocksError (Exception)                       mediablocks_error     500
    ├── DecodeError (ValueError)                       decode_error          400
    │   └── BrokenMediaError                           broken_media          422
    │       └── ConversionCrashedError                 conversion_crashed    422
    ├── MediaTypeError (ValueError)                    media_type_mismatch   415
    │   └── NotAcceptedError                           not_accepted          415
    ├── UnsupportedBlockError (ValueError)             unsupported_block     415
    │   └── UnsupportedSettingError                    unsupported_setting   400
    ├── UnknownProviderError (ValueError)              unknown_provider      400
    ├── DoesNotFitError (ValueError)                   does_not_fit          422 (or its problems')
    ├── HistoryError (ValueError)                      invalid_history       422
    ├── ToolResultMismatchError (ValueError)           tool_result_mismatch  400
    ├── TooLargeError (ValueError)                     too_large             413
    │   ├── DecompressionBombError (= ImageBombError)  decompression_bomb    413
    │   ├── DownloadTooLargeError (+FetchError)        download_too_large    413
    │   └── FileTooLargeError (+SourceError)           file_too_large        413
    ├── InvalidSourceError (ValueError)                invalid_source        400
    ├── InvalidOptionError (ValueError)                invalid_option        400
    ├── InvalidTextError (ValueError)                  invalid_text          422
    ├── ConversionLimitError (ValueError)              conversion_limit      422
    │   └── ConversionTimeoutError (+TimeoutError)     conversion_timeout    422
    ├── ConversionUnavailableError (RuntimeError)    conversion_unavailable 503
    ├── SourceError (OSError)                          source_unreadable     400
    │   └── PathNotAllowedError (PermissionError)      path_not_allowed      403
    ├── FetchError (OSError)                           fetch_failed          502
    │   ├── FetchStatusError                           fetch_status          502
    │   ├── BlockedURLError (PermissionError)          url_blocked           403
    │   └── FetchTimeoutError (TimeoutError)           fetch_timeout         504
    ├── UploadError (OSError)                          upload_failed         502
    │   └── ExpiredUploadError                         upload_expired        410
    └── StandInError (RuntimeError)                    stand_in_failed       502

What each means:

- ``DecodeError``: malformed base64, data URI, JSON, provider payload or stream event;
  ``BrokenMediaError``: media whose bytes do not decode (truncated, corrupt);
  ``ConversionCrashedError``: a native converter died on the input (its worker process did; the
  caller's process lives), with ``.signal`` and the ``.limit`` such a crash most often means.
- ``MediaTypeError``: the bytes contradict the declared type or block (a ``text/plain`` block
  whose bytes are not text); ``NotAcceptedError``: a kind or type the caller's
  ``prepare(..., accept=[...])`` does not list, refused before any decoder ran.
- ``UnsupportedBlockError``: a provider cannot carry this block; ``UnsupportedSettingError``: a
  tool, tool choice or setting it cannot honour.
- ``DoesNotFitError``: media that cannot be fitted to a provider's limits; ``problems`` lists
  every block as a `FitProblem` with its own ``code`` and ``block``.
- ``HistoryError``: a history `validate` finds problems in (``problems``, each with a code).
- ``TooLargeError``: more bytes or pixels than a limit allows (``.limit``, ``.size``);
  ``DecompressionBombError``: an image or archive that would inflate past its limit, refused
  before it is decoded (``ImageBombError`` is the same class); ``DownloadTooLargeError``: a URL's
  body past ``FetchPolicy.max_bytes``; ``FileTooLargeError``: a local file past
  ``FetchPolicy.max_path_bytes``, or one with no end (a device, a FIFO).
- ``InvalidSourceError``: not a media source (say, a bare string path); ``InvalidOptionError``:
  an option or policy value not accepted; ``InvalidTextError``: text that is not valid Unicode (a
  lone surrogate).
- ``ConversionLimitError``: a converter went past a `ConversionLimits` limit (``.limit``,
  ``.value``); ``ConversionTimeoutError``: past its CPU seconds or wall-time budget.
- ``ConversionUnavailableError``: no worker process or thread could be started (the host is
  out of them; the input is not at fault): retry later.
- ``SourceError``: a path, provider file id or other source cannot be read;
  ``PathNotAllowedError``: a path outside the allowed roots.
- ``FetchError``: a URL could not be fetched; ``FetchStatusError``: the server answered with an
  error status; ``BlockedURLError``: refused by the fetch policy (a private address...);
  ``FetchTimeoutError``: the whole fetch took longer than the policy allows. Every fetch error
  has ``.status`` (the HTTP status, when one was answered) and ``.retry_after`` (seconds, from a
  ``Retry-After`` header).
- ``UploadError``: a provider's Files API (or S3) refused or failed an upload; ``.status`` and
  ``.retry_after`` as the provider's SDK reported them. ``ExpiredUploadError``: uploaded media
  whose file expired with no bytes to send instead (``.expired_at``).
- ``StandInError``: a transcriber or describer `prepare` called failed or answered with no text.

Every error has a stable machine-readable ``code`` (the table above: codes never change meaning)
and ``http_status``, the status an upload endpoint should answer with; ``block`` is the block the
error is about, when there is one. Messages say what was wrong and with which block, e.g.
``ImageBlock(path 'scan.png', image/png): bytes are application/pdf, not an image``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

__all__ = [
    "HTTP_STATUS",
    "BlockedURLError",
    "BrokenMediaError",
    "ConversionCrashedError",
    "ConversionLimitError",
    "ConversionTimeoutError",
    "ConversionUnavailableError",
    "DecodeError",
    "DecompressionBombError",
    "DoesNotFitError",
    "DownloadTooLargeError",
    "ExpiredUploadError",
    "FetchError",
    "FetchStatusError",
    "FetchTimeoutError",
    "FileTooLargeError",
    "FitProblem",
    "HistoryError",
    "ImageBombError",
    "InvalidOptionError",
    "InvalidSourceError",
    "InvalidTextError",
    "MediaBlocksError",
    "MediaTypeError",
    "NotAcceptedError",
    "PathNotAllowedError",
    "SourceError",
    "StandInError",
    "TooLargeError",
    "ToolResultMismatchError",
    "UnknownProviderError",
    "UnsupportedBlockError",
    "UnsupportedSettingError",
    "UploadError",
]

HTTP_STATUS: dict[str, int] = {
    # errors
    "mediablocks_error": 500,
    "decode_error": 400,
    "broken_media": 422,
    "conversion_crashed": 422,
    "media_type_mismatch": 415,
    "not_accepted": 415,
    "unsupported_block": 415,
    "unsupported_setting": 400,
    "unknown_provider": 400,
    "does_not_fit": 422,
    "invalid_history": 422,
    "tool_result_mismatch": 400,
    "too_large": 413,
    "decompression_bomb": 413,
    "download_too_large": 413,
    "file_too_large": 413,
    "invalid_source": 400,
    "invalid_option": 400,
    "invalid_text": 422,
    "conversion_limit": 422,
    "conversion_timeout": 422,
    "source_unreadable": 400,
    "path_not_allowed": 403,
    "fetch_failed": 502,
    "fetch_status": 502,
    "url_blocked": 403,
    "fetch_timeout": 504,
    "upload_failed": 502,
    "upload_expired": 410,
    "stand_in_failed": 502,
    "conversion_unavailable": 503,
    # problems inside a DoesNotFitError (FitProblem.code)
    "unsupported_kind": 415,
    "unsupported_type": 415,
    "too_many": 413,
    "too_long": 413,
}
"""The HTTP status an upload endpoint should answer for each ``code`` (errors and problems):
413 for too much, 415 for a kind or type not taken, 422 for media that cannot be used, 400 for
a malformed request, 403 for a refused path or address, 502/504 when a provider or a fetched
server failed."""


class MediaBlocksError(Exception):
    """The root of every error mediablocks raises on purpose.

    ``code`` is stable and machine-readable (``HTTP_STATUS`` maps it to a status); ``block`` is
    the block the error is about, or None.
    """

    code: ClassVar[str] = "mediablocks_error"

    def __init__(self, *args: object, block: Any = None) -> None:
        super().__init__(*args)
        self.block = block

    @property
    def http_status(self) -> int:
        """The HTTP status an endpoint should answer with for this error (see `HTTP_STATUS`)."""
        return HTTP_STATUS.get(self.code, 500)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt without calling __init__ (whose keywords pickle cannot pass), attributes kept.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[MediaBlocksError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class DecodeError(MediaBlocksError, ValueError):
    """Input could not be decoded: malformed base64, a bad data URI, broken JSON or payload."""

    code = "decode_error"


class BrokenMediaError(DecodeError):
    """Media whose bytes do not decode (truncated, corrupt, malformed): `prepare` raises it at
    once, naming the message, the block and why, since no provider could read it either."""

    code = "broken_media"


class MediaTypeError(MediaBlocksError, ValueError):
    """The bytes contradict the declared MIME type, or do not belong in this kind of block."""

    code = "media_type_mismatch"


class NotAcceptedError(MediaTypeError):
    """A block whose kind or type is not among what the caller accepts
    (``prepare(..., accept=["image", "application/pdf"])``), refused before any decoder ran."""

    code = "not_accepted"

    def __init__(self, message: str, *, block: Any = None, blocks: Sequence[Any] = ()) -> None:
        super().__init__(message, block=block)
        self.blocks: list[Any] = list(blocks) or ([block] if block is not None else [])
        """Every block refused (``block`` is the first)."""


class UnsupportedBlockError(MediaBlocksError, ValueError):
    """A provider cannot carry this block and no degradation was chosen."""

    code = "unsupported_block"


class UnsupportedSettingError(UnsupportedBlockError):
    """A provider cannot honour a tool schema keyword, a tool choice or a setting, and no drop
    was chosen (``unsupported="drop"`` drops it and reports it instead)."""

    code = "unsupported_setting"


class UnknownProviderError(MediaBlocksError, ValueError):
    """A provider name that is not one of mediablocks' wire formats (or their aliases)."""

    code = "unknown_provider"


class FitProblem(str):
    """One block that cannot be fitted to a provider: printable as its text (it *is* the text),
    with a stable ``code`` (``unsupported_kind``, ``unsupported_type``, ``too_large``,
    ``too_many``, ``too_long``, ``broken_media``, ``conversion_limit``, ``does_not_fit``...),
    the ``block`` it names (None for a request total) and ``where`` it is
    (``"message 0, block 1"``)."""

    code: str
    block: Any
    where: str

    def __new__(
        cls, text: str, *, code: str = "does_not_fit", block: Any = None, where: str = ""
    ) -> FitProblem:
        problem = super().__new__(cls, text)
        problem.code = code
        problem.block = block
        problem.where = where
        return problem

    @property
    def http_status(self) -> int:
        """The HTTP status this problem alone calls for (see `HTTP_STATUS`)."""
        return HTTP_STATUS.get(self.code, 422)


def _as_problems(problems: Iterable[str] | None, block: Any) -> list[FitProblem]:
    return [
        p if isinstance(p, FitProblem) else FitProblem(str(p), block=block) for p in problems or ()
    ]


class DoesNotFitError(MediaBlocksError, ValueError):
    """Media cannot be made to fit a provider's limits.

    ``problems`` lists every offending block, not just the first, each a `FitProblem` (a string,
    with ``code`` and ``block``). ``http_status`` is the problems' status when they agree
    (413 when everything is too large, 415 when every block is of a kind not taken), else 422.
    """

    code = "does_not_fit"

    def __init__(
        self, message: str, problems: Iterable[str] | None = None, *, block: Any = None
    ) -> None:
        super().__init__(message, block=block)
        found = _as_problems(problems, block)
        self.problems: list[FitProblem] = found or [FitProblem(message, block=block)]

    @property
    def http_status(self) -> int:
        statuses = {problem.http_status for problem in self.problems}
        return statuses.pop() if len(statuses) == 1 else HTTP_STATUS[self.code]


class HistoryError(MediaBlocksError, ValueError):
    """A history with problems (from `validate`); ``problems`` lists every one, each with a
    ``code`` and the message and block index it is at."""

    code = "invalid_history"

    def __init__(self, problems: Sequence[Any]) -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in the history:\n{lines}")


class ToolResultMismatchError(MediaBlocksError, ValueError):
    """Tool results that do not answer exactly the tool calls of the turn they follow."""

    code = "tool_result_mismatch"


class TooLargeError(MediaBlocksError, ValueError):
    """More bytes (or pixels) than a limit allows."""

    code = "too_large"

    def __init__(
        self,
        message: str,
        *,
        limit: int | None = None,
        size: int | None = None,
        block: Any = None,
    ) -> None:
        super().__init__(message, block=block)
        self.limit = limit
        self.size = size


class DecompressionBombError(TooLargeError):
    """An image or archive that would decode to more pixels or bytes than allowed (a
    decompression bomb: a PNG declaring 100,000 x 100,000 pixels, a DOCX inflating a few KB to
    gigabytes), refused before it is decoded. ``ImageBombError`` is this same class."""

    code = "decompression_bomb"


ImageBombError = DecompressionBombError
"""The name this error had when only images were checked: the same class, so a PNG bomb and a
DOCX zip bomb raise one class with one code."""


class InvalidSourceError(MediaBlocksError, ValueError):
    """A value that cannot be a media source, such as a plain string that only looks like a path."""

    code = "invalid_source"


class InvalidOptionError(MediaBlocksError, ValueError):
    """An option, policy setting or `encode_json` field with a value mediablocks does not accept."""

    code = "invalid_option"


class ConversionLimitError(MediaBlocksError, ValueError):
    """A conversion went past one of its limits (`ConversionLimits`: memory, CPU seconds, stack;
    or the wall-time budget). ``limit`` names it (``"memory_bytes"``, ``"cpu_seconds"``,
    ``"stack_bytes"``, ``"time_budget"``) and ``value`` is the limit that was in force."""

    code = "conversion_limit"

    def __init__(
        self,
        message: str,
        *,
        limit: str | None = None,
        value: float | None = None,
        block: Any = None,
    ) -> None:
        super().__init__(message, block=block)
        self.limit = limit
        self.value = value


class ConversionTimeoutError(ConversionLimitError, TimeoutError):
    """A conversion used more CPU seconds or wall time than its limit; its worker was stopped."""

    code = "conversion_timeout"


class ConversionCrashedError(BrokenMediaError):
    """A native converter (resvg, PDFium, a legacy Office reader...) crashed on the input: its
    worker process died (``signal`` names how, e.g. ``"SIGSEGV"``) and was replaced. The input is
    treated as unreadable; the message names the block and the limits the worker ran under, and
    ``limit`` the one such a crash most often means (``"stack_bytes"`` for SIGSEGV,
    ``"memory_bytes"`` for SIGABRT), or None."""

    code = "conversion_crashed"

    def __init__(
        self,
        message: str,
        *,
        signal: str | None = None,
        limit: str | None = None,
        block: Any = None,
    ) -> None:
        super().__init__(message, block=block)
        self.signal = signal
        self.limit = limit


class ConversionUnavailableError(MediaBlocksError, RuntimeError):
    """No conversion could run: no worker process or thread could be started (the host is out
    of processes, threads or memory, or this Python cannot start itself). Not the input's fault:
    `prepare` raises it at once rather than as one block's problem; retry later, or convert
    trusted input in this process with ``ConversionLimits(isolate=False)``."""

    code = "conversion_unavailable"


class InvalidTextError(MediaBlocksError, ValueError):
    """Text that cannot be written as UTF-8 (a lone surrogate, say from a bad ``\\ud83d``
    escape): named by message and block when a history is dumped, sent or validated."""

    code = "invalid_text"


class SourceError(MediaBlocksError, OSError):
    """A media source (a path, a provider file id...) cannot be read."""

    code = "source_unreadable"


class PathNotAllowedError(SourceError, PermissionError):
    """A path lies outside the roots the caller allowed."""

    code = "path_not_allowed"


def _retry_after(value: object) -> float | None:
    """Seconds from a ``Retry-After`` value (a number of seconds, or an HTTP date), or None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return max(0.0, float(value))
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    from datetime import datetime, timezone
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class _Answered:
    """``status`` and ``retry_after`` on the errors of a remote service (fetches, uploads)."""

    status: int | None
    retry_after: float | None

    def _answered(self, status: int | None, retry_after: object) -> None:
        self.status = status
        self.retry_after = _retry_after(retry_after)


class FetchError(_Answered, MediaBlocksError, OSError):
    """A URL could not be fetched. ``status`` is the HTTP status the server answered (None when
    it answered none) and ``retry_after`` the seconds its ``Retry-After`` header asked for."""

    code = "fetch_failed"

    def __init__(
        self,
        *args: object,
        status: int | None = None,
        retry_after: object = None,
        block: Any = None,
    ) -> None:
        super().__init__(*args, block=block)
        self._answered(status, retry_after)


class FetchStatusError(FetchError):
    """The server answered with an HTTP error status (4xx or 5xx) or an unusable 1xx/3xx;
    ``status_code`` (also ``status``), ``url`` and ``retry_after`` say which and when to retry."""

    code = "fetch_status"

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        url: str,
        retry_after: object = None,
        block: Any = None,
    ) -> None:
        super().__init__(message, status=status_code, retry_after=retry_after, block=block)
        self.status_code = status_code
        self.url = url


class BlockedURLError(FetchError, PermissionError):
    """The fetch policy refused a URL before any connection was made."""

    code = "url_blocked"


class FetchTimeoutError(FetchError, TimeoutError):
    """A fetch took longer than the policy's total timeout."""

    code = "fetch_timeout"


class DownloadTooLargeError(TooLargeError, FetchError):
    """A URL's body is larger than ``FetchPolicy.max_bytes``: both too large and a failed fetch,
    so ``except FetchError`` and ``except TooLargeError`` both catch it."""

    code = "download_too_large"

    def __init__(
        self,
        message: str,
        *,
        limit: int | None = None,
        size: int | None = None,
        block: Any = None,
    ) -> None:
        TooLargeError.__init__(self, message, limit=limit, size=size, block=block)
        self._answered(None, None)


class FileTooLargeError(TooLargeError, SourceError):
    """A local file larger than ``FetchPolicy.max_path_bytes`` (or growing past it while read), or
    one with no bounded size at all (a character or block device, a FIFO, a socket), which is
    refused before reading. Both too large and an unreadable source, so ``except SourceError`` and
    ``except TooLargeError`` both catch it."""

    code = "file_too_large"


class UploadError(_Answered, MediaBlocksError, OSError):
    """A provider's Files API (or the S3 bucket for Bedrock) refused or failed an upload.

    The message names the block and the provider; the SDK's own exception is the ``__cause__``.
    ``status`` is the HTTP status the provider answered (None when none was) and ``retry_after``
    the seconds it asked to wait (``Retry-After``), so a caller can back off.
    """

    code = "upload_failed"

    def __init__(
        self,
        *args: object,
        status: int | None = None,
        retry_after: object = None,
        block: Any = None,
    ) -> None:
        super().__init__(*args, block=block)
        self._answered(status, retry_after)


class ExpiredUploadError(UploadError):
    """Uploaded media whose file at the provider has expired (or will before a request could
    use it), with no way back to its bytes: found before anything is sent, naming the block and
    when the file expired. ``expired_at`` is that Unix time."""

    code = "upload_expired"

    def __init__(self, message: str, *, expired_at: float | None = None, block: Any = None) -> None:
        super().__init__(message, block=block)
        self.expired_at = expired_at


class StandInError(MediaBlocksError, RuntimeError):
    """A transcriber or describer that `prepare` called failed, or answered with something that
    is not text (nor a `Transcript` / `Description`). The message names the block and the
    callable; the callable's own exception, if any, is the ``__cause__``."""

    code = "stand_in_failed"
