"""Shared output of the subcommands: the progress bar, tables, sizes, and running each item.

Results go to standard output; the progress bar, per-file errors and summaries go to standard
error, so ``mediablocks inspect --json DIR > out.json`` leaves a clean file. The bar is drawn only
when standard error is a terminal.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ._items import Item
from ._printable import printable
from ._wording import for_shell

__all__ = [
    "Progress",
    "Table",
    "format_size",
    "native_stderr_dropped",
    "output_width",
    "run_each",
    "terminal_width",
]

PROGRESS_MIN_FILES = 2
"""A single file needs no bar."""


PIPE_WIDTH = 100
"""The width tables are fitted to when standard output is not a terminal (``COLUMNS`` wins)."""


def terminal_width(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` is drawn on, or None when it is not a terminal."""
    if not stream.isatty():
        return None
    return max(shutil.get_terminal_size((100, 24)).columns, 20)


def output_width(stream: TextIO) -> int:
    """The width to fit a table to: the terminal's, else ``COLUMNS``, else `PIPE_WIDTH` (a file
    read later, a pager or a CI log is no wider than a usual terminal)."""
    width = terminal_width(stream)
    if width is not None:
        return width
    columns = os.environ.get("COLUMNS", "")
    return max(int(columns), 20) if columns.isdigit() else PIPE_WIDTH


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02}:{seconds % 60:02}"
    return f"{seconds // 60}:{seconds % 60:02}"


