"""The command line's parsers, built without loading the library: ``mediablocks --help`` is fast.

Only `argparse`, the conversion flags and light constants are imported here: the pydantic models,
the providers and the converters load when a command runs (`mediablocks.cli.main` imports the
command's module, named as the subcommand, then calls its ``run(args)``).
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from .._version import __version__
from ..changes import DEFAULT_MAX_IMAGE_PIXELS
from ._conversion import add_conversion_flags

__all__ = ["BATCH_PROVIDERS", "COMMANDS", "build_parser"]

COMMANDS = ("inspect", "encode", "prepare", "batch")
"""The subcommands, in the order ``--help`` lists them; each is the module
``mediablocks.cli.<name>`` holding its ``run(args)``."""

BATCH_PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "anthropic-bedrock",
)
"""`mediablocks.batch.BATCH_PROVIDERS`, for ``batch --help`` without importing it (a test keeps
the two equal)."""

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


def build_parser() -> argparse.ArgumentParser:
    """The ``mediablocks`` parser with every subcommand; ``args.command`` names the one given."""
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
    for add in (_add_inspect, _add_encode, _add_prepare, _add_batch):  # the order of COMMANDS
        add(commands, common)
    return parser


def _add_inspect(commands: Any, common: argparse.ArgumentParser) -> None:
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
    add_conversion_flags(parser)


def _add_encode(commands: Any, common: argparse.ArgumentParser) -> None:
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
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="fit each file to the provider first, as mb.prepare does (resize, convert, split)",
    )
    parser.add_argument(
        "--model",
        help="with --prepare: the model, where limits depend on it (default: the provider's "
        "most restrictive current model)",
    )
    add_conversion_flags(parser)  # used with --prepare


def _add_prepare(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``prepare`` on the subcommand parsers."""
    parser = commands.add_parser(
        "prepare",
        parents=[common],
        help="write files fitted to a provider's limits, and a report",
        description="Fit files to a provider: convert, orient, strip metadata, downscale.",
    )
    parser.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    parser.add_argument("--provider", required=True, help="e.g. openai, anthropic, gemini")
    parser.add_argument("--out", required=True, help="folder for the fitted files")
    parser.add_argument("--model", help="the model, where limits depend on it")
    parser.add_argument(
        "--optimal",
        action="store_true",
        help="target the provider's optimal image size (the default; kept for old scripts)",
    )
    parser.add_argument(
        "--full-size",
        action="store_true",
        help="keep images as large as the provider's limits allow, not its optimal size",
    )
    parser.add_argument(
        "--skip-unsupported",
        action="store_true",
        help="skip files the provider cannot take (counted in the summary), instead of failing",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace files already in --out")
    add_conversion_flags(parser)


def _positive(text: str) -> int:
    """``--max-tokens 300``: a whole number above zero."""
    if not text.strip().isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return int(text)


def _add_batch(commands: Any, common: argparse.ArgumentParser) -> None:
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
    parser.add_argument(
        "--files-root",
        metavar="DIR",
        help='with --prompts: the folder "files" are read from; names that leave it (absolute, '
        "'..', links pointing out) are refused (default: the prompts file's folder)",
    )
    parser.add_argument("--provider", required=True, help=", ".join(BATCH_PROVIDERS))
    parser.add_argument("--out", required=True, help="the batch file to write")
    parser.add_argument("--prompt", help="text before each file (with files/folders)")
    parser.add_argument(
        "--model",
        help="model name put in every request (OpenAI, Anthropic); --prepare fits media to it",
    )
    parser.add_argument(
        "--max-tokens", type=_positive, metavar="N", help="max_tokens put in every request"
    )
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
