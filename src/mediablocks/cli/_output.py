"""Shared output of the subcommands: the progress bar, sizes, and running each item."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..errors import MediaBlocksError
from ._items import Item

__all__ = ["Progress", "format_size", "run_each"]

PROGRESS_MIN_FILES = 20
"""Fewer files than this finish before a bar would help; no bar is drawn for them."""


class Progress:
    """A one-line bar on standard error, drawn only on a terminal and for long runs."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = total >= PROGRESS_MIN_FILES and stream.isatty()
        self.done = 0

    def step(self, label: str) -> None:
        if not self.enabled:
            return
        self.done += 1
        width = shutil.get_terminal_size((80, 20)).columns
        filled = 24 * self.done // self.total
        bar = f"[{'#' * filled}{'.' * (24 - filled)}] {self.done}/{self.total} "
        self.stream.write("\r" + (bar + label)[: width - 1].ljust(width - 1))
        self.stream.flush()

    def clear(self) -> None:
        if self.enabled:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()


def format_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024 or unit == "MiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


def run_each(
    items: list[Item],
    work: Callable[[Item], dict[str, Any]],
    show: Callable[[dict[str, Any]], None] | None,
    debug: bool,
) -> tuple[list[dict[str, Any]], int]:
    """Run ``work`` on every item; a failure is one line on stderr and the run goes on."""
    progress = Progress(len(items), sys.stderr)
    results: list[dict[str, Any]] = []
    failed = 0
    for item in items:
        progress.step(item.label)
        try:
            result = work(item)
        except (MediaBlocksError, OSError) as exc:
            if debug:
                raise
            failed += 1
            progress.clear()
            print(f"{item.label}: error: {exc}", file=sys.stderr)
            results.append({"path": item.label, "error": str(exc)})
            continue
        results.append(result)
        if show is not None:
            progress.clear()
            show(result)
    progress.clear()
    return results, failed
