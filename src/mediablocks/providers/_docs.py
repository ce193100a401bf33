"""The provider tables of ``docs/providers.md``, generated from the registry.

``python -m mediablocks.providers._docs`` rewrites the generated blocks of the docs pages in place
(between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``); a test fails while a page
differs from what the registry says.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from .registry import all_entries

__all__ = ["BLOCKS", "capability_matrix", "provider_table", "render"]


def provider_table() -> str:
    """Names, aliases, the SDK call, and who fetches URL media."""
    rows = [
        "| provider | aliases | the SDK call `encode` builds fields for | URL media by default |",
        "|---|---|---|---|",
    ]
    for entry in all_entries():
        aliases = ", ".join(f"`{alias}`" for alias in entry.aliases)
        page = f"[{entry.title}](providers/{entry.docs_page})"
        rows.append(
            f"| `{entry.name}` ({page}) | {aliases} | `{entry.sdk_call}` "
            f"| {entry.capabilities.url_media} |"
        )
    return "\n".join(rows) + "\n"


def capability_matrix() -> str:
    """What each provider carries, as a Markdown table: seven columns, so it fits a 1280 px
    page. Profiles declared with `mb.register_profile` get their rows after the shipped ones."""
    rows = [
        "| | images | audio | video | documents | media in tool results | thinking replayed |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry in all_entries():
        c = entry.capabilities
        rows.append(
            f"| {entry.name} | {c.images} | {c.audio} | {c.video} | {c.documents} "
            f"| {c.tool_result_media} | {c.thinking} |"
        )
    return "\n".join(rows) + "\n"


BLOCKS: dict[str, Callable[[], str]] = {
    "provider-table": provider_table,
    "capability-matrix": capability_matrix,
}
"""Generated block name -> the function writing it."""

_BLOCK = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- end generated -->)", re.DOTALL)


def render(page: str) -> str:
    """``page`` with every generated block rewritten from the registry."""

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + BLOCKS[match.group(2)]() + match.group(4)

    return _BLOCK.sub(fill, page)


def main(argv: list[str]) -> int:
    """Rewrite the generated blocks of the pages given (default: ``docs/providers.md``)."""
    for name in argv or ["docs/providers.md"]:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        path.write_text(render(text), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    raise SystemExit(main(sys.argv[1:]))
