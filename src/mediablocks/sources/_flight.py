"""Single-flight loading: however many threads and asyncio tasks ask for a source's bytes at once,
one of them reads (or downloads) and the others wait for its result.

A `Flight` is one load in progress. The first caller becomes its leader and does the I/O; callers
that arrive meanwhile wait on it, threads on a `threading.Event`, tasks on a future of their own
event loop (woken thread-safely), so neither kind blocks the other. The leader's error reaches every
waiter; afterwards the flight is gone, so a later call tries again. If an asyncio leader is
cancelled, its waiters are told to retry and one of them leads the next attempt.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # asyncio loads with the first asynchronous wait, not with the package
    import asyncio

__all__ = ["Loader"]


class _Flight:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.data: bytes | None = None
        self.error: BaseException | None = None
        self.leader_thread = threading.get_ident()
        self.leader_is_async = False
        self._lock = threading.Lock()
        self._futures: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def finish(self, data: bytes | None, error: BaseException | None) -> None:
        with self._lock:
            self.data, self.error = data, error
            self.done.set()
            futures, self._futures = self._futures, []
        for loop, future in futures:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting there
                loop.call_soon_threadsafe(_resolve, future)

    async def wait_async(self) -> None:
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self.done.is_set():
                return
            self._futures.append((loop, future))
        await future


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Loader:
    """Loads bytes once per flight and hands them to every concurrent caller.

    ``cached()`` gives the bytes if they are known already; ``store(data)`` keeps them (and returns
    what is kept). Both are the owner's, called under no lock of ours.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flight: _Flight | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> Loader:
        return Loader()  # a copy has no read in flight

    def __reduce__(self) -> tuple[type[Loader], tuple[()]]:
        return (Loader, ())

    def _join(self, is_async: bool) -> tuple[_Flight, bool]:
        with self._lock:
            flight = self._flight
            if flight is not None:
                return flight, False
            flight = self._flight = _Flight()
            flight.leader_is_async = is_async
            return flight, True

    def _land(self, flight: _Flight, data: bytes | None, error: BaseException | None) -> None:
        with self._lock:
            if self._flight is flight:
                self._flight = None
        flight.finish(data, error)

    def load(
        self,
        cached: Callable[[], bytes | None],
        load: Callable[[], bytes],
        store: Callable[[bytes], bytes],
    ) -> bytes:
        """The bytes, loading them with ``load`` unless another caller is already doing so."""
        while True:
            data = cached()
            if data is not None:
                return data
            flight, leader = self._join(is_async=False)
            if leader:
                return self._lead(flight, load, store)
            if flight.leader_is_async and flight.leader_thread == threading.get_ident():
                # Waiting here would block the event loop the leader needs: load on our own.
                return store(load())
            flight.done.wait()
            if flight.error is not None:
                raise flight.error
            if flight.data is not None:
                return flight.data

    async def aload(
        self,
        cached: Callable[[], bytes | None],
        aload: Callable[[], Awaitable[bytes]],
        store: Callable[[bytes], bytes],
    ) -> bytes:
        """`load` for asyncio: waiting never blocks the event loop."""
        while True:
            data = cached()
            if data is not None:
                return data
            flight, leader = self._join(is_async=True)
            if leader:
                try:
                    data = store(await aload())
                except Exception as exc:
                    self._land(flight, None, exc)
                    raise
                except BaseException:  # cancelled (or interrupted): waiters retry, one leads
                    self._land(flight, None, None)
                    raise
                self._land(flight, data, None)
                return data
            await flight.wait_async()
            if flight.error is not None:
                raise flight.error
            if flight.data is not None:
                return flight.data

    def _lead(
        self, flight: _Flight, load: Callable[[], bytes], store: Callable[[bytes], bytes]
    ) -> bytes:
        try:
            data = store(load())
        except Exception as exc:
            self._land(flight, None, exc)
            raise
        except BaseException:  # KeyboardInterrupt, SystemExit...: the leader's own; waiters retry
            self._land(flight, None, None)
            raise
        self._land(flight, data, None)
        return data
