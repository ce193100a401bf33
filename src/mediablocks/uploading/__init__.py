"""Send media to a provider's file store and refer to it by id instead of inline bytes.

`upload` walks the messages (tool results included), uploads each media block the provider can
refer to by file reference through the official SDK client the caller passes, and returns new
messages whose blocks hold a `FileIdSource` (OpenAI and Anthropic file ids, Gemini file URIs,
``s3://`` URIs for Bedrock). `mb.encode` then sends the reference, so a request carries a few
bytes per file instead of megabytes of base64.

Identical bytes are uploaded once: blocks are keyed by file store, account and SHA-256, looked
up in an `UploadCache`, and deduplicated within the call. Blocks already referenced (URLs, file
ids), blocks under ``min_bytes``, and kinds the provider cannot refer to by id (audio for
OpenAI, say) are left as they are.
"""

from __future__ import annotations

import hashlib
import math
import mimetypes
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..blocks import ToolResultBlock
from ..errors import InvalidOptionError, MediaBlocksError, UploadError
from ..fetching.policy import FetchPolicy
from ..media import MediaBlock
from ..message_input import MessagesLike, as_messages
from ..messages import Message
from ..sources import BytesSource, FileIdSource, PathSource
from ._single_flight import join, land
from .cache import MemoryUploadCache, UploadCache
from .stores import Target, Uploaded, UploadItem, uploader_for

__all__ = ["aupload", "upload"]


@dataclass
class _Pending:
    """One distinct content to upload and every block that holds it."""

    key: str
    item: UploadItem
    block: MediaBlock
    where: str
    reference: str | None = None


def _check_options(
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


class _Plan:
    """What one `upload` call does: the blocks to replace and the distinct uploads they need."""

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
    ) -> None:
        _check_options(min_bytes, target.wait, target.bucket, target.prefix, account, verify)
        if cache is not None and not (
            callable(getattr(cache, "get", None)) and callable(getattr(cache, "put", None))
        ):
            raise InvalidOptionError(
                f"mb.upload: cache must have get() and put() (an UploadCache), got {cache!r}"
            )
        self.provider, self.module = uploader_for(provider)
        self.client = client
        self.target = target
        self.cache: UploadCache = cache if cache is not None else MemoryUploadCache()
        self.messages = as_messages(messages, "upload")
        store: str = self.module.STORE
        self.prefix = f"{store}|{account or self.module.account(client, target)}|"
        self.pending: dict[str, _Pending] = {}
        self.keys: dict[int, str] = {}  # id(block) -> content key
        for where, block in _media_blocks(self.messages):
            self._consider(block, where, min_bytes, policy)
        self.to_verify = [p for p in self.pending.values() if p.reference] if verify else []

    def _consider(
        self, block: MediaBlock, where: str, min_bytes: int, policy: FetchPolicy | None
    ) -> None:
        if not isinstance(block.source, (BytesSource, PathSource)) or id(block) in self.keys:
            return
        kind: str = getattr(block, "type", "file")
        if not self.module.accepts(self.provider, kind, block.mime_type):
            return
        data = block.read(policy)
        if len(data) < min_bytes:
            return
        digest = hashlib.sha256(data).hexdigest()
        key = self.prefix + digest
        self.keys[id(block)] = key
        if key not in self.pending:
            filename = block.filename or f"{kind}-{digest[:12]}{_extension(block.mime_type)}"
            item = UploadItem(data, block.mime_type, filename, digest)
            if block.filename:
                where += f" ({block.filename!r})"
            pending = _Pending(key, item, block, where, self.cache.get(key))
            self.pending[key] = pending

    def checked(self, pending: _Pending, still_there: bool) -> None:
        """After a look-up of a cached reference: forget it when the provider no longer has it."""
        if not still_there:
            discard = getattr(self.cache, "discard", None)
            if callable(discard):
                discard(pending.key)
            pending.reference = None

    def to_send(self) -> list[_Pending]:
        return [p for p in self.pending.values() if p.reference is None]

    def record(self, pending: _Pending, uploaded: Uploaded) -> None:
        pending.reference = uploaded.reference
        try:
            self.cache.put(pending.key, uploaded.reference, uploaded.expires_at)
        except MediaBlocksError as exc:  # the upload happened: its reference is still used
            warnings.warn(
                f"mb.upload: {pending.where}: uploaded as {uploaded.reference!r} but the cache "
                f"could not store it ({exc}); it will be uploaded again next time",
                stacklevel=4,
            )

    def failure(self, pending: _Pending, exc: BaseException, what: str = "upload") -> UploadError:
        status, retry_after = answer_of(exc)
        return UploadError(
            f"{pending.where} {pending.block.describe()}: {what} at the {self.module.STORE} "
            f"file store for {self.provider} failed: {type(exc).__name__}: {exc}",
            status=status,
            retry_after=retry_after,
            block=pending.block,
        )

    def followed(self, pending: _Pending, exc: BaseException) -> UploadError:
        return UploadError(
            f"{pending.where} {pending.block.describe()}: the upload of the same bytes by "
            f"another call failed: {exc}",
            status=getattr(exc, "status", None),
            retry_after=getattr(exc, "retry_after", None),
            block=pending.block,
        )

    def result(self) -> list[Message]:
        store = "bedrock" if self.module.STORE == "s3" else self.module.STORE

        def swap(block: MediaBlock) -> MediaBlock:
            key = self.keys.get(id(block))
            if key is None:
                return block
            reference = self.pending[key].reference
            assert reference is not None
            source = FileIdSource(file_id=reference, provider=store)
            return block.model_copy(update={"source": source, "declared_mime": block.mime_type})

        return _map_media(self.messages, swap)


