"""The ``mediablocks`` command: look at media the way the library sees them, and make them fit.

- ``mediablocks inspect PATH|URL...``: each file's type from its bytes, its block class, size,
  facts from its headers (dimensions, duration, pages), token estimates per provider, which
  providers take it as it is and what `prepare` would change for the others.
- ``mediablocks encode PATH... --provider P``: the provider-ready user message as JSON.
- ``mediablocks prepare PATH|DIR... --provider P --out DIR``: fitted files and a report; a file
  that becomes several blocks (video frames, PDF pages, audio parts, a document's text) is
  written as numbered files and a ``.txt``.

``inspect`` and ``prepare`` take `prepare`'s conversion strategies and budgets as flags
(``--audio``, ``--video``, ``--documents``, ``--max-frames``...; ``_conversion.py``).
- ``mediablocks batch PATH|DIR... --provider P --out FILE`` (or ``--prompts FILE.jsonl``): a
  provider's batch input file, one request per file or prompt line.

One module per subcommand, each with ``add_parser(commands, common)`` and ``run(args)``; a new
subcommand is a new module added to ``_COMMANDS``. Folders are walked in sorted order. A file that
fails gives one line with its name and the reason, the run goes on, and the exit status says
whether anything failed (1), the command line was wrong (2) or the run was interrupted (130).
Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from collections.abc import Sequence

from .._version import __version__
from ..errors import MediaBlocksError
from ..fetching.policy import current_policy, use_policy
from ..images import DEFAULT_MAX_IMAGE_PIXELS
from . import batch, encode, inspect, prepare
from ._printable import printable

__all__ = ["main"]

_COMMANDS = (inspect, encode, prepare, batch)
"""The subcommands, in the order ``--help`` lists them."""


_UNITS = {"": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "ki": 1024, "mi": 1024**2, "gi": 1024**3}


def _byte_count(text: str) -> int:
    """``--max-bytes 20MB``: a positive byte count with an optional k/M/G (or KiB/MiB/GiB) unit."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]i?)?b?\s*", text.lower())
    if match is None or float(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r} (say 5000000, 20MB, 64MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2) or ""])


def _pixel_count(text: str) -> int:
    """``--max-pixels 200000000``: a positive whole number of pixels."""
    if not text.strip().isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"not a pixel count: {text!r}")
    return int(text)


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
    common.add_argument(
        "--max-bytes",
        type=_byte_count,
        metavar="N",
        help="largest file or download read, e.g. 50MB (default: the fetch policy's, 50 MiB)",
    )
    common.add_argument(
        "--max-pixels",
        type=_pixel_count,
        metavar="N",
        default=DEFAULT_MAX_IMAGE_PIXELS,
        help=f"largest image decoded, in pixels (default {DEFAULT_MAX_IMAGE_PIXELS:,}; "
        "more is treated as a decompression bomb)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for command in _COMMANDS:
        command.add_parser(commands, common)
    return parser


def _names_printable() -> None:
    """File names that are not valid UTF-8 reach Python as lone surrogates; print them back as
    the bytes they were (as ``ls`` does) instead of failing when the locale's stream is strict
    (``PYTHONIOENCODING=utf-8``)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="surrogateescape")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 something failed, 2 usage,
    130 interrupted)."""
    _names_printable()
    parser = _parser()
    args = parser.parse_args(argv)
    policy = current_policy()
    if args.allow_private:
        policy = policy.replace(allow_private=True)
    if args.max_bytes:
        policy = policy.replace(max_bytes=args.max_bytes)
    try:
        with use_policy(policy):
            status: int = args.run(args)
    except MediaBlocksError as exc:  # a wrong provider name and the like
        if args.debug:
            raise
        parser.error(printable(str(exc)))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
