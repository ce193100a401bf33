"""The upload cache per read and per write, against a raw sqlite3 floor and diskcache.

`mb.DirectoryUploadCache` is consulted once per media block by `mb.upload` and written once per
upload. Measured in one run, each case over the same keys and references (64-hex content keys,
``file-...`` references), in interleaved rounds so load on the machine hits every case alike:

- ``mediablocks``: `DirectoryUploadCache.put` / `.get` (one WAL connection, ``synchronous=NORMAL``,
  one transaction per write, every entry checked when read);
- ``sqlite3 floor``: the least that gives the same durability: one connection in WAL mode with
  ``synchronous=NORMAL``, ``INSERT OR REPLACE`` in its own transaction per write, ``SELECT`` per
  read, nothing checked;
- ``diskcache``: ``diskcache.Cache.set`` / ``.get`` (skipped when diskcache is not installed:
  ``pip install diskcache``);
- ``per-call connection``: a new connection per call in SQLite's default rollback journal with
  a full sync, as the cache did before (the figure the issue measured: 110x diskcache per write).

Run from the repository root::

    python benchmarks/bench_upload_cache.py                 # 2,000 writes, 20,000 reads
    python benchmarks/bench_upload_cache.py --writes 500 --reads 5000 --rounds 3
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import mediablocks as mb

TABLE = "CREATE TABLE t (key TEXT PRIMARY KEY, reference TEXT NOT NULL, expires_at REAL)"
Store = tuple[Callable[[str, str], None], Callable[[str], Any], Callable[[], None]]


def keys(count: int) -> list[tuple[str, str]]:
    return [
        (f"openai|https://api|abc|{hashlib.sha256(str(n).encode()).hexdigest()}", f"file-{n:024d}")
        for n in range(count)
    ]


def mediablocks_store(folder: str) -> Store:
    cache = mb.DirectoryUploadCache(folder)
    return cache.put, cache.get, cache.close


def floor_store(folder: str) -> Store:
    db = sqlite3.connect(os.path.join(folder, "floor.sqlite"), isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute(TABLE)

    def put(key: str, reference: str) -> None:
        db.execute("INSERT OR REPLACE INTO t VALUES (?, ?, NULL)", (key, reference))

    def get(key: str) -> Any:
        return db.execute("SELECT reference, expires_at FROM t WHERE key = ?", (key,)).fetchone()

    return put, get, db.close


def diskcache_store(folder: str) -> Store:
    import diskcache

    cache = diskcache.Cache(os.path.join(folder, "diskcache"))
    return cache.set, cache.get, cache.close


def per_call_store(folder: str) -> Store:
    """The earlier cache: a connection per call, rollback journal, full sync on every write."""
    path = os.path.join(folder, "old.sqlite")
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE t (key TEXT PRIMARY KEY, reference TEXT NOT NULL, expires_at REAL)"
        )

    def put(key: str, reference: str) -> None:
        db = sqlite3.connect(path, timeout=30)
        try:
            with db:
                db.execute("INSERT OR REPLACE INTO t VALUES (?, ?, NULL)", (key, reference))
        finally:
            db.close()

    def get(key: str) -> Any:
        db = sqlite3.connect(path, timeout=30)
        try:
            return db.execute("SELECT reference FROM t WHERE key = ?", (key,)).fetchone()
        finally:
            db.close()

    return put, get, lambda: None


def measure(
    make: Callable[[str], Store], entries: list[tuple[str, str]], reads: int
) -> tuple[float, float]:
    """Seconds per write and per read, in a fresh folder."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as folder:
        put, get, close = make(folder)
        started = time.perf_counter()
        for key, reference in entries:
            put(key, reference)
        per_write = (time.perf_counter() - started) / len(entries)
        started = time.perf_counter()
        for n in range(reads):
            key, reference = entries[n % len(entries)]
            got = get(key)
            assert reference in str(got)
        per_read = (time.perf_counter() - started) / reads
        close()
    return per_write, per_read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cases: dict[str, Callable[[str], Store]] = {
        "mediablocks": mediablocks_store,
        "sqlite3 floor": floor_store,
        "per-call connection": per_call_store,
    }
    try:
        import diskcache  # noqa: F401
    except ImportError:
        print("diskcache not installed: its column is skipped (pip install diskcache)")
    else:
        cases["diskcache"] = diskcache_store
    entries = keys(args.writes)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for round_number in range(args.rounds):
        order = list(cases)
        order = order[round_number % len(order) :] + order[: round_number % len(order)]
        for name in order:
            results[name].append(measure(cases[name], entries, args.reads))
    medians = {
        name: (
            statistics.median(w for w, _ in runs),
            statistics.median(r for _, r in runs),
        )
        for name, runs in results.items()
    }
    floor_w, floor_r = medians["sqlite3 floor"]
    print(f"{args.writes} writes, {args.reads} reads, median of {args.rounds} rounds")
    print(f"{'case':<22}{'us/write':>10}{'x floor':>9}{'us/read':>10}{'x floor':>9}")
    for name, (per_write, per_read) in medians.items():
        print(
            f"{name:<22}{per_write * 1e6:>10.1f}{per_write / floor_w:>9.2f}"
            f"{per_read * 1e6:>10.1f}{per_read / floor_r:>9.2f}"
        )
    if "diskcache" in medians:
        dw, dr = medians["diskcache"]
        mw, mr = medians["mediablocks"]
        ow, orr = medians["per-call connection"]
        print(f"mediablocks / diskcache: write {mw / dw:.2f}x, read {mr / dr:.2f}x")
        print(f"per-call connection / diskcache: write {ow / dw:.1f}x, read {orr / dr:.1f}x")


if __name__ == "__main__":
    main()