class Progress:
    """One line on a terminal: ``[####....] 12/40  3.1 files/s  ETA 0:09  name``; else nothing."""

    def __init__(self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.stream = stream
        self.enabled = total >= PROGRESS_MIN_FILES and stream.isatty()
        self.done = 0
        self._clock = clock
        self._start = clock()

    def line(self, label: str, width: int) -> str:
        """The bar for ``done`` of ``total`` files, the rate so far and the time left, to fit."""
        elapsed = max(self._clock() - self._start, 1e-9)
        rate = self.done / elapsed
        eta = _duration((self.total - self.done) / rate) if rate > 0 else "?"
        filled = 20 * self.done // max(self.total, 1)
        text = (
            f"[{'#' * filled}{'.' * (20 - filled)}] {self.done}/{self.total} "
            f"{rate:.1f} files/s ETA {eta} {printable(label)}"
        )
        return text[: width - 1].ljust(width - 1)

    def step(self, label: str) -> None:
        """Count one file done and redraw."""
        self.done += 1
        if self.enabled:
            width = terminal_width(self.stream) or 80
            self.stream.write("\r" + self.line(label, width))
            self.stream.flush()

    def clear(self) -> None:
        """Erase the bar so other output starts on a clean line."""
        if self.enabled:
            width = terminal_width(self.stream) or 80
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()


def format_size(size: int) -> str:
    """``83.8 KiB``: bytes in the largest unit that keeps the number readable."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


@contextlib.contextmanager
def native_stderr_dropped(enabled: bool = True) -> Iterator[None]:
    """Drop what native libraries write straight to file descriptor 2 while a file is worked on.

    libtiff (inside Pillow) prints ``TIFFFetchNormalTag: Incorrect count...`` to the process's
    standard error for every slightly odd TIFF, past Python's ``sys.stderr``; the file's row
    already says what mattered. The descriptor is pointed at a temporary file for the call and
    restored after it; ``--debug`` lets it through.
    """
    if not enabled:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real descriptor 2 (an embedded interpreter): leave it
        yield
        return
    try:
        with tempfile.TemporaryFile() as sink, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's own (``Truncated File Read``...) as well
            os.dup2(sink.fileno(), 2)
            try:
                yield
            finally:
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def run_each(
    items: list[Item],
    work: Callable[[Item], dict[str, Any]],
    show: Callable[[dict[str, Any]], None] | None,
    debug: bool,
    failure: Callable[[Item, BaseException], dict[str, Any] | None] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Run ``work`` on every item; a failure is one line on stderr and the run goes on.

    Any exception from one file (a third-party decoder's included) is that file's failure, never
    the run's. ``failure`` may turn an error into a result instead (``prepare
    --skip-unsupported``): it returns the row to keep, or None for a real failure.
    """
    progress = Progress(len(items), sys.stderr)
    results: list[dict[str, Any]] = []
    failed = 0
    for item in items:
        try:
            with native_stderr_dropped(not debug):
                result = work(item)
        except Exception as exc:
            if debug:
                raise
            kept = failure(item, exc) if failure is not None else None
            if kept is not None:
                results.append(kept)
                progress.step(item.label)
                continue
            failed += 1
            reason = for_shell(exc)
            progress.clear()
            print(f"{printable(item.label)}: error: {reason}", file=sys.stderr)
            results.append({"path": item.label, "error": reason})
            progress.step(item.label)
            continue
        results.append(result)
        if show is not None:
            progress.clear()
            show(result)
        progress.step(item.label)
    progress.clear()
    return results, failed


@dataclass(frozen=True)
class Column:
    """A table column: its title, whether numbers align right, and whether it may be shortened."""

    title: str
    right: bool = False
    elastic: bool = False
    minimum: int = 8


def _shorten(text: str, width: int) -> str:
    """``testdata/…/photo.jpg``: the middle elided, since a path's ends say the most."""
    if len(text) <= width:
        return text
    keep = width - 1
    head = keep // 3
    return text[:head] + "…" + text[len(text) - (keep - head) :]


class Table:
    """Rows printed in aligned columns, sized to their content and, on a terminal, to its width.

    Elastic columns (paths, types) are shortened in the middle first. When even that cannot fit,
    each row is printed as a block: its elastic cells on one line, the others in an aligned grid
    under it, so nothing wraps mid-cell whatever the width.
    """

    def __init__(self, columns: Sequence[Column]) -> None:
        self.columns = list(columns)
        self.rows: list[list[str]] = []

    def add(self, cells: Sequence[str]) -> None:
        """Add one row (one cell per column); what is not printable in a cell is escaped."""
        self.rows.append([printable(cell) for cell in cells])

    def render(self, width: int | None, header: bool = True) -> str:
        """The table as text; ``width`` None (a pipe) means no limit."""
        widths = self._natural()
        if width is not None:
            fitted = self._fit(widths, width)
            if fitted is None:
                return self._blocks(width)
            widths = fitted
        lines = [self._line([c.title for c in self.columns], widths)] if header else []
        lines.extend(self._line(row, widths) for row in self.rows)
        return "\n".join(lines)

    def fits(self, width: int) -> bool:
        """Whether the rows fit ``width`` on one line each (elastic columns shortened)."""
        return self._fit(self._natural(), width) is not None

    def _natural(self) -> list[int]:
        return [
            max([len(c.title)] + [len(row[i]) for row in self.rows])
            for i, c in enumerate(self.columns)
        ]

    def _fit(self, widths: list[int], width: int) -> list[int] | None:
        """Shorten the elastic column with the most room to give, one character at a time, so
        a long path and a long type share the cut instead of the first losing everything."""
        widths = list(widths)
        excess = sum(widths) + len(widths) - 1 - (width - 1)
        elastic = [i for i, column in enumerate(self.columns) if column.elastic]
        while excess > 0:
            room = {i: widths[i] - self.columns[i].minimum for i in elastic}
            widest = max(room, key=lambda i: room[i], default=None)
            if widest is None or room[widest] <= 0:
                return None
            widths[widest] -= 1
            excess -= 1
        return widths

    def _line(self, cells: Sequence[str], widths: Sequence[int]) -> str:
        parts = []
        for cell, size, column in zip(cells, widths, self.columns, strict=True):
            text = _shorten(cell, size)
            parts.append(text.rjust(size) if column.right else text.ljust(size))
        return " ".join(parts).rstrip()

    def _blocks(self, width: int) -> str:
        """Each row as a heading line and a grid of ``title value`` cells that wraps evenly."""
        heading = [i for i, c in enumerate(self.columns) if c.elastic or c.right]
        rest = [i for i in range(len(self.columns)) if i not in heading]
        out: list[str] = []
        for row in self.rows:
            out.append(_shorten("  ".join(row[i] for i in heading if row[i]), width - 1))
            cells = [f"{self.columns[i].title} {row[i]}".rstrip() for i in rest]
            size = max((len(c) for c in cells), default=1) + 2
            per_line = max((width - 3) // size, 1)
            for start in range(0, len(cells), per_line):
                chunk = cells[start : start + per_line]
                out.append(("  " + "".join(c.ljust(size) for c in chunk)).rstrip())
        return "\n".join(out)
