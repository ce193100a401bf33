"""OpenAI Files: ``client.files.create(file=..., purpose="user_data")`` -> ``file-...`` id.

Chat Completions refers to PDF files by id; the Responses API also to images. Audio stays
inline (OpenAI takes no audio file ids).
"""

from __future__ import annotations

from typing import Any

from . import Target, Uploaded, UploadItem, key_hash, missing

STORE = "openai"
_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})


def accepts(provider: str, kind: str, mime: str) -> bool:
    """PDF files for Chat; images and any file for Responses."""
    if provider == "openai-responses":
        return kind == "file" or (kind == "image" and mime in _IMAGES)
    return kind == "file" and mime == "application/pdf"


def account(client: Any, target: Target) -> str:
    return f"{getattr(client, 'base_url', '')}|{key_hash(getattr(client, 'api_key', ''))}"


def _file(item: UploadItem) -> tuple[str, bytes, str]:
    return (item.filename, item.data, item.mime_type)


def send(client: Any, item: UploadItem, target: Target) -> Uploaded:
    created = client.files.create(file=_file(item), purpose="user_data")
    return Uploaded(created.id)  # checked by mb.upload: None is no id


async def asend(client: Any, item: UploadItem, target: Target) -> Uploaded:
    created = await client.files.create(file=_file(item), purpose="user_data")
    return Uploaded(created.id)  # checked by mb.upload: None is no id


def exists(client: Any, reference: str, target: Target) -> bool:
    """``client.files.retrieve``: False when OpenAI answers 404 (the file was deleted)."""
    try:
        client.files.retrieve(reference)
    except Exception as exc:
        if missing(exc):
            return False
        raise
    return True


async def aexists(client: Any, reference: str, target: Target) -> bool:
    try:
        await client.files.retrieve(reference)
    except Exception as exc:
        if missing(exc):
            return False
        raise
    return True
