"""The fetcher's pinned connections: the one deadline of a fetch and the httpcore network
backends that connect only to the addresses the guard checked (no name is resolved again).

Imported by `_fetcher` only, on the first fetch: it imports httpcore.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable
from typing import Any

import anyio
import httpcore

# -- time ---------------------------------------------------------------------------------------


class _Deadline:
    """The one deadline of a fetch; every network wait is clamped to what is left of it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def expired(self) -> bool:
        return self.remaining() <= 0

    def clamp(self, timeout: float | None, error: type[Exception]) -> float:
        left = self.remaining()
        if left <= 0:
            raise error("the fetch deadline has passed")
        return left if timeout is None else min(timeout, left)

    def timeouts(self) -> dict[str, float]:
        left = max(self.remaining(), 0.001)
        return {"connect": left, "read": left, "write": left, "pool": left}


# -- pinned connections -------------------------------------------------------------------------


class _Pins:
    """The checked addresses of each (host, port) of one fetch: the only places it connects to."""

    def __init__(self) -> None:
        self._pins: dict[tuple[str, int], tuple[str, ...]] = {}

    def add(self, host: str, port: int, addresses: tuple[str, ...]) -> None:
        self._pins[(host.lower(), port)] = addresses

    def get(self, host: str, port: int) -> tuple[str, ...]:
        addresses = self._pins.get((host.lower(), port))
        if addresses is None:
            # Unreachable through fetch(): every hop is checked and pinned before it is sent.
            raise httpcore.ConnectError(f"refusing to connect to unchecked host {host!r}")
        return addresses


class _PinnedStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._deadline.clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline.clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        limit = self._deadline.clamp(timeout, httpcore.ConnectTimeout)
        return _PinnedStream(
            self._inner.start_tls(ssl_context, server_hostname, limit), self._deadline
        )

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinnedBackend(httpcore.NetworkBackend):
    """Connects to the pinned, checked addresses of a host instead of resolving it again."""

    def __init__(self, pins: _Pins, deadline: _Deadline) -> None:
        self._inner = httpcore.SyncBackend()
        self._pins = pins
        self._deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        failure: Exception | None = None
        for address in self._pins.get(host, port):
            limit = self._deadline.clamp(timeout, httpcore.ConnectTimeout)
            try:
                stream = self._inner.connect_tcp(
                    address, port, limit, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            return _PinnedStream(stream, self._deadline)
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("the fetcher never connects to unix sockets")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _AsyncPinnedStream(httpcore.AsyncNetworkStream):
    def __init__(self, inner: httpcore.AsyncNetworkStream, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        limit = self._deadline.clamp(timeout, httpcore.ReadTimeout)
        return await self._inner.read(max_bytes, limit)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, self._deadline.clamp(timeout, httpcore.WriteTimeout))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        limit = self._deadline.clamp(timeout, httpcore.ConnectTimeout)
        inner = await self._inner.start_tls(ssl_context, server_hostname, limit)
        return _AsyncPinnedStream(inner, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _AsyncPinnedBackend(httpcore.AsyncNetworkBackend):
    """`_PinnedBackend` for async code (asyncio or trio, through anyio)."""

    def __init__(self, pins: _Pins, deadline: _Deadline) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._pins = pins
        self._deadline = deadline

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        failure: Exception | None = None
        for address in self._pins.get(host, port):
            limit = self._deadline.clamp(timeout, httpcore.ConnectTimeout)
            try:
                stream = await self._inner.connect_tcp(
                    address, port, limit, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            return _AsyncPinnedStream(stream, self._deadline)
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("the fetcher never connects to unix sockets")

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)
