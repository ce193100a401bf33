"""The ``mediablocks`` command: look at media the way the library sees them, and make them fit.

- ``mediablocks inspect PATH|URL...``: each file's type from its bytes, its block class, size,
  facts from its headers (dimensions, duration, pages), token estimates per provider, which
  providers take it as it is and what `prepare` would change for the others.
- ``mediablocks encode PATH... --provider P``: the provider-ready user message as JSON.
- ``mediablocks prepare PATH|DIR... --provider P --out DIR``: fitted files and a report.

Folders are walked in sorted order. A file that fails gives one line with its name and the reason,
the run goes on, and the exit status says whether anything failed (1) or the command line was wrong
(2). Tracebacks only with ``--debug``. A progress bar is drawn on standard error when it is a
terminal and the run has many files; never when piped.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.parse import urlsplit

from . import __version__
from .blocks import TextBlock
from .errors import DecodeError, MediaBlocksError
from .fetch import fetch
from .media import MediaBlock, media_block
from .messages import UserMessage
from .mime import mime_kind
from .policy import current_policy, use_policy
from .prepare import prepare_block, prepare_with_report
from .probe import probe
from .providers import PROVIDERS, canonical_provider, encode
from .tokens import estimate_tokens

__all__ = ["main"]

_PROGRESS_MIN_FILES = 20
"""Fewer files than this finish before a bar would help; no bar is drawn for them."""

_SHORT_NAMES = {
    "openai-chat": "openai",
    "openai-responses": "responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "ollama": "ollama",
}


# -- sources ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    """One thing named on the command line (or found in a folder): a local file or a URL."""

    label: str
    path: Path | None = None
    url: str | None = None
    root: Path | None = None
    """The folder it was found in, for keeping relative names in ``prepare --out``."""

    def relative(self) -> PurePosixPath:
        if self.path is not None and self.root is not None:
            return PurePosixPath(self.path.relative_to(self.root).as_posix())
        if self.path is not None:
            return PurePosixPath(self.path.name)
        name = PurePosixPath(urlsplit(self.url or "").path).name
        return PurePosixPath(name or "download")


def _is_url(name: str) -> bool:
    return urlsplit(name).scheme.lower() in ("http", "https")


def _items(names: Sequence[str]) -> Iterator[_Item]:
    for name in names:
        if _is_url(name):
            yield _Item(label=name, url=name)
            continue
        path = Path(name)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for file in sorted(files):
                    found = Path(root) / file
                    yield _Item(label=str(found), path=found, root=path)
        else:
            yield _Item(label=name, path=path)


def _load(item: _Item) -> MediaBlock:
    """The item's media block: a file is read lazily, a URL is fetched under the default policy."""
    if item.path is not None:
        return media_block(item.path)
    assert item.url is not None
    result = fetch(item.url)
    return media_block(result.data, result.mime_type, filename=item.relative().name)


# -- output helpers -----------------------------------------------------------------------------


class _Progress:
    """A one-line bar on standard error, drawn only on a terminal and for long runs."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = total >= _PROGRESS_MIN_FILES and stream.isatty()
        self.done = 0

    def step(self, label: str) -> None:
        if not self.enabled:
            return
        self.done += 1
        width = shutil.get_terminal_size((80, 20)).columns
        filled = 24 * self.done // self.total
        bar = f"[{'#' * filled}{'.' * (24 - filled)}] {self.done}/{self.total} "
        self.stream.write("\r" + (bar + label)[: width - 1].ljust(width - 1))
        self.stream.flush()

    def clear(self) -> None:
        if self.enabled:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()


def _format_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024 or unit == "MiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


def _run_each(
    items: list[_Item],
    work: Callable[[_Item], dict[str, Any]],
    show: Callable[[dict[str, Any]], None] | None,
    debug: bool,
) -> tuple[list[dict[str, Any]], int]:
    """Run ``work`` on every item; a failure is one line on stderr and the run goes on."""
    progress = _Progress(len(items), sys.stderr)
    results: list[dict[str, Any]] = []
    failed = 0
    for item in items:
        progress.step(item.label)
        try:
            result = work(item)
        except (MediaBlocksError, OSError) as exc:
            if debug:
                raise
            failed += 1
            progress.clear()
            print(f"{item.label}: error: {exc}", file=sys.stderr)
            results.append({"path": item.label, "error": str(exc)})
            continue
        results.append(result)
        if show is not None:
            progress.clear()
            show(result)
    progress.clear()
    return results, failed


# -- inspect ------------------------------------------------------------------------------------


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
    """Whether ``provider`` takes the block as it is, what `prepare` changes, or why it cannot.

    Asks `prepare_with_report` about a message holding just the block, so a block that becomes
    several (PDF pages, video frames, audio chunks, a document's text) counts as sendable.
    """
    message = UserMessage(content=[block])
    try:
        _, report = prepare_with_report([message], provider, read_urls=True)
    except MediaBlocksError as exc:
        return {"status": "cannot", "reason": str(exc)}
    [entry] = report.blocks
    if not entry.changes and not entry.replaced_by:
        return {"status": "as-is"}
    changes = [str(change) for change in entry.changes]
    if entry.replaced_by:
        changes.append(f"becomes {len(entry.replaced_by)} blocks")
    return {"status": "prepare", "changes": changes}


def _tokens(block: MediaBlock, provider: str) -> int | None:
    try:
        return estimate_tokens(block, provider)
    except MediaBlocksError:
        return None


def _inspect_one(item: _Item, providers: Sequence[str]) -> dict[str, Any]:
    block = _load(item)
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
        f"{_format_size(info['bytes']):>10}",
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


def _inspect(args: argparse.Namespace) -> int:
    providers = _providers(args.provider)
    items = list(_items(args.paths))
    if not args.json and not args.quiet:
        print(_inspect_header(providers))

    def show(info: dict[str, Any]) -> None:
        print(_inspect_row(info, providers, args.details))

    results, failed = _run_each(
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


# -- encode -------------------------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    """Bytes (what boto3 and google-genai take) are printed as base64 text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _content_of(fields: dict[str, Any]) -> Any:
    """The one user message's content blocks in a provider's request fields."""
    for key in ("messages", "contents", "input"):
        messages = fields.get(key)
        if isinstance(messages, list) and messages:
            last = messages[-1]
            for content_key in ("content", "parts"):
                if isinstance(last, dict) and isinstance(last.get(content_key), list):
                    return last[content_key]
            return last
    return fields


def _encode(args: argparse.Namespace) -> int:
    provider = canonical_provider(args.provider)
    blocks: list[Any] = [TextBlock(text=args.text)] if args.text else []
    items = list(_items(args.paths))
    results, failed = _run_each(items, lambda item: {"block": _load(item)}, None, args.debug)
    if failed:
        return 1
    blocks.extend(result["block"] for result in results)
    try:
        fields = encode([UserMessage(content=blocks)], provider, target=args.target)
    except MediaBlocksError as exc:
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = _content_of(fields) if args.blocks else fields
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False, default=_json_default)
    sys.stdout.write("\n")
    return 0


