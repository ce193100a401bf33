"""A `MediaStore` in an S3 bucket: the provider's own download as the way back to the bytes.

`mb.upload(..., "bedrock", s3, bucket=..., prefix=...)` puts each content at
``<prefix><sha256><extension>``. `S3MediaStore` over the same bucket and prefix finds those
objects by hash, so a history uploaded for Bedrock and saved without its bytes can be sent to
any other provider: ``mb.encode(history, "anthropic", media_store=S3MediaStore(s3, "media"))``
downloads what it needs (``get_object``) and checks it against the hash. ``put`` writes objects
the same way `upload` does.
"""

from __future__ import annotations

import hashlib
import mimetypes
from typing import Any

from ..errors import MediaBlocksError, SourceError
from ..mime import detect_mime
from ..sources.media_store import DEFAULT_MAX_BYTES, check_digest, check_prefix
from .stores import missing

__all__ = ["S3MediaStore"]


class S3MediaStore:
    """Bytes by SHA-256 in ``bucket`` under ``prefix``, through a boto3 (or botocore) S3 client.

    Objects larger than ``max_bytes`` are refused without being read. S3 errors other than "no
    such key" raise `SourceError` naming the object.
    """

    def __init__(
        self, client: Any, bucket: str, prefix: str = "", *, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.client, self.bucket, self.prefix, self.max_bytes = client, bucket, prefix, max_bytes

    def __repr__(self) -> str:
        return f"S3MediaStore(s3://{self.bucket}/{self.prefix})"

    def _keys(self, start: str) -> list[str]:
        try:
            answer = self.client.list_objects_v2(
                Bucket=self.bucket, Prefix=self.prefix + start, MaxKeys=1000
            )
        except Exception as exc:
            raise SourceError(f"{self!r}: listing failed: {type(exc).__name__}: {exc}") from None
        keys = [str(item.get("Key", "")) for item in answer.get("Contents", []) or []]
        return [k for k in keys if k.startswith(self.prefix)]

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        if self._keys(digest):
            return digest
        mime = detect_mime(data) or "application/octet-stream"
        key = f"{self.prefix}{digest}{mimetypes.guess_extension(mime) or ''}"
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=mime)
        except Exception as exc:
            raise SourceError(
                f"{self!r}: writing {key} failed: {type(exc).__name__}: {exc}"
            ) from None
        return digest

    def get(self, digest: str) -> bytes | None:
        from .stores.s3 import download  # (asyncio with it): loaded by the first download

        check_digest(digest)
        for key in self._keys(digest):
            name = key[len(self.prefix) :]
            if name[:64] != digest or (len(name) > 64 and name[64] != "."):
                continue
            reference = f"s3://{self.bucket}/{key}"
            try:
                data = download(self.client, reference, self.max_bytes)
            except MediaBlocksError:
                raise
            except Exception as exc:
                if missing(exc):
                    return None
                raise SourceError(
                    f"{reference}: download failed: {type(exc).__name__}: {exc}"
                ) from None
            if data is None:
                return None
            if hashlib.sha256(data).hexdigest() != digest:
                raise SourceError(f"{reference}: its bytes are not the ones its name says")
            return data
        return None

    def find(self, prefix: str) -> list[str]:
        check_prefix(prefix)
        found = {key[len(self.prefix) :][:64] for key in self._keys(prefix)}
        return sorted(d for d in found if len(d) == 64 and d.startswith(prefix))
