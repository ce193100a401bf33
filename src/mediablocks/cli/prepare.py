"""``mediablocks prepare``: files fitted to a provider's limits, written under a folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from ..prepare import prepare_block
from ..providers import canonical_provider
from ._items import Item, expand, load
from ._output import run_each

__all__ = ["add_parser", "run"]


_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
}


def _output_name(relative: PurePosixPath, before: str, after: str) -> PurePosixPath:
    """The same relative name, with the extension of the new format when the format changed."""
    if before == after or after not in _EXTENSIONS:
        return relative
    return relative.with_suffix(_EXTENSIONS[after])


def _prepare_one(item: Item, provider: str, out: Path, options: dict[str, Any]) -> dict[str, Any]:
    block = load(item)
    before = block.mime_type
    size_before = len(block.read())
    fitted, changes = prepare_block(block, provider, **options)
    data = fitted.read()
    relative = _output_name(item.relative(), before, fitted.mime_type)
    target = out / Path(*relative.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return {
        "path": item.label,
        "output": str(target),
        "mime_before": before,
        "mime_after": fitted.mime_type,
        "bytes_before": size_before,
        "bytes_after": len(data),
        "changes": [str(change) for change in changes],
    }


def run(args: argparse.Namespace) -> int:
    provider = canonical_provider(args.provider)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {"model": args.model}
    if args.optimal:
        options["optimal_size"] = True
    items = list(expand(args.paths))

    def show(row: dict[str, Any]) -> None:
        what = "; ".join(row["changes"]) or "unchanged"
        print(f"{row['path']} -> {row['output']}: {what}")

    results, failed = run_each(
        items, lambda item: _prepare_one(item, provider, out, options), show, args.debug
    )
    report = {"provider": provider, "model": args.model, "files": results}
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(
        f"{len(results) - failed} prepared, {failed} failed; report: {out / 'report.json'}",
        file=sys.stderr,
    )
    return 1 if failed else 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``prepare`` on the subcommand parsers."""
    parser = commands.add_parser(
        "prepare",
        parents=[common],
        help="write files fitted to a provider's limits, and a report",
        description="Fit files to a provider: convert, orient, strip metadata, downscale.",
    )
    parser.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    parser.add_argument("--provider", required=True, help="e.g. openai, anthropic, gemini")
    parser.add_argument("--out", required=True, help="folder for the fitted files")
    parser.add_argument("--model", help="the model, where limits depend on it")
    parser.add_argument(
        "--optimal", action="store_true", help="target the provider's optimal image size"
    )
    parser.set_defaults(run=run)
