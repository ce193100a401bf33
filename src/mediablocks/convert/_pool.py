"""The worker processes behind `run_isolated`: how they are started, scheduled, read and retired.

- **Started isolated and tied to this process.** ``python -I -c BOOTSTRAP`` (`_worker`): no
  current folder, no user site, no ``PYTHON*`` variables; ``sys.path`` is this process's without
  ``""``, relative entries or the working folder, and ``mediablocks`` is found from the folder
  it was imported from; it runs in the root folder, so no relative path reaches the caller's.
  Every worker is started by one long-lived thread (`_Keeper`), since
  Linux sends ``PR_SET_PDEATHSIG`` when the *thread* that started a process ends, and in a new
  session, so the terminal's Ctrl-C reaches only the caller, which then stops its jobs.
- **Two lanes.** Long jobs (audio and video) run at most `WorkerSettings.workers` at once;
  short jobs (the rest) may use those and `WorkerSettings.short_workers` more, so a small SVG
  never waits behind two video transcodes. Within a lane, callers are served first come, first
  served; nobody waits past their deadline.
- **Read under a deadline, bounded.** A reply is read with ``poll`` until the caller's
  deadline (the worker is killed then), its length checked against
  `WorkerSettings.max_reply_bytes` before a byte of it is read, and read into one buffer.
- **Retired, not kept, when it grew.** A worker whose resident memory after a job is over
  `WorkerSettings.recycle_rss_bytes`, or that served `WorkerSettings.jobs_per_worker` jobs, is
  retired; `_Keeper` reaps retired and killed workers without making a caller wait.

A worker leaving on its idle timer says so (a ``B`` frame) before it goes, so a job sent to it
meanwhile is known not to have run and goes to another worker; a worker that dies without
saying so crashed, whatever exit status this process can see (a caller ignoring ``SIGCHLD``
sees 0 for every child), and its job is never run again.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO

from ._wire import REUSED_BYTES, widen_pipes, write_framed
from ._worker import BYE, READY, REPLY, STATS
from .limits import WorkerSettings

_BOOTSTRAP = (
    "import sys\n"
    "sys.path[:] = {path!r}\n"
    "package = type(sys)('mediablocks')\n"
    "package.__path__ = [{package!r}]\n"
    "sys.modules['mediablocks'] = package\n"
    "from mediablocks.convert._worker import main\n"
    "main(parent={parent!r}, idle={idle!r}, preload={preload!r}, pdeathsig={pdeathsig!r})\n"
)

PAYLOAD = 1 + STATS.size
"""Where the pickle starts in a reply frame (after the tag and the job's figures)."""

_Started = tuple[subprocess.Popen[bytes], IO[bytes]]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_WINDOWS = os.name == "nt"

USE_PDEATHSIG = True
"""Tie workers to this process with ``PR_SET_PDEATHSIG`` (Linux); the tests turn it off to see
the pipe watchdog alone do it."""
_RETIRE_GRACE = 5.0  # seconds a retired worker has to leave before it is killed


class WorkerGone(Exception):
    """Internal: the worker ended before replying. ``why``: ``"expired"`` (its deadline),
    ``"cancelled"``, ``"left"`` (its idle timer: the job did not run) or ``"crashed"``."""

    def __init__(self, why: str, returncode: int | None = None, stderr: str = "") -> None:
        super().__init__(why)
        self.why = why
        self.returncode = returncode
        self.stderr = stderr


class ReplyTooLarge(Exception):
    """Internal: the worker announced a reply over the cap (its pipe is then unusable)."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class WaitExpired(Exception):
    """Internal: no worker became free before the caller's deadline (or it was cancelled)."""

    def __init__(self, lane: str, busy: int, cancelled: bool = False) -> None:
        super().__init__(lane)
        self.lane = lane
        self.busy = busy
        self.cancelled = cancelled


def worker_path() -> list[str]:
    """``sys.path`` for a worker: this process's absolute entries, minus the working folder."""
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the working folder was removed
        here = None
    entries: list[str] = []
    for entry in sys.path:
        if not isinstance(entry, str) or not entry or not os.path.isabs(entry):
            continue
        if here is not None and os.path.realpath(entry) == here:
            continue
        if entry not in entries:
            entries.append(entry)
    return entries


# -- one worker -----------------------------------------------------------------------------------


class Worker:
    """One worker process and its pipes; used by one caller at a time."""

    def __init__(self, process: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self.pid = process.pid
        self.stderr = stderr
        self.requests = process.stdin
        self.replies = process.stdout
        self.jobs = 0
        self.started = time.monotonic()
        self.ready_at: float | None = None
        self.killed_for: str | None = None  # "expired", "cancelled": why this side killed it
        self.resident = 0
        self.spare = bytearray()  # the buffer replies are read into, kept from job to job

    # -- state --

    def usable(self, settings: WorkerSettings) -> bool:
        """Alive, not worn out, and with nothing but a READY frame waiting (a ``B`` frame or
        the pipe's end: it left or died while idle)."""
        if self.jobs >= settings.jobs_per_worker or self.process.poll() is not None:
            return False
        if _WINDOWS:  # no poll on pipes there; a worker never leaves by itself there either
            return True
        try:
            while _readable(self.replies.fileno(), 0.0):
                if self._frame(time.monotonic() + 1.0, 16) != READY:
                    return False
                self.ready_at = self.ready_at or time.monotonic()
        except (OSError, EOFError, WorkerGone, ReplyTooLarge):
            return False
        return True

    def wait_ready(self, deadline: float) -> bool:
        """Block until the worker said it is ready (`warm_up`)."""
        if self.ready_at is not None:
            return True
        try:
            if self._frame(deadline, 16) == READY:
                self.ready_at = time.monotonic()
                return True
        except (OSError, EOFError, WorkerGone, ReplyTooLarge):
            pass
        return False

    # -- one job --

    def call(
        self, request: bytes | Sequence[bytes], deadline: float | None, cap: int
    ) -> tuple[float, int, memoryview]:
        """Send one job (its pickle, or the chunks of it to write one after the other) and
        return ``(CPU seconds, resident bytes, reply frame)`` (the pickle starts at `PAYLOAD`;
        the frame's buffer is this worker's: read it before the worker takes another job);
        past ``deadline`` the worker is killed (`WorkerGone` ``"expired"``)."""
        self.jobs += 1
        with contextlib.suppress(OSError):  # it left or died: what it wrote last says which
            write_framed(self.requests.fileno(), request)
        timer = _windows_timer(self, deadline)
        try:
            while True:
                frame = self._frame(deadline, cap)
                if frame[:1] == REPLY:
                    break
                if frame[:1] == BYE:
                    raise WorkerGone("left")
        except EOFError:
            self.kill()
            raise self._gone() from None
        except WorkerGone as gone:
            if gone.why == "expired":
                self.kill("expired")
            raise
        except BaseException:
            self.kill()  # interrupted mid-job: its state is unknown
            raise
        finally:
            if timer is not None:
                timer.cancel()
        cpu, resident = STATS.unpack_from(frame, 1)
        self.resident = resident
        return cpu, resident, frame

    def _frame(self, deadline: float | None, cap: int) -> memoryview:
        """The next frame: a view from the start of a buffer this worker reuses for the next
        frame (up to `REUSED_BYTES`), so it is read (unpickled) before the worker is let go."""
        head = self._read(memoryview(bytearray(8)), deadline)
        size = int.from_bytes(head, "big")
        if size > cap:
            self.kill()
            raise ReplyTooLarge(size)
        if size == 0:
            raise EOFError("empty frame")
        if size > REUSED_BYTES:
            return self._read(memoryview(bytearray(size)), deadline)
        if len(self.spare) < size:  # replaced, never resized: a view of the old one may live on
            self.spare = bytearray(max(size, min(2 * len(self.spare), REUSED_BYTES)))
        return self._read(memoryview(self.spare)[:size], deadline)

    def _read(self, view: memoryview, deadline: float | None) -> memoryview:
        size = len(view)
        fd = self.replies.fileno()
        done = 0
        while done < size:
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and (timeout <= 0 or not _readable(fd, timeout)):
                raise WorkerGone("expired")
            count = self.replies.readinto(view[done : done + (1 << 20)])  # type: ignore[attr-defined]
            if not count:
                raise EOFError("the worker's pipe ended")
            done += count
        return view

    def _gone(self) -> WorkerGone:
        if self.killed_for is not None:
            return WorkerGone(self.killed_for, self.process.poll(), "")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        return WorkerGone("crashed", self.process.poll(), self.stderr_tail())

    # -- the end --

    def kill(self, why: str | None = None) -> None:
        """SIGKILL now (no waiting: `_Keeper` reaps it); ``why`` is kept for the error."""
        if why is not None and self.killed_for is None:
            self.killed_for = why
        with contextlib.suppress(OSError):
            self.process.kill()

    def close_pipes(self) -> None:
        for stream in (self.requests, self.replies):
            with contextlib.suppress(OSError):
                stream.close()

    def close(self) -> None:
        self.close_pipes()
        with contextlib.suppress(OSError):
            self.stderr.close()

    def stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 4096))
            return self.stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""


