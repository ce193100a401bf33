"""What one `mb.upload` call does: the blocks to replace and the distinct uploads they need.

A block is keyed by ``<store>|<account>|<sha256>``. Its reference comes, in this order, from the
block itself (portable media already holding a copy in this store and account), from the cache,
or from an upload; identical content is uploaded once per call and, through `_single_flight`,
once across concurrent calls. Bytes are read only when something must be uploaded: media already
uploaded elsewhere reaches a second store by its hash alone when the cache has it.
"""

from __future__ import annotations

import hashlib
import math
import mimetypes
import time
import warnings
from dataclasses import dataclass
from datetime import timedelta
from types import ModuleType
from typing import Any

from ..errors import InvalidOptionError, MediaBlocksError, UploadError
from ..fetching.policy import FetchPolicy
from ..media import MediaBlock
from ..message_input import MessagesLike, as_messages
from ..messages import Message
from ..providers._media_walk import map_media, media_blocks
from ..providers._uploaded import recover_bytes
from ..sources import (
    MAX_COPIES,
    STORE_PROVIDER,
    Base64Source,
    BytesSource,
    FileCopy,
    FileIdSource,
    PathSource,
)
from ..sources.media_store import MediaStore
from .cache import UploadCache, default_cache
from .stores import Target, Uploaded, UploadItem, uploader_for

__all__ = ["Pending", "Plan", "check_expiry", "check_options"]


@dataclass
class Pending:
    """One distinct content to refer to, and the first block that holds it."""

    key: str
    block: MediaBlock
    where: str
    digest: str
    size: int
    data: bytes | None
    reference: str | None = None
    uploaded_at: float | None = None
    expires_at: float | None = None


def check_options(
    min_bytes: object, wait: object, bucket: object, prefix: object, account: object, verify: object
) -> None:
    """Refuse option values that would misbehave later (``wait=nan`` polling forever...)."""
    if isinstance(min_bytes, bool) or not isinstance(min_bytes, int) or min_bytes < 0:
        raise InvalidOptionError(f"mb.upload: min_bytes must be an integer >= 0, got {min_bytes!r}")
    if (
        isinstance(wait, bool)
        or not isinstance(wait, (int, float))
        or not math.isfinite(wait)
        or wait < 0
    ):
        raise InvalidOptionError(f"mb.upload: wait must be a finite number >= 0, got {wait!r}")
    for name, value in (("bucket", bucket), ("account", account)):
        if value is not None and (not isinstance(value, str) or not value):
            raise InvalidOptionError(f"mb.upload: {name} must be a non-empty string, got {value!r}")
    if not isinstance(prefix, str):
        raise InvalidOptionError(f"mb.upload: prefix must be a string, got {prefix!r}")
    if not isinstance(verify, bool):
        raise InvalidOptionError(f"mb.upload: verify must be True or False, got {verify!r}")


def check_expiry(expires_in: object, provider: str, module: ModuleType) -> int | None:
    """``expires_in`` as whole seconds, where the provider can delete a file after a delay."""
    if expires_in is None:
        return None
    if isinstance(expires_in, timedelta):
        expires_in = expires_in.total_seconds()
    if (
        isinstance(expires_in, bool)
        or not isinstance(expires_in, (int, float))
        or not math.isfinite(expires_in)
    ):
        raise InvalidOptionError(
            f"mb.upload: expires_in must be seconds or a timedelta, got {expires_in!r}"
        )
    if not module.EXPIRES:
        raise InvalidOptionError(
            f"mb.upload: expires_in is not offered by {provider}: {module.EXPIRY_NOTE}"
        )
    seconds = int(expires_in)
    if not module.MIN_EXPIRY <= seconds <= module.MAX_EXPIRY:
        raise InvalidOptionError(
            f"mb.upload: expires_in for {provider} must be {module.MIN_EXPIRY} to "
            f"{module.MAX_EXPIRY} seconds (one hour to 30 days), got {expires_in!r}"
        )
    return seconds


