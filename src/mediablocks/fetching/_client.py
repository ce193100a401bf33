"""The fetcher behind `mediablocks.fetching`: httpx and httpcore, imported on the first fetch.

What a fetch guarantees (every hop through the address guard, connections pinned to the checked
addresses, bounded bodies, one deadline, only `FetchError`s) is told once, in the package's
docstring. The deadline and the pinned httpcore backends live in `_pins`, the bounded body
reading and gzip/deflate decoding in `_body`; this module holds the hops, the transports and the
calls.
"""

from __future__ import annotations

import base64
import mimetypes
import ssl
import threading
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator

import anyio
import httpcore
import httpx

from ..errors import DownloadTooLargeError, FetchError, FetchTimeoutError, MediaBlocksError
from ..mime import detect_mime, normalize_mime
from . import _addresses
from ._body import _Body, _shown
from ._pins import _AsyncPinnedBackend, _Deadline, _PinnedBackend, _Pins
from ._result import FetchResult, FetchStatusError
from .policy import (
    FetchPolicy,
    budget_room,
    current_policy,
    decision_for,
    over_budget,
)

__all__ = ["afetch", "fetch"]

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNINFORMATIVE_TYPES = frozenset(
    {"application/octet-stream", "binary/octet-stream", "application/unknown"}
)
_CROSS_ORIGIN_DROPPED = ("authorization", "cookie")
_OWN_HEADERS = frozenset({"host", "accept-encoding", "content-length", "transfer-encoding"})
"""Headers a `URLDecision` may not set: the fetcher's own (it decodes the body itself)."""


_ssl_lock = threading.Lock()
_ssl_cache: list[ssl.SSLContext] = []


