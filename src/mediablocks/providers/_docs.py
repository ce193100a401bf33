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

from ..limits import MB, MIB, ByteMeasure
from .registry import REGISTRY, all_entries, limits_for

__all__ = ["BLOCKS", "capability_matrix", "limits_table", "provider_table", "render"]


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


# -- limits tables -------------------------------------------------------------------------------


def _short_type(mime: str) -> str:
    subtype = mime.split("/", 1)[1]
    names = {
        "vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
        "vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
        "vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
        "tab-separated-values": "tsv",
        "msword": "doc",
        "vnd.ms-excel": "xls",
        "plain": "txt",
        "mpeg": "mp3" if mime.startswith("audio/") else "mpeg",
        "quicktime": "mov",
        "x-msvideo": "avi",
        "x-matroska": "mkv" if mime.startswith("video/") else "mka",
        "x-ms-wmv": "wmv",
        "x-m4a": "m4a",
    }
    return names.get(subtype, subtype.removeprefix("x-"))


def _types(types: frozenset[str]) -> str:
    return ", ".join(sorted({_short_type(mime) for mime in types})) or "-"


def _size(value: int | None, measure: ByteMeasure | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value / MIB:g} MiB" if value % (MIB // 4) == 0 else f"{value / MB:g} MB"
    return f"{text} {measure}" if measure else text


def _count(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:g}{unit}"


def limits_table() -> str:
    """The limits of every provider as Markdown tables (used by ``docs/preparation.md``)."""
    images = [
        "| provider | image types | per image | all images | max side | >N images | "
        "max images | animated | optimal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    others = [
        "| provider | documents | per document | PDF pages | documents | audio | "
        "audio length | video | per video | video length | request |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in (entry.name for entry in REGISTRY):
        lim = limits_for(name)
        many = (
            f">{lim.many_images_threshold}: {lim.many_images_max_side} px"
            if lim.many_images_threshold is not None
            else "-"
        )
        optimal = "-"
        if lim.optimal_image_side is not None:
            optimal = f"{lim.optimal_image_side} px"
            if lim.optimal_image_pixels:
                optimal += f", {lim.optimal_image_pixels / 1e6:g} MP"
            if lim.server_short_side:
                optimal += f", short side {lim.server_short_side} px"
        images.append(
            f"| {name} | {_types(lim.image_types)} "
            f"| {_size(lim.max_image_bytes, lim.image_bytes_measure)} "
            f"| {_size(lim.max_total_image_bytes, lim.image_bytes_measure)} "
            f"| {_count(lim.max_image_side, ' px')} | {many} | {_count(lim.max_images)} "
            f"| {'yes' if lim.animated_images else 'first frame'} | {optimal} |"
        )
        others.append(
            f"| {name} | {_types(lim.document_types)} "
            f"| {_size(lim.max_document_bytes, lim.document_bytes_measure)} "
            f"| {_count(lim.max_document_pages)} | {_count(lim.max_documents)} "
            f"| {_types(lim.audio_types)} | {_count(lim.max_audio_seconds, ' s')} "
            f"| {_types(lim.video_types)} | {_size(lim.max_video_bytes, lim.video_bytes_measure)} "
            f"| {_count(lim.max_video_seconds, ' s')} "
            f"| {_size(lim.max_request_bytes, lim.request_bytes_measure)} |"
        )
    sources = ["Sources:", ""]
    for name in (entry.name for entry in REGISTRY):
        seen = sorted(set(limits_for(name).sources.values()))
        sources.append(f"- {name}: " + "; ".join(seen))
    return "\n".join(images) + "\n\n" + "\n".join(others) + "\n\n" + "\n".join(sources) + "\n"
