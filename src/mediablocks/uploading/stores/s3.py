"""S3 for Bedrock: ``client.put_object(...)`` on a boto3/botocore S3 client -> ``s3://`` URI.

The object key is ``<prefix><sha256><extension>``, so the same bytes land on the same key.
boto3 has no async API: `asend` runs the call in a worker thread.
"""

from __future__ import annotations

import asyncio
import mimetypes
from typing import Any

from ...errors import InvalidOptionError, TooLargeError
from ...providers._file_stores import reads_by_reference
from . import Target, Uploaded, UploadItem, found, missing

STORE = "s3"
EXPIRES = False
EXPIRY_NOTE = (
    "S3 deletes objects by the bucket's lifecycle rules, not per upload "
    "(or mb.delete_uploads(older_than=...))"
)


def accepts(provider: str, kind: str, mime: str) -> bool:
    """Whether ``provider`` reads this block from the store by reference."""
    return reads_by_reference(provider, kind, mime)


def account(client: Any, target: Target) -> str:
    endpoint = getattr(getattr(client, "meta", None), "endpoint_url", "")
    return f"{endpoint}|{_bucket(target)}|{target.prefix}"


def _bucket(target: Target) -> str:
    if not target.bucket:
        raise InvalidOptionError("mb.upload to bedrock needs bucket='...' (and optionally prefix)")
    return target.bucket


def _key(item: UploadItem, target: Target) -> str:
    extension = mimetypes.guess_extension(item.mime_type) or ""
    return f"{target.prefix}{item.sha256}{extension}"


def send(client: Any, item: UploadItem, target: Target) -> Uploaded:
    bucket, key = _bucket(target), _key(item, target)
    client.put_object(Bucket=bucket, Key=key, Body=item.data, ContentType=item.mime_type)
    return Uploaded(f"s3://{bucket}/{key}")


async def asend(client: Any, item: UploadItem, target: Target) -> Uploaded:
    return await asyncio.to_thread(send, client, item, target)


def exists(client: Any, reference: str, target: Target) -> bool:
    """``client.head_object``: False when S3 answers 404 (the object was deleted)."""
    bucket, _, key = reference.removeprefix("s3://").partition("/")
    return found(lambda: client.head_object(Bucket=bucket, Key=key))


async def aexists(client: Any, reference: str, target: Target) -> bool:
    return await asyncio.to_thread(exists, client, reference, target)


def _location(reference: str) -> tuple[str, str]:
    bucket, _, key = reference.removeprefix("s3://").partition("/")
    return bucket, key


def delete(client: Any, reference: str) -> bool:
    """``client.delete_object`` (after ``head_object``: S3 answers a delete of a missing key
    with success, so the look-up says whether it was there)."""
    if not exists(client, reference, Target()):
        return False
    bucket, key = _location(reference)
    client.delete_object(Bucket=bucket, Key=key)
    return True


async def adelete(client: Any, reference: str) -> bool:
    return await asyncio.to_thread(delete, client, reference)


def download(client: Any, reference: str, limit: int) -> bytes | None:
    """The object's bytes (``get_object``), None when it is gone; more than ``limit`` bytes
    raise `TooLargeError` without reading them."""
    bucket, key = _location(reference)
    try:
        answer = client.get_object(Bucket=bucket, Key=key)
    except Exception as exc:
        if missing(exc):
            return None
        raise
    size = answer.get("ContentLength")
    body = answer["Body"]
    try:
        if isinstance(size, int) and size > limit:
            raise TooLargeError(
                f"{reference}: {size:,} bytes is more than {limit:,}", limit=limit, size=size
            )
        data = body.read(limit + 1)
    finally:
        body.close()
    if len(data) > limit:
        raise TooLargeError(f"{reference}: more than {limit:,} bytes", limit=limit, size=len(data))
    return bytes(data)