def _send_one(plan: _Plan, pending: _Pending) -> None:
    """Upload one content, or wait for the call already uploading the same bytes."""
    flight, leads = join(pending.key)
    if not leads:
        try:
            pending.reference = flight.result()
        except BaseException as exc:
            raise plan.followed(pending, exc) from exc
        return
    error: BaseException | None = None
    try:
        pending.reference = plan.cache.get(pending.key)  # another call may have just finished
        if pending.reference is None:
            try:
                uploaded = plan.module.send(plan.client, pending.item, plan.target)
            except MediaBlocksError:
                raise
            except Exception as exc:  # the SDK's own errors, whatever their class
                raise plan.failure(pending, exc) from exc
            plan.record(pending, uploaded)
    except BaseException as exc:
        error = exc
        raise
    finally:
        land(pending.key, flight, pending.reference, error)


def upload(
    messages: MessagesLike,
    provider: str,
    client: Any,
    *,
    min_bytes: int = 0,
    cache: UploadCache | None = None,
    account: str | None = None,
    bucket: str | None = None,
    prefix: str = "",
    wait: float = 300.0,
    policy: FetchPolicy | None = None,
    verify: bool = True,
) -> list[Message]:
    """New messages whose media live in ``provider``'s file store, referred to by id or URI.

    ``client`` is the official SDK client: ``openai.OpenAI`` (Files API, ``purpose="user_data"``),
    ``anthropic.Anthropic`` (beta Files API), ``google.genai.Client`` (Files API), or a boto3 S3
    client for ``bedrock`` with ``bucket`` (and ``prefix``) naming where objects go.

    ``min_bytes``: upload only blocks of at least this many bytes (0, the default: all).
    ``cache``: where references are remembered across calls (default: this call only).
    ``account``: the cache's account key (default: derived from the client's endpoint and key).
    ``wait``: seconds to wait for a Gemini file still processing.
    ``verify``: look each reference found in the cache up at the provider (one metadata request)
    and upload again when the provider no longer has the file (False: trust the cache).
    Identical bytes are uploaded once even across concurrent calls (threads or tasks).
    An SDK error raises `UploadError` naming the block; a bad option `InvalidOptionError`.
    """
    plan = _Plan(
        messages,
        provider,
        client,
        min_bytes=min_bytes,
        cache=cache,
        account=account,
        target=Target(bucket, prefix, wait),
        policy=policy,
        verify=verify,
    )
    for pending in plan.to_verify:
        assert pending.reference is not None
        try:
            still_there = plan.module.exists(client, pending.reference, plan.target)
        except MediaBlocksError:
            raise
        except Exception as exc:
            raise plan.failure(pending, exc, "the look-up of a cached file") from exc
        plan.checked(pending, bool(still_there))
    for pending in plan.to_send():
        _send_one(plan, pending)
    return plan.result()


