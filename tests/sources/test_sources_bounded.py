"""Local files are read under a byte cap, special files are refused, header reads stay in their
window, and concurrent reads of one source are single-flight (one read or download)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.fetching.policy import DEFAULT_MAX_PATH_BYTES
from tests.conftest import RouteHandler, make_png, serve

LOOPBACK = mb.FetchPolicy(allow_private=True)


# -- the byte cap on paths ------------------------------------------------------------------------


def test_the_default_path_cap_is_documented_and_configurable() -> None:
    assert mb.FetchPolicy().max_path_bytes == DEFAULT_MAX_PATH_BYTES == 1024**3
    assert mb.FetchPolicy(max_path_bytes=10).max_path_bytes == 10


def test_a_file_over_the_cap_raises_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    path.write_bytes(make_png() + b"\x00" * 1000)
    block = mb.media_block(path)
    with pytest.raises(mb.FileTooLargeError, match=r"max_path_bytes \(100\)") as caught:
        block.read(mb.FetchPolicy(max_path_bytes=100))
    assert isinstance(caught.value, mb.TooLargeError)
    assert isinstance(caught.value, mb.SourceError)
    assert (caught.value.limit, caught.value.size) == (100, path.stat().st_size)
    assert "big.bin" in str(caught.value)
    assert not block.loaded


def test_a_file_at_the_cap_is_read(tmp_path: Path) -> None:
    data = make_png()
    path = tmp_path / "exact.png"
    path.write_bytes(data)
    assert mb.ImageBlock.from_path(path).read(mb.FetchPolicy(max_path_bytes=len(data))) == data


def test_the_cap_applies_through_use_policy(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    path.write_bytes(make_png())
    with mb.use_policy(mb.FetchPolicy(max_path_bytes=8)), pytest.raises(mb.FileTooLargeError):
        mb.ImageBlock.from_path(path).read()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_up_front_by_every_reader() -> None:
    block = mb.FileBlock.from_path("/dev/zero")
    for attempt in (
        block.read,
        block.read_header,
        lambda: block.mime_type,
        lambda: mb.probe(block),
    ):
        with pytest.raises(mb.FileTooLargeError, match="character device"):
            attempt()
    with pytest.raises(mb.TooLargeError, match="character device"):
        mb.media_block(Path("/dev/zero"))
    with pytest.raises(mb.MediaBlocksError):
        asyncio.run(block.aread())


def _in_thread(call: Any, timeout: float = 5.0) -> BaseException | None:
    """Run ``call`` in a thread; its exception, or fail if it hangs."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert outcome, "the read hung"
    return outcome[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    block = mb.FileBlock.from_path(fifo)
    for call in (block.read, block.read_header, lambda: mb.probe(block)):
        error = _in_thread(call)
        assert isinstance(error, mb.FileTooLargeError), error
        assert "FIFO" in str(error)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(mb.SourceError, match="is a directory"):
        mb.FileBlock.from_path(tmp_path).read()
    with pytest.raises(mb.SourceError, match="is a directory"):
        mb.FileBlock.from_path(tmp_path).read_header()


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux /proc")
def test_a_file_whose_size_says_nothing_is_read_up_to_the_cap() -> None:
    # /proc files say st_size 0 yet hold text: the reader must go on reading, and stop at the cap.
    assert os.stat("/proc/self/maps").st_size == 0
    whole = mb.FileBlock.from_path("/proc/self/maps").read()
    assert b"\n" in whole
    with pytest.raises(mb.FileTooLargeError, match="grew past"):
        mb.FileBlock.from_path("/proc/self/maps").read(mb.FetchPolicy(max_path_bytes=64))


def test_a_file_that_grows_while_read_stops_one_byte_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_bytes(b"x" * 100)
    stop = threading.Event()

    def grow() -> None:
        with open(path, "ab") as handle:
            while not stop.is_set():
                handle.write(b"y" * 65536)
                handle.flush()

    writer = threading.Thread(target=grow, daemon=True)
    writer.start()
    try:
        time.sleep(0.05)
        cap = 4 * 1024 * 1024
        outcome: BaseException | None = None
        for _ in range(200):  # the file passes the cap within a few rounds
            try:
                data = mb.FileBlock.from_path(path).read(mb.FetchPolicy(max_path_bytes=cap))
            except mb.FileTooLargeError as exc:
                outcome = exc
                break
            assert len(data) <= cap
    finally:
        stop.set()
        writer.join()
    assert isinstance(outcome, mb.FileTooLargeError)


# -- header reads ---------------------------------------------------------------------------------


def test_read_header_never_reads_past_its_window(tmp_path: Path) -> None:
    data = make_png() + bytes(range(256)) * 400
    path = tmp_path / "image.png"
    path.write_bytes(data)
    tight = mb.FetchPolicy(max_path_bytes=100)  # a whole read is refused: the header is not
    block = mb.ImageBlock.from_path(path)
    with mb.use_policy(tight):
        assert block.read_header(16) == data[:16]
        assert block.read_header() == data[: mb.mime.HEADER_WINDOW]
        assert block.read_header(90_000) == data[:90_000]
        with pytest.raises(mb.FileTooLargeError):
            block.read()
    assert not block.loaded


def test_read_header_of_bytes_urls_and_bad_sizes(png_bytes: bytes) -> None:
    assert mb.ImageBlock.from_bytes(png_bytes).read_header(8) == png_bytes[:8]
    with serve() as (base, handler):
        handler.routes["/a.png"] = ("image/png", png_bytes)
        assert mb.ImageBlock.from_url(f"{base}/a.png").read_header(4, LOOPBACK) == b"\x89PNG"
    for bad in (0, -1, True, 1.5, "8"):
        with pytest.raises(mb.InvalidOptionError, match=r"read_header\.n"):
            mb.ImageBlock.from_bytes(png_bytes).read_header(bad)  # type: ignore[arg-type]


# -- single flight --------------------------------------------------------------------------------


def _slow_get(self: RouteHandler) -> None:
    time.sleep(0.3)  # long enough that every concurrent reader arrives while the first is served
    RouteHandler._reply(self)


@pytest.fixture
def slow_server() -> Iterator[tuple[str, type[RouteHandler]]]:
    with serve(do_GET=_slow_get) as running:
        yield running


def test_fifty_tasks_make_one_download(slow_server: tuple[str, type[RouteHandler]]) -> None:
    base, handler = slow_server
    png = make_png((64, 64))
    handler.routes["/cat.png"] = ("image/png", png)
    block = mb.ImageBlock.from_url(f"{base}/cat.png")

    async def main() -> list[bytes]:
        return await asyncio.gather(*(block.aread(LOOPBACK) for _ in range(50)))

    results = asyncio.run(main())
    assert handler.hits == ["/cat.png"]
    assert all(result == png for result in results)
    assert block.mime_type == "image/png"


def test_sixteen_threads_make_one_download(slow_server: tuple[str, type[RouteHandler]]) -> None:
    base, handler = slow_server
    png = make_png((40, 30))
    handler.routes["/dog.png"] = ("image/png", png)
    block = mb.ImageBlock.from_url(f"{base}/dog.png")
    results = _run_threads(16, lambda: block.read(LOOPBACK))
    assert handler.hits == ["/dog.png"]
    assert results == [png] * 16


def _run_threads(count: int, call: Any) -> list[Any]:
    start = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = call()
        except Exception as exc:
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    return results


def test_threads_and_tasks_together_make_one_download(
    slow_server: tuple[str, type[RouteHandler]],
) -> None:
    base, handler = slow_server
    png = make_png((20, 20))
    handler.routes["/mixed.png"] = ("image/png", png)
    block = mb.ImageBlock.from_url(f"{base}/mixed.png")

    async def tasks() -> list[bytes]:
        return await asyncio.gather(*(block.aread(LOOPBACK) for _ in range(5)))

    turn = iter(range(8))
    lock = threading.Lock()

    def sync_or_async() -> list[bytes]:
        with lock:
            index = next(turn)
        return asyncio.run(tasks()) if index % 2 else [block.read(LOOPBACK)]

    results = _run_threads(8, sync_or_async)
    assert handler.hits == ["/mixed.png"]
    assert sorted(len(result) for result in results) == [1, 1, 1, 1, 5, 5, 5, 5]
    assert all(item == png for result in results for item in result)


def test_an_error_reaches_every_waiter_and_a_later_read_retries(
    slow_server: tuple[str, type[RouteHandler]],
) -> None:
    base, handler = slow_server
    block = mb.ImageBlock.from_url(f"{base}/later.png")
    results = _run_threads(12, lambda: block.read(LOOPBACK))
    assert handler.hits == ["/later.png"]  # one request, a 404
    assert all(isinstance(result, mb.FetchError) for result in results), results
    assert not block.loaded

    png = make_png((8, 8))
    handler.routes["/later.png"] = ("image/png", png)

    async def main() -> list[bytes]:
        return await asyncio.gather(*(block.aread(LOOPBACK) for _ in range(5)))

    assert asyncio.run(main()) == [png] * 5
    assert handler.hits == ["/later.png", "/later.png"]


def test_async_waiters_get_the_leaders_error(slow_server: tuple[str, type[RouteHandler]]) -> None:
    base, handler = slow_server
    block = mb.ImageBlock.from_url(f"{base}/missing.png")

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(block.aread(LOOPBACK) for _ in range(20)), return_exceptions=True
        )

    results = asyncio.run(main())
    assert handler.hits == ["/missing.png"]
    assert all(isinstance(result, mb.FetchError) for result in results)


