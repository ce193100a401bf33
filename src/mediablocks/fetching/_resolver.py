"""Name resolution under the fetch's deadline.

``socket.getaddrinfo`` cannot be interrupted: a resolver that hangs (a slow or hostile DNS server,
a stuck ``nsswitch`` module) would hold a fetch far past ``FetchPolicy.timeout``, and asyncio's own
``loop.getaddrinfo`` would then hold ``asyncio.run`` at exit while it joins its executor. Each
lookup here runs in a daemon thread the caller waits on for what is left of the deadline; past it
the fetch fails with a timeout while the thread finishes on its own (a daemon thread never holds
the interpreter's exit). At most `MAX_LOOKUPS` lookups run at once, so a flood of hanging names
cannot pile up threads: a lookup waits for a free slot within its deadline too.
"""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

__all__ = ["MAX_LOOKUPS", "LookupTimeout", "alookup", "lookup"]

MAX_LOOKUPS = 32
"""Lookups running at once in this process; more wait for a slot (within their deadline)."""

_SLOTS = threading.BoundedSemaphore(MAX_LOOKUPS)
_POLL = 0.005  # seconds between looks at a lookup from an event loop that is not asyncio's

AddressInfo = list[tuple[Any, ...]]


class LookupTimeout(Exception):
    """The lookup did not finish within the time it was given."""


class LookupUnavailable(Exception):
    """No thread could be started to run the lookup."""


def _start(host: str, port: int, slots: threading.BoundedSemaphore) -> Future[AddressInfo]:
    """Run ``getaddrinfo`` in a daemon thread that holds one of ``slots`` (taken by the caller)
    and gives it back when the lookup ends, however late."""
    future: Future[AddressInfo] = Future()

    def run() -> None:
        try:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(list(result))
        finally:
            slots.release()

    try:
        threading.Thread(target=run, name="mediablocks-resolver", daemon=True).start()
    except RuntimeError:  # no thread can be started (a process at its thread limit)
        slots.release()
        raise LookupUnavailable("no thread could be started to resolve the host") from None
    return future


def lookup(host: str, port: int, seconds: float) -> AddressInfo:
    """``getaddrinfo(host, port, SOCK_STREAM)`` within ``seconds``, or `LookupTimeout`.

    The resolver's own errors (``socket.gaierror``, ``UnicodeError``) come out as they are.
    """
    end = time.monotonic() + seconds
    slots = _SLOTS
    if seconds <= 0 or not slots.acquire(timeout=seconds):
        raise LookupTimeout
    future = _start(host, port, slots)
    try:
        return future.result(timeout=max(end - time.monotonic(), 0.0))
    except FutureTimeout:
        raise LookupTimeout from None


async def alookup(host: str, port: int, seconds: float) -> AddressInfo:
    """`lookup` for async code (asyncio or trio): the event loop never blocks on it."""
    import asyncio

    import anyio

    end = time.monotonic() + seconds
    slots = _SLOTS
    while not slots.acquire(blocking=False):
        if time.monotonic() >= end:
            raise LookupTimeout
        await anyio.sleep(_POLL)
    future = _start(host, port, slots)
    try:
        with anyio.fail_after(max(end - time.monotonic(), 0.0)):
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # trio: look at the future between short sleeps
                while not future.done():
                    await anyio.sleep(_POLL)
                return future.result()
            return await asyncio.wrap_future(future)
    except TimeoutError:
        raise LookupTimeout from None
