"""Text from input made safe to print: file names, types and reasons never drive the terminal.

A file name may hold a newline (a forged second line of output), an escape sequence (``ESC [``
that recolours, moves the cursor or retitles the window; the one-character ``CSI`` U+009B), a
bidirectional override that shows ``gpj.exe`` as ``exe.jpg``, or bytes that are not UTF-8. Every
name, type and reason the command line prints goes through `printable`: each character that is
not printable is written as an escape (``\\n``, ``\\x1b``, ``\\u202e``; an undecodable byte as
``\\xNN``), so the output shows the name and cannot act on the terminal. JSON output keeps names
exact: `printable_json` writes those characters as JSON ``\\u`` escapes, which a JSON reader turns
back into the very name.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["printable", "printable_json"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): that byte
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every character that is not printable escaped (spaces stay)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def printable_json(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)`` with every character that is not
    printable (outside the indentation's newlines and spaces) written as a ``\\u`` escape: the
    same JSON value, safe on a terminal."""
    text = json.dumps(value, ensure_ascii=False, **options)
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() or char in "\n " else _json_escape(char) for char in text
    )
