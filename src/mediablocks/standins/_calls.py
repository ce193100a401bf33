"""Calling the caller's transcriber or describer, sync or async, and naming it for the cache."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from ..errors import MediaBlocksError, StandInError

__all__ = ["LazyClient", "call_stand_in", "stand_in_name"]


class LazyClient:
    """The SDK client a ready-made stand-in was given, or one ``make`` builds from the
    environment on first use (once, however many threads ask). ``given`` stays what the caller
    passed, so what is derived from it (a cache key) does not change once a client is made."""

    def __init__(self, given: Any, make: Callable[[], Any]) -> None:
        self.given = given
        self._client = given
        self._make = make
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._make()
            return self._client


def stand_in_name(function: Callable[..., Any]) -> str:
    """A stable name for a callable: its ``cache_key`` attribute when it has one (the ready-made
    transcribers name their endpoint and model there), else its module and qualified name.

    The name is part of the cache key, so a history prepared again in a new process, with the
    same transcriber, finds its transcripts; two different callables never share an entry.
    """
    key = getattr(function, "cache_key", None)
    if isinstance(key, str) and key:
        return key
    if isinstance(function, functools.partial):
        return f"{stand_in_name(function.func)}{function.args!r}{sorted(function.keywords)!r}"
    target = function if inspect.isroutine(function) else type(function)
    module = getattr(target, "__module__", None) or "?"
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or "?"
    return f"{module}.{name}"


def call_stand_in(function: Callable[[Any], Any], block: Any, who: str) -> Any:
    """``function(block)``, awaited when it returns an awaitable (an ``async def``).

    Without a running event loop in this thread the awaitable runs in a fresh loop here; inside
    one (`prepare` called from async code) it runs in a fresh loop on a helper thread, since a
    synchronous call cannot give the running loop control. Any exception the callable raises is
    a `StandInError` naming ``who``, with the original as its cause.
    """
    try:
        result = function(block)
        if inspect.isawaitable(result):
            result = _wait(result)
    except MediaBlocksError:
        raise
    except Exception as exc:
        raise StandInError(f"{who} failed: {type(exc).__name__}: {exc}") from exc
    return result


def _wait(awaitable: Any) -> Any:
    import asyncio

    async def run() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    return _in_thread(run())


def _in_thread(coroutine: Coroutine[Any, Any, Any]) -> Any:
    import asyncio

    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # handed back to the calling thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="mediablocks-stand-in", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
