"""The one error tree of mediablocks.

Every error the library raises on purpose is a `MediaBlocksError`. Each subclass also inherits
the builtin exception a caller would naturally catch, so ``except ValueError`` and
``except OSError`` keep working in code that does not know about mediablocks::

    MediaBlocksError (Exception)
    ├── DecodeError (ValueError)             malformed base64, data URI, JSON or provider payload
    │   └── BrokenMediaError                 media whose bytes do not decode (truncated, corrupt)
    ├── MediaTypeError (ValueError)          the bytes contradict the declared type or block
    ├── UnsupportedBlockError (ValueError)   a provider cannot carry this block
    │   └── UnsupportedSettingError          a tool, tool choice or setting it cannot honour
    ├── UnknownProviderError (ValueError)    a provider name mediablocks does not know
    ├── DoesNotFitError (ValueError)         media that cannot be fitted to a provider's limits
    ├── ToolResultMismatchError (ValueError) tool results that do not answer a turn's tool calls
    ├── TooLargeError (ValueError)           more bytes or pixels than a limit allows
    │   ├── ImageBombError                   an image whose pixel count is a decompression bomb
    │   ├── DownloadTooLargeError (+FetchError)  a URL's body past FetchPolicy.max_bytes
    │   └── FileTooLargeError (+SourceError)     a local file past FetchPolicy.max_path_bytes,
    │                                            or one with no end (a device, a FIFO)
    ├── InvalidSourceError (ValueError)      not a media source (say, a bare string path)
    ├── InvalidOptionError (ValueError)      an option or policy setting with a value not accepted
    ├── InvalidTextError (ValueError)        text that is not valid Unicode (a lone surrogate)
    ├── ConversionLimitError (ValueError)    a converter went past a ConversionLimits limit
    │   └── ConversionTimeoutError (+TimeoutError)  past its CPU seconds or wall-time budget
    ├── ConversionCrashedError (DecodeError) a native converter died on the input (its worker
    │                                        process did; the caller's process lives)
    ├── ConversionUnavailableError (RuntimeError)  no worker process or thread could be started
    │                                        (the host is out of them; the input is not at fault)
    ├── SourceError (OSError)                a path, provider file id or other source cannot be read
    │   └── PathNotAllowedError (PermissionError)   a path outside the allowed roots
    ├── FetchError (OSError)                 a URL could not be fetched
    │   ├── BlockedURLError (PermissionError)    refused by the fetch policy (private address...)
    │   └── FetchTimeoutError (TimeoutError)     the whole fetch took longer than the policy allows
    └── UploadError (OSError)                a provider's Files API (or S3) refused an upload

Messages say what was wrong and with which block, e.g.
``ImageBlock(path 'scan.png', image/png): bytes are application/pdf, not an image``.
"""

from __future__ import annotations

__all__ = [
    "BlockedURLError",
    "BrokenMediaError",
    "ConversionCrashedError",
    "ConversionLimitError",
    "ConversionTimeoutError",
    "ConversionUnavailableError",
    "DecodeError",
    "DoesNotFitError",
    "DownloadTooLargeError",
    "FetchError",
    "FetchTimeoutError",
    "FileTooLargeError",
    "ImageBombError",
    "InvalidOptionError",
    "InvalidSourceError",
    "InvalidTextError",
    "MediaBlocksError",
    "MediaTypeError",
    "PathNotAllowedError",
    "SourceError",
    "TooLargeError",
    "ToolResultMismatchError",
    "UnknownProviderError",
    "UnsupportedBlockError",
    "UnsupportedSettingError",
    "UploadError",
]


class MediaBlocksError(Exception):
    """The root of every error mediablocks raises on purpose."""


class DecodeError(MediaBlocksError, ValueError):
    """Input could not be decoded: malformed base64, a bad data URI, broken JSON or payload."""


class BrokenMediaError(DecodeError):
    """Media whose bytes do not decode (truncated, corrupt, malformed): `prepare` raises it at
    once, naming the message, the block and why, since no provider could read it either."""


class MediaTypeError(MediaBlocksError, ValueError):
    """The bytes contradict the declared MIME type, or do not belong in this kind of block."""


class UnsupportedBlockError(MediaBlocksError, ValueError):
    """A provider cannot carry this block and no degradation was chosen."""


class UnsupportedSettingError(UnsupportedBlockError):
    """A provider cannot honour a tool schema keyword, a tool choice or a setting, and no drop
    was chosen (``unsupported="drop"`` drops it and reports it instead)."""


