"""Uploaded media sent to any provider: its copy's id where there is one, its bytes elsewhere.

Every history is seen through `for_provider` before a translator reads it (`mb.encode`,
`encode_json`, whole requests, batch lines). A block `mb.upload` made holds its SHA-256 and its
copies in file stores (`FileIdSource.copies`). For a provider whose file store holds a usable
copy (not expiring within `EXPIRY_MARGIN` seconds, of a kind that provider reads by id) the
block goes out as that copy's id; for any other provider its bytes go inline, found by
`recover_bytes`: in memory, in the ``media_store``, or at its origin, and always checked against
the hash. With an ``uploader`` (`Uploader`), what the provider's store lacks is uploaded first
instead. A block whose copy for this provider has expired and whose bytes cannot be found raises
`ExpiredUploadError` before anything is sent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from ..errors import ExpiredUploadError, MediaBlocksError, SourceError
from ..fetching.policy import FetchPolicy
from ..media import MediaBlock
from ..messages import Message
from ..sources import STORE_PROVIDER, BytesSource, FileIdSource
from ..sources.media_store import MediaStore, checked_get
from ._file_stores import FILE_STORES, reads_by_reference
from ._media_walk import map_media, media_blocks

__all__ = [
    "EXPIRY_MARGIN",
    "for_provider",
    "is_portable_upload",
    "recover_bytes",
    "upload_resolver",
]

EXPIRY_MARGIN = 300.0
"""A copy expiring within this many seconds is not used: the request may still be in flight."""


def recover_bytes(
    source: FileIdSource, policy: FetchPolicy | None, media_store: MediaStore | None
) -> bytes:
    """The bytes of portable uploaded media: in memory, else in ``media_store``, else at its
    origin (under ``policy``); checked against the SHA-256. Raises `SourceError` saying where
    they were looked for."""
    if source.loaded:
        return source.read(policy)
    digest = source.sha256
    if digest is None:
        return source.read(policy)  # raises: a provider's file id, bytes never here
    if media_store is not None:
        data = checked_get(media_store, digest)
        if data is not None:
            source.keep_bytes(data)
            return data
    try:
        return source.read(policy)
    except SourceError as exc:
        where = "the media_store given" if media_store is not None else "no media_store given"
        raise type(exc)(f"{exc} ({where})") from None


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def for_provider(
    messages: Sequence[Message],
    provider: str,
    *,
    policy: FetchPolicy | None = None,
    media_store: MediaStore | None = None,
    uploader: Callable[[list[Message], str], list[Message]] | None = None,
) -> list[Message]:
    """``messages`` ready for ``provider``'s translator: every portable uploaded block as the
    plain file id of its copy in that provider's store, or inline bytes (see the module)."""
    listed = list(messages)
    if uploader is not None:  # a provider with no file store raises InvalidOptionError here
        listed = uploader(listed, provider)
    if not any(is_portable_upload(block) for _, block in media_blocks(listed)):
        return listed
    return map_media(listed, upload_resolver(provider, policy=policy, media_store=media_store))


def is_portable_upload(block: MediaBlock) -> bool:
    """True for a block `mb.upload` made: its copies are kept, its bytes found by hash."""
    source = block.source
    return isinstance(source, FileIdSource) and source.portable


def upload_resolver(
    provider: str, *, policy: FetchPolicy | None, media_store: MediaStore | None
) -> Callable[[MediaBlock], MediaBlock]:
    """What `for_provider` does to each media block, for one provider: a portable uploaded block
    as its copy's plain file id, or as inline bytes; any other block as it is."""
    store = FILE_STORES.get(provider)
    now = time.time()

    def change(block: MediaBlock) -> MediaBlock:
        source = block.source
        if not isinstance(source, FileIdSource) or not source.portable:
            return block
        kind = str(getattr(block, "type", "file"))
        if store is not None and reads_by_reference(provider, kind, block.mime_type):
            copy = source.copy_at(store, now=now, margin=EXPIRY_MARGIN)
            if copy is not None:
                plain = FileIdSource(file_id=copy.reference, provider=STORE_PROVIDER[copy.store])
                return block.model_copy(update={"source": plain})
        try:
            data = recover_bytes(source, policy, media_store)
        except MediaBlocksError as exc:
            ended = source.expired_at(store) if store is not None else None
            if ended is not None:
                raise ExpiredUploadError(
                    f"{block.describe()}: its {store or ''} file expired "
                    f"(or expires within {EXPIRY_MARGIN:.0f} s) at {_when(ended)}, and its "
                    f"bytes cannot be sent instead: {exc}; upload it again with mb.upload",
                    expired_at=ended,
                ) from None
            raise
        return block.model_copy(update={"source": BytesSource(data=data)})

    return change
