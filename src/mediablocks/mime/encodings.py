"""Is this text, and in which encoding? UTF-8, UTF-16 and UTF-32 (with or without a BOM), and the
Western single-byte encodings (Windows-1252, Latin-1) people still save files in.

Each encoding gets a test that binary data practically never passes: UTF-8 and UTF-16/32 must
decode strictly to characters that text holds (no stray control, private-use, unassigned or
surrogate code points); UTF-16 and UTF-32 without a BOM must also show the shape of text (the zero
bytes of Latin-script characters, or one script's block); a single-byte text must be mostly ASCII
letters, and every non-ASCII byte a letter inside a word or common punctuation. Anything with a
control byte other than tab, LF, FF and CR (a NUL, an escape...) is not single-byte text.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

# The bytes text may hold: tab, LF, FF, CR, printable ASCII and every byte of a UTF-8 sequence.
_TEXT_BYTES = b"\t\n\x0c\r" + bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))
# Control characters text may not hold: C0 but tab, LF, FF and CR; DEL; C1.
_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")

# Characters outside the blocks text in some script is written with (BMP): tab to CR, ASCII,
# Latin-1 and Latin extended, combining accents, Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic
# scripts, Thai, Latin and Greek extended, general punctuation, currency and letter-like symbols,
# CJK punctuation and kana, CJK ideographs, Hangul, full-width forms. One in a BOM-less UTF-16/32
# decoding (private use, rare symbols, surrogates) says the bytes were not text.
_NOT_TEXT_CHARACTER = re.compile(
    "[^\t-\r -~\u00a0-\u024f\u0300-\u06ff\u0900-\u0dff\u0e00-\u0e7f\u1e00-\u1fff"
    "\u2000-\u206f\u20a0-\u20cf\u2100-\u214f\u3000-\u30ff\u4e00-\u9fff\uac00-\ud7a3"
    "\uff00-\uffef]"
)
# High bytes of UTF-16 units of CJK text: ASCII (00), CJK punctuation and kana (30), ideographs
# (4E-9F), Hangul (AC-D7), full-width forms (FF).
_CJK_HIGH_BYTES = bytes([0x00, 0x30, *range(0x4E, 0xA0), *range(0xAC, 0xD8), 0xFF])

# Non-ASCII characters of Windows-1252 / Latin-1 that turn up in ordinary Western text.
# Euro, low and curly quotes, ellipsis, bullet, dashes, trade mark; NBSP, inverted marks, cent,
# pound, yen, section, copyright, guillemets, not, registered, degree, plus-minus, superscripts,
# acute, micro, middle dot, fractions, multiplication and division signs.
_LEGACY_PUNCTUATION = frozenset(
    b"\x80\x82\x84\x85\x91\x92\x93\x94\x95\x96\x97\x99\xa0\xa1\xa2\xa3\xa5\xa7\xa9\xab\xac"
    b"\xae\xb0\xb1\xb2\xb3\xb4\xb5\xb7\xb9\xbb\xbc\xbd\xbe\xbf\xd7\xf7".decode("cp1252")
)
_MIN_WIDE = 16
"""Bytes UTF-16/32 without a BOM needs before we call it text: 8 UTF-16 characters. Fewer random
bytes pass the checks too often."""
_MIN_SINGLE_BYTE = 12
"""Bytes a Windows-1252 / Latin-1 text needs: a few words. Fewer random bytes pass too often."""
# UTF-8 signatures that a single-byte reading must not take for text.
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def decode_text(head: bytes, truncated: bool) -> str | None:
    """The head as text when it is plausibly text in a common encoding; None otherwise.

    ``truncated`` says the data goes on past ``head``: a character cut by the end is forgiven then.
    """
    found = detect_text(head, truncated)
    return None if found is None else found[0]


def text_encoding(data: bytes, truncated: bool = False) -> str | None:
    """The encoding ``data`` is text in (``"utf-8"``, ``"utf-8-sig"``, ``"utf-16-le"``,
    ``"utf-16-be"``, ``"utf-32-le"``, ``"utf-32-be"`` with or without a byte-order mark, or
    ``"cp1252"``), or None when it is not text. ASCII is ``"utf-8"``."""
    found = detect_text(data, truncated)
    return None if found is None else found[1]


def declared_text(data: bytes, truncated: bool = False) -> tuple[str, str] | None:
    """``(text, encoding)`` for bytes already declared to be text: `detect_text`, else
    Windows-1252 for a short or unusual text that holds no control byte (``caf\xe9``); None for
    bytes that are text in no encoding. ``truncated``: as for `detect_text`."""
    found = detect_text(data, truncated)
    if found is not None:
        return found
    if data.translate(None, _TEXT_BYTES):
        return None
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return None
    return None if _TEXT_CONTROL.search(text) else (text, "cp1252")


def is_text_type(mime: str) -> bool:
    """A MIME type whose bytes are text (``text/*``, JSON, XML, YAML...), SVG and RTF aside."""
    if mime in ("image/svg+xml", "text/rtf"):
        return False
    return mime.startswith("text/") or mime.endswith(
        ("/json", "+json", "/xml", "+xml", "/yaml", "/x-yaml", "/toml", "/x-ndjson")
    )


def utf8_text(data: bytes) -> str | None:
    """``data`` as a string when it is UTF-8 text (a byte-order mark dropped); None when it is
    text in another encoding (UTF-16 or UTF-32 without a mark is valid UTF-8 full of NULs: it is
    refused here, never read as garbage) or not text at all."""
    found = detect_text(data, False)
    if found is None or found[1] not in ("utf-8", "utf-8-sig"):
        return None
    return found[0]


def detect_text(head: bytes, truncated: bool) -> tuple[str, str] | None:
    """``(text, encoding)`` for the head when it is plausibly text; None otherwise (see
    `decode_text` and `text_encoding`)."""
    if head.startswith(b"\xef\xbb\xbf"):
        return _named(_utf8(head[3:], truncated), "utf-8-sig")
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        codec = "utf-32-le" if head[0] == 0xFF else "utf-32-be"
        text = _decode_wide(head[4:], codec, 4, truncated)
        if text is not None or head[0] == 0x00:
            return _named(text, codec)  # an FF FE 00 00 that is no UTF-32 may be UTF-16: go on
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        return _named(_decode_wide(head[2:], codec, 2, truncated), codec)
    if b"\x00" in head[:64]:
        return _wide_without_bom(head, truncated)
    if head.translate(None, _TEXT_BYTES):
        # A control byte: not 8-bit text; UTF-16 of a script whose units hold such bytes, maybe.
        return _wide_without_bom(head, truncated)
    if head.isascii():
        text = head.decode("ascii")
        if len(text) >= 64 and not any(map(str.isspace, text)) and _table_like(text):
            return None  # printable bytes of a table, not a line of text
        return text, "utf-8"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason == "unexpected end of data" and error.start >= len(head) - 3:
            # Valid UTF-8 up to a character cut at the end: forgiven when the data goes on, and
            # a broken character (not single-byte text) when this really is the end.
            return (head[: error.start].decode("utf-8"), "utf-8") if truncated else None
        single = _single_byte(head)
        return (single, "cp1252") if single is not None else _wide_without_bom(head, truncated)
    if _TEXT_CONTROL.search(text):
        return None  # a C1 control character
    return text, "utf-8"


def _named(text: str | None, codec: str) -> tuple[str, str] | None:
    return None if text is None else (text, codec)


def _utf8(body: bytes, truncated: bool) -> str | None:
    if body.translate(None, _TEXT_BYTES):
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        if truncated and error.start >= len(body) - 3 and error.reason == "unexpected end of data":
            text = body[: error.start].decode("utf-8")
        else:
            return None
    return None if _TEXT_CONTROL.search(text) else text


def _decode_wide(body: bytes, codec: str, unit: int, truncated: bool) -> str | None:
    """UTF-16 or UTF-32 after a BOM: strict, forgiving only a character cut by the end."""
    body = body[: len(body) - len(body) % unit]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as error:
        if not truncated or error.start < len(body) - unit:
            return None
        text = body[: error.start].decode(codec)  # a surrogate pair cut by the end of the head
    if not text or _TEXT_CONTROL.search(text) or not _assigned_characters(text):
        return None
    return text


def _assigned_characters(text: str) -> bool:
    """Every character is an assigned, non-private one (any script, emoji included).

    After a BOM the encoding is declared, so text may mix every script; what binary decodes to
    (private use, unassigned code points, lone surrogates) is still refused.
    """
    if text.isascii() or _NOT_TEXT_CHARACTER.search(text) is None:
        return True
    from unicodedata import category  # only for text outside the common blocks

    return all(category(char) not in ("Co", "Cn", "Cs") for char in set(text))


def _wide_without_bom(head: bytes, truncated: bool) -> tuple[str, str] | None:
    """UTF-32 or UTF-16 without a BOM, told apart by where the zero bytes fall: ``(text,
    encoding)``."""
    if len(head) < _MIN_WIDE:
        return None
    sample = head[:512]
    quads = len(sample) // 4
    if quads >= 2:
        # UTF-32 of BMP text: two zero bytes in every unit, on the same side.
        end = quads * 4
        zero_le = sample[2:end:4].count(0) + sample[3:end:4].count(0)
        zero_be = sample[0:end:4].count(0) + sample[1:end:4].count(0)
        if zero_le == 2 * quads and sample[0] != 0:
            return _named(_plausible_wide(head, "utf-32-le", 4, truncated), "utf-32-le")
        if zero_be == 2 * quads and sample[3] != 0:
            return _named(_plausible_wide(head, "utf-32-be", 4, truncated), "utf-32-be")
    even_zero, odd_zero = sample[0::2].count(0), sample[1::2].count(0)
    pairs = len(sample) // 2
    # Latin-script UTF-16: many high bytes are NUL, and never the low one (nor a whole pair).
    if even_zero == 0 and odd_zero * 4 >= pairs:
        return _named(_plausible_wide(head, "utf-16-le", 2, truncated), "utf-16-le")
    if odd_zero == 0 and even_zero * 4 >= pairs:
        return _named(_plausible_wide(head, "utf-16-be", 2, truncated), "utf-16-be")
    # Another script (Cyrillic, Greek, CJK...): one block's high byte, in one byte order.
    for codec, high in (("utf-16-le", sample[1::2]), ("utf-16-be", sample[0::2])):
        if _one_script(high, pairs):
            text = _plausible_wide(head, codec, 2, truncated)
            if text is not None:
                return text, codec
    return None


def _one_script(high: bytes, pairs: int) -> bool:
    """Whether the high bytes of UTF-16 units look like text of one script: an alphabet's block
    (Cyrillic is 04, Greek 03...) with ASCII spaces and punctuation (00) between its letters; or,
    for CJK, enough characters, every one in the CJK, kana, Hangul or full-width blocks."""
    if pairs < 4:
        return False
    rest = high.replace(b"\x00", b"")  # at most two distinct bytes left: remove them in turn
    for _ in range(2):
        if not rest:
            return True
        rest = rest.replace(rest[:1], b"")
    if not rest:
        return True
    return pairs >= 16 and not high.translate(None, _CJK_HIGH_BYTES)


def _plausible_wide(head: bytes, codec: str, unit: int, truncated: bool) -> str | None:
    body = head[: len(head) - len(head) % unit]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as error:
        if not truncated or error.start < len(body) - unit:
            return None
        text = body[: error.start].decode(codec)
    if len(text) < 4 or _TEXT_CONTROL.search(text) or not _all_text_characters(text):
        return None
    if _table_like(text) or not _varied_letters(text):
        return None  # no letters, a table, or one letter repeated ("ĀĀĀĀ Ā": 00 01 00 01...)
    return text


def _varied_letters(text: str) -> bool:
    """At least three distinct letters, none of them more than half of all the letters: words
    do not repeat one letter like that ("ĀĀĀĀĀ AĀB" is ``00 01`` repeated with a few bytes
    between, not text)."""
    counts = Counter(char for char in text if char.isalpha())
    return len(counts) >= 3 and 2 * max(counts.values()) <= sum(counts.values())


def _table_like(text: str) -> bool:
    """Whether decoded characters look like a table of numbers (a lookup table, a ramp) rather
    than words: nearly every character not below the one before it, or hardly any distinct ones.
    """
    chars = [char for char in text if not char.isspace()]
    if len(chars) < 16:
        return False
    rising = sum(b >= a for a, b in pairwise(chars))
    return rising * 10 >= 9 * (len(chars) - 1) or len(set(chars)) < 4


def _all_text_characters(text: str) -> bool:
    """Every character lies in a block text is written in (see `_NOT_TEXT_CHARACTER`)."""
    return text.isascii() or _NOT_TEXT_CHARACTER.search(text) is None


def _single_byte(head: bytes) -> str | None:
    """Windows-1252 (a superset of Latin-1's printable characters) when the text reads like words.

    Words (a space or a line break between them); every non-ASCII character either common
    punctuation or a letter inside a word (or a one-letter word, "à"); capitals only where a word
    starts or in a word of capitals; ASCII letters at least twice as many as accented ones,
    non-ASCII characters at most half, and letters at least half of what is not space. Random
    bytes, and binary that happens to have no control byte, fail this.
    """
    if len(head) < _MIN_SINGLE_BYTE or head.startswith(_BOMS):
        return None
    if b" " not in head and b"\n" not in head:
        return None  # not words: nothing between them
    try:
        text = head.decode("cp1252")
    except UnicodeDecodeError:
        return None  # 81, 8D, 8F, 90, 9D: unassigned in Windows-1252
    visible = len(text) - sum(map(str.isspace, text))
    high = high_letters = ascii_letters = 0
    for index, char in enumerate(text):
        if char.isascii():
            ascii_letters += char.isalpha()
            continue
        high += 1
        if not char.isalpha():
            if char not in _LEGACY_PUNCTUATION:
                return None
            continue
        high_letters += 1
        before = text[index - 1] if index else " "
        after = text[index + 1] if index + 1 < len(text) else " "
        if not (before.isalpha() or after.isalpha() or (before.isspace() and after.isspace())):
            return None  # an accented letter stands inside a word, or is one ("à")
        if char.isupper() and before.isalpha() and not (before.isupper() or after.isupper()):
            return None  # a capital inside a word of small letters
    if ascii_letters < 2 * high_letters or high * 2 > visible:
        return None
    if (ascii_letters + high_letters) * 2 < visible:
        return None
    return text
