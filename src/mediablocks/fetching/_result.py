"""What a fetch returns, and the error for an HTTP error status: shared by `mediablocks.fetching`
(the public names) and ``_fetcher`` (the httpx machinery, loaded on the first fetch)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import FetchStatusError

__all__ = ["FetchResult", "FetchStatusError"]


@dataclass(frozen=True)
class FetchResult:
    """What a fetch brought back."""

    data: bytes
    """The body, decoded from gzip/deflate if the server sent it so."""
    mime_type: str | None
    """What the bytes say (`detect_mime`); else the Content-Type header, normalised; else the
    URL's extension. None when nothing says anything."""
    content_type: str | None
    """The raw Content-Type header, parameters included."""
    url: str
    """The final URL, after redirects."""
    status_code: int
    """The final HTTP status (2xx)."""
    redirects: tuple[str, ...] = ()
    """The URLs that answered with a redirect, in order (empty when there was none)."""

    def __repr__(self) -> str:
        return (
            f"FetchResult(url={self.url!r}, status_code={self.status_code}, "
            f"mime_type={self.mime_type!r}, {len(self.data)} bytes, redirects={self.redirects!r})"
        )