def test_a_cancelled_leader_hands_the_read_to_a_waiter(
    slow_server: tuple[str, type[RouteHandler]],
) -> None:
    base, handler = slow_server
    png = make_png((6, 6))
    handler.routes["/c.png"] = ("image/png", png)
    block = mb.ImageBlock.from_url(f"{base}/c.png")

    async def main() -> tuple[bool, bytes]:
        leader = asyncio.ensure_future(block.aread(LOOPBACK))
        await asyncio.sleep(0.05)
        waiter = asyncio.ensure_future(block.aread(LOOPBACK))
        await asyncio.sleep(0.05)
        leader.cancel()
        data = await waiter
        return leader.cancelled(), data

    cancelled, data = asyncio.run(main())
    assert cancelled
    assert data == png


def test_a_path_is_opened_once_by_sixteen_threads(tmp_path: Path) -> None:
    data = make_png((300, 300)) + os.urandom(4 * 1024 * 1024)
    path = tmp_path / "one-file.png"
    path.write_bytes(data)
    opened: list[str] = []
    watching = True

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if watching and event == "open" and args and str(args[0]) == str(path):
            opened.append(event)

    sys.addaudithook(audit)  # hooks cannot be removed: this one stops counting below
    try:
        block = mb.ImageBlock.from_path(path)
        results = _run_threads(16, block.read)
    finally:
        watching = False
    assert results == [data] * 16
    assert len(opened) == 1


def test_blocks_deep_copy_and_pickle_with_their_bytes_and_fresh_locks(tmp_path: Path) -> None:
    import copy
    import pickle

    path = tmp_path / "photo.png"
    path.write_bytes(make_png((9, 9)))
    read = mb.ImageBlock.from_path(path)
    read.read()
    history = [mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png()), read])]
    for clone in (copy.deepcopy(history), pickle.loads(pickle.dumps(history))):
        assert clone == history
        copied = clone[0].content[1]
        assert isinstance(copied, mb.ImageBlock)
        assert copied.loaded
        assert copied.read() == read.read()
        assert _run_threads(4, copied.read) == [read.read()] * 4  # its own, working locks
