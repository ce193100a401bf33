"""The ``mediablocks`` command: look at media files the way the library sees them.

``mediablocks inspect PATH...`` detects each file's type from its bytes, builds the media block and
encodes it to base64 once, printing one line per file (``--json`` for machines). Folders are walked.
A file that fails gives one line with its name and the reason; the run goes on and the exit status
says whether anything failed. Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .errors import MediaBlocksError
from .media import media_block

__all__ = ["main"]


def _walk(paths: Sequence[str]) -> Iterator[Path]:
    for name in paths:
        path = Path(name)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for file in sorted(files):
                    yield Path(root) / file
        else:
            yield path


def _inspect_one(path: Path) -> dict[str, Any]:
    block = media_block(path)
    data = block.read()
    encoded, mime = block.to_base64()
    return {
        "path": str(path),
        "mime_type": mime,
        "block": type(block).__name__,
        "bytes": len(data),
        "base64_chars": len(encoded),
    }


def _format_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024 or unit == "MiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


def _inspect(args: argparse.Namespace) -> int:
    failed = 0
    results: list[dict[str, Any]] = []
    for path in _walk(args.paths):
        try:
            info = _inspect_one(path)
        except (MediaBlocksError, OSError) as exc:
            if args.debug:
                raise
            failed += 1
            results.append({"path": str(path), "error": str(exc)})
            if not args.json:
                print(f"{path}: error: {exc}", file=sys.stderr)
            continue
        results.append(info)
        if not args.json:
            print(
                f"{info['path']:<48} {info['mime_type']:<40} {info['block']:<11} "
                f"{_format_size(info['bytes']):>10}"
            )
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not args.quiet:
        print(f"{len(results) - failed} inspected, {failed} failed", file=sys.stderr)
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mediablocks", description="Media for LLM messages, seen from the bytes."
    )
    parser.add_argument("--version", action="version", version=f"mediablocks {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    inspect = commands.add_parser(
        "inspect", help="detect and encode files (folders are walked)", description=__doc__
    )
    inspect.add_argument("paths", nargs="+", help="files or folders")
    inspect.add_argument("--json", action="store_true", help="print JSON instead of a table")
    inspect.add_argument("--quiet", action="store_true", help="no summary line")
    inspect.add_argument("--debug", action="store_true", help="show tracebacks")
    inspect.set_defaults(run=_inspect)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
