"""One small module per file store that `mb.upload` can send media to.

Each module (``openai``, ``anthropic``, ``gemini``, ``s3``) has the same functions:

- ``accepts(kind, mime)``: whether the provider can refer to this block by a file reference;
- ``account(client, target)``: a string naming the account (endpoint and a key hash, or bucket),
  so cached references are never reused across accounts;
- ``send(client, item, target)`` and ``asend(...)``: upload through the caller's SDK client and
  return the reference that the translator puts in the request;
- ``exists(client, reference, target)`` and ``aexists(...)``: whether the provider still has the
  file behind a cached reference (a metadata look-up, no download), False when it answers "not
  found", so `mb.upload` uploads it again instead of sending a dead reference;
- ``delete(client, reference)`` and ``adelete(...)``: delete the file, True when it was there,
  False when the provider had no such file (already deleted or expired);
- ``EXPIRES``: whether ``send`` can ask the provider to delete the file after
  ``Target.expires_in`` seconds (OpenAI's ``expires_after``), and ``EXPIRY_NOTE``, why not.

The SDKs are never imported here: the caller's client object is used as is.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ...errors import InvalidOptionError
from ...providers._file_stores import FILE_STORES
from ...providers._options import canonical_provider

__all__ = [
    "UPLOADERS",
    "Target",
    "UploadItem",
    "Uploaded",
    "afound",
    "found",
    "key_hash",
    "missing",
    "uploader_for",
]


@dataclass(frozen=True)
class UploadItem:
    """The bytes of one media block, ready to send."""

    data: bytes
    mime_type: str
    filename: str
    sha256: str


@dataclass(frozen=True)
class Uploaded:
    """A file reference (file id, file URI or ``s3://`` URI) and when it expires, if it does."""

    reference: str
    expires_at: float | None = None


@dataclass(frozen=True)
class Target:
    """Where and how to upload, as the caller of `mb.upload` chose."""

    bucket: str | None = None
    prefix: str = ""
    wait: float = 300.0
    expires_in: int | None = None
    """Seconds after which the provider deletes the file (where it offers that)."""


UPLOADERS = FILE_STORES
"""Canonical provider name -> the uploader module for its file store (the store's name)."""


def uploader_for(provider: str) -> tuple[str, ModuleType]:
    """``(canonical provider, uploader module)``; a provider without a file store raises."""
    name = canonical_provider(provider)
    module_name = UPLOADERS.get(name)
    if module_name is None:
        known = ", ".join(sorted(UPLOADERS))
        raise InvalidOptionError(
            f"mb.upload: {name} has no file store mediablocks uploads to (known: {known}); "
            "send its media inline"
        )
    return name, importlib.import_module(f"{__name__}.{module_name}")


def key_hash(secret: Any) -> str:
    """A short one-way hash of an API key, so accounts differ in cache keys without storing it."""
    text = secret if isinstance(secret, str) else repr(secret)
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def missing(exc: BaseException, statuses: tuple[int, ...] = (404,)) -> bool:
    """Whether an SDK error means "no such file": an HTTP status in ``statuses`` (OpenAI and
    Anthropic ``status_code``, google-genai ``code``, botocore's response metadata)."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = getattr(exc, "code", None)
    response = getattr(exc, "response", None)
    if not isinstance(status, int) and isinstance(response, dict):
        error = response.get("Error") or {}
        if error.get("Code") in ("404", "NoSuchKey", "NotFound"):
            return True
        status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
    return isinstance(status, int) and status in statuses


def found(call: Callable[[], object], statuses: tuple[int, ...] = (404,)) -> bool:
    """Run ``call`` (a look-up or a delete): True when it succeeds, False when the SDK's error
    says there is no such file (`missing`); any other error raises."""
    try:
        call()
    except Exception as exc:
        if missing(exc, statuses):
            return False
        raise
    return True


async def afound(call: Callable[[], Awaitable[object]], statuses: tuple[int, ...] = (404,)) -> bool:
    """`found` for an async SDK call."""
    try:
        await call()
    except Exception as exc:
        if missing(exc, statuses):
            return False
        raise
    return True
