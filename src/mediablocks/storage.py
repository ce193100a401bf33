"""Storing histories: media inline, or externalised to a content-addressed folder; redacted views.

`save_history(messages, media_dir=...)` writes each distinct media payload once, as
``<sha256>.<ext>`` in ``media_dir``, and the JSON refers to it by hash, so histories and logs stay
small and identical images are stored once. `load_history` reads it back, checking every stored
file against its hash.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .datauri import b64decode, b64encode
from .errors import DecodeError, SourceError
from .media import MediaBlock
from .messages import Message, dump_messages, load_messages
from .mime import detect_mime

__all__ = ["load_history", "media_summary", "redacted", "save_history"]


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"  # pragma: no cover - the loop always returns


def media_summary(block: MediaBlock) -> str:
    """``<image/png 1.2 MB sha256:ab12cd34…>`` for loaded media; never reads a path or URL."""
    if not block.loaded:
        return f"<{block.declared_mime or 'media'} {block.source.describe()}>"
    data = block.read()
    digest = hashlib.sha256(data).hexdigest()[:12]
    return f"<{block.mime_type} {_human_size(len(data))} sha256:{digest}…>"


def _walk(node: Any, visit: Any) -> Any:
    """Rebuild a JSON tree, letting ``visit`` replace media block dicts."""
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


def redacted(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """A JSON-ready view for logs: media blocks become ``<image/png 1.2 MB sha256:ab12…>``."""
    summaries: dict[int, str] = {}

    def remember(message: Message) -> None:
        for block in message.content:
            if isinstance(block, MediaBlock):
                summaries[id(block)] = media_summary(block)

    for message in messages:
        remember(message)
    output: list[dict[str, Any]] = []
    for message in messages:
        dumped = message.model_dump(mode="python")
        content = []
        for block, data in zip(message.content, dumped["content"], strict=True):
            if isinstance(block, MediaBlock):
                content.append({"type": block.type, "media": summaries[id(block)]})
            else:
                content.append(_redact_nested(data))
        dumped["content"] = content
        dumped["timestamp"] = message.timestamp.isoformat()
        output.append(dumped)
    return output


def _redact_nested(node: Any) -> Any:
    def visit(item: dict[str, Any]) -> Any:
        if not _is_media(item):
            return None
        source = item["source"]
        if source.get("kind") == "bytes" and isinstance(source.get("data"), bytes):
            data = source["data"]
            digest = hashlib.sha256(data).hexdigest()[:12]
            mime = item.get("declared_mime") or "media"
            return {
                "type": item["type"],
                "media": f"<{mime} {_human_size(len(data))} sha256:{digest}…>",
            }
        return {"type": item["type"], "media": f"<{source.get('kind')} source>"}

    return _walk(node, visit)


def save_history(
    messages: Sequence[Message],
    path: str | os.PathLike[str] | None = None,
    *,
    media_dir: str | os.PathLike[str] | None = None,
    indent: int | None = None,
) -> str:
    """The history as JSON; with ``media_dir``, media bytes are stored there by sha256.

    Returns the JSON text, and also writes it to ``path`` when given. Only media held in memory or
    in readable files is externalised; URL and provider-file blocks stay references.
    """
    text = dump_messages(messages, indent=indent)
    if media_dir is not None:
        folder = Path(media_dir)
        folder.mkdir(parents=True, exist_ok=True)
        document = json.loads(text)
        written: set[str] = set()

        def externalise(node: dict[str, Any]) -> Any:
            if not _is_media(node) or node["source"].get("kind") != "bytes":
                return None
            data = b64decode(node["source"]["data"], what="stored media")
            digest = hashlib.sha256(data).hexdigest()
            mime = detect_mime(data) or node.get("declared_mime") or ""
            extension = (mimetypes.guess_extension(mime) or ".bin") if mime else ".bin"
            name = digest + extension
            if name not in written and not (folder / name).exists():
                (folder / name).write_bytes(data)
            written.add(name)
            return {**node, "source": {"kind": "stored", "sha256": digest, "file": name}}

        document = _walk(document, externalise)
        text = json.dumps(document, indent=indent, ensure_ascii=False)
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def load_history(
    source: str | bytes | os.PathLike[str], *, media_dir: str | os.PathLike[str] | None = None
) -> list[Message]:
    """Read a history written by `save_history` (a path or the JSON text itself).

    Externalised media are loaded from ``media_dir`` and checked against their sha256; a missing or
    altered file raises `SourceError` naming it.
    """
    text = Path(source).read_text(encoding="utf-8") if isinstance(source, os.PathLike) else source
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise DecodeError(f"history is not valid JSON: {exc}") from None
    if media_dir is None:
        return load_messages(document)
    folder = Path(media_dir)

    def internalise(node: dict[str, Any]) -> Any:
        if not _is_media(node) or node["source"].get("kind") != "stored":
            return None
        name = str(node["source"].get("file", ""))
        if os.path.basename(name) != name or not name:
            raise DecodeError(f"stored media name {name!r} is not a plain file name")
        try:
            data = (folder / name).read_bytes()
        except OSError as exc:
            raise SourceError(f"stored media {name!r}: cannot read: {exc.strerror}") from None
        if hashlib.sha256(data).hexdigest() != node["source"].get("sha256"):
            raise SourceError(f"stored media {name!r} does not match its sha256")
        return {**node, "source": {"kind": "bytes", "data": b64encode(data)}}

    return load_messages(_walk(document, internalise))
