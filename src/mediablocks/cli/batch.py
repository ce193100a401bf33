"""``mediablocks batch``: a batch input file from a folder of files or a JSONL of prompts.

- ``mediablocks batch photos/ --provider anthropic --prompt "Describe this." --out batch.jsonl``:
  one request per file (the prompt, then the file), ids made from the file names;
- ``mediablocks batch --prompts jobs.jsonl --provider openai --out batch.jsonl``: one request per
  line ``{"id": ..., "prompt": ..., "files": [...]}`` (``id`` and ``files`` optional; files are
  relative to the JSONL's folder).

Requests are written one at a time (`mediablocks.batch.batch_line`); a file or line that cannot
be read or carried is one line on stderr and is left out, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from ..batch import BATCH_PROVIDERS, batch_line
from ..blocks import TextBlock
from ..messages import Message, UserMessage
from ..prepare import prepare
from ..providers import canonical_provider
from ._conversion import add_conversion_flags, conversion_options
from ._items import Item, expand, load
from ._wording import for_shell

__all__ = ["add_parser", "run"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _id(number: int, name: str) -> str:
    """``000012-cat_photo``: unique by its number, readable by its name, and within what every
    provider accepts in an id (Anthropic: letters, digits, ``_`` and ``-``, at most 64)."""
    stem = _UNSAFE.sub("_", name).strip("_")
    return f"{number:06d}-{stem}"[:64] if stem else f"{number:06d}"


_Build = Callable[[], list[Message]]
"""Makes one request's messages when called (so a failure is that request's only)."""


def _from_files(args: argparse.Namespace) -> Iterator[tuple[str, str, _Build | Exception]]:
    """``(label, id, build)`` per file."""
    for number, item in enumerate(expand(args.paths)):
        yield item.label, _id(number, item.relative().stem), partial(_one_file, item, args.prompt)


def _one_file(item: Item, prompt: str | None) -> list[Message]:
    content: list[Any] = [TextBlock(text=prompt)] if prompt else []
    content.append(load(item))
    return [UserMessage(content=content)]


def _from_prompts(args: argparse.Namespace) -> Iterator[tuple[str, str, _Build | Exception]]:
    """``(label, id, build)`` per line; a line that is no request gives its error instead."""
    source = Path(args.prompts)
    base = source.parent
    try:
        handle = source.open("rb")
    except OSError as exc:
        raise SystemExit(f"mediablocks batch: error: {source}: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            label = f"{source.name} line {number}"
            try:
                line = json.loads(raw)
            except ValueError as exc:
                yield label, "", exc
                continue
            if not isinstance(line, dict) or not isinstance(line.get("prompt"), str):
                yield label, "", ValueError('each line must be an object with a "prompt" string')
                continue
            given = line.get("id")
            rid = str(given) if given is not None else _id(number, "")
            files = [base / str(name) for name in line.get("files") or []]
            yield label, rid, partial(_one_prompt, line["prompt"], files)


def _one_prompt(prompt: str, files: list[Path]) -> list[Message]:
    content: list[Any] = [TextBlock(text=prompt)]
    content.extend(load(Item(label=str(path), path=path)) for path in files)
    return [UserMessage(content=content)]


def run(args: argparse.Namespace) -> int:
    """Write the batch file; exit 1 when any request was left out."""
    provider = canonical_provider(args.provider)
    if provider not in BATCH_PROVIDERS:
        print(f"error: {provider} takes no batch files", file=sys.stderr)
        return 2
    if bool(args.paths) == bool(args.prompts):
        print("error: give files/folders or --prompts FILE.jsonl (one of them)", file=sys.stderr)
        return 2
    fields: dict[str, Any] = {}
    if args.model:
        fields["model"] = args.model
    if args.max_tokens is not None:
        fields["max_tokens"] = args.max_tokens
    requests = _from_prompts(args) if args.prompts else _from_files(args)
    written = failed = 0
    seen: set[str] = set()
    with open(args.out, "wb") as out:
        for label, rid, build in requests:
            try:
                if isinstance(build, Exception):
                    raise build
                if rid in seen:
                    raise ValueError(f"id {rid!r} is not unique")
                messages = build()
                if args.prepare:
                    messages = prepare(messages, provider, **conversion_options(args))
                line = batch_line(
                    messages, provider, rid, fields=fields, bedrock_format=args.bedrock_format
                )
            except Exception as exc:
                if args.debug:
                    raise
                failed += 1
                print(f"{label}: error: {for_shell(exc)}", file=sys.stderr)
                continue
            seen.add(rid)
            out.write(line + b"\n")
            written += 1
    left = f", {failed} left out" if failed else ""
    print(f"wrote {written} requests to {args.out}{left}", file=sys.stderr)
    return 1 if failed else 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``batch`` on the subcommand parsers."""
    parser = commands.add_parser(
        "batch",
        parents=[common],
        help="write a provider's batch input file (JSONL) from files or a JSONL of prompts",
        description="Write a batch input file: one request per file, or per prompt line.",
    )
    parser.add_argument("paths", nargs="*", help="files or folders, one request per file")
    parser.add_argument(
        "--prompts", metavar="FILE", help='JSONL of {"id", "prompt", "files": [...]} lines'
    )
    parser.add_argument("--provider", required=True, help=", ".join(BATCH_PROVIDERS))
    parser.add_argument("--out", required=True, help="the batch file to write")
    parser.add_argument("--prompt", help="text before each file (with files/folders)")
    parser.add_argument("--model", help="model name put in every request (OpenAI, Anthropic)")
    parser.add_argument("--max-tokens", type=int, help="max_tokens put in every request")
    parser.add_argument(
        "--prepare", action="store_true", help="fit each request's media to the provider first"
    )
    parser.add_argument(
        "--bedrock-format",
        choices=("converse", "anthropic"),
        default="converse",
        help="Bedrock modelInput: Converse/Nova body (default) or Anthropic's",
    )
    add_conversion_flags(parser)  # used with --prepare
    parser.set_defaults(run=run)
