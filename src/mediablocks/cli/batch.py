"""``mediablocks batch``: a batch input file from a folder of files or a JSONL of prompts.

- ``mediablocks batch photos/ --provider anthropic --prompt "Describe this." --out batch.jsonl``:
  one request per file (the prompt, then the file), ids made from the file names;
- ``mediablocks batch --prompts jobs.jsonl --provider openai --out batch.jsonl``: one request per
  line ``{"id": ..., "prompt": ..., "files": [...]}`` (``id`` and ``files`` optional; files are
  relative to ``--files-root``, by default the JSONL's folder, and may not leave it: an absolute
  name, ``..`` or a symbolic link pointing outside is refused, so a prompts file from elsewhere
  cannot put ``/etc/passwd`` into the batch file that goes to the provider).

Requests are written one at a time (`mediablocks.batch.batch_line`); a file or line that cannot
be read or carried is one line on stderr and is left out, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ..batch import BATCH_PROVIDERS, REQUIRED_FIELDS, batch_line
from ..blocks import TextBlock
from ..errors import PathNotAllowedError, SourceError
from ..fetching.policy import current_policy
from ..media_input import media_block
from ..messages import Message, UserMessage
from ..preparing import prepare
from ..providers import canonical_provider
from ..sources._confined import Confinement
from ..sources._files import open_descriptor, read_capped
from ._conversion import conversion_options
from ._items import Item, expand, load
from ._printable import printable
from ._wording import ItemError, for_shell

__all__ = ["read_under_root", "run"]

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
    root = Path(args.files_root) if args.files_root else source.parent
    try:  # a regular file only, opened without blocking: a FIFO swapped in is refused
        fd, _ = open_descriptor(str(source), repr(str(source)), None)
    except SourceError as exc:
        raise SystemExit(f"mediablocks batch: error: --prompts {for_shell(exc)}") from None
    with os.fdopen(fd, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            label = f"{source.name} line {number}"
            try:
                line = json.loads(raw)
            except UnicodeDecodeError:
                yield label, "", ItemError("not UTF-8 text; a prompts file is JSON Lines in UTF-8")
                continue
            except RecursionError:
                yield label, "", ItemError("not a request: nested too deeply")
                continue
            except ValueError as exc:
                yield label, "", ItemError(f"not valid JSON: {_json_problem(exc)}")
                continue
            if not isinstance(line, dict) or not isinstance(line.get("prompt"), str):
                yield label, "", ItemError('each line must be an object with a "prompt" string')
                continue
            given = line.get("id")
            rid = str(given) if given is not None else _id(number, "")
            files = line.get("files") or []
            if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
                yield label, rid, ItemError('"files" must be a list of file names')
                continue
            yield label, rid, partial(_one_prompt, line["prompt"], root, files)


_ROOT_HINT = "files are read only under --files-root (default: the prompts file's folder)"


def read_under_root(root: Path, name: str) -> bytes:
    """The bytes of ``root/name``, refused unless the file stays under ``root``: no absolute
    path, no ``..``, no symbolic link (at any depth) that leads outside; links that stay inside
    are followed. The file is reached from ``root`` by descriptor and read through the
    descriptor it was checked on, so a folder swapped for a link while this runs cannot lead
    outside; a FIFO or a device is refused without blocking."""
    if Path(name).is_absolute() or PureWindowsPath(name).is_absolute() or name.startswith("~"):
        raise ItemError(f"{name!r} is an absolute path; {_ROOT_HINT}")
    if ".." in Path(name).parts or ".." in PureWindowsPath(name).parts:
        raise ItemError(f"{name!r} goes up with '..'; {_ROOT_HINT}")
    confine = Confinement((str(root),), "--files-root")
    cap = current_policy().max_path_bytes
    try:
        return read_capped(str(root / name), cap, repr(name), confine)
    except PathNotAllowedError:
        raise ItemError(f"{name!r} leaves the root through a symbolic link; {_ROOT_HINT}") from None


def _json_problem(exc: ValueError) -> str:
    """``expecting ',' delimiter at column 12``: json's message without Python's class name."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg[:1].lower()}{exc.msg[1:]} at column {exc.colno}"
    return str(exc)


def _one_prompt(prompt: str, root: Path, files: list[str]) -> list[Message]:
    content: list[Any] = [TextBlock(text=prompt)]
    for name in files:
        data = read_under_root(root, name)
        content.append(media_block(data, filename=PurePosixPath(name).name))
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
    missing = [key for key in REQUIRED_FIELDS.get(provider, ()) if key not in fields]
    if missing:
        flags = " and ".join("--" + key.replace("_", "-") for key in missing)
        print(f"mediablocks batch: error: {provider} batch files need {flags}", file=sys.stderr)
        return 2
    requests = _from_prompts(args) if args.prompts else _from_files(args)
    written = failed = 0
    seen: set[str] = set()
    if args.prompts and not Path(args.prompts).is_file():
        problem = "is a folder" if Path(args.prompts).is_dir() else "no such file"
        shown = printable(args.prompts)
        print(f"mediablocks batch: error: --prompts {shown}: {problem}", file=sys.stderr)
        return 2
    try:
        out = open(args.out, "wb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        shown = printable(args.out)
        print(f"mediablocks batch: error: --out {shown}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    with out:
        for label, rid, build in requests:
            try:
                if isinstance(build, Exception):
                    raise build
                if rid in seen:
                    raise ItemError(f"id {rid!r} is not unique")
                messages = build()
                if args.prepare:
                    messages = prepare(
                        messages, provider, model=args.model, **conversion_options(args)
                    )
                line = batch_line(
                    messages, provider, rid, fields=fields, bedrock_format=args.bedrock_format
                )
            except Exception as exc:
                if args.debug:
                    raise
                failed += 1
                hint = "--prepare converts it" if not args.prepare else None
                print(f"{printable(label)}: error: {for_shell(exc, hint)}", file=sys.stderr)
                continue
            seen.add(rid)
            out.write(line + b"\n")
            written += 1
    left = f", {failed} left out" if failed else ""
    print(f"wrote {written} requests to {printable(args.out)}{left}", file=sys.stderr)
    return 1 if failed else 0
