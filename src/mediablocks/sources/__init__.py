"""Where a media block's bytes come from: memory, a local path, a URL or a provider's file id.

Sources are lazy: building one does no I/O. `read` resolves the bytes once and caches them on the
source, so encoding a block many times reads or downloads it once. Reads are single-flight: any
number of threads and asyncio tasks reading one source at the same time cause one read or download,
whose result (or error) they all get; a failed read is tried again by the next call. `header` and
`read_header` give the first bytes for MIME detection, reading only that window from a file not
read yet. A file is read only if it is a regular file of at most ``FetchPolicy.max_path_bytes``.

Path and URL sources built while a history or payload is loaded remember it (`._trust`): they
are read only where the caller allowed, never because the input named them.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from typing import Annotated, Any, BinaryIO, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
)
from pydantic_core import core_schema

from .._checks import check_size
from ..datauri import b64decode, base64_characters_only, is_clean_base64
from ..errors import BlockedURLError, PathNotAllowedError, SourceError
from ..fetching.policy import FetchPolicy, current_policy, scoped_policy
from ..mime import HEADER_WINDOW
from ._cache import _BaseSource
from ._confined import Confinement
from ._files import open_regular, path_from_file_uri, read_capped, read_window
from ._trust import Allowance, current_allowance

MAX_REFERENCE = 2048
"""The longest file reference or account a `FileCopy` holds (ids and URIs are far shorter)."""
MAX_COPIES = 16
"""The most copies one uploaded block records (one per store and account is the usual)."""

__all__ = [
    "STORE_PROVIDER",
    "Base64Source",
    "BytesSource",
    "FileCopy",
    "FileIdSource",
    "PathSource",
    "Source",
    "URLSource",
    "path_from_file_uri",
]


class BytesSource(_BaseSource):
    """Bytes already in memory (kept as the very object given, never copied)."""

    kind: Literal["bytes"] = "bytes"
    data: bytes

    _in_memory: ClassVar[bool] = True

    def model_post_init(self, context: Any, /) -> None:
        self._start_cache(self.data)

    @field_serializer("data", when_used="json")
    def _data_as_base64(self, data: bytes) -> str:
        """Standard base64 in JSON (pydantic's own is URL-safe), the cached text when there is one.

        Loading accepts either alphabet.
        """
        return self.base64()

    def describe(self) -> str:
        return f"{len(self.data)} bytes in memory"

    def read(self, policy: FetchPolicy | None = None) -> bytes:
        return self.data

    async def aread(self, policy: FetchPolicy | None = None) -> bytes:
        return self.data


_WINDOW_CHARS = (HEADER_WINDOW + 2) // 3 * 4
"""The base64 characters (whole 4-character groups) that hold the header window."""


class Base64Source(_BaseSource):
    """Base64 text in memory (a provider payload, a data URI), kept as the text it arrived as.

    Translating a history between providers that both carry base64 copies this text through and
    never decodes it: the MIME type is detected from the decoded header window alone (from its
    first bytes for JPEG, PNG and GIF: `prefix`). The whole text is decoded, strictly, only
    when bytes are needed (`read`: prepare, probe, a provider that takes raw bytes); malformed
    base64 raises `DecodeError` then. Build one through
    ``from_base64``/``from_data_uri`` with ``strict=True`` to check every character at once.
    """

    kind: Literal["base64"] = "base64"
    data: str
    """Standard, padded base64 with no line breaks (`is_clean_base64`)."""

    _in_memory: ClassVar[bool] = True

    def cached_base64(self) -> str | None:
        return self.data

    @property
    def loaded(self) -> bool:
        """True: the media is in memory (as base64 text), so nothing is read or fetched."""
        return True

    def describe(self) -> str:
        return f"base64 text of {len(self.data) // 4 * 3} bytes"

    def header(self, policy: FetchPolicy | None = None) -> bytes | memoryview:
        if self._data is not None:
            return memoryview(self._data)[:HEADER_WINDOW]
        if self._header is None:
            # Whole 4-character groups covering the window: a strict decode of just those.
            self._header = b64decode(self.data[:_WINDOW_CHARS], what=self.describe())[
                :HEADER_WINDOW
            ]
        return self._header

    def _load(self, policy: FetchPolicy | None) -> bytes:
        return b64decode(self.data, what=self.describe())

    @property
    def decoded_size(self) -> int:
        """How many bytes the text decodes to, without decoding it."""
        text = self.data
        return len(text) // 4 * 3 - text[-2:].count("=")

    def prefix(self, n: int) -> bytes | None:
        """At most the first ``n`` bytes (a few), decoding only their 4-character groups, once
        every character of the header window's text is checked to be base64's
        (`base64_characters_only`, a sixth of decoding the window): None when one is not, and
        then `header` decodes the window and names what is wrong. For MIME types decided by a
        signature's first bytes (`mime.detect.decided_by_prefix`)."""
        cached = self._data if self._data is not None else self._header
        if cached is not None:
            return cached[:n]
        window = self.data[:_WINDOW_CHARS]
        if len(window) % 4 or not base64_characters_only(window):
            return None
        return self.decoded_range(0, n)

    def decoded_range(self, offset: int, n: int) -> bytes:
        """At most ``n`` bytes from ``offset``, decoding only the 4-character groups that hold
        them (header parsers read a few ranges of a large image; the rest stays text)."""
        if self._data is not None:
            return self._data[offset : offset + n]
        first, last = offset // 3, -(-(offset + n) // 3)
        chunk = b64decode(self.data[first * 4 : last * 4], what=self.describe())
        skip = offset - first * 3
        return chunk[skip : skip + n]

    def base64(self, policy: FetchPolicy | None = None) -> str:
        return self.data

    def keep_data_uri(self, uri: str) -> None:
        """Remember the data URI this text came from, to hand it on without building another.

        The caller guarantees ``uri`` is ``data:<normalised type>;base64,`` then exactly `data`.
        """
        self._data_uri = uri


class _StoredBytes(Base64Source):
    """Bytes stored inline in JSON text (``{"kind": "bytes", "data": "<base64>"}``), loaded as
    the base64 text they were stored as: a `Base64Source` that is written back as ``"bytes"``.

    Loading a history does not decode its media: the text is decoded strictly on the first
    `read` (a malformed one raises `DecodeError` then), and a provider that takes base64 gets the
    stored text itself. Only standard, padded text without line breaks is kept so
    (`is_clean_base64`); anything else is decoded at load into a `BytesSource`, as before.
    """

    kind: Literal["bytes"] = "bytes"  # type: ignore[assignment]
    data: str

    @field_validator("data")
    @classmethod
    def _clean_text(cls, text: str) -> str:
        if not is_clean_base64(text):
            raise ValueError("not standard padded base64: decoded at load instead")
        return text

    def describe(self) -> str:
        return f"{self.decoded_size} bytes stored as base64"


class PathSource(_BaseSource):
    """A local file, named explicitly by the caller. Read lazily, once.

    Under ``FetchPolicy.allowed_roots`` (or, for a source from a loaded history, the folders
    its loader allowed) the file is reached from a root by descriptor and read through the
    descriptor it was checked on (`._confined`).
    """

    kind: Literal["path"] = "path"
    path: str

    _allowance: Allowance | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._allowance = current_allowance()

    @property
    def loaded_from(self) -> str | None:
        """Where this source came from when a history or payload was loaded (None: the caller
        built it); such a path is read only where allowed (docs/history.md)."""
        allowance = self._allowance
        return allowance.origin if allowance is not None else None

    def describe(self) -> str:
        return f"path {os.path.basename(self.path)!r}"

    def _confinement(self, policy: FetchPolicy | None) -> Confinement | None:
        """The roots this read must stay under (None: anywhere, the caller named the file)."""
        allowance = self._allowance
        if allowance is None:
            roots = current_policy(policy).allowed_roots
            if roots is None:
                return None
            return Confinement(roots, f"FetchPolicy.allowed_roots={list(roots)!r}")
        if allowance.roots is not None:
            hint = f"the folders allowed for {allowance.origin}: {list(allowance.roots)!r}"
            return Confinement(allowance.roots, hint)
        explicit = policy if policy is not None else scoped_policy()
        if explicit is not None and explicit.allowed_roots is not None:
            roots = explicit.allowed_roots
            return Confinement(roots, f"FetchPolicy.allowed_roots={list(roots)!r}")
        where = f"pass allow_paths=[folders] to {allowance.loader}, or " if allowance.loader else ""
        raise PathNotAllowedError(
            f"{self.describe()}: came from {allowance.origin}, and a path from there is read "
            f"only where the caller allows it: {where}read it under a FetchPolicy with "
            "allowed_roots (block.read(policy), or use_policy around the call)"
        )

    def open_file(self, policy: FetchPolicy | None = None) -> BinaryIO:
        """The file open for random access (header parsers), checked as `read` checks it: a
        regular file only, under the allowed roots, judged on the descriptor returned."""
        return open_regular(self.path, self.describe(), self._confinement(policy))

    def header(self, policy: FetchPolicy | None = None) -> bytes | memoryview:
        if self._data is not None:
            return memoryview(self._data)[:HEADER_WINDOW]
        if self._header is None:
            confine = self._confinement(policy)
            self._header = read_window(self.path, HEADER_WINDOW, self.describe(), confine)
        return self._header

    def _read_beyond_window(self, n: int, policy: FetchPolicy | None) -> bytes:
        return read_window(self.path, n, self.describe(), self._confinement(policy))

    def _load(self, policy: FetchPolicy | None) -> bytes:
        confine = self._confinement(policy)
        cap = current_policy(policy).max_path_bytes
        return read_capped(self.path, cap, self.describe(), confine)


class URLSource(_BaseSource):
    """An http(s) URL. Nothing is fetched until `read`; the fetch policy applies then."""

    kind: Literal["url"] = "url"
    url: str

    _allowance: Allowance | None = PrivateAttr(default=None)
    _hint: str | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._allowance = current_allowance()

    @property
    def loaded_from(self) -> str | None:
        """Where this source came from when a history or payload was loaded (None: the caller
        built it); such a URL is fetched only under a policy the caller gave (docs/history.md)."""
        allowance = self._allowance
        return allowance.origin if allowance is not None else None

    @property
    def content_type_hint(self) -> str | None:
        return self._hint

    def describe(self) -> str:
        shown = self.url if len(self.url) <= 80 else self.url[:77] + "..."
        return f"URL {shown!r}"

    def _policy(self, policy: FetchPolicy | None) -> FetchPolicy | None:
        """The policy to fetch under; for a loaded URL, only one the caller chose."""
        allowance = self._allowance
        if allowance is None or policy is not None:
            return policy
        if allowance.policy is not None:
            return allowance.policy
        if scoped_policy() is not None:
            return None  # fetch() takes the scope's
        where = f"policy=FetchPolicy(...) to {allowance.loader}, or " if allowance.loader else ""
        raise BlockedURLError(
            f"refused to fetch {self.describe()}: it came from {allowance.origin}, and a URL "
            f"from there is fetched only under a policy the caller chose: pass {where}a "
            "FetchPolicy to the read (block.read(policy), encode(..., policy=...)) or use_policy"
        )

    def peek_header(self) -> bytes | memoryview | None:
        if self._data is None:
            return None
        return memoryview(self._data)[:HEADER_WINDOW]

    def _load(self, policy: FetchPolicy | None) -> bytes:
        from ..fetching import fetch  # late: the fetcher imports httpx and this module's users

        result = fetch(self.url, self._policy(policy))
        self._hint = result.mime_type
        return result.data

    async def _aload(self, policy: FetchPolicy | None) -> bytes:
        from ..fetching import afetch

        result = await afetch(self.url, self._policy(policy))
        self._hint = result.mime_type
        return result.data


class FileCopy(BaseModel):
    """One copy of uploaded media in a provider's file store, as `mb.upload` made or found it.

    ``store`` is the file store (``openai``, ``anthropic``, ``gemini``, ``s3``), ``reference``
    what a request names it by (file id, file URI, ``s3://`` URI), ``account`` the endpoint and
    key hash (or bucket) it belongs to, never a secret; times are Unix seconds.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    store: Literal["openai", "anthropic", "gemini", "s3"]
    reference: Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE)]
    account: Annotated[str, Field(max_length=MAX_REFERENCE)] | None = None
    uploaded_at: float | None = None
    expires_at: float | None = None

    @field_validator("reference", "account")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        if value is not None and not value.isprintable():
            raise ValueError("must be printable text (no control characters)")
        return value

    @field_validator("uploaded_at", "expires_at")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite Unix time")
        return value

    def expired(self, now: float | None = None, margin: float = 0.0) -> bool:
        """True when the provider deletes (or deleted) this copy within ``margin`` seconds."""
        if self.expires_at is None:
            return False
        return self.expires_at <= (time.time() if now is None else now) + margin


STORE_PROVIDER: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "s3": "bedrock",
}
"""File store -> the ``FileIdSource.provider`` value its references carry."""


class FileIdSource(_BaseSource):
    """A file uploaded to a provider (OpenAI or Anthropic file id, Gemini file URI, ``s3://``).

    A file id decoded from a provider's payload carries only ``file_id`` and ``provider``: the
    bytes live at the provider, translators pass the id along, and `read` raises `SourceError`.

    Media uploaded by `mb.upload` is *portable*: it also keeps the SHA-256 and size of its bytes,
    every copy it has in a file store (``copies``: ids at several providers), and ``origin``, the
    local file it was read from. `mb.encode` for a provider with a copy sends that copy's id; for
    any other provider it inlines the bytes, found in memory (the process that uploaded them
    keeps them), in a `MediaStore` passed as ``media_store=``, or at ``origin`` (read only under
    a `FetchPolicy` with ``allowed_roots``), and always checked against ``sha256``. ``file_id``
    and ``provider`` name the copy the last upload made or found.
    """

    kind: Literal["file_id"] = "file_id"
    file_id: str
    provider: str | None = None
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    size: Annotated[int, Field(ge=0)] | None = None
    copies: Annotated[tuple[FileCopy, ...], Field(max_length=MAX_COPIES)] = ()
    origin: PathSource | None = None

    @model_serializer(mode="wrap")
    def _without_empty_upload_fields(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A file id decoded from a provider dumps as it always did: the upload fields only
        appear when set."""
        out = handler(self)
        if isinstance(out, dict):
            for name, empty in (("sha256", None), ("size", None), ("copies", ()), ("origin", None)):
                if name in out and getattr(self, name) == empty:
                    del out[name]
        return out

    @property
    def portable(self) -> bool:
        """True when the bytes are known by hash, so another provider can be sent them."""
        return self.sha256 is not None

    def describe(self) -> str:
        where = f" at {self.provider}" if self.provider else ""
        if self.sha256 is not None:
            return f"uploaded sha256:{self.sha256[:16]}… (file id {self.file_id!r}{where})"
        return f"file id {self.file_id!r}{where}"

    def copy_at(
        self, store: str, *, now: float | None = None, margin: float = 0.0
    ) -> FileCopy | None:
        """The copy to use in ``store``: the one `file_id` names when it is there, else the
        newest; None when there is none, or only expired ones (within ``margin`` seconds)."""
        usable = [c for c in self.copies if c.store == store and not c.expired(now, margin)]
        if not usable:
            return None
        for copy in usable:
            if copy.reference == self.file_id:
                return copy
        return max(usable, key=lambda c: c.uploaded_at or 0.0)

    def expired_at(self, store: str) -> float | None:
        """When the last copy in ``store`` expired (or expires), if every copy there has an end."""
        ends = [c.expires_at for c in self.copies if c.store == store]
        if not ends or any(end is None for end in ends):
            return None
        return max(end for end in ends if end is not None)

    def keep_bytes(self, data: bytes) -> None:
        """Hold the bytes in memory (not in JSON), so `read` and other providers need no I/O.

        The caller guarantees they are the bytes ``sha256`` names.
        """
        self._store(data)

    def peek_header(self) -> bytes | memoryview | None:
        if self._data is not None:
            return memoryview(self._data)[:HEADER_WINDOW]
        return None

    def header(self, policy: FetchPolicy | None = None) -> bytes | memoryview:
        if self._data is not None:
            return memoryview(self._data)[:HEADER_WINDOW]
        return b""

    def read_header(self, n: int = HEADER_WINDOW, policy: FetchPolicy | None = None) -> bytes:
        check_size("read_header", "n", n)
        return self.read(policy)[:n]

    def _load(self, policy: FetchPolicy | None) -> bytes:
        """The bytes from ``origin``, checked against ``sha256``; else `SourceError`."""
        if self.sha256 is None:
            raise SourceError(
                f"{self.describe()}: the bytes are stored at the provider and cannot be read here"
            )
        origin = self.origin
        if origin is None:
            raise SourceError(
                f"{self.describe()}: its bytes are not in memory and it has no origin to read "
                "them from; pass media_store= (a MediaStore holding them) or upload it to this "
                "provider with mb.upload"
            )
        if current_policy(policy).allowed_roots is None:
            raise PathNotAllowedError(
                f"{self.describe()}: its origin is the local {origin.describe()}, read only "
                "under a FetchPolicy with allowed_roots (a stored history names no path you "
                "did not allow); pass policy=FetchPolicy(allowed_roots=[...]) or media_store="
            )
        data = origin._load(policy)
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise SourceError(
                f"{self.describe()}: its origin {origin.describe()} no longer holds the bytes "
                "that were uploaded (the SHA-256 differs)"
            )
        return data


class _TaggedByKind:
    """The source union, picked by ``kind``; from JSON text, inline bytes stay text.

    From JSON text a ``"bytes"`` source holding clean base64 is kept as that text
    (`_StoredBytes`), else decoded into a `BytesSource`; from Python values ``"bytes"`` is a
    `BytesSource` (decoding a base64 string as before), or the `_StoredBytes` given.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        others = {
            cls.model_fields["kind"].default: handler.generate_schema(cls)
            for cls in (Base64Source, PathSource, URLSource, FileIdSource)
        }
        in_memory = handler.generate_schema(BytesSource)
        stored = handler.generate_schema(_StoredBytes)
        from_text = core_schema.union_schema([stored, in_memory], mode="left_to_right")
        from_python = core_schema.no_info_wrap_validator_function(_kept_if_stored, in_memory)
        return core_schema.json_or_python_schema(
            json_schema=core_schema.tagged_union_schema({**others, "bytes": from_text}, "kind"),
            python_schema=core_schema.tagged_union_schema({**others, "bytes": from_python}, "kind"),
            serialization=core_schema.simple_ser_schema("any"),  # each source as its own class
        )


def _kept_if_stored(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
    """A `_StoredBytes` as it is; anything else validated as a `BytesSource` (its errors only)."""
    if type(value) is _StoredBytes:
        return value
    return handler(value)


Source = Annotated[
    BytesSource | Base64Source | PathSource | URLSource | FileIdSource, _TaggedByKind()
]
"""Any media source, tagged by ``kind`` in JSON."""
