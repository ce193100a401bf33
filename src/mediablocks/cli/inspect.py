"""``mediablocks inspect``: type, header facts, token estimates and provider fit of each file.

A file is read with at most ``--max-bytes`` in memory: a larger one is judged from its header
window alone (type and facts; every provider says ``no``). Whatever one file does (a decoder
failing on a PSD, a truncated JPEG), it gets its own row with the reason and the run goes on;
``--json`` always prints one valid JSON document.

Images in the common formats (JPEG, PNG, GIF, WebP, HEIC, AVIF...) are judged from their headers
(`mediablocks.images.plan.plan_image`: the same plan `prepare` follows, without decoding a pixel
to resize or re-encode), so a 12-megapixel HEIC costs milliseconds per provider, not seconds;
everything else asks `prepare_with_report`. Written to a terminal, the table fits its width; to
a pipe or a file, nothing is cut (paths, types, reasons, token counts), unless ``COLUMNS`` is set.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..changes import DEFAULT_MAX_IMAGE_PIXELS
from ..fetching.policy import current_policy
from ..media import ImageBlock, MediaBlock
from ..messages import UserMessage
from ..mime import mime_kind
from ..preparing import prepare_with_report
from ..probing import probe
from ..providers import canonical_provider
from ..providers.registry import WIRE_FORMATS, limits_for, provider_entry
from ..tokens import estimate_tokens
from ._conversion import conversion_options, describe_parts, plural
from ._items import Item, expand, is_url, load_bounded
from ._output import Column, Table, format_size, output_width, run_each, terminal_width
from ._printable import printable
from ._wording import for_shell, short_reason

__all__ = ["run"]

SHORT_NAMES = {
    "openai-chat": "openai",
    "openai-responses": "responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "ollama": "ollama",
}

_STATUS_MARK = {"as-is": "ok", "prepare": "fix", "cannot": "no"}


def _facts(block: MediaBlock) -> dict[str, Any]:
    """Header facts; a header that cannot be read is itself a fact about the file, not a failure
    of the run (a truncated MP4 is inspected, and said to be broken)."""
    try:
        info = probe(block)
    except Exception as exc:  # a header parser's own failure is a fact about this file
        return {"error": for_shell(exc)}
    fields = ("width", "height", "frames", "duration", "sample_rate", "channels", "pages")
    return {name: getattr(info, name) for name in fields if getattr(info, name) is not None}


def _describe_facts(facts: dict[str, Any], compact: bool = False) -> str:
    if "error" in facts:
        return "unreadable header"
    parts: list[str] = []
    if "width" in facts and "height" in facts:
        parts.append(f"{facts['width']}x{facts['height']}")
    if facts.get("frames", 1) > 1:
        parts.append(f"{facts['frames']} frames")
    if "duration" in facts:
        parts.append(f"{facts['duration']:.1f} s")
    if "sample_rate" in facts and not compact:
        parts.append(f"{facts['sample_rate'] / 1000:g} kHz")
    if "channels" in facts and not compact:
        parts.append(f"{facts['channels']} ch")
    if "pages" in facts:
        parts.append(f"{facts['pages']} page{'s' if facts['pages'] != 1 else ''}")
    return " ".join(parts) or "-"


def _verdict(block: MediaBlock, provider: str, options: dict[str, Any]) -> dict[str, Any]:
    """Whether ``provider`` takes the block as it is, what `prepare` changes, or why it cannot.

    An image in a common format is judged from its header (`_image_verdict`). Anything else asks
    `prepare_with_report` (with ``options``: the image limit and the conversion flags) about a
    message holding just the block, so a block that becomes several (PDF pages, video frames,
    audio parts, a document's text) counts as sendable, and says what it becomes.
    """
    if isinstance(block, ImageBlock) and block.mime_type in _PLANNED_TYPES:
        return _image_verdict(block, provider, options)
    message = UserMessage(content=[block])
    try:
        prepared, report = prepare_with_report([message], provider, read_urls=True, **options)
    except Exception as exc:  # any decoder failure is this file's verdict, not the run's
        return {"status": "cannot", "reason": for_shell(exc)}
    [entry] = report.blocks
    if not entry.changes and not entry.replaced_by:
        return {"status": "as-is"}
    changes = [str(change) for change in entry.changes]
    verdict: dict[str, Any] = {"status": "prepare", "changes": changes}
    if entry.replaced_by:
        count, parts = describe_parts(block, prepared[0].content)
        changes.append(f"becomes {count} block{'s' if count != 1 else ''}")
        verdict["becomes"] = {"blocks": count, "parts": parts}
    return verdict


_PLANNED_TYPES = frozenset(
    {"image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif"}
    | {"image/avif", "image/bmp"}
)
"""`mediablocks.images.plan.PLANNED_TYPES`, spelt here so ``mediablocks --help`` loads no
Pillow (`tests/cli` checks the two agree)."""


def _image_verdict(block: ImageBlock, provider: str, options: dict[str, Any]) -> dict[str, Any]:
    """`_verdict` for an image, from its header: the limits `prepare` fits to (the model it
    assumes without one) and the plan `fit_image` would follow."""
    from ..images import ImageTarget
    from ..images.plan import plan_image

    entry = provider_entry(provider)
    limits = limits_for(provider, entry.assumed_model())
    if not limits.image_types:
        return {"status": "cannot", "reason": f"{limits.provider} takes no image input"}
    target = ImageTarget.from_limits(limits, optimal_size=options.get("optimal_size", True))
    pixels = options.get("max_image_pixels", DEFAULT_MAX_IMAGE_PIXELS)
    try:
        changes = plan_image(
            block.read(),
            target,
            strip_metadata=options.get("strip_metadata", True),
            max_image_pixels=pixels,
            what=block.describe(),
        )
    except Exception as exc:  # any decoder failure is this file's verdict, not the run's
        return {"status": "cannot", "reason": for_shell(exc)}
    if not changes:
        return {"status": "as-is"}
    return {"status": "prepare", "changes": [str(change) for change in changes]}


def _described(verdict: dict[str, Any]) -> str:
    """The changes, the last (``becomes 40 blocks``) saying what the blocks are:
    ``...; becomes 40 blocks: 20 text blocks, 20 frames``."""
    text = "; ".join(verdict["changes"])
    if "becomes" in verdict:
        parts = verdict["becomes"]["parts"].items()
        text += ": " + ", ".join(plural(label, count) for label, count in parts)
    return text


def _tokens(block: MediaBlock, provider: str) -> int | None:
    try:
        return estimate_tokens(block, provider)
    except Exception:  # no published rule, or a header too broken to count from
        return None


def _inspect_one(
    item: Item, providers: Sequence[str], max_bytes: int, options: dict[str, Any]
) -> dict[str, Any]:
    block, size, whole = load_bounded(item, max_bytes)
    mime = block.mime_type
    if whole:
        verdicts = {p: _verdict(block, p, options) for p in providers}
    else:
        reason = (
            f"larger than {max_bytes:,} bytes (raise the limit with --max-bytes); "
            "only its header was read"
        )
        verdicts = {p: {"status": "cannot", "reason": reason} for p in providers}
    return {
        "path": item.label,
        "mime_type": mime,
        "kind": mime_kind(mime),
        "block": type(block).__name__,
        "bytes": size,
        "base64_chars": 4 * ((size + 2) // 3),
        "facts": _facts(block),
        "tokens": {p: _tokens(block, p) if whole else None for p in providers},
        "providers": verdicts,
    }


COMPACT_NAMES = {
    "openai-chat": "oai",
    "openai-responses": "rsp",
    "anthropic": "ant",
    "gemini": "gem",
    "bedrock": "bed",
    "mistral": "mis",
    "ollama": "oll",
    "cohere": "coh",
}
"""Three-letter provider headings for a table that must fit a narrow width (legend on stderr)."""


def _cell(info: dict[str, Any], provider: str, compact: bool) -> str:
    """``ok 425``, ``fix 410`` or ``no``: a count beside something that cannot be sent misleads.
    ``compact`` gives the mark alone."""
    status = info["providers"][provider]["status"]
    tokens = info["tokens"][provider]
    if compact or status == "cannot" or tokens is None:
        return _STATUS_MARK[status]
    return f"{_STATUS_MARK[status]} {tokens}"


def _why(info: dict[str, Any], providers: Sequence[str]) -> str:
    """Why the ``no`` cells are no, in a few words: each distinct short reason once."""
    reasons = [
        short_reason(info["providers"][p]["reason"])
        for p in providers
        if info["providers"][p]["status"] == "cannot"
    ]
    return "; ".join(dict.fromkeys(reasons))


def _rank(info: dict[str, Any]) -> int:
    """Media first (images, audio, video), then files some provider takes (PDFs, documents,
    text), then what no provider takes (archives, broken files)."""
    if info["kind"] in ("image", "audio", "video"):
        return 0
    return 1 if any(v["status"] != "cannot" for v in info["providers"].values()) else 2


def _common_folder(paths: Sequence[str]) -> str:
    """``testdata/``: the folder every path is under (said once in the heading, not on every
    row), or "" when there is none or one row."""
    if len(paths) < 2 or any(is_url(path) for path in paths):
        return ""
    try:
        common = os.path.commonpath([os.path.dirname(path) for path in paths])
    except ValueError:  # absolute and relative mixed
        return ""
    folder = common.rstrip(os.sep) + os.sep if common and common != os.sep else ""
    typed = all(p.startswith(folder) and not p[len(folder) :].startswith(os.sep) for p in paths)
    return folder if typed else ""  # as typed: "./d/x" and "d//x" keep their names


def _table(results: list[dict[str, Any]], providers: Sequence[str], compact: bool) -> Table:
    names = COMPACT_NAMES if compact else SHORT_NAMES
    folder = _common_folder([info["path"] for info in results])
    columns = [
        Column(f"PATH in {folder}" if folder else "PATH", elastic=True, minimum=16),
        Column("TYPE", elastic=True, minimum=8 if compact else 12),
        Column("SIZE", right=True),
        Column("FACTS", elastic=True, minimum=9 if compact else 12),
    ]
    columns.extend(Column(names.get(p, p)) for p in providers)
    why = [_why(info, providers) for info in results]
    if any(why):
        columns.append(Column("WHY NO", elastic=True, minimum=min(max(map(len, why)), 14)))
    table = Table(columns)
    for info, reason in zip(results, why, strict=True):
        mime = info["mime_type"]
        cells = [
            info["path"][len(folder) :],
            mime.removeprefix("application/").removeprefix("x-") if compact else mime,
            format_size(info["bytes"]),
            _describe_facts(info["facts"], compact),
        ]
        cells += [_cell(info, p, compact) for p in providers]
        table.add([*cells, reason] if any(why) else cells)
    return table


def _width(stream: Any) -> int | None:
    """The width to fit the table to: the terminal's, else ``COLUMNS``; None for a pipe or a
    file, where nothing is cut (a script or a log reads every path, type and reason whole)."""
    if terminal_width(stream) is None and not os.environ.get("COLUMNS", "").isdigit():
        return None
    return output_width(stream)


def _fitted_table(
    results: list[dict[str, Any]], providers: Sequence[str], width: int | None
) -> tuple[Table, bool]:
    """The table with token counts if it fits ``width`` (always, for None: no limit), else the
    compact one (marks only, three-letter provider headings, the type's subtype, facts without
    sample rate and channels); ``(table, compact)``."""
    ordered = sorted(results, key=_rank)
    full = _table(ordered, providers, compact=False)
    if width is None or full.fits(width) or not all(p in COMPACT_NAMES for p in providers):
        return full, False
    return _table(ordered, providers, compact=True), True


def _details(info: dict[str, Any], providers: Sequence[str]) -> list[str]:
    lines = [f"{printable(info['path'])}:"]
    for provider in providers:
        verdict = info["providers"][provider]
        if verdict["status"] == "prepare":
            lines.append(f"    {provider}: prepare: " + printable(_described(verdict)))
        elif verdict["status"] == "cannot":
            lines.append(f"    {provider}: cannot: {printable(verdict['reason'])}")
    return lines if len(lines) > 1 else []


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: such a number (a broken header's duration) becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def providers_chosen(chosen: Sequence[str] | None) -> list[str]:
    """The canonical names of ``--provider`` choices, or every provider."""
    if not chosen:
        return list(WIRE_FORMATS)  # profiles (groq, anthropic-bedrock...) when asked for
    return list(dict.fromkeys(canonical_provider(name) for name in chosen))


def run(args: argparse.Namespace) -> int:
    """Inspect every file; exit 1 when any could not be read at all."""
    providers = providers_chosen(args.provider)
    items = list(expand(args.paths))
    max_bytes = args.max_bytes or current_policy().max_bytes
    options = {"max_image_pixels": args.max_pixels, **conversion_options(args)}
    results, failed = run_each(
        items,
        lambda item: _inspect_one(item, providers, max_bytes, options),
        None,
        args.debug,
    )
    if args.json:
        json.dump(_finite(results), sys.stdout, indent=2, allow_nan=False, default=str)
        sys.stdout.write("\n")
        return 1 if failed else 0
    inspected = [info for info in results if "error" not in info]
    compact = False
    if inspected:
        width = _width(sys.stdout)
        table, compact = _fitted_table(inspected, providers, width)
        print(table.render(width, header=not args.quiet))
    if args.details:
        for info in inspected:
            for line in _details(info, providers):
                print(line)
    if not args.quiet and (len(items) > 1 or inspected):
        legend = "numbers: tokens"
        if compact:
            shown = ", ".join(f"{COMPACT_NAMES[p]}={p}" for p in providers)
            legend = f"{shown}; tokens: --json, --provider or a wider terminal"
        print(
            f"{len(inspected)} inspected, {failed} failed "
            f"(ok: taken as is, fix: prepare changes it, no: cannot be sent; {legend})",
            file=sys.stderr,
        )
    return 1 if failed else 0
