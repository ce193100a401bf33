"""How long ``import mediablocks`` takes, against importing pydantic alone, in fresh processes.

Each case runs ``python -X importtime -c "import X"`` in a new interpreter N times (the cases
interleaved, so load on the machine hits all alike) and takes the median of the cumulative import
time the interpreter itself reports for the top module. Also printed: how many modules the import
loads, and whether Pillow, httpx or any converter came along (none should).

Run from the repository root: ``python benchmarks/bench_import.py [--runs 10]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import table

CASES = {
    "pydantic": "import pydantic",
    "pydantic + BaseModel": "from pydantic import BaseModel",
    "pydantic, httpx, PIL.Image": "import pydantic, httpx, PIL.Image",
    "mediablocks": "import mediablocks",
}
HEAVY = ("PIL", "httpx", "httpcore", "av", "pypdfium2", "ray", "numpy", "filetype")


def _import_seconds(statement: str) -> float:
    """Total import time of the statement: the cumulative times of every top-level import the
    interpreter reports (``-X importtime``), lazy attribute imports such as pydantic's included."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
    )
    baseline = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True
    )
    startup = {line.split("|")[-1].strip() for line in baseline.stderr.splitlines()}
    total = 0
    for line in result.stderr.splitlines():
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3:
            continue
        cumulative, raw_name = parts[1].strip(), parts[2]
        top_level = len(raw_name) - len(raw_name.lstrip()) == 1
        if top_level and cumulative.isdigit() and raw_name.strip() not in startup:
            total += int(cumulative)
    return total / 1e6


def _loaded(statement: str) -> tuple[int, list[str]]:
    probe = f"{statement}\nimport sys\nprint(len(sys.modules))\nprint(' '.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    names = set(out[1].split())
    return int(out[0]), [name for name in HEAVY if name in names]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, statement in CASES.items():
            times[name].append(_import_seconds(statement))
    base = statistics.median(times["pydantic"])
    with_model = statistics.median(times["pydantic + BaseModel"])
    rows = []
    for name, statement in CASES.items():
        median = statistics.median(times[name])
        count, heavy = _loaded(statement)
        rows.append(
            [
                name,
                f"{median * 1000:.1f}",
                f"{median / base:.2f}x",
                f"{median / with_model:.2f}x",
                str(count),
                ", ".join(heavy) or "-",
            ]
        )
    headers = ["import", "median ms", "vs pydantic", "vs BaseModel", "modules", "heavy loaded"]
    print(f"median of {args.runs} fresh interpreters each (-X importtime, cumulative)")
    print(table(headers, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