def _ssl_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi roots, ``SSL_CERT_FILE``...), built once."""
    with _ssl_lock:
        if not _ssl_cache:
            _ssl_cache.append(httpx.create_ssl_context())
        return _ssl_cache[0]


def _core_request(request: httpx.Request) -> httpcore.Request:
    url = request.url
    return httpcore.Request(
        method=request.method,
        url=httpcore.URL(
            scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
        ),
        headers=request.headers.raw,
        extensions=request.extensions,
    )


class _SyncBody(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes]) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class _AsyncBody(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._stream:
            yield part

    async def aclose(self) -> None:
        aclose = getattr(self._stream, "aclose", None)
        if aclose is not None:
            await aclose()


class _PinnedTransport(httpx.BaseTransport):
    """An httpx transport whose connections go only to the pinned addresses of one fetch."""

    def __init__(self, pins: _Pins, deadline: _Deadline) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=_ssl_context(), retries=0, network_backend=_PinnedBackend(pins, deadline)
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._pool.handle_request(_core_request(request))
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_SyncBody(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


class _AsyncPinnedTransport(httpx.AsyncBaseTransport):
    """`_PinnedTransport` for async code."""

    def __init__(self, pins: _Pins, deadline: _Deadline) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_ssl_context(),
            retries=0,
            network_backend=_AsyncPinnedBackend(pins, deadline),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._pool.handle_async_request(_core_request(request))
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_AsyncBody(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


# -- one hop after another ----------------------------------------------------------------------


class _Hops:
    """The state of one fetch across redirects: what to request next, and what was visited."""

    def __init__(self, url: str, policy: FetchPolicy) -> None:
        self.policy = policy
        self.original = url
        self.redirects: list[str] = []
        self.current = self._accept(url, None)
        self.origin = self._origin(self.current)
        self.extra: dict[str, str] = {}
        """Headers the policy's ``url_hook`` gave for the current hop."""
        self.cap, self.budget = budget_room(policy)

    def decide(self) -> None:
        """Ask the policy's ``url_hook`` about the current hop: refused (`BlockedURLError`), or
        the headers to send with it; and check the call's byte budget has room left."""
        decision = decision_for(str(self.current), self.policy)
        self.extra = {
            name: value
            for name, value in decision.headers.items()
            if name.lower() not in _OWN_HEADERS
        }
        if self.budget is not None and self.cap <= 0:
            raise over_budget(self.original, self.policy, self.budget)

    def body(self, response: httpx.Response) -> _Body:
        """A body reader under ``max_bytes`` and the room left in the call's budget."""
        try:
            return _Body(str(self.current), response.headers, self.cap)
        except DownloadTooLargeError:
            if self.cap < self.policy.max_bytes:
                raise self._too_large() from None
            raise

    def _too_large(self) -> DownloadTooLargeError:
        """The error when the call's ``max_total_bytes`` (not ``max_bytes``) stopped a body."""
        if self.budget is not None:
            return over_budget(self.original, self.policy, self.budget)
        return DownloadTooLargeError(
            f"cannot fetch {_shown(self.original)}: over "
            f"FetchPolicy.max_total_bytes={self.policy.max_total_bytes:,}",
            limit=self.cap,
        )

    def feed(self, body: _Body, chunk: bytes) -> None:
        try:
            body.feed(chunk)
        except DownloadTooLargeError:
            if self.cap < self.policy.max_bytes:
                raise self._too_large() from None
            raise

    def spent(self, data: bytes) -> bytes:
        if self.budget is not None:
            self.budget.spend(len(data))
        return data

    def _accept(self, text: str, base: httpx.URL | None) -> httpx.URL:
        try:
            url = httpx.URL(text) if base is None else base.join(text)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            raise FetchError(f"cannot fetch {_shown(text)}: not a valid URL: {exc}") from None
        shown = str(url)
        _addresses.check_scheme(shown, url.scheme, self.policy)
        port = self.port_of(url)
        if not 0 < port < 65536:
            raise FetchError(f"cannot fetch {_shown(shown)}: port {port} is out of range")
        return url

    @staticmethod
    def port_of(url: httpx.URL) -> int:
        return url.port or _DEFAULT_PORTS[url.scheme]

    @staticmethod
    def _origin(url: httpx.URL) -> tuple[str, str, int]:
        return (url.scheme, url.raw_host.decode("ascii").lower(), _Hops.port_of(url))

    def guard(self) -> tuple[str, int, _addresses.IPAddress | None]:
        """Check the current hop's host name; (host, port, address when an IP literal)."""
        url = self.current
        host = url.raw_host.decode("ascii")
        ip = _addresses.check_host_name(str(url), host, self.policy)
        return host, self.port_of(url), ip

    def headers(self) -> dict[str, str]:
        return {
            "User-Agent": self.policy.user_agent,
            "Accept": "*/*",
            **self.extra,
            "Accept-Encoding": "identity",
        }

    def basic_auth(self) -> str | None:
        """The Authorization header for credentials in the current URL, if it has any."""
        url = self.current
        if not url.userinfo:
            return None
        token = f"{url.username}:{url.password}".encode()
        return "Basic " + base64.b64encode(token).decode("ascii")

    def wire_url(self) -> httpx.URL:
        """The URL as requested: credentials travel in the Authorization header only."""
        return self.current.copy_with(userinfo=b"") if self.current.userinfo else self.current

    def cross_origin(self) -> bool:
        return self._origin(self.current) != self.origin

    def follow(self, response: httpx.Response) -> bool:
        """True when ``response`` redirects (and the next hop is now current)."""
        status = response.status_code
        shown = str(self.current)
        if status in _REDIRECT_STATUSES:
            location = response.headers.get("location")
            if not location:
                raise FetchStatusError(
                    f"cannot fetch {_shown(shown)}: HTTP {status} redirect without a Location",
                    status_code=status,
                    url=shown,
                )
            if len(self.redirects) >= self.policy.max_redirects:
                raise FetchError(
                    f"cannot fetch {_shown(self.original)}: more than "
                    f"{self.policy.max_redirects} redirects (FetchPolicy.max_redirects); "
                    f"the last one was {_shown(shown)} -> {location!r}"
                )
            nxt = self._accept(location, self.current)
            self.redirects.append(shown)
            self.current = nxt
            return True
        if not 200 <= status < 300:
            reason = response.reason_phrase
            raise FetchStatusError(
                f"cannot fetch {_shown(shown)}: HTTP {status}{' ' + reason if reason else ''}",
                status_code=status,
                url=shown,
                retry_after=response.headers.get("retry-after"),
            )
        return False

    def result(self, response: httpx.Response, data: bytes) -> FetchResult:
        content_type = response.headers.get("content-type")
        url = str(self.current)
        return FetchResult(
            data=data,
            mime_type=_mime_of(data, content_type, self.current.path),
            content_type=content_type,
            url=url,
            status_code=response.status_code,
            redirects=tuple(self.redirects),
        )