class Plan:
    """The blocks of one `upload` call to replace, and the distinct contents they need."""

    def __init__(
        self,
        messages: MessagesLike,
        provider: str,
        client: Any,
        *,
        min_bytes: int,
        cache: UploadCache | None,
        account: str | None,
        target: Target,
        policy: FetchPolicy | None,
        verify: bool,
        media_store: MediaStore | None,
    ) -> None:
        check_options(min_bytes, target.wait, target.bucket, target.prefix, account, verify)
        if cache is not None and not (
            callable(getattr(cache, "get", None)) and callable(getattr(cache, "put", None))
        ):
            raise InvalidOptionError(
                f"mb.upload: cache must have get() and put() (an UploadCache), got {cache!r}"
            )
        if media_store is not None and not all(
            callable(getattr(media_store, name, None)) for name in ("put", "get", "find")
        ):
            raise InvalidOptionError(
                f"mb.upload: media_store must have put(), get() and find(), got {media_store!r}"
            )
        self.provider, self.module = uploader_for(provider)
        self.client = client
        self.target = target
        self.policy = policy
        self.media_store = media_store
        self.cache: UploadCache = cache if cache is not None else default_cache(client)
        self.messages = as_messages(messages, "upload")
        self.store: str = self.module.STORE
        self.account = account or str(self.module.account(client, target))
        self.prefix = f"{self.store}|{self.account}|"
        self.pending: dict[str, Pending] = {}
        self.keys: dict[int, str] = {}  # id(block) -> content key
        for where, block in media_blocks(self.messages):
            self._consider(block, where, min_bytes)
        self.to_verify = [p for p in self.pending.values() if p.reference] if verify else []

    def _copy(self, source: FileIdSource) -> FileCopy | None:
        """The block's own usable copy in this store and account, if it has one."""
        now = time.time()
        for copy in reversed(source.copies):
            if (
                copy.store == self.store
                and copy.account in (None, self.account)
                and not copy.expired(now)
            ):
                return copy
        return None

    def _consider(self, block: MediaBlock, where: str, min_bytes: int) -> None:
        source = block.source
        if id(block) in self.keys:
            return
        kind: str = getattr(block, "type", "file")
        copy: FileCopy | None = None
        if isinstance(source, FileIdSource):
            if source.sha256 is None or not self.module.accepts(
                self.provider, kind, block.mime_type
            ):
                return
            if (source.size or 0) < min_bytes:
                return
            digest, size = source.sha256, source.size or 0
            data = source.read() if source.loaded else None
            copy = self._copy(source)
        elif isinstance(source, (BytesSource, Base64Source, PathSource)):
            if not self.module.accepts(self.provider, kind, block.mime_type):
                return
            data = block.read(self.policy)
            if len(data) < min_bytes:
                return
            digest, size = hashlib.sha256(data).hexdigest(), len(data)
        else:
            return
        key = self.prefix + digest
        self.keys[id(block)] = key
        known = self.pending.get(key)
        if known is not None:
            if known.data is None:
                known.data = data
            return
        if block.filename:
            where += f" ({block.filename!r})"
        pending = Pending(key, block, where, digest, size, data)
        if copy is not None:
            pending.reference = copy.reference
            pending.uploaded_at, pending.expires_at = copy.uploaded_at, copy.expires_at
        else:
            pending.reference = self.cache.get(key)
            entry = getattr(self.cache, "entry", None)
            found = entry(key) if pending.reference is not None and callable(entry) else None
            if found is not None:
                pending.uploaded_at, pending.expires_at = found.uploaded_at, found.expires_at
        self.pending[key] = pending

    def checked(self, pending: Pending, still_there: bool) -> None:
        """After a look-up of a known reference: forget it when the provider no longer has it."""
        if not still_there:
            discard = getattr(self.cache, "discard", None)
            if callable(discard):
                discard(pending.key)
            pending.reference = None

    def to_send(self) -> list[Pending]:
        return [p for p in self.pending.values() if p.reference is None]

    def item(self, pending: Pending) -> UploadItem:
        """The bytes to upload: in hand, or found again (memory, media store, origin)."""
        data = pending.data
        if data is None:
            source = pending.block.source
            assert isinstance(source, FileIdSource)
            try:
                data = recover_bytes(source, self.policy, self.media_store)
            except MediaBlocksError as exc:
                raise UploadError(
                    f"{pending.where} {pending.block.describe()}: cannot upload it to the "
                    f"{self.store} file store: {exc}"
                ) from exc
            pending.data = data
        block = pending.block
        kind: str = getattr(block, "type", "file")
        extension = mimetypes.guess_extension(block.mime_type) or ""
        filename = block.filename or f"{kind}-{pending.digest[:12]}{extension}"
        return UploadItem(data, block.mime_type, filename, pending.digest)

    def record(self, pending: Pending, uploaded: Uploaded) -> None:
        """Keep a finished upload's reference (and cache it); an SDK answer with no usable
        reference (``None``, empty, not text) is an `UploadError`, never cached or sent."""
        reference: object = uploaded.reference
        if not isinstance(reference, str) or not reference.strip():
            raise UploadError(
                f"{pending.where} {pending.block.describe()}: the {self.store} file store "
                f"for {self.provider} answered the upload without a file reference "
                f"({type(reference).__name__} {reference!r}); nothing was cached or sent"
            )
        pending.reference = reference
        pending.uploaded_at, pending.expires_at = time.time(), uploaded.expires_at
        try:
            self.cache.put(pending.key, uploaded.reference, uploaded.expires_at)
        except MediaBlocksError as exc:  # the upload happened: its reference is still used
            warnings.warn(
                f"mb.upload: {pending.where}: uploaded as {uploaded.reference!r} but the cache "
                f"could not store it ({exc}); it will be uploaded again next time",
                stacklevel=4,
            )

    def failure(self, pending: Pending, exc: BaseException, what: str = "upload") -> UploadError:
        status, retry_after = answer_of(exc)
        return UploadError(
            f"{pending.where} {pending.block.describe()}: {what} at the {self.store} "
            f"file store for {self.provider} failed: {type(exc).__name__}: {exc}",
            status=status,
            retry_after=retry_after,
            block=pending.block,
        )

    def followed(self, pending: Pending, exc: BaseException) -> UploadError:
        return UploadError(
            f"{pending.where} {pending.block.describe()}: the upload of the same bytes by "
            f"another call failed: {exc}",
            status=getattr(exc, "status", None),
            retry_after=getattr(exc, "retry_after", None),
            block=pending.block,
        )

    def result(self) -> list[Message]:
        """The messages with each planned block holding its copy in this store (and its
        earlier copies, its hash and origin); the bytes stay in memory where they were."""
        if self.media_store is not None:
            for pending in self.pending.values():
                if pending.data is not None:
                    self.media_store.put(pending.data)
        return map_media(self.messages, self._swap)

    def _swap(self, block: MediaBlock) -> MediaBlock:
        key = self.keys.get(id(block))
        if key is None:
            return block
        pending = self.pending[key]
        assert pending.reference is not None
        old = block.source
        copies = list(old.copies) if isinstance(old, FileIdSource) else []
        copies = [c for c in copies if (c.store, c.account) != (self.store, self.account)]
        copies.append(
            FileCopy(
                store=self.store,
                reference=pending.reference,
                account=self.account,
                uploaded_at=pending.uploaded_at,
                expires_at=pending.expires_at,
            )
        )
        origin = old.origin if isinstance(old, FileIdSource) else None
        if isinstance(old, PathSource):
            origin = PathSource(path=old.path)
        source = FileIdSource(
            file_id=pending.reference,
            provider=STORE_PROVIDER[self.store],
            sha256=pending.digest,
            size=pending.size,
            copies=tuple(copies[-MAX_COPIES:]),
            origin=origin,
        )
        data = pending.data if pending.data is not None else None
        if data is None and old.loaded and not isinstance(old, FileIdSource):
            data = old.read()
        if data is not None:
            source.keep_bytes(data)
        return block.model_copy(update={"source": source, "declared_mime": block.mime_type})


def answer_of(exc: BaseException) -> tuple[int | None, object]:
    """``(HTTP status, Retry-After value)`` from an SDK's exception, as far as it says: OpenAI,
    Anthropic and Mistral (``status_code``, ``response.headers``), google-genai (``code``),
    botocore (``response["ResponseMetadata"]``); ``(None, None)`` when it says nothing."""
    status: object = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(exc, "code", None)
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    raw = getattr(exc, "response", None)
    if isinstance(raw, dict):  # botocore's ClientError
        metadata = raw.get("ResponseMetadata")
        if isinstance(metadata, dict):
            status = metadata.get("HTTPStatusCode", status)
            headers = metadata.get("HTTPHeaders")
    retry_after = None
    if headers is not None:
        try:
            retry_after = headers.get("retry-after")
        except Exception:  # a headers object of another shape: no hint
            retry_after = None
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        status = None
    return status, retry_after
