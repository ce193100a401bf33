"""The ``mediablocks`` command: look at media the way the library sees them, and make them fit.

- ``mediablocks inspect PATH|URL...``: each file's type from its bytes, its block class, size,
  facts from its headers (dimensions, duration, pages), token estimates per provider, which
  providers take it as it is and what `prepare` would change for the others.
- ``mediablocks encode PATH... --provider P``: the provider-ready user message as JSON.
- ``mediablocks prepare PATH|DIR... --provider P --out DIR``: fitted files and a report.

One module per subcommand, each with ``add_parser(commands, common)`` and ``run(args)``; a new
subcommand is a new module added to ``_COMMANDS``. Folders are walked in sorted order. A file that
fails gives one line with its name and the reason, the run goes on, and the exit status says
whether anything failed (1) or the command line was wrong (2). Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._version import __version__
from ..errors import MediaBlocksError
from ..policy import current_policy, use_policy
from . import encode, inspect, prepare

__all__ = ["main"]

_COMMANDS = (inspect, encode, prepare)
"""The subcommands, in the order ``--help`` lists them."""


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
    for command in _COMMANDS:
        command.add_parser(commands, common)
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