def _mime_of(data: bytes, content_type: str | None, path: str) -> str | None:
    detected = detect_mime(data)
    if detected is not None:
        return detected
    if content_type:
        declared = content_type.split(";", 1)[0].strip().lower()
        if declared and "/" in declared and declared not in _UNINFORMATIVE_TYPES:
            try:
                return normalize_mime(declared)
            except ValueError:
                pass
    guessed, _ = mimetypes.guess_type(path, strict=False)
    if guessed is not None:
        try:
            return normalize_mime(guessed)
        except ValueError:
            return None
    return None


# -- errors -------------------------------------------------------------------------------------

_TIMEOUTS = (httpx.TimeoutException, httpcore.TimeoutException)
_TRANSPORT_ERRORS = (
    httpx.HTTPError,
    httpx.StreamError,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
    httpcore.TimeoutException,
    OSError,
)


def _timeout_error(url: str, policy: FetchPolicy) -> FetchTimeoutError:
    return FetchTimeoutError(
        f"cannot fetch {_shown(url)}: it took longer than FetchPolicy.timeout={policy.timeout}s "
        "(for the whole fetch, redirects and body included)"
    )


def _failure(exc: Exception, hops: _Hops, deadline: _Deadline) -> FetchError:
    if isinstance(exc, _TIMEOUTS) or deadline.expired():
        return _timeout_error(hops.original, hops.policy)
    detail = str(exc) or exc.__class__.__name__
    return FetchError(f"cannot fetch {_shown(str(hops.current))}: {detail}")


def _set_auth(request: httpx.Request, hops: _Hops) -> None:
    auth = hops.basic_auth()
    if auth is not None:
        request.headers["Authorization"] = auth


# -- sync ---------------------------------------------------------------------------------------


def fetch(url: str, policy: FetchPolicy | None = None) -> FetchResult:
    """Download ``url`` under ``policy`` (default: the scope's, see `use_policy`).

    Raises `BlockedURLError` when the policy refuses a hop (nothing is connected to then),
    `DownloadTooLargeError` (a `TooLargeError` and a `FetchError`) past ``max_bytes``,
    `FetchTimeoutError` past ``timeout``, `FetchStatusError`
    for HTTP errors and `FetchError` for everything else that goes wrong.
    """
    policy = current_policy(policy)
    deadline = _Deadline(policy.timeout)
    hops = _Hops(url, policy)
    pins = _Pins()
    own = None
    if policy.client is None and policy.transport is None:
        own = _PinnedTransport(pins, deadline)
    try:
        return _fetch(hops, pins, deadline, own)
    except MediaBlocksError:
        raise
    except _TRANSPORT_ERRORS as exc:
        raise _failure(exc, hops, deadline) from exc
    finally:
        if own is not None:
            own.close()


def _fetch(
    hops: _Hops, pins: _Pins, deadline: _Deadline, own: _PinnedTransport | None
) -> FetchResult:
    policy = hops.policy
    while True:
        if deadline.expired():
            raise _timeout_error(hops.original, policy)
        host, port, ip = hops.guard()
        hops.decide()
        if ip is not None:
            pins.add(host, port, (str(ip),))
        else:
            found = _addresses.resolve(str(hops.current), host, port, policy, deadline.remaining())
            pins.add(host, port, found)
        response = _send(hops, deadline, own)
        try:
            if hops.follow(response):
                continue
            body = hops.body(response)
            for chunk in response.iter_raw():
                hops.feed(body, chunk)
                if deadline.expired():
                    raise _timeout_error(hops.original, policy)
            return hops.result(response, hops.spent(body.finish()))
        finally:
            response.close()


