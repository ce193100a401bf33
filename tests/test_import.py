"""`import mediablocks` stays light: heavy libraries load on first use, not at import."""

from __future__ import annotations

import subprocess
import sys

# Loaded only when a feature needs them: fetching (httpx and its stack), and so on.
DEFERRED = ("httpx", "httpcore", "anyio", "idna")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_importing_mediablocks_loads_none_of_the_deferred_libraries() -> None:
    loaded = _modules_after("import mediablocks")
    assert "mediablocks" in loaded
    assert sorted(name for name in DEFERRED if name in loaded) == []


def test_the_fetcher_loads_httpx_when_a_fetch_needs_it() -> None:
    loaded = _modules_after(
        "import mediablocks as mb\n"
        "try:\n    mb.fetch('http://127.0.0.1:9/x')\nexcept mb.FetchError:\n    pass"
    )
    assert {"httpx", "mediablocks._fetcher"} <= loaded
