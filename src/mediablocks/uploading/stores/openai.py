"""OpenAI Files: ``client.files.create(file=..., purpose="user_data")`` -> ``file-...`` id.

Chat Completions refers to PDF files by id; the Responses API also to images. Audio stays
inline (OpenAI takes no audio file ids). ``expires_in`` becomes the file's ``expires_after``
(``{"anchor": "created_at", "seconds": ...}``, 3600 to 2,592,000 seconds): OpenAI deletes it then.
"""

from __future__ import annotations

import time
from typing import Any

from ...providers._file_stores import reads_by_reference
from . import Target, Uploaded, UploadItem, afound, found, key_hash

STORE = "openai"
EXPIRES = True
EXPIRY_NOTE = ""
MIN_EXPIRY, MAX_EXPIRY = 3600, 2_592_000  # one hour to 30 days, as the Files API accepts


def accepts(provider: str, kind: str, mime: str) -> bool:
    """Whether ``provider`` reads this block from the store by reference."""
    return reads_by_reference(provider, kind, mime)


def account(client: Any, target: Target) -> str:
    return f"{getattr(client, 'base_url', '')}|{key_hash(getattr(client, 'api_key', ''))}"


def _file(item: UploadItem) -> tuple[str, bytes, str]:
    return (item.filename, item.data, item.mime_type)


def _options(target: Target) -> dict[str, Any]:
    if target.expires_in is None:
        return {}
    return {"expires_after": {"anchor": "created_at", "seconds": target.expires_in}}


def _uploaded(created: Any, started: float, target: Target) -> Uploaded:
    expires = getattr(created, "expires_at", None)
    if not isinstance(expires, (int, float)) or isinstance(expires, bool):
        expires = started + target.expires_in if target.expires_in is not None else None
    # the id as the SDK gave it: mb.upload refuses None or an empty id, never sends "None"
    return Uploaded(created.id, float(expires) if expires is not None else None)


def send(client: Any, item: UploadItem, target: Target) -> Uploaded:
    started = time.time()
    created = client.files.create(file=_file(item), purpose="user_data", **_options(target))
    return _uploaded(created, started, target)


async def asend(client: Any, item: UploadItem, target: Target) -> Uploaded:
    started = time.time()
    created = await client.files.create(file=_file(item), purpose="user_data", **_options(target))
    return _uploaded(created, started, target)


def exists(client: Any, reference: str, target: Target) -> bool:
    """``client.files.retrieve``: False when OpenAI answers 404 (the file was deleted)."""
    return found(lambda: client.files.retrieve(reference))


async def aexists(client: Any, reference: str, target: Target) -> bool:
    return await afound(lambda: client.files.retrieve(reference))


def delete(client: Any, reference: str) -> bool:
    """``client.files.delete``: False when OpenAI answers 404 (no such file)."""
    return found(lambda: client.files.delete(reference))


async def adelete(client: Any, reference: str) -> bool:
    return await afound(lambda: client.files.delete(reference))