async def aupload(
    messages: MessagesLike,
    provider: str,
    client: Any,
    *,
    min_bytes: int = 0,
    cache: UploadCache | None = None,
    account: str | None = None,
    bucket: str | None = None,
    prefix: str = "",
    wait: float = 300.0,
    policy: FetchPolicy | None = None,
    concurrency: int = 4,
    verify: bool = True,
) -> list[Message]:
    """`upload` for asyncio: ``client`` is the SDK's async client (``AsyncOpenAI``,
    ``AsyncAnthropic``, a ``google.genai.Client`` whose ``.aio`` is used, or a boto3 S3 client
    run in threads). Up to ``concurrency`` uploads run at once."""
    import asyncio  # loaded by the first asynchronous upload, not by the package

    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise InvalidOptionError(f"mb.aupload: concurrency must be >= 1, got {concurrency!r}")
    plan = _Plan(
        messages,
        provider,
        client,
        min_bytes=min_bytes,
        cache=cache,
        account=account,
        target=Target(bucket, prefix, wait),
        policy=policy,
        verify=verify,
    )
    module: ModuleType = plan.module
    gate = asyncio.Semaphore(concurrency)

    async def check(pending: _Pending) -> None:
        assert pending.reference is not None
        async with gate:
            try:
                still_there = await module.aexists(client, pending.reference, plan.target)
            except MediaBlocksError:
                raise
            except Exception as exc:
                raise plan.failure(pending, exc, "the look-up of a cached file") from exc
        plan.checked(pending, bool(still_there))

    async def one(pending: _Pending) -> None:
        flight, leads = join(pending.key)
        if not leads:
            try:
                pending.reference = await asyncio.wrap_future(flight)
            except BaseException as exc:
                raise plan.followed(pending, exc) from exc
            return
        error: BaseException | None = None
        try:
            pending.reference = plan.cache.get(pending.key)
            if pending.reference is None:
                async with gate:
                    try:
                        uploaded = await module.asend(client, pending.item, plan.target)
                    except MediaBlocksError:
                        raise
                    except Exception as exc:
                        raise plan.failure(pending, exc) from exc
                plan.record(pending, uploaded)
        except BaseException as exc:
            error = exc
            raise
        finally:
            land(pending.key, flight, pending.reference, error)

    await asyncio.gather(*(check(pending) for pending in plan.to_verify))
    await asyncio.gather(*(one(pending) for pending in plan.to_send()))
    return plan.result()


def _extension(mime: str) -> str:
    return mimetypes.guess_extension(mime) or ""


def _media_blocks(messages: list[Message]) -> list[tuple[str, MediaBlock]]:
    """Every media block with where it sits (``message 2 block 0 item 1`` inside a tool result)."""
    found: list[tuple[str, MediaBlock]] = []
    for m, message in enumerate(messages):
        for b, block in enumerate(message.content):
            if isinstance(block, MediaBlock):
                found.append((f"message {m} block {b}", block))
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                found.extend(
                    (f"message {m} block {b} item {i}", item)
                    for i, item in enumerate(block.content)
                    if isinstance(item, MediaBlock)
                )
    return found


def _map_media(
    messages: list[Message], change: Callable[[MediaBlock], MediaBlock]
) -> list[Message]:
    """``messages`` with every media block (tool results included) passed through ``change``;
    messages with nothing changed are the same objects."""
    out: list[Message] = []
    for message in messages:
        content: list[Any] = []
        touched = False
        for block in message.content:
            new: Any = block
            if isinstance(block, MediaBlock):
                new = change(block)
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                items = [change(i) if isinstance(i, MediaBlock) else i for i in block.content]
                if any(a is not b for a, b in zip(items, block.content, strict=True)):
                    new = block.model_copy(update={"content": items})
            touched = touched or new is not block
            content.append(new)
        out.append(message.model_copy(update={"content": content}) if touched else message)
    return out


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
