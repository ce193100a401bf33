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

One module per subcommand, named as it and holding its ``run(args)``; the arguments are declared
in ``_parsers.py``, which imports nothing heavy, so ``--help`` and a wrong command line answer
without loading the library (the command's module is imported once the line is parsed). Folders
are walked in sorted order. A file that fails gives one line with its name and the reason, the
run goes on, and the exit status says whether anything failed (1), the command line was wrong
(2) or the run was interrupted (130).
Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import sys
from collections.abc import Sequence

from ..errors import MediaBlocksError
from ..fetching.policy import current_policy, use_policy
from ._parsers import build_parser
from ._printable import printable

__all__ = ["main"]


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
    parser = build_parser()
    args = parser.parse_args(argv)
    command = importlib.import_module(f"{__name__}.{args.command}")  # the library loads here
    policy = current_policy()
    if args.allow_private:
        policy = policy.replace(allow_private=True)
    if args.max_bytes:
        policy = policy.replace(max_bytes=args.max_bytes)
    try:
        with use_policy(policy):
            status: int = command.run(args)
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
