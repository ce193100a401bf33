"""Every ```python example in README.md and docs/ runs, page by page, from the repository root.

An example whose first line is ``# needs: network`` (a call to a provider's API, with its key) is
compiled, so it stays valid Python, but not run: no test reaches the internet.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NETWORK = "# needs: network"


def _examples(page: Path) -> list[str]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if _examples(p)],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_page_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": f"docs_example_{page.stem}"}
    for number, source in enumerate(_examples(page), start=1):
        code = compile(source, f"{page.relative_to(ROOT)} example {number}", "exec")
        if not source.startswith(NETWORK):
            exec(code, namespace)


def test_only_provider_calls_are_left_unrun() -> None:
    """The network marker is for SDK calls, not a way to skip an example that fails."""
    marked = [
        (page, source) for page in PAGES for source in _examples(page) if source.startswith(NETWORK)
    ]
    assert marked, "docs/providers.md opens with one snippet per provider"
    calls = (".create(", ".generate_content(", ".converse(", ".complete(", "ollama.chat(")
    for page, source in marked:
        assert any(call in source for call in calls), f"{page}: {source[:80]}"


def test_examples_were_found() -> None:
    assert _examples(ROOT / "README.md"), "the README must open with a runnable example"
    assert os.path.exists(ROOT / "docs" / "blocks.md")
