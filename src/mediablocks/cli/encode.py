"""``mediablocks encode``: the provider-ready user message holding the files, as JSON."""

from __future__ import annotations

import argparse
import base64
import sys
from typing import Any

from ..blocks import TextBlock
from ..errors import MediaBlocksError
from ..messages import UserMessage
from ..providers import canonical_provider, encode
from ._items import Item, expand, load
from ._output import run_each
from ._printable import printable_json
from ._wording import for_shell

__all__ = ["add_parser", "run"]


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


def _checked(item: Item, provider: str, target: str) -> dict[str, Any]:
    """The item's block, encoded alone once so an error names this file, not a block index."""
    block = load(item)
    encode([UserMessage(content=[block])], provider, target="json" if target == "json" else "sdk")
    return {"block": block}


def run(args: argparse.Namespace) -> int:
    """Print the encoded message; exit 1 when any file cannot be read or carried."""
    provider = canonical_provider(args.provider)
    blocks: list[Any] = [TextBlock(text=args.text)] if args.text else []
    items = list(expand(args.paths))
    results, failed = run_each(
        items, lambda item: _checked(item, provider, args.target), None, args.debug
    )
    if failed:
        return 1
    blocks.extend(result["block"] for result in results)
    try:
        fields = encode([UserMessage(content=blocks)], provider, target=args.target)
    except MediaBlocksError as exc:  # a limit of the whole message, not of one file
        if args.debug:
            raise
        print(f"error: {for_shell(exc)}", file=sys.stderr)
        return 1
    out = _content_of(fields) if args.blocks else fields
    sys.stdout.write(printable_json(out, indent=2, default=_json_default))
    sys.stdout.write("\n")
    return 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``encode`` on the subcommand parsers."""
    parser = commands.add_parser(
        "encode",
        parents=[common],
        help="print the provider-ready user message holding these files, as JSON",
        description="Encode files into one user message for a provider.",
    )
    parser.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    parser.add_argument("--provider", required=True, help="e.g. openai, anthropic, gemini")
    parser.add_argument(
        "--target",
        choices=("sdk", "json"),
        default="json",
        help="json: the HTTP API's JSON (default); sdk: the SDK's fields, bytes as base64",
    )
    parser.add_argument("--text", help="a text block before the media")
    parser.add_argument(
        "--blocks", action="store_true", help="print only the message's content blocks"
    )
    parser.set_defaults(run=run)
