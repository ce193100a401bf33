"""Library error messages reworded for a shell: flags instead of Python, files instead of blocks.

The library speaks to programmers (``FetchPolicy(allow_private=True) would allow it``, ``message 0,
block 1``); at a shell the same facts are a flag to pass and the file named on the line. Each rule
below rewrites one phrase; what no rule matches is shown as the library wrote it.
"""

from __future__ import annotations

import re

from ..errors import DoesNotFitError, MediaBlocksError
from ._printable import printable

__all__ = ["ItemError", "for_shell", "short_reason"]


class ItemError(Exception):
    """A file named on the command line cannot be used; the message is already in shell words."""


_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"FetchPolicy\(allow_private=True\) would allow it"), "pass --allow-private"),
    (
        re.compile(r"FetchPolicy\(allow_metadata=True\) would allow it"),
        "the command line never fetches cloud metadata addresses",
    ),
    (
        re.compile(r"FetchPolicy\.max_bytes=(\d+)(?: bytes)?"),
        r"\1 bytes (raise the limit with --max-bytes)",
    ),
    (re.compile(r"FetchPolicy\.timeout=([\d.]+)s"), r"\1 s"),
    (re.compile(r"a larger max_image_pixels"), "a larger --max-pixels"),
    (
        re.compile(r"mb\.prepare\(messages, '([\w-]+)'\) converts it"),
        r"`mediablocks prepare --provider \1` converts it",
    ),
    (re.compile(r" ?\(message \d+, block \d+\)"), ""),
    (re.compile(r"message \d+, block \d+: "), ""),
    (re.compile(r"\b[A-Z]\w*Block\(path '([^']*)', ([^)]*)\)"), r"\1 (\2)"),
    (re.compile(r"\b[A-Z]\w*Block\(path '([^']*)'\)"), r"\1"),
    (re.compile(r"path '([^']*)': "), ""),
    (re.compile(r"\b[A-Z]\w*Block\(\d+ bytes in memory(?:, [^)]*)?\): "), ""),
    (re.compile(r"\bTextBlock\(('[^']*'|\"[^\"]*\")\)"), r"the text \1"),
    (re.compile(r"\bToolCallBlock\b"), "tool call"),
    (re.compile(r"\bToolResultBlock\b"), "tool result"),
    (re.compile(r"\b(Text|Image|Audio|Video|Document|File|Thinking)Block\b"), r"\1 block"),
)

_PREPARE_HINT = re.compile(r"`mediablocks prepare --provider [\w-]+` converts it")


def for_shell(exc: BaseException, prepare_hint: str | None = None) -> str:
    """One line saying what went wrong, in the words of the command line. ``prepare_hint``
    replaces the advice to run ``mediablocks prepare`` where another flag does it (``batch
    --prepare``). Characters from input that are not printable (a newline or an escape
    sequence in a file name) come out escaped."""
    if isinstance(exc, ItemError):
        return printable(str(exc))
    if isinstance(exc, DoesNotFitError) and exc.problems:
        text = "; ".join(exc.problems)
    elif isinstance(exc, OSError) and exc.strerror and not isinstance(exc, MediaBlocksError):
        text = exc.strerror  # the file is named at the start of the line; no errno, no repr
    elif isinstance(exc, (MediaBlocksError, OSError)):
        text = str(exc)
    else:  # a third-party decoder's own exception: its name says more than a bare message
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    text = text.replace("cannot read: No such file or directory", "no such file or directory")
    text = re.sub(r"\b(Text|Image|Audio|Video|Document|File|Thinking) block\b", _lower, text)
    if prepare_hint is not None:
        text = _PREPARE_HINT.sub(prepare_hint, text)
    return " ".join(printable(text).split())


def _lower(found: re.Match[str]) -> str:
    return found.group(0).lower()


_SHORT: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"takes no (\w+) input"), r"no \1 input"),
    (re.compile(r"does not take [\w.+/-]+, and mediablocks cannot convert"), "type not taken"),
    (re.compile(r"decompression-bomb limit"), "too many pixels (--max-pixels)"),
    (re.compile(r"raise the limit with --max-bytes"), "too large (--max-bytes)"),
    (re.compile(r"^MIDI holds notes"), "MIDI: notes, not sound"),
)


def short_reason(reason: str, width: int = 32) -> str:
    """``no audio input``, ``type not taken``, ``the PNG is truncated...``: why a file cannot be
    sent, in a few words for a table cell (the full reason is in ``--details`` and ``--json``)."""
    text = reason.split("): ", 1)[-1]
    for pattern, short in _SHORT:
        found = pattern.search(text)
        if found:
            return found.expand(short)
    text = re.split(r"[:;(]| - ", text, maxsplit=1)[0].strip()
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"
