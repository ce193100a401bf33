"""Anthropic Files (beta): ``client.beta.files.upload(file=...)`` -> ``file_...`` id.

Messages that refer to file ids need the ``files-api-2025-04-14`` beta on the call
(``client.beta.messages.create(..., betas=["files-api-2025-04-14"])``).
"""

from __future__ import annotations

from typing import Any

from ...providers._file_stores import reads_by_reference
from . import Target, Uploaded, UploadItem, afound, found, key_hash

STORE = "anthropic"
EXPIRES = False
EXPIRY_NOTE = "Anthropic keeps files until they are deleted (mb.delete_uploads(older_than=...))"
BETA = "files-api-2025-04-14"


def accepts(provider: str, kind: str, mime: str) -> bool:
    """Whether ``provider`` reads this block from the store by reference."""
    return reads_by_reference(provider, kind, mime)


def account(client: Any, target: Target) -> str:
    secret = getattr(client, "api_key", None) or getattr(client, "auth_token", None) or ""
    return f"{getattr(client, 'base_url', '')}|{key_hash(secret)}"


def _file(item: UploadItem) -> tuple[str, bytes, str]:
    return (item.filename, item.data, item.mime_type)


def send(client: Any, item: UploadItem, target: Target) -> Uploaded:
    created = client.beta.files.upload(file=_file(item), betas=[BETA])
    return Uploaded(created.id)  # checked by mb.upload: None is no id


async def asend(client: Any, item: UploadItem, target: Target) -> Uploaded:
    created = await client.beta.files.upload(file=_file(item), betas=[BETA])
    return Uploaded(created.id)  # checked by mb.upload: None is no id


def exists(client: Any, reference: str, target: Target) -> bool:
    """``client.beta.files.retrieve_metadata``: False on 404 (the file was deleted)."""
    return found(lambda: client.beta.files.retrieve_metadata(reference, betas=[BETA]))


async def aexists(client: Any, reference: str, target: Target) -> bool:
    return await afound(lambda: client.beta.files.retrieve_metadata(reference, betas=[BETA]))


def delete(client: Any, reference: str) -> bool:
    """``client.beta.files.delete``: False when Anthropic answers 404 (no such file)."""
    return found(lambda: client.beta.files.delete(reference, betas=[BETA]))


async def adelete(client: Any, reference: str) -> bool:
    return await afound(lambda: client.beta.files.delete(reference, betas=[BETA]))
