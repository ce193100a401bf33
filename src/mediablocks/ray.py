"""Ray Data integration: prepare and encode millions of files on a cluster.

`encode_batch` is a pure function over one Ray Data batch (a dict of columns, as
``ray.data.read_binary_files(..., include_paths=True)`` makes: ``bytes`` and ``path``). For each
file it builds a user message (an optional prompt, then the file), fits it to the provider with
`mb.prepare` when asked, and encodes it as one line of the provider's batch file (the same line
`mb.write_batch` writes). It returns the columns ``id``, ``line`` (the JSON text), ``error``
(None, or why this file could not be carried: one bad file never fails the job) and
``input_bytes``. All configuration comes in through its keyword arguments (``fn_kwargs`` of
``map_batches``); it keeps no state in module globals, so Ray can pickle it to any worker::

    ds = ray.data.read_binary_files("s3://bucket/photos/", include_paths=True)
    encoded = ds.map_batches(
        mediablocks.ray.encode_batch,
        fn_kwargs={"provider": "anthropic", "prompt": "Describe.",
                   "fields": {"model": "claude-sonnet-4-5", "max_tokens": 300}},
        batch_size=16,
    )
    encoded.write_json("s3://bucket/encoded/")             # rows: id, line, error, input_bytes
    encoded.write_datasink(mediablocks.ray.batch_file_datasink("s3://bucket/batch/"))

``write_json`` keeps the rows (the request as JSON text in ``line``); `batch_file_datasink`
writes the ``line`` column itself, so each file it writes is a batch input file for the provider.

Ray is only needed by `batch_file_datasink`; this module imports it there, and ``import
mediablocks`` never imports this module.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Mapping
from typing import Any, Literal

from .batch import batch_line
from .blocks import TextBlock
from .errors import InvalidOptionError, MediaBlocksError
from .media import media_block
from .messages import Message, UserMessage
from .prepare import prepare as prepare_messages

__all__ = ["batch_file_datasink", "encode_batch", "request_id"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_ID_LIMIT = 64


def request_id(path: str | None, data: bytes) -> str:
    """A stable id every batch API accepts (letters, digits, ``_``, ``-``; at most 64).

    From the path when there is one (readable, and unique as paths are), else from the bytes'
    SHA-256. A long path keeps its end and gets a hash of the whole path.
    """
    if not path:
        return hashlib.sha256(data).hexdigest()[:32]
    cleaned = _UNSAFE.sub("_", path).strip("_") or "file"
    if len(cleaned) <= _ID_LIMIT:
        return cleaned
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f"{cleaned[-(_ID_LIMIT - 17) :].lstrip('_-')}-{digest}"


def _column(batch: Mapping[str, Any], name: str) -> list[Any] | None:
    """A column of a numpy (dict of arrays) or pandas batch as a plain list, None if absent."""
    if name not in batch:
        return None
    return list(batch[name])


def _messages(data: bytes, path: str | None, prompt: str | None) -> list[Message]:
    filename = path.replace("\\", "/").rsplit("/", 1)[-1] if path else None
    block = media_block(data, filename=filename)
    content: list[Any] = [TextBlock(text=prompt)] if prompt else []
    content.append(block)
    return [UserMessage(content=content)]


def encode_batch(
    batch: Mapping[str, Any],
    *,
    provider: str,
    prompt: str | None = None,
    fields: Mapping[str, Any] | None = None,
    prepare: bool = True,
    model: str | None = None,
    prepare_options: Mapping[str, Any] | None = None,
    bedrock_format: Literal["converse", "anthropic"] = "converse",
) -> dict[str, list[Any]]:
    """One Ray Data batch of files -> one batch-file line per file.

    ``batch`` has a ``bytes`` column (file contents) and optionally ``path``; without ``bytes``,
    ``path`` names files every worker can read. ``fields`` go into every request (``model``,
    ``max_tokens``...). ``prepare`` fits media to ``provider`` (and ``model``) first, with
    ``prepare_options`` as `mb.prepare`'s keywords (``{"optimal_size": True}``...). A file that
    cannot be read, fitted or carried gets ``line`` None and ``error`` saying why.
    """
    options = dict(prepare_options or {})
    unknown = sorted(set(options) - set(inspect.signature(prepare_messages).parameters))
    if unknown or {"messages", "provider", "model"} & set(options):
        raise InvalidOptionError(f"encode_batch: prepare_options has unknown key(s) {unknown}")
    paths = _column(batch, "path")
    contents = _column(batch, "bytes")
    count = len(contents if contents is not None else paths or [])
    out: dict[str, list[Any]] = {"id": [], "line": [], "error": [], "input_bytes": []}
    chosen = dict(fields or {})
    for index in range(count):
        path = str(paths[index]) if paths is not None else None
        line: str | None = None
        error: str | None = None
        data = b""
        try:
            if contents is not None:
                data = bytes(contents[index])
            elif path is not None:
                with open(path, "rb") as handle:
                    data = handle.read()
            messages = _messages(data, path, prompt)
            if prepare:
                messages = prepare_messages(messages, provider, model=model, **options)
            rid = request_id(path, data)
            line = batch_line(
                messages, provider, rid, fields=chosen, bedrock_format=bedrock_format
            ).decode("utf-8")
        except (MediaBlocksError, OSError) as exc:
            rid = request_id(path, data)
            error = f"{type(exc).__name__}: {exc}"
        out["id"].append(rid)
        out["line"].append(line)
        out["error"].append(error)
        out["input_bytes"].append(len(data))
    return out


def batch_file_datasink(path: str, *, min_rows_per_file: int | None = None, **kwargs: Any) -> Any:
    """A Ray Data datasink writing the ``line`` column as ``.jsonl`` batch input files.

    Rows with an ``error`` are skipped (keep them with ``write_json`` to see why). Each file
    written under ``path`` is a batch input file for the provider ``encode_batch`` encoded for.
    Other keyword arguments go to Ray's ``BlockBasedFileDatasink`` (``filesystem``...).
    """
    from ray.data.datasource import BlockBasedFileDatasink

    class BatchFileDatasink(BlockBasedFileDatasink):  # type: ignore[misc,unused-ignore]
        def write_block_to_file(self, block: Any, file: Any) -> None:
            table = block.to_arrow()
            lines = table.column("line").to_pylist()
            errors = table.column("error").to_pylist() if "error" in table.column_names else []
            for number, line in enumerate(lines):
                if line is None or (errors and errors[number] is not None):
                    continue
                file.write(line.encode("utf-8") + b"\n")

    return BatchFileDatasink(
        path, min_rows_per_file=min_rows_per_file, file_format="jsonl", **kwargs
    )
