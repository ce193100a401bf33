"""Paths under allowed roots are checked and read through one descriptor, never by name twice.

The races are real: a thread swaps a folder for a symbolic link to outside (or a file for a FIFO)
while reads run, and not one read may return the outside bytes, hang, or raise a raw `OSError`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.sources import PathSource
from mediablocks.sources._confined import MAX_LINKS, descriptors_supported
from tests.conftest import make_png

pytestmark = pytest.mark.skipif(
    not descriptors_supported() or not hasattr(os, "mkfifo"),
    reason="needs O_NOFOLLOW, dir_fd and FIFOs (POSIX)",
)

INSIDE = make_png((4, 4), color="green")
SECRET = make_png((4, 4), color="red")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``root/dir/photo.png`` (inside) and ``outside/photo.png`` (the secret) side by side."""
    (tmp_path / "root" / "dir").mkdir(parents=True)
    (tmp_path / "root" / "dir" / "photo.png").write_bytes(INSIDE)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "photo.png").write_bytes(SECRET)
    return tmp_path


def _policy(tree: Path) -> mb.FetchPolicy:
    return mb.FetchPolicy(allowed_roots=[str(tree / "root")])


@contextlib.contextmanager
def _swapping(swap: object, undo: object) -> Iterator[threading.Event]:
    """Run ``swap()`` / ``undo()`` in a loop in a thread until the block ends, holding each
    state a moment (so reads meet both, not only the instants between); the event is set once
    the first swap happened."""
    stop, started = threading.Event(), threading.Event()

    def loop() -> None:
        while not stop.is_set():
            swap()  # type: ignore[operator]
            started.set()
            time.sleep(0.0005)
            undo()  # type: ignore[operator]
            time.sleep(0.0005)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        started.wait(5)
        yield started
    finally:
        stop.set()
        thread.join(10)


def _outcome(read: object) -> str:
    """``inside``, ``escaped`` or the library error's class name; anything else fails."""
    try:
        data = read()  # type: ignore[operator]
    except mb.MediaBlocksError as exc:
        return type(exc).__name__
    except OSError as exc:  # pragma: no cover - what this test exists to catch
        pytest.fail(f"a raw OSError escaped: {exc!r}")
    return "escaped" if data == SECRET else "inside" if data == INSIDE else "other"


# -- races ----------------------------------------------------------------------------------


def test_a_folder_swapped_for_a_link_outside_never_leaks_a_byte(tree: Path) -> None:
    folder, moved = tree / "root" / "dir", tree / "root" / "dir.real"

    def swap() -> None:
        os.rename(folder, moved)
        os.symlink(tree / "outside", folder)

    def undo() -> None:
        os.unlink(folder)
        os.rename(moved, folder)

    policy = _policy(tree)
    outcomes: Counter[str] = Counter()
    with _swapping(swap, undo):
        for _ in range(300):
            block = mb.ImageBlock.from_path(folder / "photo.png")  # a fresh source: no cache
            outcomes[_outcome(lambda b=block: b.read(policy))] += 1
    assert outcomes["escaped"] == 0, outcomes
    assert outcomes["other"] == 0, outcomes
    # The race was run: some reads met the link and were refused, naming the roots.
    assert outcomes["PathNotAllowedError"] > 0, outcomes
    assert sum(outcomes.values()) == 300


def test_header_reads_and_probes_race_the_same_swap_safely(tree: Path) -> None:
    folder, moved = tree / "root" / "dir", tree / "root" / "dir.real"

    def swap() -> None:
        os.rename(folder, moved)
        os.symlink(tree / "outside", folder)

    def undo() -> None:
        os.unlink(folder)
        os.rename(moved, folder)

    policy = _policy(tree)
    seen: Counter[str] = Counter()
    with _swapping(swap, undo):
        for number in range(200):
            source = mb.ImageBlock.from_path(folder / "photo.png").source
            assert isinstance(source, PathSource)
            try:
                if number % 2:
                    header = source.read_header(4096, policy)  # the whole small file
                    seen["read"] += 1
                    assert header == INSIDE
                else:
                    with source.open_file(policy) as handle:  # what probe() reads through
                        seen["opened"] += 1
                        assert handle.read() == INSIDE
            except mb.PathNotAllowedError:
                seen["refused"] += 1
            except mb.SourceError:
                seen["missing"] += 1  # between the rename and the link: no such file
    assert seen["refused"] > 0, seen
    assert seen["read"] + seen["opened"] > 0, seen