def _send(hops: _Hops, deadline: _Deadline, own: _PinnedTransport | None) -> httpx.Response:
    policy = hops.policy
    client = policy.client if own is None else None
    if client is not None:
        request, auth = _client_request(client, hops, deadline)
        return client.send(request, stream=True, follow_redirects=False, **auth)
    transport = own if own is not None else policy.transport
    assert transport is not None
    request = _transport_request(hops, deadline)
    response = transport.handle_request(request)
    response.request = request
    return response


def _client_request(
    client: httpx.Client | httpx.AsyncClient, hops: _Hops, deadline: _Deadline
) -> tuple[httpx.Request, dict[str, None]]:
    """The request of one hop through the caller's client, and the ``auth`` keyword to send it
    with: across origins the client's own credentials are for the origin first asked for, so
    its auth is off and its credential headers dropped."""
    request = client.build_request(
        "GET", hops.wire_url(), headers=hops.headers(), timeout=deadline.remaining()
    )
    cross_origin = hops.cross_origin()
    if cross_origin:
        for name in _CROSS_ORIGIN_DROPPED:
            request.headers.pop(name, None)
    _set_auth(request, hops)
    return request, ({"auth": None} if cross_origin else {})


def _transport_request(hops: _Hops, deadline: _Deadline) -> httpx.Request:
    """The request of one hop sent straight to a transport (the pinned one, or the caller's)."""
    request = httpx.Request(
        "GET",
        hops.wire_url(),
        headers=hops.headers(),
        extensions={"timeout": deadline.timeouts()},
    )
    _set_auth(request, hops)
    return request


# -- async --------------------------------------------------------------------------------------


async def afetch(url: str, policy: FetchPolicy | None = None) -> FetchResult:
    """`fetch` for async code (asyncio or trio): the same guard, limits and errors."""
    policy = current_policy(policy)
    deadline = _Deadline(policy.timeout)
    hops = _Hops(url, policy)
    pins = _Pins()
    own = None
    if policy.async_client is None and policy.async_transport is None:
        own = _AsyncPinnedTransport(pins, deadline)
    try:
        with anyio.fail_after(policy.timeout):
            return await _afetch(hops, pins, deadline, own)
    except MediaBlocksError:
        raise
    except TimeoutError:
        raise _timeout_error(url, policy) from None
    except _TRANSPORT_ERRORS as exc:
        raise _failure(exc, hops, deadline) from exc
    finally:
        if own is not None:
            await own.aclose()


async def _afetch(
    hops: _Hops, pins: _Pins, deadline: _Deadline, own: _AsyncPinnedTransport | None
) -> FetchResult:
    policy = hops.policy
    while True:
        if deadline.expired():
            raise _timeout_error(hops.original, policy)
        host, port, ip = hops.guard()
        hops.decide()
        if ip is not None:
            pins.add(host, port, (str(ip),))
        else:
            addresses = await _addresses.aresolve(
                str(hops.current), host, port, policy, deadline.remaining()
            )
            pins.add(host, port, addresses)
        response = await _asend(hops, deadline, own)
        try:
            if hops.follow(response):
                continue
            body = hops.body(response)
            async for chunk in response.aiter_raw():
                hops.feed(body, chunk)
                if deadline.expired():
                    raise _timeout_error(hops.original, policy)
            return hops.result(response, hops.spent(body.finish()))
        finally:
            await response.aclose()


async def _asend(
    hops: _Hops, deadline: _Deadline, own: _AsyncPinnedTransport | None
) -> httpx.Response:
    policy = hops.policy
    client = policy.async_client if own is None else None
    if client is not None:
        request, auth = _client_request(client, hops, deadline)
        return await client.send(request, stream=True, follow_redirects=False, **auth)
    transport = own if own is not None else policy.async_transport
    assert transport is not None
    request = _transport_request(hops, deadline)
    response = await transport.handle_async_request(request)
    response.request = request
    return response