def _readable(fd: int, timeout: float) -> bool:
    """``fd`` has data or its end within ``timeout`` seconds (``poll``: any descriptor number;
    on Windows, where pipes cannot be polled, reads block and `_windows_timer` ends them)."""
    if _WINDOWS:
        return True
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(max(0, int(timeout * 1000 + 0.999))))
    ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
    return bool(ready)


def _windows_timer(worker: Worker, deadline: float | None) -> threading.Timer | None:
    """Windows only: a timer that kills the worker at the deadline (elsewhere `poll` waits)."""
    if not _WINDOWS or deadline is None:
        return None
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), worker.kill, ("expired",))
    timer.daemon = True
    timer.start()  # RuntimeError when no thread can start: the caller says so
    return timer


# -- the thread that starts and reaps workers -----------------------------------------------------


class _Keeper:
    """One long-lived thread per pool: starts every worker (so Linux's PDEATHSIG, tied to the
    starting thread, fires only when this process ends) and reaps retired ones."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.retiring: list[tuple[Worker, float]] = []
        self.thread = threading.Thread(target=self._loop, name="mediablocks-workers", daemon=True)
        self.thread.start()  # RuntimeError when no thread can be started: the caller says so

    def run(self, task: Callable[[], _Started]) -> _Started:
        """``task()`` (a process start) on the keeper's thread; its result or its error here."""
        done = threading.Event()
        box: list[_Started | BaseException] = []

        def job() -> None:
            try:
                box.append(task())
            except BaseException as exc:
                box.append(exc)
            done.set()

        self.tasks.put(job)
        try:
            done.wait()
        except BaseException:  # interrupted: the worker, once started, is retired
            self.tasks.put(lambda: self._abandon(box))
            raise
        outcome = box[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _abandon(self, box: list[_Started | BaseException]) -> None:
        if box and isinstance(box[0], tuple):
            worker = Worker(*box[0])
            worker.kill()
            self.retiring.append((worker, time.monotonic()))

    def retire(self, worker: Worker) -> None:
        """Close its pipe (it leaves); reaped, or killed after a grace period, in the thread."""
        worker.close_pipes()
        self.tasks.put(lambda: self.retiring.append((worker, time.monotonic())))

    def _loop(self) -> None:
        while True:
            try:
                task = self.tasks.get(timeout=0.2 if self.retiring else None)
            except queue.Empty:
                task = None
            if task is not None:
                task()
            self._reap()

    def _reap(self) -> None:
        still = []
        for worker, since in self.retiring:
            if worker.process.poll() is None:
                if time.monotonic() - since < _RETIRE_GRACE:
                    still.append((worker, since))
                    continue
                worker.kill()
                with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                    worker.process.wait(timeout=1)
            worker.close()
        self.retiring = still


# -- the pool -------------------------------------------------------------------------------------


class Pool:
    """Workers of this process, handed out by lane (see the module docstring)."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.pid = os.getpid()
        self.settings = settings
        self.cond = threading.Condition()
        self.idle: list[Worker] = []
        self.busy = {"short": 0, "long": 0}
        self.lines: dict[str, collections.deque[object]] = {
            "short": collections.deque(),
            "long": collections.deque(),
        }
        self.warm = 0  # workers `warm_up` asked to keep ready
        self.starting = 0  # of those, being started in the background
        self.closed = False
        self._keeper: _Keeper | None = None

    @property
    def keeper(self) -> _Keeper:
        with self.cond:
            if self._keeper is None:
                self._keeper = _Keeper()
            return self._keeper

    # -- handing workers out --

    def _admits(self, lane: str) -> bool:
        settings = self.settings
        running = self.busy["short"] + self.busy["long"]
        if running >= settings.capacity:
            return False
        return lane == "short" or self.busy["long"] < settings.workers

    def acquire(self, lane: str, deadline: float | None, cancelled: Callable[[], bool]) -> Worker:
        """A worker for one job of ``lane``, waiting (first come, first served) at most until
        ``deadline``; `WaitExpired` past it or once ``cancelled()``."""
        ticket = object()
        with self.cond:
            line = self.lines[lane]
            line.append(ticket)
            try:
                while line[0] is not ticket or not self._admits(lane):
                    if cancelled():
                        raise WaitExpired(lane, self._running(), cancelled=True)
                    timeout = None if deadline is None else deadline - time.monotonic()
                    if timeout is not None and timeout <= 0:
                        raise WaitExpired(lane, self._running())
                    self.cond.wait(timeout)
                self.busy[lane] += 1
            finally:
                line.remove(ticket)
                self.cond.notify_all()
        try:
            return self._take()
        except BaseException:
            self.release(None, lane, keep=False)
            raise

    def _running(self) -> int:
        return self.busy["short"] + self.busy["long"]

    def _take(self) -> Worker:
        while True:
            with self.cond:
                worker = self.idle.pop() if self.idle else None
            if worker is None:
                return self.start_worker(preload=False)
            if worker.usable(self.settings):
                return worker
            self._retire(worker)

    def release(self, worker: Worker | None, lane: str, *, keep: bool) -> None:
        """Give the worker back after a job: kept idle when ``keep`` and it stayed small."""
        recycle = self.settings.recycle_rss_bytes
        if worker is not None and recycle is not None and worker.resident > recycle:
            keep = False
        with self.cond:
            self.busy[lane] -= 1
            if worker is not None and keep and not self.closed:
                self.idle.append(worker)
                worker = None
            self.cond.notify_all()
        if worker is not None:
            self._retire(worker)
        self._top_up()

    def _retire(self, worker: Worker) -> None:
        try:
            self.keeper.retire(worker)
        except RuntimeError:  # no keeper thread: reap here
            worker.kill()
            worker.close()

    # -- starting workers --

    def start_worker(self, *, preload: bool) -> Worker:
        """A new worker, started by the keeper thread (isolated, tied to this process)."""
        return Worker(*self.keeper.run(lambda: self._spawn(preload)))

    def _spawn(self, preload: bool) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
        """Start a worker process (on the keeper thread only)."""
        idle = None if self.warm else self.settings.idle_seconds
        code = _BOOTSTRAP.format(
            path=worker_path(),
            package=_PACKAGE,
            parent=os.getpid(),
            idle=idle,
            preload=preload,
            pdeathsig=USE_PDEATHSIG,
        )
        stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the worker)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", code],
                bufsize=0,  # raw pipes: what `poll` sees is all there is (no read-ahead)
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                close_fds=True,
                start_new_session=True,
                cwd=os.path.abspath(os.sep),  # no relative path a library opens is the caller's
            )
        except BaseException:
            stderr.close()
            raise
        widen_pipes(process)
        return process, stderr

    def warm_up(self, count: int, timeout: float) -> int:
        """Keep ``count`` workers with the converters loaded ready from now on; returns how many
        are ready within ``timeout`` seconds."""
        with self.cond:
            self.warm = max(self.warm, count)
            have = len(self.idle)
        started = [self.start_worker(preload=True) for _ in range(max(0, count - have))]
        deadline = time.monotonic() + timeout
        ready = 0
        for worker in started:
            keep = worker.wait_ready(deadline)
            with self.cond:
                keep = keep and not self.closed
                if keep:
                    ready += 1
                    self.idle.append(worker)
                    self.cond.notify_all()
            if not keep:
                self._retire(worker)
        with self.cond:
            return min(count, ready + have)

    def _top_up(self) -> None:
        """After workers were retired: start others on the keeper thread while fewer than the
        warmed count are alive or starting."""
        with self.cond:
            missing = self.warm - len(self.idle) - self._running() - self.starting
            if missing <= 0 or self.closed or self._keeper is None:
                return
            self.starting += missing
            keeper = self._keeper

        def start() -> None:
            try:
                worker = Worker(*self._spawn(True))
            except OSError:
                worker = None
            with self.cond:
                self.starting -= 1
                if worker is not None and not self.closed:
                    self.idle.append(worker)
                    worker = None
                self.cond.notify_all()
            if worker is not None:  # the pool closed meanwhile
                worker.close_pipes()
                keeper.retiring.append((worker, time.monotonic()))

        for _ in range(missing):
            keeper.tasks.put(start)

    def wake(self) -> None:
        """Let every waiting caller look again (one of them was cancelled)."""
        with self.cond:
            self.cond.notify_all()

    # -- the end --

    def close(self) -> None:
        """Retire the idle workers; busy ones are retired when their job ends."""
        with self.cond:
            self.closed = True
            self.warm = 0
            workers, self.idle = self.idle, []
        for worker in workers:
            worker.close_pipes()  # end of input: the worker exits
        for worker in workers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(timeout=1)
            if worker.process.poll() is None:
                worker.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    worker.process.wait(timeout=5)
            worker.close()

    def forget(self) -> None:
        """In a forked child: the workers are the parent's; close our copies of their pipes."""
        for worker in self.idle:
            worker.close()
        self.idle = []
