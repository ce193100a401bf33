"""``mediablocks encode``: the provider-ready user message holding the files, as JSON.

With ``--prepare`` each file is first fitted to the provider (and ``--model``) as `mb.prepare`
fits it: images resized or converted, audio and video converted, documents made pages or text,
so what is printed is what the provider accepts; the conversion flags are `prepare`'s.
"""

from __future__ import annotations

import argparse
import base64
import sys
from typing import Any

from ..blocks import TextBlock
from ..encoding import encode
from ..errors import MediaBlocksError
from ..messages import Message, UserMessage
from ..preparing import prepare
from ..providers import canonical_provider
from ._conversion import conversion_options
from ._items import Item, expand, load
from ._output import run_each
from ._printable import printable_json
from ._wording import for_shell

__all__ = ["run"]


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


def _checked(item: Item, provider: str, args: argparse.Namespace) -> dict[str, Any]:
    """The item's blocks (prepared, with ``--prepare``), encoded alone once so an error names
    this file, not a block index."""
    message: Message = UserMessage(content=[load(item)])
    if args.prepare:
        [message] = prepare([message], provider, model=args.model, **conversion_options(args))
    encode([message], provider, target="json" if args.target == "json" else "sdk")
    return {"blocks": list(message.content)}


def run(args: argparse.Namespace) -> int:
    """Print the encoded message; exit 1 when any file cannot be read or carried."""
    provider = canonical_provider(args.provider)
    blocks: list[Any] = [TextBlock(text=args.text)] if args.text else []
    items = list(expand(args.paths))
    results, failed = run_each(items, lambda item: _checked(item, provider, args), None, args.debug)
    if failed:
        return 1
    for result in results:
        blocks.extend(result["blocks"])
    try:
        messages: list[Message] = [UserMessage(content=blocks)]
        if args.prepare:  # the request's totals (image count, bytes) across the files
            messages = prepare(messages, provider, model=args.model, **conversion_options(args))
        fields = encode(messages, provider, target=args.target)
    except MediaBlocksError as exc:  # a limit of the whole message, not of one file
        if args.debug:
            raise
        print(f"error: {for_shell(exc)}", file=sys.stderr)
        return 1
    out = _content_of(fields) if args.blocks else fields
    sys.stdout.write(printable_json(out, indent=2, default=_json_default))
    sys.stdout.write("\n")
    return 0
