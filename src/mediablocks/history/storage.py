"""Storing histories: media inline, or externalised to a content-addressed folder; redacted views.

`save_history(messages, media_dir=...)` writes each distinct media payload once, as
``<sha256>.<ext>`` in ``media_dir``, and the JSON refers to it by hash, so histories and logs stay
small and identical images are stored once. `load_history` reads it back, checking every stored
file against its hash. `redacted` is a view for logs in which media (and any long base64 text)
appear as short summaries such as ``<image/png 1.2 MB sha256:ab12cd34ef56…>``.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .._depth import loads
from .._loading import collector_paused
from ..blocks import Block, ToolResultBlock
from ..datauri import b64decode, b64encode
from ..errors import DecodeError, SourceError
from ..fetching.policy import FetchPolicy, current_policy
from ..media import MediaBlock
from ..message_input import MessagesLike, as_messages, dump_messages, load_messages
from ..message_json import load_stored_text
from ..messages import Message
from ..mime import detect_mime
from ..sources import PathSource
from ..sources._confined import Confinement
from ..sources._files import read_capped
from ..sources._trust import loading

__all__ = ["load_history", "media_summary", "redacted", "save_history"]

LONG_TEXT = 1024
"""Base64 strings (or base64 data URIs) at least this long are summarised by `redacted`."""
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_DATA_URI = re.compile(r"data:([\w.+-]+/[\w.+-]+)?((?:;[^,;]*)*),(.*)", re.S)


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"  # pragma: no cover - the loop always returns


def _summary(mime: str, data: bytes | str) -> str:
    digest = hashlib.sha256(data.encode("ascii") if isinstance(data, str) else data).hexdigest()
    return f"<{mime} {_human_size(len(data))} sha256:{digest[:12]}…>"


def media_summary(block: MediaBlock) -> str:
    """``<image/png 1.2 MB sha256:ab12cd34ef56…>`` for loaded media; never reads a path or URL.

    Media not read yet are described by their source: ``<image/png path 'cat.png'>``.
    """
    if not block.loaded:
        kind = str(getattr(block, "type", "media"))
        return f"<{block.declared_mime or kind} {block.source.describe()}>"
    data = block.read()
    return _summary(block.mime_type, data)


def _walk(node: Any, visit: Any) -> Any:
    """Rebuild a JSON tree, letting ``visit`` replace dicts (it returns None to go inside)."""
    if isinstance(node, dict):
        replaced = visit(node)
        if replaced is not None:
            return replaced
        return {key: _walk(value, visit) for key, value in node.items()}
    if isinstance(node, list):
        return [_walk(item, visit) for item in node]
    return node


def _is_media(node: dict[str, Any]) -> bool:
    return node.get("type") in ("image", "audio", "video", "file") and isinstance(
        node.get("source"), dict
    )


def _media_blocks(messages: Sequence[Message]) -> Iterator[MediaBlock]:
    """Every media block, those inside tool results included."""

    def inner(blocks: Sequence[Block]) -> Iterator[MediaBlock]:
        for block in blocks:
            if isinstance(block, MediaBlock):
                yield block
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                yield from inner(block.content)

    for message in messages:
        yield from inner(message.content)


def redacted(messages: MessagesLike) -> list[dict[str, Any]]:
    """A JSON-ready view for logs: media blocks become ``{"type": ..., "media": "<summary>"}``.

    Media anywhere (tool results included) are summarised by `media_summary`, and so is any other
    string of `LONG_TEXT` characters or more that is base64 or a base64 data URI (images inside
    provider raw blocks, encrypted reasoning). Nothing is read or fetched.
    """
    messages = as_messages(messages, "redacted")
    summaries = {id(block): media_summary(block) for block in _media_blocks(messages)}
    output: list[dict[str, Any]] = []
    for message in messages:
        dumped = message.model_dump(mode="json")
        dumped["content"] = [
            _redact_block(block, data, summaries)
            for block, data in zip(message.content, dumped["content"], strict=True)
        ]
        output.append(_redact_strings(dumped))
    return output


def _redact_block(block: Block, data: dict[str, Any], summaries: dict[int, str]) -> Any:
    if isinstance(block, MediaBlock):
        return {"type": data["type"], "media": summaries[id(block)]}
    if isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
        data["content"] = [
            _redact_block(inner, inner_data, summaries)
            for inner, inner_data in zip(block.content, data["content"], strict=True)
        ]
    return data


def _redact_strings(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _redact_strings(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_redact_strings(item) for item in node]
    if isinstance(node, str) and len(node) >= LONG_TEXT:
        uri = _DATA_URI.fullmatch(node)
        if uri is not None and ";base64" in uri.group(2):
            return _base64_summary(uri.group(3), uri.group(1))
        if _BASE64.fullmatch(node):
            return _base64_summary(node, None)
    return node


def _base64_summary(text: str, declared: str | None) -> str:
    """The summary of the decoded bytes (so one image has one digest wherever it appears)."""
    try:
        data = b64decode(text.strip(), what="base64 text")
    except DecodeError:
        return text
    return _summary(detect_mime(data) or declared or "base64", data)


def save_history(
    messages: MessagesLike,
    path: str | os.PathLike[str] | None = None,
    *,
    media_dir: str | os.PathLike[str] | None = None,
    embed_paths: bool = False,
    indent: int | None = None,
) -> str:
    """The history as JSON; with ``media_dir``, media bytes are stored there by sha256.

    Returns the JSON text, and also writes it to ``path`` when given. Media held in memory are
    written inline as base64, or with ``media_dir`` once each to ``<media_dir>/<sha256>.<ext>``.
    Media from local files stay path references unless ``embed_paths``, which reads them (under the
    current fetch policy) so the history holds its own copy. URL and provider-file blocks always
    stay references.
    """
    messages = as_messages(messages, "save_history")
    text = dump_messages(messages, indent=indent)
    embedded = _path_bytes(messages) if embed_paths else {}
    if media_dir is None and not embedded:
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text
    folder = Path(media_dir) if media_dir is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    written: set[str] = set()

    def store(node: dict[str, Any]) -> Any:
        if not _is_media(node):
            return None
        source = node["source"]
        if source.get("kind") == "path" and source.get("path") in embedded:
            data = embedded[source["path"]]
        elif source.get("kind") == "bytes" and folder is not None:
            data = b64decode(source["data"], what="stored media")
        else:
            return None
        if folder is None:
            return {**node, "source": {"kind": "bytes", "data": b64encode(data)}}
        name = _stored_name(data, node.get("declared_mime"))
        if name not in written and not (folder / name).exists():
            (folder / name).write_bytes(data)
        written.add(name)
        return {**node, "source": {"kind": "stored", "sha256": name.split(".")[0], "file": name}}

    document = _walk(json.loads(text), store)
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def _path_bytes(messages: Sequence[Message]) -> dict[str, bytes]:
    """The bytes of every media block read from a local file, by its path."""
    return {
        block.source.path: block.read()
        for block in _media_blocks(messages)
        if isinstance(block.source, PathSource)
    }


def _stored_name(data: bytes, declared: Any) -> str:
    """``<sha256>.<ext>``, the extension from what the bytes are (``.bin`` when unknown)."""
    digest = hashlib.sha256(data).hexdigest()
    mime = detect_mime(data) or (declared if isinstance(declared, str) else None)
    extension = (mimetypes.guess_extension(mime) if mime else None) or ".bin"
    return digest + extension


def _history_text(source: os.PathLike[str], policy: FetchPolicy | None) -> str:
    """The history file's text: a regular file only (opened without blocking, judged on its
    descriptor: a FIFO or a device is refused, not waited on), at most ``max_path_bytes``."""
    path = os.fspath(source)
    data = read_capped(path, current_policy(policy).max_path_bytes, f"history {path!r}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"history {path!r} is not UTF-8 text: {exc}") from None


def load_history(
    source: str | bytes | os.PathLike[str],
    *,
    media_dir: str | os.PathLike[str] | None = None,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> list[Message]:
    """Read a history written by `save_history`: a path (an ``os.PathLike``) or the JSON text.

    Externalised media are loaded from ``media_dir`` and checked against their sha256; a missing or
    altered file raises `SourceError` naming it, a stored name that is not a plain file name (or
    stored media without a ``media_dir``) raises `DecodeError`. Stored files are read by
    descriptor inside ``media_dir`` (a link leading out of it is refused, a FIFO or device too).

    The history is untrusted input, as for `load_messages`: its path and URL media are read only
    under ``allow_paths`` / ``policy`` (or a read's own policy), never because it names them.
    """
    text = _history_text(source, policy) if isinstance(source, os.PathLike) else source
    with collector_paused():  # as load_messages: the objects built are not garbage
        return _load_history(text, media_dir, allow_paths, policy)


def _load_history(
    text: str | bytes,
    media_dir: str | os.PathLike[str] | None,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None,
    policy: FetchPolicy | None,
) -> list[Message]:
    with loading("a loaded history", "load_history", allow_paths, policy):
        try:  # a history with no stored media is dump_messages text: pydantic-core's path
            loaded = load_stored_text(text)
        except DecodeError:
            loaded = None  # nested too deep: the checked path below names it as it always has
    if loaded is not None:
        return loaded
    document = loads(text, "history")  # nested past the depth limit: DecodeError, as load_messages
    folder = os.fspath(media_dir) if media_dir is not None else None

    def internalise(node: dict[str, Any]) -> Any:
        if not _is_media(node) or node["source"].get("kind") != "stored":
            return None
        name = str(node["source"].get("file", ""))
        if folder is None:
            raise DecodeError(f"the history stores media in a folder ({name!r}): pass media_dir")
        if os.path.basename(name) != name or not name or name in (".", ".."):
            raise DecodeError(f"stored media name {name!r} is not a plain file name")
        what = f"stored media {name!r}"
        confine = Confinement((folder,), f"media_dir={folder!r}")
        cap = current_policy(policy).max_path_bytes
        data = read_capped(os.path.join(folder, name), cap, what, confine)
        if hashlib.sha256(data).hexdigest() != node["source"].get("sha256"):
            raise SourceError(f"stored media {name!r} does not match its sha256")
        return {**node, "source": {"kind": "bytes", "data": b64encode(data)}}

    with loading("a loaded history", "load_history", allow_paths, policy):
        return load_messages(_walk(document, internalise))
