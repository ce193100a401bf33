"""The worker pool (`mediablocks.convert._pool`): workers start isolated and die with their
caller, short jobs never wait behind long ones, a cancelled caller stops its job, grown workers
are recycled, replies are bounded, and a crash is a crash even where SIGCHLD is ignored.

Slow, greedy and crashing converters are stood in for by the jobs of
`mediablocks.convert._jobs` (sleep, spin, hold, reply, mark_then_crash), so each case takes
seconds; the processes that must outlive or ignore pytest's own state run in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import mediablocks as mb
from mediablocks.convert import _jobs, _pool, isolation
from mediablocks.convert.budget import Budget, BudgetCancelledError, use_budget
from mediablocks.convert.isolation import run_isolated
from mediablocks.convert.limits import WorkerSettings, worker_settings

pytestmark = pytest.mark.skipif(os.name != "posix", reason="workers are POSIX processes here")

ROOT = Path(__file__).resolve().parents[2]
SMALL_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32">'
    b'<rect width="64" height="32" fill="#c00"/></svg>'
)


@pytest.fixture(autouse=True)
def fresh_pool() -> Iterator[None]:
    """Each test starts with no workers and the default settings, and leaves none behind."""
    isolation.shutdown_workers()
    before = worker_settings()
    yield
    mb.configure_workers(before)
    isolation.shutdown_workers()


def wait_for(check: Callable[[], bool], seconds: float = 20.0) -> bool:
    """Poll ``check`` until it holds or ``seconds`` pass (no timing is asserted: only that it
    happens at all, with a wide margin for a loaded machine)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


