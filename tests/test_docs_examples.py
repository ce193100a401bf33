"""Every ```python example in README.md and docs/ runs, page by page, from the repository root."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


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
        exec(code, namespace)


def test_examples_were_found() -> None:
    assert _examples(ROOT / "README.md"), "the README must open with a runnable example"
    assert os.path.exists(ROOT / "docs" / "blocks.md")
