"""Which text type plausible text is: HTML, SVG, XML, JSON, CSV/TSV, Markdown or plain text.

Whether bytes are text at all, and in which encoding, is `encodings.decode_text`'s call."""

from __future__ import annotations

import json
import re

from .encodings import decode_text

# -- text ------------------------------------------------------------------------------------------

_CSV_DELIMITERS = ((",", "text/csv"), (";", "text/csv"), ("\t", "text/tab-separated-values"))
_HTML_ROOTS = frozenset(
    {
        "html", "head", "body", "title", "meta", "link", "script", "style", "div", "p", "table",
        "h1", "h2", "h3", "h4", "h5", "h6", "br", "a", "iframe", "font", "b", "i", "span", "ul",
        "ol", "form", "img", "section", "article", "header", "nav", "main", "footer", "center",
    }
)  # fmt: skip
_ELEMENT_NAME = re.compile(r"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)")
_DOCTYPE_NAME = re.compile(r"<!DOCTYPE\s+(?:[\w.-]+:)?([\w.-]+)", re.IGNORECASE)
# Markdown constructs: (a substring every match contains, the pattern, whether it is distinctive).
# The substring is a cheap test that skips the regex on text that cannot match. Headings alone and
# list items alone are not distinctive: YAML and shell comments look like them.
_MARKDOWN_FEATURES = (
    ("#", re.compile(r"^#{1,6}[ \t]+\S", re.M), False),  # ATX heading
    ("#", re.compile(r"^#{1,6}[ \t]+\S.*\n[ \t]*\n", re.M), True),  # ATX heading, blank line
    ("\n", re.compile(r"^\S.*\n(?:=+|-+)[ \t]*$", re.M), True),  # Setext heading
    ("", re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+\S", re.M), False),  # list item
    ("](", re.compile(r"\[[^\]\n]+\]\([^)\s]+(?:\s+\"[^\"\n]*\")?\)"), True),  # link, image
    ("``", re.compile(r"^(?:```|~~~)", re.M), True),  # fenced code
    ("> ", re.compile(r"^>[ \t]", re.M), False),  # block quote
    ("**", re.compile(r"\*\*[^*\n]+\*\*"), True),  # strong emphasis
    ("`", re.compile(r"`[^`\n]+`"), True),  # inline code
    ("--", re.compile(r"^\|?[ \t]*:?-{3,}:?[ \t]*\|", re.M), True),  # table rule
)


def _text(head: bytes, window: memoryview, truncated: bool) -> str | None:
    if len(head) < 4:
        return _tiny_text(head) if not truncated else None
    text = decode_text(head, truncated)
    if text is None or not text.strip():
        return None
    return _classify_text(text, truncated)


# Signatures spelled in ASCII letters: a few bytes of one are a cut header, not a word.
_ASCII_MAGIC = (b"GIF8", b"RIFF", b"FORM", b"OggS", b"fLaC", b"ID3", b"BM", b"MM", b"II", b"PK")


def _tiny_text(head: bytes) -> str | None:
    """Two or three bytes are text when they are ASCII letters (``ok``, ``Hi!``, ``no``): two
    letters at least, the rest punctuation or a line end, and not the start of a signature."""
    if sum(byte < 0x80 and chr(byte).isalpha() for byte in head) < 2:
        return None
    if head.translate(None, _TINY_TEXT_BYTES) or any(m.startswith(head) for m in _ASCII_MAGIC):
        return None
    return "text/plain"


_TINY_TEXT_BYTES = b"\t\n\r" + bytes(range(0x20, 0x7F))


def _classify_text(text: str, truncated: bool) -> str:
    start = text.lstrip()
    first = start[:1]
    if first == "<":
        return _markup(start) or "text/plain"
    if first in ("{", "[") and _is_json(start, truncated):
        return "application/json"
    table = _csv_type(text, truncated)
    if table is not None:
        return table
    if _is_markdown(text):
        return "text/markdown"
    return "text/plain"


def _markup(text: str) -> str | None:
    """SVG, HTML or XML by the root element, after the prolog (declaration, comments, doctype)."""
    pos = 0
    declared_xml = text.startswith("<?xml")
    while True:
        if text.startswith("<?", pos):
            end = text.find("?>", pos)
            if end < 0:
                return "application/xml" if declared_xml else None
            pos = end + 2
        elif text.startswith("<!--", pos):
            end = text.find("-->", pos + 4)
            if end < 0:
                return "application/xml" if declared_xml else None
            pos = end + 3
        elif text[pos : pos + 9].upper() == "<!DOCTYPE":
            doctype = _DOCTYPE_NAME.match(text, pos)
            name = doctype.group(1).lower() if doctype else ""
            if name == "html":
                return "text/html"
            if name == "svg":
                return "image/svg+xml"
            bracket, close = text.find("[", pos), text.find(">", pos)
            if 0 <= bracket < close:
                close = text.find("]>", bracket)
                close = close + 1 if close >= 0 else -1
            if close < 0:
                return "application/xml" if declared_xml else None
            pos = close + 1
        else:
            break
        while pos < len(text) and text[pos].isspace():
            pos += 1
    element = _ELEMENT_NAME.match(text, pos)
    if element is None:
        return "application/xml" if declared_xml else None
    name = element.group(2)
    if name == "svg":
        return "image/svg+xml"
    if name.lower() in _HTML_ROOTS and not declared_xml:
        return "text/html"
    if name == "html":
        return "text/html"
    if declared_xml:
        return "application/xml"
    first_tag = text[pos : text.find(">", pos) + 1]
    if "xmlns" in first_tag or f"</{element.group(1) or ''}{name}>" in text:
        return "application/xml"
    return None


def _is_json(text: str, truncated: bool) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        if not truncated:
            return False
        # A cut-off document is a valid prefix when parsing fails only at the cut.
        return error.msg.startswith("Unterminated string") or error.pos >= len(text.rstrip()) - 8
    except RecursionError:
        return False
    return True


def _csv_type(text: str, truncated: bool) -> str | None:
    """text/csv (comma or semicolon) or TSV when several lines split into the same number of
    fields (two or more lines with at least two delimiters, or three or more with one)."""
    delimiters = [(d, mime) for d, mime in _CSV_DELIMITERS if d in text]
    if not delimiters:
        return None
    lines = text.splitlines()
    if truncated and len(lines) > 1:
        lines.pop()  # the last line may be cut short
    lines = [line for line in lines[:50] if line.strip()]
    if len(lines) < 2:
        return None
    for delimiter, mime in delimiters:
        if any(line.startswith(delimiter) for line in lines):
            continue  # indentation, not an empty first field on every line
        counts = {_count_outside_quotes(line, delimiter) for line in lines}
        if len(counts) == 1:
            count = counts.pop()
            if count >= 2 or (count == 1 and len(lines) >= 3):
                return mime
    return None


def _count_outside_quotes(line: str, delimiter: str) -> int:
    if '"' not in line:
        return line.count(delimiter)
    count, quoted = 0, False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif char == delimiter and not quoted:
            count += 1
    return count


def _is_markdown(text: str) -> bool:
    """Markdown when it is evident: three or more constructs of two or more kinds, at least one
    of them distinctive (a link, code, a table, emphasis, a heading set off by a blank line)."""
    if text.startswith("#!"):
        return False  # a script, whose comments look like headings
    found = kinds = 0
    distinctive = False
    for marker, pattern, strong in _MARKDOWN_FEATURES:
        hits = len(pattern.findall(text)) if marker in text else 0
        if hits:
            kinds += 1
            found += hits
            distinctive = distinctive or strong
    return distinctive and kinds >= 2 and found >= 3
