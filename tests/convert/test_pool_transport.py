"""How bytes cross to and from a worker (issue 30): a file a job converts is written to the pipe
as it is (not copied into the request's pickle), the worker and the caller each read into a
buffer they keep from job to job, the pipes are widened, a reply's CPU seconds cover the whole
request, and a worker gives memory back only when it holds enough freed. Every byte must still
arrive as sent, whatever the sizes in a row."""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediablocks.convert import _jobs, _pool, _wire, _worker, isolation
from mediablocks.convert.isolation import _FrameReader, _result, run_isolated
from mediablocks.convert.limits import ConversionLimits
from mediablocks.errors import DecodeError
from tests.conftest import TESTDATA

pytestmark = pytest.mark.skipif(os.name != "posix", reason="workers are POSIX processes here")


@pytest.fixture(autouse=True)
def fresh_pool() -> Iterator[None]:
    isolation.shutdown_workers()
    yield
    isolation.shutdown_workers()


def _pattern(size: int, seed: int) -> bytes:
    return bytes((index * 31 + seed) % 251 for index in range(size % 4096)) * (size // 4096 + 1)


def test_bytes_of_every_size_in_a_row_cross_both_ways_intact() -> None:
    """Small, larger than one write, larger than the kept buffers, then small again: the kept
    buffers never hand a job (or the caller) what an earlier, larger message left in them."""
    sizes = [10, 70_000, 3 << 20, 200, _wire.REUSED_BYTES + 12_345, 5000, 1 << 20, 0]
    for seed, size in enumerate(sizes):
        data = _pattern(size, seed)[:size]
        tail = bytes([seed]) * 3
        assert run_isolated("echo", _jobs.echo, data, tail) == data[::-1] + tail


def test_one_worker_serves_them_all() -> None:
    pids = {run_isolated("facts", _jobs.worker_facts)["pid"]}
    for size in (100_000, 1 << 20, 100_000):
        run_isolated("echo", _jobs.echo, bytes(size))
        pids.add(run_isolated("facts", _jobs.worker_facts)["pid"])
    assert len(pids) == 1  # kept from job to job: no worker was replaced for its buffers


def test_a_large_argument_is_sent_as_it_is_not_copied_into_the_pickle() -> None:
    data = os.urandom(300_000)
    parts = _wire.pickled(("module", "job", (data, "what"), {}))
    assert any(part is data for part in parts)
    assert pickle.loads(b"".join(parts)) == ("module", "job", (data, "what"), {})


@settings(max_examples=60, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.integers() | st.text(max_size=20) | st.binary(max_size=200_000),
        lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner),
        max_leaves=6,
    )
)
def test_the_chunks_of_a_pickle_are_the_pickle(value: object) -> None:
    assert pickle.loads(b"".join(_wire.pickled(value))) == value


def test_the_pipes_to_a_worker_are_widened() -> None:
    fcntl = pytest.importorskip("fcntl")
    getsize = getattr(fcntl, "F_GETPIPE_SZ", None)
    if getsize is None:
        pytest.skip("no F_GETPIPE_SZ here")
    with open("/proc/sys/fs/pipe-max-size") as limit:
        if int(limit.read()) < _wire.PIPE_BYTES:
            pytest.skip("the system allows smaller pipes")
    run_isolated("facts", _jobs.worker_facts)
    pool = isolation._the_pool()
    (worker,) = pool.idle
    for pipe in (worker.requests, worker.replies):
        assert fcntl.fcntl(pipe.fileno(), getsize) == _wire.PIPE_BYTES


def test_a_reply_counts_the_cpu_of_the_whole_request() -> None:
    """The CPU seconds a reply carries are at least the job's own (they also cover reading
    the request and pickling the result)."""
    run_isolated("warm", _jobs.reply, 0)
    seen: list[float] = []
    call = _pool.Worker.call

    def counting(worker: _pool.Worker, *args: object, **keywords: object) -> object:
        result = call(worker, *args, **keywords)  # type: ignore[arg-type]
        seen.append(result[0])
        return result

    _pool.Worker.call = counting  # type: ignore[assignment,method-assign]
    try:
        spun = run_isolated("spin", _jobs.spin, 0.2)
    finally:
        _pool.Worker.call = call  # type: ignore[method-assign]
    assert seen[0] >= spun >= 0.2


def test_a_frame_in_a_longer_buffer_is_read_to_its_end_only() -> None:
    """A reply read into the caller's kept buffer is a view of its start: a pickle (even one
    read by lines, protocol 0) sees nothing of what an earlier, longer reply left after it."""
    payload = pickle.dumps(("ok", "short"), protocol=0)
    buffer = bytearray(payload + b"\nleft over from a longer reply\n")
    frame = memoryview(buffer)[: len(payload)]
    assert _result(frame, "x", "test", ConversionLimits()) == "short"
    cut = memoryview(buffer)[: len(payload) - 3]
    with pytest.raises(Exception, match="unreadable reply"):
        _result(cut, "x", "test", ConversionLimits())
    reader = _FrameReader(memoryview(bytearray(b"ab\ncd\nef"))[:4])
    assert [reader.readline(), reader.readline(), reader.readline()] == [b"ab\n", b"c", b""]


@pytest.mark.parametrize(
    ("held", "trims"), [(0, False), (_worker.WORTH_TRIMMING - 1, False), (64 << 20, True)]
)
def test_a_worker_gives_memory_back_only_when_its_heap_holds_enough(
    monkeypatch: pytest.MonkeyPatch, held: int, trims: bool
) -> None:
    """A full collection costs some 17 ms with PyAV loaded: a worker whose size is its
    libraries, not freed memory, skips it after each job."""
    import gc

    collected: list[int] = []
    monkeypatch.setattr(_worker, "_heap_free_bytes", lambda: held)
    monkeypatch.setattr(gc, "collect", lambda *generation: collected.append(1) or 0)
    assert _worker._give_back_memory() is trims
    assert collected == ([1] if trims else [])


def test_where_the_heap_cannot_be_asked_a_worker_gives_memory_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    collected: list[int] = []
    monkeypatch.setattr(_worker, "_heap_free_bytes", lambda: None)
    monkeypatch.setattr(gc, "collect", lambda *generation: collected.append(1) or 0)
    assert _worker._give_back_memory() is True
    assert collected == [1]


def test_the_heap_reports_what_it_holds_freed() -> None:
    held = _worker._heap_free_bytes()
    if held is None:
        pytest.skip("not glibc 2.33 or later")
    assert held >= 0


def test_the_benchmarks_header_read_gives_in_a_worker_what_it_gives_here() -> None:
    """`_jobs.read_headers` is bench_verify's isolated baseline: a PyAV open in a worker."""
    pytest.importorskip("av")
    data = (TESTDATA / "audio/sample.flac").read_bytes()
    here = _jobs.read_headers(data)
    assert here > 8000  # a sample rate, plus the stream's duration
    assert run_isolated("sample.flac", _jobs.read_headers, data) == here
    with pytest.raises(DecodeError, match=r"^noise: "):
        run_isolated("noise", _jobs.read_headers, bytes(range(256)) * 64)
