"""One upload per content key at a time, across threads and asyncio tasks of the process.

The first caller for a key leads: it uploads and lands the flight with the reference (or the
error). Every caller that asks for the same key meanwhile follows: it waits on the same
`concurrent.futures.Future` (blocking in a thread, awaited through `asyncio.wrap_future` in a
task) and gets the leader's reference, so 50 concurrent calls holding 10 distinct files make
10 uploads. A caller leads at most one flight at a time and never waits while leading, so
flights cannot deadlock.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # concurrent.futures (and the logging it loads) waits for the first upload
    from concurrent.futures import Future

__all__ = ["join", "land"]

_lock = threading.Lock()
_flights: dict[str, Future[str]] = {}


def join(key: str) -> tuple[Future[str], bool]:
    """``(flight, leads)``: the flight for ``key``, and whether this caller must upload."""
    from concurrent.futures import Future

    with _lock:
        flight = _flights.get(key)
        if flight is not None:
            return flight, False
        flight = Future()
        _flights[key] = flight
        return flight, True


def land(key: str, flight: Future[str], reference: str | None, error: BaseException | None) -> None:
    """End the flight: followers get ``reference``, or ``error`` raised."""
    with _lock:
        if _flights.get(key) is flight:
            del _flights[key]
    if error is not None:
        flight.set_exception(error)
    else:
        assert reference is not None
        flight.set_result(reference)
