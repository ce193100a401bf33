"""A source's read cache: bytes read once, base64 and data URIs built once, reads in flight shared.

`_BaseSource` is what every source in `mediablocks.sources` shares. Its cache lives in plain
slots, not pydantic private attributes, so building a source (a history builds one per media
block) sets up no per-attribute defaults.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict
from typing_extensions import Self

from .._checks import check_size
from ..datauri import b64encode, data_uri_prefix
from ..fetching.policy import FetchPolicy
from ..mime import HEADER_WINDOW
from ._flight import Loader

__all__ = ["_BaseSource"]


_CACHE_LOCK = threading.Lock()
"""Guards the two moments a source's read cache changes hands: its `Loader` made on the first
read, its bytes kept once read (each a few assignments, so one lock for every source is enough;
a source built, copied or loaded makes no lock of its own)."""


_CACHE_STATE = "mediablocks_source_cache"
"""The key of a source's read cache in its pickled state."""


class _BaseSource(BaseModel):
    """What every source shares: the read cache, single-flight reads, base64 and data URIs.

    The cache lives in plain slots set by `model_post_init`, not in pydantic private
    attributes: setting those up (a default per attribute, through each subclass) was most of
    the cost of building a source, and a history builds one per media block. Copies, deep
    copies and pickles carry the cached bytes over (`__copy__`, `__deepcopy__`,
    `__getstate__`); a copy never shares a read in flight with its original.
    """

    model_config = ConfigDict(
        frozen=True, ser_json_bytes="base64", val_json_bytes="base64", defer_build=True
    )

    __slots__ = ("_base64", "_data", "_data_uri", "_header", "_loader")

    _in_memory: ClassVar[bool] = False
    """True for sources holding their media in memory (bytes, base64 text): two such sources
    are equal when they hold the same bytes, whatever their class."""

    if TYPE_CHECKING:
        _data: bytes | None
        _header: bytes | None
        _base64: str | None
        _data_uri: str | None
        _loader: Loader | None  # made on the first read

    def model_post_init(self, context: Any, /) -> None:
        self._start_cache(None)

    def _start_cache(
        self,
        data: bytes | None,
        header: bytes | None = None,
        base64: str | None = None,
        data_uri: str | None = None,
    ) -> None:
        put = object.__setattr__
        put(self, "_data", data)
        put(self, "_header", header)
        put(self, "_base64", base64)
        put(self, "_data_uri", data_uri)
        put(self, "_loader", None)

    def _cached(self) -> tuple[bytes | None, bytes | None, str | None, str | None]:
        return self._data, self._header, self._base64, self._data_uri

    def __copy__(self) -> Self:
        copied = super().__copy__()
        copied._start_cache(*self._cached())
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        copied = super().__deepcopy__(memo)
        copied._start_cache(*self._cached())  # bytes and text: immutable, shared
        return copied

    def __getstate__(self) -> dict[Any, Any]:
        return {**super().__getstate__(), _CACHE_STATE: self._cached()}

    def __setstate__(self, state: dict[Any, Any]) -> None:
        super().__setstate__(state)
        self._start_cache(*state.get(_CACHE_STATE, (None,)))

    def __eq__(self, other: object) -> bool:
        # Fields only: the read cache and lock are not part of a source's identity. Bytes in
        # memory and base64 text in memory are the same media when they hold the same bytes.
        if type(other) is not type(self):
            if self._in_memory and isinstance(other, _BaseSource) and other._in_memory:
                return self.read() == other.read()
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    @property
    def loaded(self) -> bool:
        """True once the bytes are in memory."""
        return self._data is not None

    @property
    def content_type_hint(self) -> str | None:
        """A MIME type learned while reading (an HTTP Content-Type), used only as a fallback."""
        return None

    def describe(self) -> str:
        """A short human description for error messages, e.g. ``path 'photo.jpg'``."""
        raise NotImplementedError

    def header(self, policy: FetchPolicy | None = None) -> bytes | memoryview:
        """The first bytes of the media, at most `HEADER_WINDOW`, for MIME detection."""
        if self._data is not None:
            return memoryview(self._data)[:HEADER_WINDOW]
        return memoryview(self.read(policy))[:HEADER_WINDOW]

    def peek_header(self) -> bytes | memoryview | None:
        """The header if it is available without network I/O (None for an unread URL)."""
        return self.header()

    def read_header(self, n: int = HEADER_WINDOW, policy: FetchPolicy | None = None) -> bytes:
        """At most the first ``n`` bytes of the media.

        From a local file not read yet, only those bytes are read (never the rest of the file);
        from bytes already in memory it is a slice. A URL not fetched yet is fetched whole under
        ``policy`` (HTTP servers do not reliably honour ranges), then sliced.
        """
        check_size("read_header", "n", n)
        if self._data is not None:
            return self._data[:n]
        if n <= HEADER_WINDOW:
            return bytes(self.header(policy)[:n])
        return self._read_beyond_window(n, policy)

    def _read_beyond_window(self, n: int, policy: FetchPolicy | None) -> bytes:
        return self.read(policy)[:n]

    def read(self, policy: FetchPolicy | None = None) -> bytes:
        """The whole media as bytes, resolved once and cached; concurrent calls share one read."""
        return self._flights().load(lambda: self._data, lambda: self._load(policy), self._store)

    async def aread(self, policy: FetchPolicy | None = None) -> bytes:
        """`read` for asyncio code; only URL sources do real async I/O. Concurrent calls (async or
        from threads) share one read."""
        return await self._flights().aload(
            lambda: self._data, lambda: self._aload(policy), self._store
        )

    def _flights(self) -> Loader:
        loader = self._loader
        if loader is None:
            with _CACHE_LOCK:
                if self._loader is None:
                    self._loader = Loader()
                loader = self._loader
        return loader

    def _load(self, policy: FetchPolicy | None) -> bytes:
        """Read the bytes from where they live (no caching: `read` does that)."""
        raise NotImplementedError

    async def _aload(self, policy: FetchPolicy | None) -> bytes:
        return self._load(policy)

    def cached_base64(self) -> str | None:
        """The base64 text if it was computed already."""
        return self._base64

    def base64(self, policy: FetchPolicy | None = None) -> str:
        """The media as standard base64 text, computed once and cached."""
        cached = self._base64
        if cached is None:
            uri = self._data_uri
            if uri is not None:  # already encoded inside a data URI: copy it out, no re-encoding
                cached = uri[uri.index(",", 5) + 1 :]
            else:
                cached = b64encode(self.read(policy))
            self._base64 = cached
        return cached

    def cached_data_uri(self, mime_type: str) -> str | None:
        """The data URI for ``mime_type`` if it was built already."""
        uri = self._data_uri
        if uri is not None and uri.startswith(data_uri_prefix(mime_type)):
            return uri
        return None

    def data_uri(self, mime_type: str, policy: FetchPolicy | None = None) -> str:
        """``data:<mime>;base64,<data>``, built once and cached.

        Encoded straight after its prefix in one buffer, so the payload is copied once into the
        string; from a cached base64 it is one concatenation, with no re-encoding.
        """
        uri = self.cached_data_uri(mime_type)
        if uri is None:
            prefix = data_uri_prefix(mime_type)
            cached = self.cached_base64()
            uri = prefix + cached if cached is not None else b64encode(self.read(policy), prefix)
            self._data_uri = uri
        return uri

    def _store(self, data: bytes) -> bytes:
        with _CACHE_LOCK:
            if self._data is None:
                self._data = data
                self._header = None
            return self._data
