"""`FetchPolicy.timeout` covers name resolution: a resolver that hangs costs the timeout, not its
own minutes, in `fetch` and in `afetch` (and does not hold `asyncio.run` at exit)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.fetching import _resolver

HANG = 20.0  # what the fake resolver would take if nobody gave up on it


@pytest.fixture
def hanging_resolver(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """``socket.getaddrinfo`` blocks until the test ends (at most `HANG` seconds)."""
    release = threading.Event()
    asked: list[str] = []

    def hang(host: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(str(host))
        release.wait(HANG)
        raise socket.gaierror(socket.EAI_AGAIN, "temporary failure")

    monkeypatch.setattr(socket, "getaddrinfo", hang)
    yield asked
    release.set()


def test_fetch_gives_up_on_a_hanging_resolver_at_the_timeout(hanging_resolver: list[str]) -> None:
    policy = mb.FetchPolicy(timeout=0.5)
    started = time.monotonic()
    with pytest.raises(mb.FetchTimeoutError, match=r"resolving host 'slow\.example' took longer"):
        mb.fetch("http://slow.example/cat.png", policy)
    assert time.monotonic() - started < HANG / 2  # the deadline, not the resolver, ended it
    assert hanging_resolver == ["slow.example"]


def test_afetch_gives_up_and_asyncio_run_returns(hanging_resolver: list[str]) -> None:
    policy = mb.FetchPolicy(timeout=0.5)

    async def main() -> None:
        with pytest.raises(mb.FetchTimeoutError):
            await mb.afetch("http://slow.example/cat.png", policy)

    started = time.monotonic()
    asyncio.run(main())  # joins the loop's executor at exit: the lookup must not be in it
    assert time.monotonic() - started < HANG / 2
    assert hanging_resolver == ["slow.example"]


def test_lookups_wait_for_a_free_slot_within_their_deadline(
    hanging_resolver: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_resolver, "_SLOTS", threading.BoundedSemaphore(1))
    with pytest.raises(_resolver.LookupTimeout):
        _resolver.lookup("one.example", 80, 0.2)  # takes the only slot, keeps it (hanging)
    started = time.monotonic()
    with pytest.raises(_resolver.LookupTimeout):
        _resolver.lookup("two.example", 80, 0.2)  # no slot within its time: no new thread
    assert time.monotonic() - started < HANG / 2
    assert hanging_resolver == ["one.example"]


def test_a_quick_resolver_still_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    def local(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", local)
    assert _resolver.lookup("fast.example", 80, 1.0)[0][4] == ("127.0.0.1", 80)
    found = asyncio.run(_resolver.alookup("fast.example", 443, 1.0))
    assert found[0][4] == ("127.0.0.1", 443)
    with pytest.raises(mb.BlockedURLError, match="loopback"):  # then checked as always
        mb.fetch("http://fast.example/x.png", mb.FetchPolicy(timeout=2))
