"""``mediablocks --help`` answers without loading the library: the parsers import nothing heavy.

What is asserted is which modules a fresh interpreter has loaded, not how long it took (the time
is measured by hand in ``benchmarks/bench_import.py``).
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import mediablocks.batch
from mediablocks.cli._parsers import BATCH_PROVIDERS, COMMANDS

# What a command loads when it runs, never to print its help or refuse a wrong command line.
HEAVY = (
    "pydantic",
    "pydantic_core",
    "PIL",
    "httpx",
    "mediablocks.messages",
    "mediablocks.blocks",
    "mediablocks.media",
    "mediablocks.providers",
    "mediablocks.preparing",
    "mediablocks.encoding",
    "mediablocks.batch",
)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def _loaded_after(statement: str) -> set[str]:
    """The modules loaded once ``statement`` ran (a ``SystemExit`` from argparse is expected)."""
    probe = (
        "import sys\n"
        "try:\n"
        f"    {statement}\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)"
    )
    result = _run(probe)
    return set(result.stderr.split())


def test_help_lists_every_subcommand() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mediablocks", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split("{", 1)[1].split("}", 1)[0].split(",")
    assert listed == list(COMMANDS) == ["inspect", "encode", "prepare", "batch"]
    for name in COMMANDS:
        assert f"\n    {name} " in result.stdout  # each with its one-line help


def test_building_the_parser_loads_no_model_and_no_provider() -> None:
    loaded = _loaded_after("from mediablocks.cli._parsers import build_parser; build_parser()")
    assert "mediablocks.cli._parsers" in loaded
    assert sorted(name for name in HEAVY if name in loaded) == []


@pytest.mark.parametrize("argv", [["--help"], *([name, "--help"] for name in COMMANDS)])
def test_help_of_the_command_and_each_subcommand_loads_no_model(argv: list[str]) -> None:
    loaded = _loaded_after(f"from mediablocks.cli import main; main({argv!r})")
    assert "mediablocks.cli" in loaded
    assert sorted(name for name in HEAVY if name in loaded) == []


def test_a_wrong_command_line_is_refused_before_the_library_loads() -> None:
    loaded = _loaded_after("from mediablocks.cli import main; main(['encode', 'a.png'])")
    assert "mediablocks.cli._parsers" in loaded  # refused by the parser: --provider is missing
    assert sorted(name for name in HEAVY if name in loaded) == []


def test_running_a_command_loads_its_module() -> None:
    loaded = _loaded_after(
        "from mediablocks.cli import main; main(['batch', '--provider', 'nope', '--out', 'x'])"
    )
    assert {"mediablocks.cli.batch", "mediablocks.batch", "pydantic"} <= loaded


def test_every_subcommand_is_a_module_with_run() -> None:
    for name in COMMANDS:
        module = importlib.import_module(f"mediablocks.cli.{name}")
        assert callable(module.run), name


def test_batch_help_names_the_providers_batch_takes() -> None:
    assert BATCH_PROVIDERS == mediablocks.batch.BATCH_PROVIDERS
    result = _run("from mediablocks.cli import main; main(['batch', '--help'])")
    assert ", ".join(BATCH_PROVIDERS) in " ".join(result.stdout.split())
