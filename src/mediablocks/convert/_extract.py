"""Shared pieces of text extraction: a capped text sink, a bounded ZIP reader, a streaming XML
parser that refuses DTDs, and the one error wrapper for third-party decoders.

Memory stays bounded by the caps here, never by a size read from the input: a ZIP member is read
in chunks and refused as soon as it passes its declared size, the document's uncompressed budget
or a plausible compression ratio (a ZIP bomb); extracted text stops at ``max_chars``.
"""

from __future__ import annotations

import importlib
import importlib.util
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from types import ModuleType
from typing import Any, Protocol
from xml.parsers import expat

from ..errors import DecodeError, DecompressionBombError, MediaBlocksError, UnsupportedBlockError

__all__ = [
    "MAX_COMPRESSION_RATIO",
    "MAX_UNZIPPED_BYTES",
    "ExtractedText",
    "TextFull",
    "TextSink",
    "XmlHandler",
    "ZipReader",
    "decoder_errors",
    "parse_xml",
    "require",
    "require_installed",
]

MAX_UNZIPPED_BYTES = 64 * 1024 * 1024
"""Bytes all members read from one ZIP-based document (DOCX, ODT, EPUB...) may uncompress to."""

MAX_COMPRESSION_RATIO = 200
"""A member uncompressing to more than this many times its compressed size (past 1 MB) is a bomb."""

_CHUNK = 64 * 1024
_RATIO_FLOOR = 1024 * 1024


@dataclass(frozen=True)
class ExtractedText:
    """Text taken from a document: ``truncated`` when ``max_chars`` cut it; ``pages`` for PDFs,
    ``parts`` for the slides, sheets or chapters it holds (None when the format has none)."""

    text: str
    source: str
    truncated: bool = False
    pages: int | None = None
    parts: int | None = None


class TextFull(Exception):
    """Internal: the sink is full, stop reading (never leaves this package)."""


class TextSink:
    """Collects text up to ``max_chars``; past it, keeps what fits and raises `TextFull`."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def write(self, text: str) -> None:
        if not text:
            return
        room = self.max_chars - self.size
        if len(text) > room:
            self.parts.append(text[: max(room, 0)])
            self.size = self.max_chars
            self.truncated = True
            raise TextFull
        self.parts.append(text)
        self.size += len(text)

    def line(self, text: str = "") -> None:
        self.write(text + "\n")

    def text(self) -> str:
        joined = "".join(self.parts)
        lines = [line.rstrip() for line in joined.splitlines()]
        out: list[str] = []
        for line in lines:  # at most one blank line in a row
            if line or (out and out[-1]):
                out.append(line)
        return "\n".join(out).strip("\n")


def require(module: str, extra: str, what: str, purpose: str) -> ModuleType:
    """Import an optional converter, or raise `UnsupportedBlockError` with its install line."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UnsupportedBlockError(
            f"{what}: {purpose} needs {module}: pip install 'mediablocks[{extra}]'"
        ) from None


def require_installed(module: str, extra: str, what: str, purpose: str) -> None:
    """Like `require`, without importing: the worker process imports it (`isolation`)."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UnsupportedBlockError(
            f"{what}: {purpose} needs {module}: pip install 'mediablocks[{extra}]'"
        )


@contextmanager
def decoder_errors(what: str, format_name: str) -> Iterator[None]:
    """Turn anything a third-party decoder raises into `DecodeError` naming the block."""
    try:
        yield
    except (MediaBlocksError, TextFull):
        raise
    except MemoryError:
        raise DecodeError(f"{what}: not a readable {format_name}: out of memory") from None
    except Exception as exc:
        detail = str(exc).strip() or type(exc).__name__
        raise DecodeError(f"{what}: not a readable {format_name}: {detail[:200]}") from None
    except BaseException as exc:
        # A panic in a Rust extension (resvg, the JPEG XL plugin) is a BaseException (pyo3).
        if type(exc).__name__ != "PanicException":
            raise
        raise DecodeError(f"{what}: not a readable {format_name}: the decoder panicked") from None


class ZipReader:
    """A ZIP archive read member by member within an uncompressed budget (`MAX_UNZIPPED_BYTES`)."""

    def __init__(self, data: bytes, what: str, format_name: str, budget: int = MAX_UNZIPPED_BYTES):
        self.what = what
        self.format_name = format_name
        self.budget = budget
        with decoder_errors(what, format_name):
            self.archive = zipfile.ZipFile(BytesIO(data))
            self.infos = {info.filename: info for info in self.archive.infolist()}

    def has(self, name: str) -> bool:
        return name in self.infos

    def names(self) -> list[str]:
        return list(self.infos)

    def chunks(self, name: str) -> Iterator[bytes]:
        """The member's bytes in chunks, refused as a bomb past its declared size or the budget."""
        info = self.infos.get(name)
        if info is None:
            raise DecodeError(f"{self.what}: not a readable {self.format_name}: {name} is missing")
        declared = info.file_size
        if declared > self.budget:
            raise self.bomb(f"{name} declares {declared:,} bytes uncompressed")
        if declared > _RATIO_FLOOR and declared > MAX_COMPRESSION_RATIO * max(
            info.compress_size, 1
        ):
            raise self.bomb(f"{name} would uncompress {declared // max(info.compress_size, 1):,}x")
        seen = 0
        with decoder_errors(self.what, self.format_name), self.archive.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                seen += len(chunk)
                if seen > declared:
                    raise self.bomb(f"{name} uncompresses past its declared {declared:,} bytes")
                self.budget -= len(chunk)
                if self.budget < 0:
                    raise self.bomb(f"the members uncompress past {MAX_UNZIPPED_BYTES:,} bytes")
                yield chunk

    def read(self, name: str) -> bytes:
        return b"".join(self.chunks(name))

    def bomb(self, detail: str) -> DecompressionBombError:
        return DecompressionBombError(
            f"{self.what}: refused as a decompression bomb ({self.format_name}): {detail}"
        )


class XmlHandler(Protocol):
    """Receives a streamed XML document. Element names are local names (namespace dropped);
    attribute names are as expat gives them: ``"uri}local"`` when namespaced, else ``"local"``."""

    def start(self, name: str, attrs: dict[str, str]) -> None: ...
    def end(self, name: str) -> None: ...
    def text(self, data: str) -> None: ...


def _local(name: str) -> str:
    return name.rpartition("}")[2]


def parse_xml(chunks: Iterator[bytes], handler: XmlHandler, what: str, format_name: str) -> None:
    """Stream ``chunks`` through expat into ``handler``; DTDs and entities are refused."""
    parser = expat.ParserCreate(namespace_separator="}")

    def refuse(*_: Any) -> None:
        raise DecodeError(f"{what}: not a readable {format_name}: XML with a DTD is refused")

    def start(name: str, attrs: dict[str, str]) -> None:
        handler.start(_local(name), attrs)

    def end(name: str) -> None:
        handler.end(_local(name))

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = handler.text
    parser.buffer_text = True
    try:
        for chunk in chunks:
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except expat.ExpatError as exc:
        raise DecodeError(f"{what}: not a readable {format_name}: XML error: {exc}") from None
    except RecursionError:
        raise DecodeError(f"{what}: not a readable {format_name}: XML nested too deep") from None
    except LookupError as exc:  # an encoding declaration naming no codec Python has
        raise DecodeError(
            f"{what}: not a readable {format_name}: XML in an unknown encoding ({exc})"
        ) from None