def dead(pid: int) -> bool:
    """The process is gone (or a zombie nobody reaped yet: it runs no more)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def marked_pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def run_python(script: str, cwd: Path, timeout: float = 120) -> dict[str, object]:
    """``script`` in a fresh interpreter (mediablocks as installed, run from ``cwd``); its
    last line of output is JSON."""
    path = cwd.parent / f"script-{os.getpid()}-{time.monotonic_ns()}.py"
    path.write_text(textwrap.dedent(script))
    done = subprocess.run(
        [sys.executable, str(path)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# -- isolated start --------------------------------------------------------------------------------


def test_a_worker_runs_isolated_in_the_root_folder_without_the_callers() -> None:
    facts = run_isolated("facts", _jobs.worker_facts)
    assert facts["isolated"]
    assert facts["ignore_environment"]
    assert facts["no_user_site"]
    assert facts["cwd"] == os.path.abspath(os.sep)
    here = os.path.realpath(os.getcwd())
    assert "" not in facts["path"]
    assert all(os.path.isabs(entry) for entry in facts["path"])
    assert here not in [os.path.realpath(entry) for entry in facts["path"]]
    assert facts["ppid"] == os.getpid()


SHADOWS = ("types", "pickle", "select", "struct", "importlib", "sitecustomize", "startup")


def test_code_planted_in_the_working_folder_never_runs(tmp_path: Path) -> None:
    """A caller whose working folder holds files named like the modules a worker imports (and a
    ``mediablocks`` package): neither the caller's prepare path nor its workers run them, even
    with ``PYTHONPATH`` and ``PYTHONSTARTUP`` pointing there."""
    cwd = tmp_path / "uploads"
    cwd.mkdir()
    marker = (
        "import os\n"
        "open(os.path.join({folder!r}, 'RAN-' + __name__.replace('.', '-')), 'w').close()\n"
    )
    for name in SHADOWS:
        (cwd / f"{name}.py").write_text(marker.format(folder=str(cwd)))
    for package in ("mediablocks", "mediablocks/convert"):
        (cwd / package).mkdir()
        (cwd / package / "__init__.py").write_text(marker.format(folder=str(cwd)))
    (cwd / "mediablocks/convert/_worker.py").write_text(marker.format(folder=str(cwd)))
    result = run_python(
        """
        import json, os
        os.environ["PYTHONPATH"] = os.getcwd()  # inherited by workers, which must ignore it
        os.environ["PYTHONSTARTUP"] = os.path.join(os.getcwd(), "startup.py")
        import mediablocks as mb
        from mediablocks.convert import _jobs
        from mediablocks.convert.isolation import run_isolated
        svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32">'
               b'<rect width="64" height="32"/></svg>')
        image = mb.ImageBlock.from_bytes(svg, "image/svg+xml")
        prepared = mb.prepare([mb.UserMessage(content=[image])], "anthropic")
        facts = run_isolated("facts", _jobs.worker_facts)
        print(json.dumps({
            "mime": prepared[0].content[0].mime_type,
            "package": os.path.dirname(mb.__file__),
            "path": facts["path"],
            "worker_package": [m for m in facts["modules"] if m.startswith("mediablocks")],
        }))
        """,
        cwd,
    )
    assert result["mime"] == "image/png"  # the conversion ran in a worker and succeeded
    assert sorted(path.name for path in cwd.iterdir() if path.name.startswith("RAN-")) == []
    assert str(cwd) not in result["path"]  # type: ignore[operator]
    assert "mediablocks.convert._worker" in result["worker_package"]  # type: ignore[operator]


# -- lanes and waiting -----------------------------------------------------------------------------


def test_a_short_job_does_not_wait_behind_long_ones(tmp_path: Path) -> None:
    mb.configure_workers(workers=1, short_workers=1)
    marks = tmp_path / "marks"
    errors: list[BaseException] = []

    def long_job() -> None:
        try:
            run_isolated("video", _jobs.sleep, 2.5, str(marks), lane="long")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=long_job) for _ in range(2)]
    for thread in threads:
        thread.start()
    assert wait_for(lambda: len(marked_pids(marks)) == 1)  # one long job runs, one waits
    assert run_isolated("small.svg", _jobs.sleep, 0.0) == 0.0  # short lane: served now
    still_running = [thread.is_alive() for thread in threads]
    for thread in threads:
        thread.join()
    assert still_running == [True, True]  # neither long job had finished
    assert errors == []
    assert len(marked_pids(marks)) == 2  # the second long job ran after the first


def test_short_jobs_may_use_the_long_lanes_workers_but_not_the_reverse(tmp_path: Path) -> None:
    mb.configure_workers(workers=1, short_workers=1)
    marks = tmp_path / "marks"
    threads = [
        threading.Thread(target=run_isolated, args=("a", _jobs.sleep, 2.0, str(marks)))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    assert wait_for(lambda: len(marked_pids(marks)) == 2)  # two short jobs: both slots
    budget = Budget(0.3, lane="long")
    with use_budget(budget), pytest.raises(mb.ConversionTimeoutError) as caught:
        run_isolated("clip.mp4", _jobs.sleep, 0.0)  # a long job: no slot is free for it
    for thread in threads:
        thread.join()
    assert caught.value.limit == "time_budget"
    assert "waiting for a free worker" in str(caught.value)
    assert str(caught.value).startswith("clip.mp4: ")


def test_the_wait_for_a_worker_counts_in_the_block_budget(tmp_path: Path) -> None:
    mb.configure_workers(workers=1, short_workers=0)
    marks = tmp_path / "marks"
    busy = threading.Thread(target=run_isolated, args=("slow", _jobs.sleep, 3.0, str(marks)))
    busy.start()
    assert wait_for(lambda: len(marked_pids(marks)) == 1)
    with use_budget(Budget(0.5)), pytest.raises(mb.ConversionTimeoutError) as caught:
        run_isolated("small.svg", _jobs.sleep, 0.0, converter="SVG renderer")
    waited_alone = busy.is_alive()
    busy.join()
    assert waited_alone  # it gave up before the slow job ended
    assert caught.value.limit == "time_budget"
    assert caught.value.value == 0.5
    assert "time_budget=0.5 s of this block" in str(caught.value)


def test_one_budget_covers_every_job_of_a_block() -> None:
    with use_budget(Budget(1.5)):
        run_isolated("clip.mp4", _jobs.sleep, 1.0)  # the first step fits
        with pytest.raises(mb.ConversionTimeoutError) as caught:
            run_isolated("clip.mp4", _jobs.sleep, 1.0)  # the second does not: 1.5 s in all
    assert caught.value.limit == "time_budget"
    assert "clip.mp4" in str(caught.value)


def test_the_cpu_a_worker_reports_is_charged_to_the_block() -> None:
    budget = Budget(60, cpu_seconds=1.0)

    def spin_until_stopped() -> None:
        with use_budget(budget):
            for _ in range(5):
                run_isolated("noise.svg", _jobs.spin, 0.4)

    with pytest.raises(mb.ConversionTimeoutError) as caught:
        spin_until_stopped()
    assert budget.worker_cpu >= 0.8  # two or more jobs were charged before it ran out
    assert caught.value.limit == "time_budget"
    assert "CPU budget" in str(caught.value)


# -- cancelling ------------------------------------------------------------------------------------


def test_cancelling_the_budget_kills_the_job_it_pays_for(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    budget = Budget(None)
    outcome: list[BaseException] = []

    def convert() -> None:
        with use_budget(budget):
            try:
                run_isolated("slow", _jobs.sleep, 60.0, str(marks))
            except BaseException as exc:
                outcome.append(exc)

    thread = threading.Thread(target=convert)
    thread.start()
    assert wait_for(lambda: len(marked_pids(marks)) == 1)
    (pid,) = marked_pids(marks)
    budget.cancel()
    thread.join(30)
    assert not thread.is_alive()
    assert isinstance(outcome[0], BudgetCancelledError)
    assert isinstance(outcome[0], mb.MediaBlocksError)
    assert wait_for(lambda: dead(pid))
    assert run_isolated("next", _jobs.sleep, 0.0) == 0.0  # the pool goes on


async def test_cancelling_aprepare_stops_its_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    marks = tmp_path / "marks"
    original = isolation.run_isolated

    def slow_render(what: str, job: object, *args: object, **options: object) -> object:
        return original(what, _jobs.sleep, 60.0, str(marks))  # a render that never ends

    monkeypatch.setattr(isolation, "run_isolated", slow_render)
    image = mb.ImageBlock.from_bytes(SMALL_SVG, "image/svg+xml")
    task = asyncio.ensure_future(mb.aprepare([mb.UserMessage(content=[image])], "anthropic"))
    for _ in range(400):
        if marked_pids(marks):
            break
        await asyncio.sleep(0.05)
    (pid,) = marked_pids(marks)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(400):
        if dead(pid):
            break
        await asyncio.sleep(0.05)
    assert dead(pid)


def test_aprepare_gives_what_prepare_gives() -> None:
    import asyncio

    image = mb.ImageBlock.from_bytes(SMALL_SVG, "image/svg+xml", filename="a.svg")
    messages = [mb.UserMessage(content=[image])]
    together = asyncio.run(mb.aprepare_with_report(messages, "anthropic"))
    alone = mb.prepare_with_report(messages, "anthropic")
    assert together[0] == alone[0]
    assert together[1].blocks[0].changes == alone[1].blocks[0].changes


# -- dying with the caller -------------------------------------------------------------------------

ORPHAN = """
import json, os, sys, threading, time
from mediablocks.convert import _jobs, _pool
from mediablocks.convert.isolation import run_isolated
_pool.USE_PDEATHSIG = {pdeathsig}
marks = sys.argv[1] if len(sys.argv) > 1 else {marks!r}
threading.Thread(target=run_isolated, args=("slow", _jobs.sleep, 120.0, marks), daemon=True).start()
while not (os.path.exists(marks) and os.path.getsize(marks)):
    time.sleep(0.02)
