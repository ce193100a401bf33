"""Which file store each provider reads media from by reference, and which media it reads so.

Provider knowledge, kept below the translators and the uploaders alike: `mb.encode` sends an
uploaded block's copy only where the provider reads it by id (`_uploaded`), and `mb.upload` puts
in a store only what its provider will read from there (`mediablocks.uploading.stores`).
"""

from __future__ import annotations

__all__ = ["FILE_STORES", "reads_by_reference"]

FILE_STORES: dict[str, str] = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "s3",
}
"""Canonical provider name -> the file store it reads references from."""

_WEB_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
_ANTHROPIC_DOCUMENTS = frozenset({"application/pdf", "text/plain"})


def reads_by_reference(provider: str, kind: str, mime: str) -> bool:
    """Whether ``provider`` (canonical) reads a ``kind`` block (``image``, ``audio``,
    ``video``, ``file``) of type ``mime`` from its file store by reference.

    OpenAI Chat: PDF files; Responses: images and any file; Anthropic: images and PDF or
    plain-text documents; Gemini and Bedrock (S3): every kind.
    """
    store = FILE_STORES.get(provider)
    if store == "openai":
        if provider == "openai-responses":
            return kind == "file" or (kind == "image" and mime in _WEB_IMAGES)
        return kind == "file" and mime == "application/pdf"
    if store == "anthropic":
        return (kind == "image" and mime in _WEB_IMAGES) or (
            kind == "file" and mime in _ANTHROPIC_DOCUMENTS
        )
    return store is not None