# -- prepare ------------------------------------------------------------------------------------


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


def _prepare_one(item: _Item, provider: str, out: Path, options: dict[str, Any]) -> dict[str, Any]:
    block = _load(item)
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


def _prepare(args: argparse.Namespace) -> int:
    provider = canonical_provider(args.provider)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {"model": args.model}
    if args.optimal:
        options["optimal_size"] = True
    items = list(_items(args.paths))

    def show(row: dict[str, Any]) -> None:
        what = "; ".join(row["changes"]) or "unchanged"
        print(f"{row['path']} -> {row['output']}: {what}")

    results, failed = _run_each(
        items, lambda item: _prepare_one(item, provider, out, options), show, args.debug
    )
    report = {"provider": provider, "model": args.model, "files": results}
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(
        f"{len(results) - failed} prepared, {failed} failed; report: {out / 'report.json'}",
        file=sys.stderr,
    )
    return 1 if failed else 0


# -- the parser ---------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mediablocks", description="Media for LLM messages, seen from the bytes."
    )
    parser.add_argument("--version", action="version", version=f"mediablocks {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    common.add_argument(
        "--allow-private",
        action="store_true",
        help="let URLs reach private and loopback addresses (refused by default)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    inspect = commands.add_parser(
        "inspect",
        parents=[common],
        help="type, facts, token estimates and provider fit of files, folders and URLs",
        description="Look at media the way mediablocks sees them.",
    )
    inspect.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    inspect.add_argument(
        "--provider", action="append", help="only these providers (repeatable; default: all)"
    )
    inspect.add_argument("--json", action="store_true", help="print JSON instead of a table")
    inspect.add_argument(
        "--details", action="store_true", help="say what prepare changes, or why not"
    )
    inspect.add_argument("--quiet", action="store_true", help="no header and no summary line")
    inspect.set_defaults(run=_inspect)

    encode_cmd = commands.add_parser(
        "encode",
        parents=[common],
        help="print the provider-ready user message holding these files, as JSON",
        description="Encode files into one user message for a provider.",
    )
    encode_cmd.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    encode_cmd.add_argument("--provider", required=True, help="e.g. openai, anthropic, gemini")
    encode_cmd.add_argument(
        "--target",
        choices=("sdk", "json"),
        default="json",
        help="json: the HTTP API's JSON (default); sdk: the SDK's fields, bytes as base64",
    )
    encode_cmd.add_argument("--text", help="a text block before the media")
    encode_cmd.add_argument(
        "--blocks", action="store_true", help="print only the message's content blocks"
    )
    encode_cmd.set_defaults(run=_encode)

    prepare_cmd = commands.add_parser(
        "prepare",
        parents=[common],
        help="write files fitted to a provider's limits, and a report",
        description="Fit files to a provider: convert, orient, strip metadata, downscale.",
    )
    prepare_cmd.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    prepare_cmd.add_argument("--provider", required=True, help="e.g. openai, anthropic, gemini")
    prepare_cmd.add_argument("--out", required=True, help="folder for the fitted files")
    prepare_cmd.add_argument("--model", help="the model, where limits depend on it")
    prepare_cmd.add_argument(
        "--optimal", action="store_true", help="target the provider's optimal image size"
    )
    prepare_cmd.set_defaults(run=_prepare)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 something failed, 2 usage)."""
    parser = _parser()
    args = parser.parse_args(argv)
    policy = current_policy()
    if args.allow_private:
        policy = policy.replace(allow_private=True)
    try:
        with use_policy(policy):
            status: int = args.run(args)
    except MediaBlocksError as exc:  # a wrong provider name and the like
        if getattr(args, "debug", False):
            raise
        parser.error(str(exc))
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