print(json.dumps({{"caller": os.getpid()}}), flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("pdeathsig", [True, False], ids=["pdeathsig", "pipe-watchdog"])
def test_a_busy_worker_dies_with_its_caller(tmp_path: Path, pdeathsig: bool) -> None:
    if pdeathsig and not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    marks = tmp_path / "marks"
    script = tmp_path / "caller.py"
    script.write_text(ORPHAN.format(pdeathsig=pdeathsig, marks=str(marks)))
    caller = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert caller.stdout is not None
        json.loads(caller.stdout.readline())
        assert wait_for(lambda: len(marked_pids(marks)) == 1)
        (worker,) = marked_pids(marks)
        assert not dead(worker)
        caller.kill()  # no atexit, no cleanup: only the kernel and the worker know
        caller.wait()
        assert wait_for(lambda: dead(worker), 30)
    finally:
        caller.kill()
        caller.wait()


CRASH_IGNORING_SIGCHLD = """
import json, os, signal, sys, time
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reap themselves: every status reads 0
import mediablocks as mb
from mediablocks.convert import _jobs
from mediablocks.convert.isolation import run_isolated
from mediablocks.convert.workers import configure_workers
marks, quiet = sys.argv[1], sys.argv[2]
try:
    run_isolated("crash.svg", _jobs.mark_then_crash, marks, converter="SVG renderer")
    outcome = {"error": None}
except mb.ConversionCrashedError as exc:
    outcome = {"error": type(exc).__name__, "signal": exc.signal, "message": str(exc)}
configure_workers(idle_seconds=0.3)
run_isolated("warm", _jobs.sleep, 0.0)
time.sleep(1.5)  # the idle worker left (saying so) meanwhile
outcome["after_idle"] = run_isolated("again", _jobs.sleep, 0.0, quiet)
print(json.dumps(outcome))
"""


def test_a_crash_reads_as_a_crash_and_runs_once_where_sigchld_is_ignored(tmp_path: Path) -> None:
    script = tmp_path / "caller.py"
    script.write_text(CRASH_IGNORING_SIGCHLD)
    marks, quiet = tmp_path / "marks", tmp_path / "quiet"
    done = subprocess.run(
        [sys.executable, str(script), str(marks), str(quiet)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["error"] == "ConversionCrashedError"
    assert outcome["signal"] == "SIGSEGV"  # named from the worker's own fault report
    assert outcome["message"].startswith("crash.svg: the SVG renderer crashed")
    assert len(marked_pids(marks)) == 1  # the crashed job was not run again
    assert outcome["after_idle"] == 0.0
    assert len(marked_pids(quiet)) == 1  # sent to a worker that had left: run once, elsewhere


# -- memory and replies ----------------------------------------------------------------------------


def test_a_worker_that_grew_is_recycled_and_a_small_one_kept() -> None:
    mb.configure_workers(recycle_rss_bytes=96 << 20)
    first = run_isolated("facts", _jobs.worker_facts)["pid"]
    assert run_isolated("facts", _jobs.worker_facts)["pid"] == first  # small: kept
    resident = run_isolated("big.mp4", _jobs.hold, 128)
    assert resident > 96 << 20
    assert run_isolated("facts", _jobs.worker_facts)["pid"] != first  # grown: replaced
    assert wait_for(lambda: dead(first))


def test_a_reply_over_the_cap_is_a_limit_error() -> None:
    mb.configure_workers(max_reply_bytes=1 << 20)
    with pytest.raises(mb.ConversionLimitError) as caught:
        run_isolated("huge.svg", _jobs.reply, 2 << 20, converter="SVG renderer")
    assert caught.value.limit == "max_reply_bytes"
    assert caught.value.value == 1 << 20
    assert str(caught.value).startswith("huge.svg: the SVG renderer sent a result of")
    assert run_isolated("small", _jobs.reply, 10) == b"r" * 10  # the worker lives on


def test_a_reply_announced_over_the_cap_is_refused_before_it_is_read() -> None:
    """A worker that lies (compromised) cannot make this process allocate what it announces."""
    liar = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; sys.stdin.buffer.read(9); "
            "sys.stdout.buffer.write((1 << 40).to_bytes(8, 'big')); sys.stdout.flush()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    worker = _pool.Worker(liar, tempfile.TemporaryFile())  # noqa: SIM115 (closed below)
    try:
        with pytest.raises(_pool.ReplyTooLarge) as caught:
            worker.call(b"x", time.monotonic() + 30, 1 << 20)
        assert caught.value.size == 1 << 40
    finally:
        worker.kill()
        liar.wait()
        worker.close()


# -- settings and warm-up --------------------------------------------------------------------------


def test_warm_up_starts_workers_with_the_converters_loaded() -> None:
    assert mb.warm_up(1) == 1
    facts = run_isolated("facts", _jobs.worker_facts)
    assert "mediablocks.convert.raster" in facts["modules"]  # preloaded, not imported by a job
    assert run_isolated("facts", _jobs.worker_facts)["pid"] == facts["pid"]


def test_warm_workers_are_replaced_after_a_crash(tmp_path: Path) -> None:
    assert mb.warm_up(1) == 1
    with pytest.raises(mb.ConversionCrashedError):
        run_isolated("crash.svg", _jobs.mark_then_crash, str(tmp_path / "marks"))
    pool = isolation._the_pool()
    assert wait_for(lambda: len(pool.idle) == 1)  # a new one started in the background
    assert pool.idle[0].wait_ready(time.monotonic() + 30)


@pytest.mark.parametrize(
    "changes",
    [
        {"workers": 0},
        {"short_workers": -1},
        {"short_workers": True},
        {"idle_seconds": float("nan")},
        {"recycle_rss_bytes": 0},
        {"max_reply_bytes": 1000},
        {"jobs_per_worker": 1.5},
        {"threads": 3},
    ],
)
def test_worker_settings_are_validated(changes: dict[str, object]) -> None:
    with pytest.raises(mb.InvalidOptionError):
        mb.configure_workers(**changes)
    assert worker_settings() == WorkerSettings()


def test_warm_up_refuses_a_bad_count() -> None:
    with pytest.raises(mb.InvalidOptionError, match="warm_up"):
        mb.warm_up(0)


def test_no_thread_to_start_workers_is_a_library_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_thread(self: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_pool._Keeper, "__init__", no_thread)
    with pytest.raises(mb.ConversionUnavailableError, match=r"^a\.svg: no thread could"):
        run_isolated("a.svg", _jobs.sleep, 0.0)
    document = mb.FileBlock.from_bytes(b"{\\rtf1 hello}", "text/rtf", filename="a.rtf")
    with pytest.raises(mb.ConversionUnavailableError):  # at once, not as the block's problem
        mb.prepare([mb.UserMessage(content=[document])], "anthropic")
