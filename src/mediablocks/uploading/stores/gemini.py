"""Gemini Files API: ``client.files.upload(file=..., config=...)`` -> the file's URI.

Files are kept 48 hours: the cache entry expires an hour before that. A file still
``PROCESSING`` (video) is polled with ``client.files.get`` until ``ACTIVE``, for at most
``wait`` seconds; ``FAILED`` or a timeout raises.
"""

from __future__ import annotations

import asyncio
import io
import time
from typing import Any

from ...providers._file_stores import reads_by_reference
from . import Target, Uploaded, UploadItem, afound, found, key_hash, missing

STORE = "gemini"
EXPIRES = False
EXPIRY_NOTE = "Gemini deletes every file 48 hours after its upload; that cannot be changed"
_POLL = 1.0
_KEEP = 47 * 3600.0


def accepts(provider: str, kind: str, mime: str) -> bool:
    """Whether ``provider`` reads this block from the store by reference."""
    return reads_by_reference(provider, kind, mime)


def account(client: Any, target: Target) -> str:
    api = getattr(client, "_api_client", None)
    options = getattr(api, "_http_options", None)
    base = getattr(options, "base_url", "") or ""
    return f"{base}|{key_hash(getattr(api, 'api_key', '') or '')}"


def _config(item: UploadItem) -> dict[str, Any]:
    return {"mime_type": item.mime_type, "display_name": item.filename}


def _state(file: Any) -> str:
    state = getattr(file, "state", None)
    return str(getattr(state, "value", state) or "ACTIVE")


def _done(file: Any, started: float) -> Uploaded:
    expires = getattr(file, "expiration_time", None)
    expires_at = expires.timestamp() - 3600.0 if expires is not None else started + _KEEP
    return Uploaded(file.uri, expires_at)  # checked by mb.upload: None is no URI


class _NotReady(Exception):
    """The file is still processing after the wait, or processing failed."""


def _check(file: Any, started: float, wait: float) -> bool:
    """True when active; False to poll again; raises when failed or out of time."""
    state = _state(file)
    if state == "ACTIVE" or state.endswith("UNSPECIFIED"):
        return True
    if state == "FAILED":
        raise _NotReady(f"Gemini could not process file {getattr(file, 'name', '')}")
    if time.monotonic() - started > wait:
        raise _NotReady(f"file {getattr(file, 'name', '')} still {state} after {wait:g} s")
    return False


def send(client: Any, item: UploadItem, target: Target) -> Uploaded:
    started, wall = time.monotonic(), time.time()
    file = client.files.upload(file=io.BytesIO(item.data), config=_config(item))
    while not _check(file, started, target.wait):
        time.sleep(_POLL)
        file = client.files.get(name=file.name)
    return _done(file, wall)


async def asend(client: Any, item: UploadItem, target: Target) -> Uploaded:
    files = client.aio.files if hasattr(client, "aio") else client.files
    started, wall = time.monotonic(), time.time()
    file = await files.upload(file=io.BytesIO(item.data), config=_config(item))
    while not _check(file, started, target.wait):
        await asyncio.sleep(_POLL)
        file = await files.get(name=file.name)
    return _done(file, wall)


# Gemini answers 403 PERMISSION_DENIED ("...or it may not exist") for a deleted file, 404 too.
_GONE = (403, 404)


def _name(reference: str) -> str:
    """``files/<id>`` from the file URI the cache holds."""
    return "files/" + reference.rstrip("/").rsplit("/", 1)[-1]


def _usable(file: Any) -> bool:
    return _state(file) != "FAILED"


def exists(client: Any, reference: str, target: Target) -> bool:
    """``client.files.get``: False when the file is gone (403/404) or its processing failed."""
    try:
        file = client.files.get(name=_name(reference))
    except Exception as exc:
        if missing(exc, _GONE):
            return False
        raise
    return _usable(file)


async def aexists(client: Any, reference: str, target: Target) -> bool:
    files = client.aio.files if hasattr(client, "aio") else client.files
    try:
        file = await files.get(name=_name(reference))
    except Exception as exc:
        if missing(exc, _GONE):
            return False
        raise
    return _usable(file)


def delete(client: Any, reference: str) -> bool:
    """``client.files.delete``: False when the file is gone already (403/404)."""
    return found(lambda: client.files.delete(name=_name(reference)), _GONE)


async def adelete(client: Any, reference: str) -> bool:
    files = client.aio.files if hasattr(client, "aio") else client.files
    return await afound(lambda: files.delete(name=_name(reference)), _GONE)
