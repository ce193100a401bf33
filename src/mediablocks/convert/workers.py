"""The public controls of the conversion worker pool: `configure_workers`, `warm_up`,
`worker_settings`.

Kept light (no `subprocess`), so ``import mediablocks`` can export them: the pool itself
(`mediablocks.convert.isolation`) loads with the first conversion or `warm_up`.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from typing import Any

from ..errors import ConversionUnavailableError, InvalidOptionError
from .limits import WorkerSettings, set_worker_settings, worker_settings

__all__ = ["configure_workers", "warm_up", "worker_settings"]


def configure_workers(settings: WorkerSettings | None = None, **changes: Any) -> WorkerSettings:
    """Size and tune the worker pool of this process: ``settings`` (default: the ones in force)
    with ``changes`` applied (``workers=8, short_workers=2, recycle_rss_bytes=...``: the fields
    of `WorkerSettings`, each checked). Idle workers are retired and new ones follow the new
    settings; jobs running now finish. Returns the settings in force."""
    base = worker_settings() if settings is None else settings
    if not isinstance(base, WorkerSettings):
        raise InvalidOptionError(
            f"configure_workers takes a WorkerSettings, not a {type(base).__name__}"
        )
    try:
        chosen = dataclasses.replace(base, **changes)
    except TypeError as exc:  # a name that is no field
        raise InvalidOptionError(f"configure_workers: {exc}") from None
    set_worker_settings(chosen)
    pool = sys.modules.get("mediablocks.convert.isolation")  # loaded: it follows them now
    if pool is not None:
        pool.apply_settings(chosen)
    return chosen


def warm_up(workers: int | None = None, *, timeout: float = 60.0) -> int:
    """Start conversion workers now, with the converters (resvg, PDFium, PyAV... where
    installed) loaded in them, so the first upload does not pay for it; from then on the pool
    keeps that many ready (one that crashed or was recycled is replaced in the background, and
    they do not leave when idle). ``workers``: how many (default: ``short_workers``, at least
    1; at most ``workers + short_workers``). Returns how many are ready within ``timeout``
    seconds; raises `ConversionUnavailableError` when no worker can be started."""
    settings = worker_settings()
    count = max(1, settings.short_workers) if workers is None else workers
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidOptionError(f"warm_up(workers={workers!r}): a whole number, at least 1")
    pool = importlib.import_module("mediablocks.convert.isolation")  # loads the pool now
    ready: int = pool.warm_pool(min(count, settings.capacity), timeout)
    if ready == 0:
        raise ConversionUnavailableError("warm_up: no worker process became ready")
    return ready
