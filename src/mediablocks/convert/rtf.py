"""RTF as plain text in one pass, linear in the input.

The reader walks the RTF tokens once (control words, ``\\'hh`` escapes, ``\\uN`` characters,
groups, text) with a tokenizer whose every alternative is bounded, keeping a stack of group
states: destinations (font and colour tables, pictures, field instructions, ``\\*`` groups...)
are skipped, ``\\binN`` data is jumped over, and the text goes into the `TextSink`, which stops
the walk when ``max_chars`` are read. striprtf's own ``rtf_to_text`` runs whole-document regular
expressions that backtrack (a 90 KB file took over a minute); only its tables of RTF control
words (destinations, special characters, font charsets) are used here.
"""

from __future__ import annotations

import codecs
import re
from types import ModuleType

from ._extract import TextSink

__all__ = ["rtf_text"]

_TOKEN = re.compile(
    r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([\r\n]+)|([^\\{}\r\n]+)",
    re.DOTALL,
)
_FLUSH = 4096


class _Reader:
    """The state of one RTF walk: group stack, fonts, pending ``\\'hh`` bytes, output."""

    def __init__(self, sink: TextSink, tables: ModuleType) -> None:
        self.sink = sink
        self.destinations: frozenset[str] = tables.destinations
        self.special: dict[str, str] = tables.specialchars
        self.charsets: dict[int, str] = tables.charset_map
        self.encoding = "cp1252"
        self.fonts: dict[str, str] = {}  # font number -> codec, from the font table
        self.font: str | None = None
        self.table_font: str | None = None  # the font being defined in the font table
        self.stack: list[tuple[int, bool, str | None]] = []
        self.ucskip = 1
        self.skip = 0  # fallback characters still to skip after a \u
        self.ignorable = False
        self.pending = bytearray()
        self.out: list[str] = []
        self.size = 0

    def emit(self, text: str) -> None:
        if self.ignorable or not text:
            return
        self.out.append(text)
        self.size += len(text)
        if self.size >= _FLUSH:
            self.flush()

    def flush(self) -> None:
        self.decode_pending()
        text = "".join(self.out)
        self.out, self.size = [], 0
        self.sink.write(text)

    def decode_pending(self) -> None:
        if self.pending:
            codec = self.fonts.get(self.font or "", self.encoding)
            self.out.append(bytes(self.pending).decode(codec, "replace"))
            self.pending.clear()

    def word(self, word: str, arg: str | None) -> None:
        if word in self.destinations:
            self.ignorable = True
        if word == "f" and arg is not None:
            self.table_font = arg
            if not self.ignorable:
                self.font = arg
        elif word == "fcharset" and arg is not None and self.table_font is not None:
            self.fonts[self.table_font] = self.charsets.get(int(arg), self.encoding)
        elif word == "ansicpg" and arg is not None:
            self.encoding = _codec(f"cp{arg.lstrip('-')}")
        elif self.ignorable:
            return
        elif word in self.special:
            self.emit(self.special[word])
        elif word == "uc" and arg is not None:
            self.ucskip = max(0, min(int(arg), 10))
        elif word == "u" and arg is not None:
            code = int(arg)
            self.emit(chr((code + 0x10000 if code < 0 else code) % 0x110000))
            self.skip = self.ucskip

    def group(self, brace: str) -> bool:
        """Enter or leave a group; False once the outer group is closed (the document ends)."""
        self.skip = 0
        if brace == "{":
            self.stack.append((self.ucskip, self.ignorable, self.font))
            return True
        if not self.stack:
            return False
        self.ucskip, self.ignorable, self.font = self.stack.pop()
        return bool(self.stack)


def _codec(name: str) -> str:
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


def rtf_text(text: str, sink: TextSink, tables: ModuleType) -> None:
    """Write the text of RTF ``text`` (bytes decoded as latin-1) into ``sink``."""
    reader = _Reader(sink, tables)
    pos, size = 0, len(text)
    while pos < size:
        token = _TOKEN.match(text, pos)
        if token is None:  # a lone backslash at the very end
            break
        pos = token.end()
        word, arg, hexbyte, symbol, brace, _newline, plain = token.groups()
        if hexbyte is None and reader.pending:
            reader.decode_pending()
        if word is not None:
            if word == "bin" and arg is not None:  # raw bytes follow: jump over them
                pos += max(0, int(arg))
                continue
            reader.word(word, arg)
        elif hexbyte is not None:
            if reader.skip:
                reader.skip -= 1
            elif not reader.ignorable:
                reader.pending.append(int(hexbyte, 16))
        elif symbol is not None:
            reader.skip = 0
            if symbol == "*":
                reader.ignorable = True
            elif symbol in reader.special:
                reader.emit(reader.special[symbol])
        elif brace is not None:
            if not reader.group(brace):
                break
        elif plain is not None:
            if reader.skip:
                dropped = min(reader.skip, len(plain))
                reader.skip -= dropped
                plain = plain[dropped:]
            reader.emit(plain)
    reader.flush()
