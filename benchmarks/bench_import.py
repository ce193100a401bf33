"""How long ``import mediablocks`` takes, against importing pydantic alone, in fresh processes.

Each case runs in a new interpreter N times (the cases interleaved, so load on the machine hits all
alike) and two figures are kept, each the median over the runs:

- **wall**: ``time.perf_counter()`` around the import statement inside the child (no
  ``-X importtime``, whose own bookkeeping slows imports down);
- **importtime**: the sum of the cumulative times ``-X importtime`` reports for every top-level
  import the statement caused (modules the bare interpreter loads at startup left out).

Imports are timed with warm bytecode caches, as an installed package runs: the children write
their ``.pyc`` files to a temporary ``PYTHONPYCACHEPREFIX`` (whatever ``PYTHONDONTWRITEBYTECODE``
says) and every case runs once unmeasured first. Without that, a source tree under
``PYTHONDONTWRITEBYTECODE=1`` compiles all of mediablocks on every import and the figures measure
the compiler.

Also printed: how many modules the import loads, and which heavy libraries came along (none should
for ``import mediablocks``); goal: ``import mediablocks`` at most 2x ``from pydantic import
BaseModel``. A second table times the first validations after the import, which pay for the
pydantic schemas the models build on first use instead of at import. A third times whole
processes as a shell runs them (start to exit, wall and CPU): ``mediablocks --help`` against
``python -c pass`` and ``python -c "from pydantic import BaseModel"``; goal: under 0.2 s wall.

Run from the repository root: ``PYTHONPATH=src python benchmarks/bench_import.py [--runs 10]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import table

CASES = {
    "pydantic": "import pydantic",
    "pydantic + BaseModel": "from pydantic import BaseModel",
    "pydantic, httpx, PIL.Image": "import pydantic, httpx, PIL.Image",
    "mediablocks": "import mediablocks",
    "mediablocks + first message": "import mediablocks as mb; mb.UserMessage.text('hi')",
}
HEAVY = (
    "PIL",
    "httpx",
    "filetype",
    "asyncio",
    "av",
    "pypdfium2",
    "numpy",
    "ray",
    "boto3",
    "openai",
    "anthropic",
    "google",
)

# What the first use after ``import mediablocks as mb`` costs: each statement in a fresh process.
FIRST_USE = {
    "mb.TextBlock(text='hi')": "mb.TextBlock(text='hi')",
    "mb.UserMessage.text('hi')": "mb.UserMessage.text('hi')",
    "mb.load_messages(one message)": (
        "mb.load_messages([{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}])"
    ),
    "mb.encode(one message, 'openai')": "mb.encode([mb.UserMessage.text('hi')], 'openai')",
}

# The children's environment: bytecode cached in a directory of our own, so imports run warm.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
# ``main`` adds PYTHONPYCACHEPREFIX, a temporary directory removed at the end.

_TIMED = "import time\n_t = time.perf_counter()\n{code}\nprint(time.perf_counter() - _t)"


def _wall_seconds(code: str, setup: str = "") -> float:
    """Seconds the code takes in a fresh interpreter, timed inside it (after ``setup``)."""
    probe = f"{setup}\n" + _TIMED.format(code=code)
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=ENV
    )
    return float(out.stdout.split()[-1])


def _startup_modules() -> set[str]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, env=ENV
    )
    return {line.split("|")[-1].strip() for line in result.stderr.splitlines()}


def _importtime_seconds(statement: str, startup: set[str]) -> float:
    """Total import time of the statement: the cumulative times of every top-level import the
    interpreter reports (``-X importtime``), lazy attribute imports such as pydantic's included."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
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
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=ENV
    ).stdout.splitlines()
    names = set(out[1].split())
    return int(out[0]), [name for name in HEAVY if name in names]


def _import_table(runs: int) -> str:
    startup = _startup_modules()
    for statement in CASES.values():  # warm the bytecode caches
        _wall_seconds(statement)
    wall: dict[str, list[float]] = {name: [] for name in CASES}
    importtime: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(runs):
        for name, statement in CASES.items():
            wall[name].append(_wall_seconds(statement))
            importtime[name].append(_importtime_seconds(statement, startup))
    base_wall = statistics.median(wall["pydantic"])
    model_wall = statistics.median(wall["pydantic + BaseModel"])
    base_it = statistics.median(importtime["pydantic"])
    rows = []
    for name, statement in CASES.items():
        median_wall = statistics.median(wall[name])
        median_it = statistics.median(importtime[name])
        count, heavy = _loaded(statement)
        rows.append(
            [
                name,
                f"{median_wall * 1000:.1f}",
                f"{median_wall / base_wall:.2f}x",
                f"{median_wall / model_wall:.2f}x",
                f"{median_it * 1000:.1f}",
                f"{median_it / base_it:.2f}x",
                str(count),
                ", ".join(heavy) or "-",
            ]
        )
    headers = [
        "import",
        "wall ms",
        "vs pydantic",
        "vs BaseModel",
        "importtime ms",
        "vs pydantic",
        "modules",
        "heavy loaded",
    ]
    return table(headers, rows)


def _first_use_table(runs: int) -> str:
    times: dict[str, list[float]] = {name: [] for name in FIRST_USE}
    for code in FIRST_USE.values():  # warm the caches of the modules first use loads
        _wall_seconds(code, setup="import mediablocks as mb")
    for _ in range(runs):
        for name, code in FIRST_USE.items():
            times[name].append(_wall_seconds(code, setup="import mediablocks as mb"))
    rows = [[name, f"{statistics.median(times[name]) * 1000:.1f}"] for name in FIRST_USE]
    return table(["first call after the import", "wall ms"], rows)


def _commands() -> dict[str, list[str]]:
    """The whole processes timed: the floors, then the command line as a user starts it."""
    commands = {
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
        "python -c 'from pydantic import BaseModel'": [
            sys.executable,
            "-c",
            "from pydantic import BaseModel",
        ],
        "python -m mediablocks --help": [sys.executable, "-m", "mediablocks", "--help"],
        "python -m mediablocks encode --help": [
            sys.executable,
            "-m",
            "mediablocks",
            "encode",
            "--help",
        ],
    }
    script = shutil.which("mediablocks", path=os.path.dirname(sys.executable))
    if script is not None:  # the console script pip installed next to this interpreter
        commands["mediablocks --help"] = [script, "--help"]
    return commands


def _process_seconds(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one whole process, start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _startup_table(runs: int) -> str:
    commands = _commands()
    for command in commands.values():  # warm the bytecode caches
        _process_seconds(command)
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            seconds, used = _process_seconds(command)
            wall[name].append(seconds)
            cpu[name].append(used)
    floor = statistics.median(wall["python -c pass (floor)"])
    rows = [
        [
            name,
            f"{statistics.median(wall[name]) * 1000:.1f}",
            f"{statistics.median(cpu[name]) * 1000:.1f}",
            f"{statistics.median(wall[name]) / floor:.1f}x",
        ]
        for name in commands
    ]
    head = "whole processes, start to exit; goal: mediablocks --help under 200 ms wall"
    return head + "\n" + table(["command", "wall ms", "CPU ms", "vs python -c pass"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-import-pycache-") as pycache:
        ENV["PYTHONPYCACHEPREFIX"] = pycache
        print(f"median of {args.runs} fresh interpreters each, bytecode cached")
        print(_import_table(args.runs))
        print()
        print(_first_use_table(args.runs))
        print()
        print(_startup_table(args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
