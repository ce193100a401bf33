"""Send media to a provider's file store and refer to it by id instead of inline bytes.

`upload` walks the messages (tool results included), uploads each media block the provider can
refer to by file reference through the official SDK client the caller passes, and returns new
messages whose blocks hold a `FileIdSource` (OpenAI and Anthropic file ids, Gemini file URIs,
``s3://`` URIs for Bedrock). `mb.encode` then sends the reference, so a request carries a few
bytes per file instead of megabytes of base64.

Uploaded media stays portable: each block keeps the SHA-256 and size of its bytes, every copy
it has in a file store (ids at several providers), the path it was read from, and, in this
process, the bytes themselves. `mb.encode` for a provider whose store has no copy sends the
bytes inline (`portable`); `upload` to a second provider reuses the hash (no read when the
cache knows it) and adds a copy.

Identical bytes are uploaded once: blocks are keyed by file store, account and SHA-256, looked
up in an `UploadCache`, and deduplicated within the call. Blocks already referenced (URLs, file
ids from a provider's payload), blocks under ``min_bytes``, and kinds the provider cannot refer
to by id (audio for OpenAI, say) are left as they are. `list_uploads` and `delete_uploads`
(in `lifecycle`) list and delete what a cache uploaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import ModuleType
from typing import Any

from typing_extensions import TypedDict, Unpack

from ..errors import InvalidOptionError, MediaBlocksError
from ..fetching.policy import FetchPolicy, fetch_budget
from ..message_input import MessagesLike
from ..messages import Message
from ..sources.media_store import MediaStore
from ._plan import Pending, Plan, check_expiry
from ._single_flight import join, land
from .cache import UploadCache
from .lifecycle import delete_uploads, list_uploads
from .stores import Target

__all__ = ["UploadKeywords", "Uploader", "aupload", "delete_uploads", "list_uploads", "upload"]


class UploadKeywords(TypedDict, total=False):
    """The keyword options of `upload` and `aupload`, written once (each is described on
    `upload`; the defaults are `_DEFAULTS`)."""

    min_bytes: int
    cache: UploadCache | None
    account: str | None
    bucket: str | None
    prefix: str
    wait: float
    policy: FetchPolicy | None
    verify: bool
    expires_in: float | timedelta | None
    media_store: MediaStore | None


_DEFAULTS: dict[str, Any] = {
    "min_bytes": 0,
    "cache": None,
    "account": None,
    "bucket": None,
    "prefix": "",
    "wait": 300.0,
    "policy": None,
    "verify": True,
    "expires_in": None,
    "media_store": None,
}


def _send_one(plan: Plan, pending: Pending) -> None:
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
                uploaded = plan.module.send(plan.client, plan.item(pending), plan.target)
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
    **options: Unpack[UploadKeywords],
) -> list[Message]:
    """New messages whose media live in ``provider``'s file store, referred to by id or URI.

    ``client`` is the official SDK client: ``openai.OpenAI`` (Files API, ``purpose="user_data"``),
    ``anthropic.Anthropic`` (beta Files API), ``google.genai.Client`` (Files API), or a boto3 S3
    client for ``bedrock`` with ``bucket`` (and ``prefix``) naming where objects go.

    The keyword options (`UploadKeywords`):
    ``min_bytes``: upload only blocks of at least this many bytes (0, the default: all).
    ``cache``: where references are remembered across calls (default: an in-memory cache kept
    with the ``client`` object, so the same client uploads the same bytes once while it lives).
    ``account``: the cache's account key (default: derived from the client's endpoint and key).
    ``wait``: seconds to wait for a Gemini file still processing.
    ``verify``: look each reference found in the cache (or in a block's own copies) up at the
    provider (one metadata request) and upload again when the provider no longer has the file
    (False: trust them).
    ``expires_in``: seconds (or a `timedelta`) after which the provider deletes the file, where
    it offers that (OpenAI's ``expires_after``: one hour to 30 days); elsewhere it raises
    `InvalidOptionError` saying what the provider does instead.
    ``media_store``: a `MediaStore` where the bytes of every uploaded block are kept, so the
    history (saved without bytes) can still be sent inline to another provider, and where the
    bytes of media uploaded earlier are looked for when this provider needs them.
    Media uploaded before (to any provider) keeps its copies and gains one here; its bytes are
    read only if this store has no copy and the cache does not know the hash.
    Identical bytes are uploaded once even across concurrent calls (threads or tasks).
    An SDK error raises `UploadError` naming the block; a bad option `InvalidOptionError`.
    """
    with fetch_budget():  # one FetchPolicy.max_total_bytes for every URL this call reads
        plan = _plan(messages, provider, client, options, "upload")
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
    concurrency: int = 4,
    **options: Unpack[UploadKeywords],
) -> list[Message]:
    """`upload` for asyncio: ``client`` is the SDK's async client (``AsyncOpenAI``,
    ``AsyncAnthropic``, a ``google.genai.Client`` whose ``.aio`` is used, or a boto3 S3 client
    run in threads). Up to ``concurrency`` uploads run at once."""
    import asyncio  # loaded by the first asynchronous upload, not by the package

    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise InvalidOptionError(f"mb.aupload: concurrency must be >= 1, got {concurrency!r}")
    with fetch_budget():
        plan = _plan(messages, provider, client, options, "aupload")
        module: ModuleType = plan.module
        gate = asyncio.Semaphore(concurrency)

        async def check(pending: Pending) -> None:
            assert pending.reference is not None
            async with gate:
                try:
                    still_there = await module.aexists(client, pending.reference, plan.target)
                except MediaBlocksError:
                    raise
                except Exception as exc:
                    raise plan.failure(pending, exc, "the look-up of a cached file") from exc
            plan.checked(pending, bool(still_there))

        async def one(pending: Pending) -> None:
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
                            uploaded = await module.asend(client, plan.item(pending), plan.target)
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


def _plan(
    messages: MessagesLike, provider: str, client: Any, options: Mapping[str, Any], function: str
) -> Plan:
    """The plan of one call, from its keywords; a keyword ``function`` does not take is the
    `TypeError` Python raises for any unknown keyword argument."""
    from .stores import uploader_for

    unknown = sorted(options.keys() - _DEFAULTS.keys())
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    chosen = {**_DEFAULTS, **options}
    name, module = uploader_for(provider)
    seconds = check_expiry(chosen.pop("expires_in"), name, module)
    target = Target(chosen.pop("bucket"), chosen.pop("prefix"), chosen.pop("wait"), seconds)
    return Plan(messages, provider, client, target=target, **chosen)


@dataclass
class Uploader:
    """A client and `upload` options, for `mb.encode(..., uploader=...)`: media the provider's
    file store has no copy of are uploaded before the request is encoded, instead of inlined.

    ``options`` are `upload`'s keyword arguments (``bucket=``, ``expires_in=``...). Without a
    ``cache``, the client's own in-memory cache is used (as `upload` does), so encoding the next
    turn uploads only what is new.
    """

    client: Any
    cache: UploadCache | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.options) - _UPLOAD_OPTIONS
        if unknown:
            raise InvalidOptionError(f"Uploader: unknown upload option(s) {sorted(unknown)}")

    def __call__(self, messages: list[Message], provider: str) -> list[Message]:
        return upload(messages, provider, self.client, cache=self.cache, **self.options)


_UPLOAD_OPTIONS = _DEFAULTS.keys() - {"cache"}
"""The `upload` options an `Uploader` takes in ``options`` (its cache is its own field)."""
