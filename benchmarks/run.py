"""Run every benchmark (``benchmarks/bench_*.py``) in one go and print each one's tables.

Each benchmark runs in its own Python process (the interpreter running this script), so one
benchmark's memory, imports and tracemalloc state cannot colour another's figures, and one that
fails or crashes is reported on a clear line while the others still run. Run from the repository
root, in the benchmark venv (see README.md):

    .bench-venv/bin/python benchmarks/run.py            # all of them
    .bench-venv/bin/python benchmarks/run.py encode     # only bench_encode.py
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benchmarks(names: Sequence[str]) -> list[Path]:
    """The benchmark scripts, all of them or those named (``encode`` or ``bench_encode.py``)."""
    found = sorted(HERE.glob("bench_*.py"))
    if not names:
        return found
    wanted = {name.removeprefix("bench_").removesuffix(".py") for name in names}
    chosen = [path for path in found if path.stem.removeprefix("bench_") in wanted]
    unknown = wanted - {path.stem.removeprefix("bench_") for path in chosen}
    if unknown:
        known = ", ".join(path.stem.removeprefix("bench_") for path in found)
        raise SystemExit(f"no benchmark named {', '.join(sorted(unknown))} (there are: {known})")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    args = parser.parse_args(argv)
    root = HERE.parent
    outcomes: list[tuple[str, str]] = []
    for script in benchmarks(args.names):
        name = script.stem
        print(f"\n===== {name} =====", flush=True)
        start = time.perf_counter()
        try:
            code = subprocess.run(
                [sys.executable, "-u", str(script)], cwd=root, check=False
            ).returncode
        except KeyboardInterrupt:
            print(f"{name}: interrupted", flush=True)
            outcomes.append((name, "interrupted"))
            break
        took = f"{time.perf_counter() - start:.0f} s"
        if code == 0:
            outcomes.append((name, f"ok ({took})"))
        else:
            print(f"{name}: FAILED with exit code {code} after {took}", flush=True)
            outcomes.append((name, f"FAILED, exit code {code}"))
    print("\n===== summary =====")
    for name, outcome in outcomes:
        print(f"{name}: {outcome}")
    return 0 if all(outcome.startswith("ok") for _, outcome in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
