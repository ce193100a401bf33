"""``mediablocks inspect``: type, header facts, token estimates and provider fit of each file."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import DecodeError, MediaBlocksError
from ..media import MediaBlock
from ..mime import mime_kind
from ..prepare import prepare_block
from ..probe import probe
from ..providers import PROVIDERS, canonical_provider
from ..tokens import estimate_tokens
from ._items import Item, expand, load
from ._output import format_size, run_each

__all__ = ["add_parser", "run"]

_SHORT_NAMES = {
    "openai-chat": "openai",
    "openai-responses": "responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "ollama": "ollama",
}


def _facts(block: MediaBlock) -> dict[str, Any]:
    """Header facts; a header that cannot be read is itself a fact about the file, not a failure
    of the run (a truncated MP4 is inspected, and said to be broken)."""
    try:
        info = probe(block)
    except DecodeError as exc:
        return {"error": str(exc)}
    fields = ("width", "height", "frames", "duration", "sample_rate", "channels", "pages")
    return {name: getattr(info, name) for name in fields if getattr(info, name) is not None}


def _describe_facts(facts: dict[str, Any]) -> str:
    if "error" in facts:
        return "unreadable header"
    parts: list[str] = []
    if "width" in facts and "height" in facts:
        parts.append(f"{facts['width']}x{facts['height']}")
    if facts.get("frames", 1) > 1:
        parts.append(f"{facts['frames']} frames")
    if "duration" in facts:
        parts.append(f"{facts['duration']:.1f} s")
    if "sample_rate" in facts:
        parts.append(f"{facts['sample_rate'] / 1000:g} kHz")
    if "channels" in facts:
        parts.append(f"{facts['channels']} ch")
    if "pages" in facts:
        parts.append(f"{facts['pages']} page{'s' if facts['pages'] != 1 else ''}")
    return " ".join(parts) or "-"


def _verdict(block: MediaBlock, provider: str) -> dict[str, Any]:
    """Whether ``provider`` takes the block as it is, what `prepare` changes, or why it cannot."""
    try:
        fitted, changes = prepare_block(block, provider)
    except MediaBlocksError as exc:
        return {"status": "cannot", "reason": str(exc)}
    if fitted is block or not changes:
        return {"status": "as-is"}
    return {"status": "prepare", "changes": [str(change) for change in changes]}


def _tokens(block: MediaBlock, provider: str) -> int | None:
    try:
        return estimate_tokens(block, provider)
    except MediaBlocksError:
        return None


def _inspect_one(item: Item, providers: Sequence[str]) -> dict[str, Any]:
    block = load(item)
    data = block.read()
    encoded, mime = block.to_base64()
    return {
        "path": item.label,
        "mime_type": mime,
        "kind": mime_kind(mime),
        "block": type(block).__name__,
        "bytes": len(data),
        "base64_chars": len(encoded),
        "facts": _facts(block),
        "tokens": {provider: _tokens(block, provider) for provider in providers},
        "providers": {provider: _verdict(block, provider) for provider in providers},
    }


_STATUS_MARK = {"as-is": "ok", "prepare": "fix", "cannot": "no"}


def _inspect_row(info: dict[str, Any], providers: Sequence[str], details: bool) -> str:
    cells = [
        f"{info['path']:<40}",
        f"{info['mime_type']:<28}",
        f"{format_size(info['bytes']):>10}",
        f"{_describe_facts(info['facts']):<22}",
    ]
    for provider in providers:
        verdict = info["providers"][provider]
        tokens = info["tokens"][provider]
        mark = _STATUS_MARK[verdict["status"]]
        cells.append(f"{mark + (f' {tokens}' if tokens is not None else ''):<{_column(provider)}}")
    line = " ".join(cells).rstrip()
    if details:
        for provider in providers:
            verdict = info["providers"][provider]
            if verdict["status"] == "prepare":
                line += f"\n    {provider}: prepare: " + "; ".join(verdict["changes"])
            elif verdict["status"] == "cannot":
                line += f"\n    {provider}: cannot: {verdict['reason']}"
    return line


def _column(provider: str) -> int:
    return max(len(_SHORT_NAMES[provider]), 9)


def _inspect_header(providers: Sequence[str]) -> str:
    cells = [f"{'PATH':<40}", f"{'TYPE':<28}", f"{'SIZE':>10}", f"{'FACTS':<22}"]
    cells.extend(f"{_SHORT_NAMES[p]:<{_column(p)}}" for p in providers)
    return " ".join(cells).rstrip()


def run(args: argparse.Namespace) -> int:
    providers = _providers(args.provider)
    items = list(expand(args.paths))
    if not args.json and not args.quiet:
        print(_inspect_header(providers))

    def show(info: dict[str, Any]) -> None:
        print(_inspect_row(info, providers, args.details))

    results, failed = run_each(
        items, lambda item: _inspect_one(item, providers), None if args.json else show, args.debug
    )
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not args.quiet:
        print(
            f"{len(results) - failed} inspected, {failed} failed "
            "(ok: taken as is, fix: prepare changes it, no: cannot be sent; numbers: tokens)",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _providers(chosen: Sequence[str] | None) -> list[str]:
    if not chosen:
        return list(PROVIDERS)
    return list(dict.fromkeys(canonical_provider(name) for name in chosen))


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``inspect`` on the subcommand parsers."""
    parser = commands.add_parser(
        "inspect",
        parents=[common],
        help="type, facts, token estimates and provider fit of files, folders and URLs",
        description="Look at media the way mediablocks sees them.",
    )
    parser.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    parser.add_argument(
        "--provider", action="append", help="only these providers (repeatable; default: all)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--details", action="store_true", help="say what prepare changes, or why not"
    )
    parser.add_argument("--quiet", action="store_true", help="no header and no summary line")
    parser.set_defaults(run=run)
