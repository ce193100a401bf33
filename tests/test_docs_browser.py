"""The built documentation in a real browser at 1280 px: no table or code block is wider than the
text column, on every page.

The site is built with mkdocs into a temporary folder, served on 127.0.0.1 by a server started
here, and every page is opened in Debian's Chromium (``/usr/bin/chromium``) driven by Playwright
(never ``playwright install``: no download). A table or code block "fits" when its box ends
inside the content column and it does not scroll sideways (``scrollWidth <= clientWidth``):
the project's stylesheet wraps long code lines instead of letting them scroll, so nothing on a
page is hidden behind a scroll bar (``docs/stylesheets/extra.css`` says why). Skipped, with the
reason, where Chromium or Playwright is missing; ``.ci/run`` installs Chromium so CI always runs it.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
WIDTH = 1280

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium (apt-get install chromium; .ci/run does it in CI)",
)

_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Every table and code block on the page against the content column; what sticks out, returned.
_MEASURE = """
() => {
  const column = document.querySelector('.md-content__inner');
  const right = column.getBoundingClientRect().right + 1;
  const found = [];
  const check = (kind, box, scroller) => {
    const rect = box.getBoundingClientRect();
    if (rect.width === 0) return;  // hidden (a collapsed block)
    if (rect.right > right || scroller.scrollWidth > scroller.clientWidth + 1) {
      found.push({kind, right: Math.round(rect.right), column: Math.round(right),
                  scroll: scroller.scrollWidth, client: scroller.clientWidth,
                  text: box.innerText.slice(0, 80)});
    }
  };
  for (const table of column.querySelectorAll('table')) {
    const wrap = table.closest('.md-typeset__scrollwrap') || table;
    check('table', table, wrap);
  }
  for (const code of column.querySelectorAll('pre > code')) {
    check('code', code.parentElement, code);
  }
  return found;
}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site, served on 127.0.0.1; its base URL."""
    folder = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir"]
    subprocess.run([*command, str(folder)], cwd=ROOT, env=env, check=True)
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _pages() -> list[str]:
    """Every page the nav lists, as a path under the site (``tools/``)."""
    pages = []
    for source in sorted((ROOT / "docs").rglob("*.md")):
        relative = source.relative_to(ROOT / "docs").with_suffix("")
        pages.append("" if relative.as_posix() == "index" else relative.as_posix() + "/")
    return pages


def test_no_table_or_code_block_is_wider_than_its_column(site: str, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the dev extra)")
    offenders: dict[str, list[dict[str, Any]]] = {}
    measured = 0
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh --user-data-dir
            executable_path=str(CHROMIUM),
            args=_ARGS,
            headless=True,
            viewport={"width": WIDTH, "height": 900},
        )
        try:
            page = browser.new_page()
            for path in _pages():
                response = page.goto(site + path, wait_until="load")
                assert response is not None, path
                assert response.ok, path
                found = page.evaluate(_MEASURE)
                measured += 1
                if found:
                    offenders[path or "index"] = found
        finally:
            browser.close()
    assert measured == len(_pages()) > 20
    report = [
        f"{path} {o['kind']}: {o['scroll']} px in {o['client']} px, ends at {o['right']} "
        f"(column ends at {o['column']}): {o['text']!r}"
        for path, found in offenders.items()
        for o in found
    ]
    if report:
        pytest.fail("wider than the text column at 1280 px:\n" + "\n".join(report))
