"""Text from HTML and EPUB: headings, paragraphs, list items and table rows kept as light markdown.

HTML is read by a small tolerant tokenizer here, linear in its input: tags, comments, text, and
the raw content of ``script``/``style`` found with regular expressions that cannot backtrack past
the next ``<`` and with `str.find`, so no input makes it rescan what it has read (the standard
library's `html.parser` is quadratic on some 15 KB inputs: unclosed tags and comments before
Python 3.13.4). Entities are HTML's own named and numeric characters (`html.unescape`): no
network, no DTD. An EPUB is a ZIP: ``META-INF/container.xml`` names the package file, whose spine
orders the XHTML chapters; each chapter is read through the same HTML reader under the ZIP bomb
guard of `_extract.ZipReader`.
"""

from __future__ import annotations

import codecs
import contextlib
import posixpath
import re
from collections.abc import Iterable, Iterator
from html import unescape
from urllib.parse import unquote

from ..errors import DecodeError
from ._extract import ExtractedText, TextFull, TextSink, ZipReader, parse_xml

__all__ = ["epub_text", "html_text"]

_BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "form",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "ul",
    ]
)
_SKIP = frozenset({"script", "style", "head", "template", "noscript", "svg", "math"})
_SPACES = re.compile(r"[ \t\r\n\f]+")


_TAG = re.compile(r"<(/?)([a-zA-Z][^\s/<>]*)[^<>]*>")
_RAW_END = {"script": re.compile(r"</script\s*>", re.I), "style": re.compile(r"</style\s*>", re.I)}


def _tokens(html: str) -> Iterator[tuple[str, str]]:
    """``("start" | "end" | "data", tag or text)`` in order, each character looked at O(1)
    times: a ``<`` that starts no tag is text, a comment or declaration runs to its ``>``."""
    pos, size = 0, len(html)
    while pos < size:
        lt = html.find("<", pos)
        if lt < 0:
            yield "data", unescape(html[pos:])
            return
        if lt > pos:
            yield "data", unescape(html[pos:lt])
        if html.startswith("<!--", lt):
            close = html.find("-->", lt + 4)
            pos = size if close < 0 else close + 3
            continue
        if html.startswith(("<!", "<?"), lt):
            close = html.find(">", lt)
            pos = size if close < 0 else close + 1
            continue
        tag = _TAG.match(html, lt)
        if tag is None:
            yield "data", "<"
            pos = lt + 1
            continue
        name = tag.group(2).lower()
        pos = tag.end()
        if tag.group(1):
            yield "end", name
            continue
        yield "start", name
        if name in _RAW_END:  # script and style: skipped to their end tag, never parsed
            end = _RAW_END[name].search(html, pos)
            pos = size if end is None else end.start()


class _HtmlText:
    """HTML to text lines: block elements end lines, h1-h6 become ``#``, li ``- ``, cells ``|``."""

    def __init__(self, sink: TextSink) -> None:
        self.sink = sink
        self.buf: list[str] = []
        self.prefix = ""
        self.skip = 0
        self.pre = 0

    def flush(self) -> None:
        text = "".join(self.buf)
        text = text.strip("\n") if self.pre else _SPACES.sub(" ", text).strip()
        if text:
            self.sink.line(self.prefix + text)
        self.buf, self.prefix = [], ""

    def feed(self, html: str) -> None:
        """Read a whole document (or chapter)."""
        for kind, value in _tokens(html):
            if kind == "data":
                self.handle_data(value)
            elif kind == "start":
                self.handle_starttag(value)
            else:
                self.handle_endtag(value)
        self.flush()

    def handle_starttag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip += 1
        elif self.skip:
            return
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.flush()
            self.sink.line()
            self.prefix = "#" * int(tag[1]) + " "
        elif tag == "li":
            self.flush()
            self.prefix = "- "
        elif tag in ("td", "th"):
            self.buf.append(" | ")
        elif tag == "br":
            self.buf.append("\n" if self.pre else " ")
            if not self.pre:
                self.flush()
        elif tag in _BLOCKS:
            self.flush()
            if tag == "pre":
                self.pre += 1
            if tag in ("p", "pre", "table", "blockquote"):
                self.sink.line()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif self.skip:
            return
        elif (len(tag) == 2 and tag[0] == "h" and tag[1] in "123456") or tag in _BLOCKS:
            self.flush()
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            if tag in ("p", "pre", "table", "blockquote") or tag[0] == "h":
                self.sink.line()

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.buf.append(data)


def _feed(chunks: Iterable[bytes], sink: TextSink, encoding: str = "utf-8") -> None:
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    text = "".join(decoder.decode(chunk) for chunk in chunks) + decoder.decode(b"", final=True)
    _HtmlText(sink).feed(text)


def html_text(html: str, max_chars: int) -> ExtractedText:
    """The readable text of an HTML page (script, style and head left out), cut at ``max_chars``."""
    sink = TextSink(max_chars)
    with contextlib.suppress(TextFull):
        _HtmlText(sink).feed(html)
    return ExtractedText(sink.text(), "HTML", sink.truncated)


class _Container:
    def __init__(self) -> None:
        self.rootfile: str | None = None

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "rootfile" and self.rootfile is None:
            self.rootfile = attrs.get("full-path")

    def end(self, name: str) -> None:
        pass

    def text(self, data: str) -> None:
        pass


class _Package:
    """The OPF package: manifest items and the spine's reading order."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[str, str]] = {}  # id -> (href, media type)
        self.spine: list[str] = []

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "item" and "id" in attrs and "href" in attrs:
            self.items[attrs["id"]] = (attrs["href"], attrs.get("media-type", ""))
        elif name == "itemref" and "idref" in attrs and attrs.get("linear", "yes") != "no":
            self.spine.append(attrs["idref"])

    def end(self, name: str) -> None:
        pass

    def text(self, data: str) -> None:
        pass


def epub_text(data: bytes, max_chars: int, what: str) -> ExtractedText:
    """The text of an EPUB's chapters in reading order, cut at ``max_chars``.

    Raises `DecodeError` for a broken archive, a missing package file or a ZIP bomb.
    """
    archive = ZipReader(data, what, "EPUB")
    container = _Container()
    parse_xml(archive.chunks("META-INF/container.xml"), container, what, "EPUB")
    if not container.rootfile:
        raise DecodeError(f"{what}: not a readable EPUB: container.xml names no package file")
    package = _Package()
    parse_xml(archive.chunks(container.rootfile), package, what, "EPUB")
    folder = posixpath.dirname(container.rootfile)
    sink = TextSink(max_chars)
    chapters = 0
    try:
        for idref in package.spine:
            href, media = package.items.get(idref, ("", ""))
            path = posixpath.normpath(posixpath.join(folder, unquote(href.split("#")[0])))
            if not href or "html" not in media or not archive.has(path):
                continue
            chapters += 1
            _feed(archive.chunks(path), sink)
            sink.line()
    except TextFull:
        pass
    return ExtractedText(sink.text(), "EPUB", sink.truncated, parts=chapters)