def test_a_file_swapped_for_a_fifo_is_refused_without_blocking(tree: Path) -> None:
    target, parked = tree / "root" / "dir" / "photo.png", tree / "root" / "parked.png"

    def swap() -> None:
        os.rename(target, parked)
        os.mkfifo(target)

    def undo() -> None:
        os.unlink(target)
        os.rename(parked, target)

    policy = _policy(tree)
    outcomes: Counter[str] = Counter()
    with _swapping(swap, undo):
        for _ in range(200):  # a blocked open would hang here (no writer ever comes)
            block = mb.ImageBlock.from_path(target)
            outcomes[_outcome(lambda b=block: b.read(policy))] += 1
            block = mb.ImageBlock.from_path(target)
            outcomes[_outcome(lambda b=block: b.read())] += 1  # unconfined reads too
    assert outcomes["FileTooLargeError"] > 0, outcomes  # "is a FIFO (named pipe)"
    assert outcomes["escaped"] == outcomes["other"] == 0, outcomes


# -- what the walk allows -------------------------------------------------------------------


def test_links_inside_the_root_are_followed_relative_and_absolute(tree: Path) -> None:
    root = tree / "root"
    (root / "rel.png").symlink_to("dir/photo.png")
    (root / "abs.png").symlink_to(root / "dir" / "photo.png")
    (root / "dirlink").symlink_to("dir", target_is_directory=True)
    (root / "dir" / "up.png").symlink_to("../dir/photo.png")
    policy = _policy(tree)
    for name in ("rel.png", "abs.png", "dirlink/photo.png", "dir/up.png"):
        assert mb.ImageBlock.from_path(root / name).read(policy) == INSIDE, name


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda t: (t / "root" / "out.png").symlink_to(t / "outside" / "photo.png"), "out.png"),
        (lambda t: (t / "root" / "up.png").symlink_to("../outside/photo.png"), "up.png"),
        (lambda t: (t / "root" / "d").symlink_to(t / "outside"), "d/photo.png"),
        (lambda t: (t / "root" / "dir" / "x").symlink_to("../../outside"), "dir/x/photo.png"),
    ],
)
def test_links_that_leave_the_root_are_refused(tree: Path, make: object, name: str) -> None:
    make(tree)  # type: ignore[operator]
    with pytest.raises(mb.PathNotAllowedError, match="allowed_roots"):
        mb.ImageBlock.from_path(tree / "root" / name).read(_policy(tree))


def test_a_link_loop_ends_as_a_source_error(tree: Path) -> None:
    root = tree / "root"
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    with pytest.raises(mb.SourceError, match="too many symbolic links"):
        mb.ImageBlock.from_path(root / "a").read(_policy(tree))
    chain = [root / f"hop{n}" for n in range(MAX_LINKS + 2)]
    for here, there in itertools.pairwise(chain):
        here.symlink_to(there.name)
    chain[-1].symlink_to("dir/photo.png")
    with pytest.raises(mb.SourceError, match="too many symbolic links"):
        mb.ImageBlock.from_path(chain[0]).read(_policy(tree))


def test_special_files_under_a_root_are_refused_by_descriptor(tree: Path) -> None:
    fifo = tree / "root" / "pipe.png"
    os.mkfifo(fifo)
    with pytest.raises(mb.FileTooLargeError, match="FIFO"):
        mb.ImageBlock.from_path(fifo).read(_policy(tree))
    with pytest.raises(mb.SourceError, match="directory"):
        mb.ImageBlock.from_path(tree / "root" / "dir").read(_policy(tree))
    if os.path.exists("/dev/null"):
        devices = mb.FetchPolicy(allowed_roots=["/dev"])
        with pytest.raises(mb.FileTooLargeError, match="character device"):
            mb.ImageBlock.from_path("/dev/null").read(devices)


# -- property: whatever the layout of links, the outside never comes back --------------------

_PARTS = st.sampled_from(["dir", "photo.png", "l1", "l2", ".", "x"])
_TARGETS = st.sampled_from(
    ["dir", "photo.png", "..", "../outside", "{outside}", "{root}/dir", "l1", "l2", "/", "."]
)


@given(
    links=st.fixed_dictionaries({"l1": _TARGETS, "l2": _TARGETS}),
    parts=st.lists(_PARTS, min_size=1, max_size=4),
    in_dir=st.booleans(),
)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_arrangement_of_links_reads_outside(
    tmp_path_factory: pytest.TempPathFactory, links: dict[str, str], parts: list[str], in_dir: bool
) -> None:
    base = tmp_path_factory.mktemp("walk")
    root, outside = base / "root", base / "outside"
    (root / "dir").mkdir(parents=True)
    outside.mkdir()
    (root / "dir" / "photo.png").write_bytes(INSIDE)
    (root / "photo.png").write_bytes(INSIDE)
    (outside / "photo.png").write_bytes(SECRET)
    (outside / "dir").mkdir()
    (outside / "dir" / "photo.png").write_bytes(SECRET)
    home = root / "dir" if in_dir else root
    for name, target in links.items():
        (home / name).symlink_to(target.format(outside=outside, root=root))
    policy = mb.FetchPolicy(allowed_roots=[str(root)])
    outcome = _outcome(lambda: mb.ImageBlock.from_path(root.joinpath(*parts)).read(policy))
    assert outcome not in ("escaped", "other")
