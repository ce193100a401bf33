"""What an upload cache uploaded: list it, and delete it at the provider.

Files in a provider's store cost storage (S3), count against quotas (OpenAI, Anthropic: files
stay until deleted) or hold data that should not outlive a session. `list_uploads` reads the
cache (`UploadCache.entries`: store, account, hash, reference, upload and expiry times);
`delete_uploads` deletes, through the SDK client you pass, the files one provider's store holds
for that client's account, optionally only those uploaded more than ``older_than`` ago, and
forgets them in the cache. A file the provider no longer has (expired, deleted elsewhere) counts
as deleted.
"""

from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Any

from ..errors import InvalidOptionError, MediaBlocksError, UploadError
from .cache import UploadCache, UploadEntry
from .stores import Target, uploader_for

__all__ = ["delete_uploads", "list_uploads"]

_STORES = ("openai", "anthropic", "gemini", "s3")


def _seconds(older_than: object) -> float | None:
    if older_than is None:
        return None
    if isinstance(older_than, timedelta):
        older_than = older_than.total_seconds()
    if (
        isinstance(older_than, bool)
        or not isinstance(older_than, (int, float))
        or not math.isfinite(older_than)
        or older_than < 0
    ):
        raise InvalidOptionError(
            f"older_than must be seconds >= 0 or a timedelta, got {older_than!r}"
        )
    return float(older_than)


def _entries(cache: UploadCache) -> list[UploadEntry]:
    entries = getattr(cache, "entries", None)
    if not callable(entries):
        raise InvalidOptionError(
            f"{cache!r} cannot list its entries (it has no entries() method): use "
            "mb.MemoryUploadCache or mb.DirectoryUploadCache, or add one"
        )
    found: list[UploadEntry] = list(entries())
    return found


def _store_of(provider: str | None) -> str | None:
    if provider is None:
        return None
    if provider in _STORES:
        return provider
    return str(uploader_for(provider)[1].STORE)


def list_uploads(
    cache: UploadCache, provider: str | None = None, *, older_than: float | timedelta | None = None
) -> list[UploadEntry]:
    """The files ``cache`` remembers uploading, oldest first.

    ``provider`` narrows to one file store: a provider name (``"bedrock"`` is the ``s3``
    store, both OpenAI APIs share ``openai``) or a store name. ``older_than`` (seconds or a
    `timedelta`) keeps those uploaded at least that long ago; entries from a cache written
    before upload times were kept (their age unknown) are then left out.
    """
    store = _store_of(provider)
    age = _seconds(older_than)
    now = time.time()
    out = []
    for entry in _entries(cache):
        if store is not None and entry.store != store:
            continue
        if age is not None and (entry.uploaded_at is None or entry.uploaded_at > now - age):
            continue
        out.append(entry)
    return out


def _owned(entry: UploadEntry, store: str, account: str, bucket: str | None) -> bool:
    """Whether the client's account holds this entry's file (for S3 without ``bucket``: the
    client's endpoint, any bucket)."""
    if store == "s3" and bucket is None:
        return entry.account.split("|", 1)[0] == account.split("|", 1)[0]
    return entry.account == account


def delete_uploads(
    cache: UploadCache,
    provider: str,
    client: Any,
    *,
    older_than: float | timedelta | None = None,
    account: str | None = None,
    bucket: str | None = None,
    prefix: str = "",
) -> list[UploadEntry]:
    """Delete at the provider the files ``cache`` uploaded to ``provider``'s store with this
    ``client``'s account, and forget them; the entries deleted are returned.

    ``older_than`` deletes only files uploaded at least that long ago. ``account`` is the one
    given to `upload`, if any. For S3 (``"bedrock"``) ``bucket`` and ``prefix`` narrow to
    one place (without ``bucket``: every bucket of the client's endpoint). The calls:
    OpenAI ``files.delete``, Anthropic ``beta.files.delete``, Gemini ``files.delete``, S3
    ``delete_object``. An SDK error raises `UploadError` naming the file; the entries deleted
    before it are forgotten already.
    """
    name, module = uploader_for(provider)
    store = str(module.STORE)
    target = Target(bucket or "-", prefix)
    owner = account or str(module.account(client, target))
    discard = getattr(cache, "discard", None)
    if not callable(discard):
        raise InvalidOptionError(f"{cache!r} cannot forget entries (it has no discard() method)")
    deleted = []
    for entry in list_uploads(cache, store, older_than=older_than):
        if not _owned(entry, store, owner, bucket):
            continue
        try:
            module.delete(client, entry.reference)
        except MediaBlocksError:
            raise
        except Exception as exc:  # the SDK's own errors
            raise UploadError(
                f"deleting {entry.reference!r} from the {store} file store for {name} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        discard(entry.key)
        deleted.append(entry)
    return deleted