class UnknownProviderError(MediaBlocksError, ValueError):
    """A provider name that is not one of mediablocks' wire formats (or their aliases)."""


class DoesNotFitError(MediaBlocksError, ValueError):
    """Media cannot be made to fit a provider's limits.

    ``problems`` lists every offending block, not just the first.
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems or [])


class ToolResultMismatchError(MediaBlocksError, ValueError):
    """Tool results that do not answer exactly the tool calls of the turn they follow."""


class TooLargeError(MediaBlocksError, ValueError):
    """More bytes (or pixels) than a limit allows."""

    def __init__(self, message: str, *, limit: int | None = None, size: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.size = size


class ImageBombError(TooLargeError):
    """An image that would decode to more pixels than allowed (a decompression bomb)."""


class InvalidSourceError(MediaBlocksError, ValueError):
    """A value that cannot be a media source, such as a plain string that only looks like a path."""


class InvalidOptionError(MediaBlocksError, ValueError):
    """An option, policy setting or `encode_json` field with a value mediablocks does not accept."""


class ConversionLimitError(MediaBlocksError, ValueError):
    """A conversion went past one of its limits (`ConversionLimits`: memory, CPU seconds, stack;
    or the wall-time budget). ``limit`` names it (``"memory_bytes"``, ``"cpu_seconds"``,
    ``"stack_bytes"``, ``"time_budget"``) and ``value`` is the limit that was in force."""

    def __init__(
        self, message: str, *, limit: str | None = None, value: float | None = None
    ) -> None:
        super().__init__(message)
        self.limit = limit
        self.value = value


class ConversionTimeoutError(ConversionLimitError, TimeoutError):
    """A conversion used more CPU seconds or wall time than its limit; its worker was stopped."""


class ConversionCrashedError(DecodeError):
    """A native converter (resvg, PDFium, a legacy Office reader...) crashed on the input: its
    worker process died (``signal`` names how, e.g. ``"SIGSEGV"``) and was replaced. The input is
    treated as unreadable; the message names the block and the limits the worker ran under, and
    ``limit`` the one such a crash most often means (``"stack_bytes"`` for SIGSEGV,
    ``"memory_bytes"`` for SIGABRT), or None."""

    def __init__(
        self, message: str, *, signal: str | None = None, limit: str | None = None
    ) -> None:
        super().__init__(message)
        self.signal = signal
        self.limit = limit


class ConversionUnavailableError(MediaBlocksError, RuntimeError):
    """No conversion could run: no worker process or thread could be started (the host is out
    of processes, threads or memory, or this Python cannot start itself). Not the input's fault:
    `prepare` raises it at once rather than as one block's problem; retry later, or convert
    trusted input in this process with ``ConversionLimits(isolate=False)``."""


class InvalidTextError(MediaBlocksError, ValueError):
    """Text that cannot be written as UTF-8 (a lone surrogate, say from a bad ``\\ud83d``
    escape): named by message and block when a history is dumped, sent or validated."""


class SourceError(MediaBlocksError, OSError):
    """A media source (a path, a provider file id...) cannot be read."""


class PathNotAllowedError(SourceError, PermissionError):
    """A path lies outside the roots the caller allowed."""


class FetchError(MediaBlocksError, OSError):
    """A URL could not be fetched."""


class BlockedURLError(FetchError, PermissionError):
    """The fetch policy refused a URL before any connection was made."""


class FetchTimeoutError(FetchError, TimeoutError):
    """A fetch took longer than the policy's total timeout."""


class DownloadTooLargeError(TooLargeError, FetchError):
    """A URL's body is larger than ``FetchPolicy.max_bytes``: both too large and a failed fetch,
    so ``except FetchError`` and ``except TooLargeError`` both catch it."""


class FileTooLargeError(TooLargeError, SourceError):
    """A local file larger than ``FetchPolicy.max_path_bytes`` (or growing past it while read), or
    one with no bounded size at all (a character or block device, a FIFO, a socket), which is
    refused before reading. Both too large and an unreadable source, so ``except SourceError`` and
    ``except TooLargeError`` both catch it."""


class UploadError(MediaBlocksError, OSError):
    """A provider's Files API (or the S3 bucket for Bedrock) refused or failed an upload.

    The message names the block and the provider; the SDK's own exception is the ``__cause__``.
    """
