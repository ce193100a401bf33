"""Fetch a URL safely: `fetch` (sync) and `afetch` (async) over httpx.

Every hop of a fetch, the first request and each redirect, goes through the address guard
(`_addresses`): the scheme, the host lists, and every address the host resolves to. The fetcher then
connects to one of exactly those addresses: its own httpcore network backend looks the host up in
the addresses checked for this fetch and never resolves a name again, so there is no DNS-rebinding
window. The Host header and TLS server name (SNI and certificate check) stay the URL's host name.

While the body streams, the fetcher counts bytes (after gzip/deflate decoding, which it does itself,
bounded) and stops at ``max_bytes``; a total deadline covers connecting, redirects and a slowly
trickling body. Every failure is a `FetchError` (or a subclass): no httpx exception escapes.

With an injected ``client`` or ``transport`` in the policy the guard, the redirect handling and
the limits still apply, but that client does its own connecting: see docs/fetching.md.

This module holds the public names only; the machinery lives in ``_client``, which imports httpx,
so ``import mediablocks`` does not pay for httpx until the first fetch.
"""

from __future__ import annotations

from ._result import FetchResult, FetchStatusError
from .policy import FetchPolicy

__all__ = ["FetchResult", "FetchStatusError", "afetch", "fetch"]


def fetch(url: str, policy: FetchPolicy | None = None) -> FetchResult:
    """Download ``url`` under ``policy`` (default: the scope's, see `use_policy`).

    Raises `BlockedURLError` when the policy refuses a hop (nothing is connected to then),
    `DownloadTooLargeError` (a `TooLargeError` and a `FetchError`) past ``max_bytes``,
    `FetchTimeoutError` past ``timeout``, `FetchStatusError`
    for HTTP errors and `FetchError` for everything else that goes wrong.
    """
    from . import _client

    return _client.fetch(url, policy)


async def afetch(url: str, policy: FetchPolicy | None = None) -> FetchResult:
    """`fetch` for async code (asyncio or trio): the same guard, limits and errors."""
    from . import _client

    return await _client.afetch(url, policy)
