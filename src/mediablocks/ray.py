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
import re
from collections.abc import Mapping
from typing import Any, Literal

from .batch import batch_line
from .blocks import TextBlock
from .errors import InvalidOptionError, TooLargeError
from .media_input import media_block
from .messages import Message, UserMessage
from .preparing import PrepareKeywords
from .preparing import prepare as prepare_messages

__all__ = ["batch_file_datasink", "encode_batch", "request_id"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_ID_LIMIT = 64


def request_id(path: str | None, data: bytes) -> str:
    """A stable id every batch API accepts (letters, digits, ``_``, ``-``; at most 64).

    From the path when there is one, else from the bytes' SHA-256. A path made only of those
    characters (and short enough) is its own id; any other path (accents, spaces, slashes, a
    long one) keeps a readable cleaned form plus a hash of the whole path, so distinct paths give
    distinct ids (``café.png`` and ``cafe.png``, ``a b.png`` and ``a_b.png``).
    """
    if not path:
        return hashlib.sha256(data).hexdigest()[:32]
    cleaned = _UNSAFE.sub("_", path).strip("_") or "file"
    if cleaned == path and len(path) <= _ID_LIMIT:
        return path
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    keep = _ID_LIMIT - len(digest) - 1
    return f"{cleaned[-keep:].lstrip('_-') or 'file'}-{digest}"


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
    unknown = sorted(set(options) - PrepareKeywords.__annotations__.keys())
    if unknown:
        raise InvalidOptionError(f"encode_batch: prepare_options has unknown key(s) {unknown}")
    paths = _column(batch, "path")
    contents = _column(batch, "bytes")
    if paths is None and contents is None:
        columns = ", ".join(sorted(map(str, batch))) or "none"
        raise InvalidOptionError(
            f"encode_batch: the batch has no 'bytes' or 'path' column (columns: {columns}); "
            "read the files with ray.data.read_binary_files(..., include_paths=True) "
            "(read_images decodes pixels: pass include_paths=True so each file is read again)"
        )
    count = len(contents if contents is not None else paths or [])
    out: dict[str, list[Any]] = {"id": [], "line": [], "error": [], "input_bytes": []}
    chosen = dict(fields or {})
    seen: dict[str, int] = {}
    for index in range(count):
        path = str(paths[index]) if paths is not None else None
        line: str | None = None
        error: str | None = None
        data = b""
        rid = request_id(path, b"")
        try:
            if contents is not None:
                data = bytes(contents[index])
            elif path is not None:
                with open(path, "rb") as handle:
                    data = handle.read()
            rid = request_id(path, data)
            if rid in seen:
                raise InvalidOptionError(
                    f"id {rid!r} is row {seen[rid]}'s too (the same path or the same bytes)"
                )
            messages = _messages(data, path, prompt)
            if prepare:
                messages = prepare_messages(messages, provider, model=model, **options)
            line = batch_line(
                messages, provider, rid, fields=chosen, bedrock_format=bedrock_format
            ).decode("utf-8")
        except Exception as exc:  # any failure is this row's error: nothing is lost
            error = f"{type(exc).__name__}: {exc}"
        seen.setdefault(rid, index)
        out["id"].append(rid)
        out["line"].append(line)
        out["error"].append(error)
        out["input_bytes"].append(len(data))
    return out


def _chunks(
    lines: list[tuple[str, bytes]], max_requests: int, max_bytes: int
) -> list[list[tuple[str, bytes]]]:
    """The lines cut into runs that each fit one batch file."""
    chunks: list[list[tuple[str, bytes]]] = [[]]
    size = 0
    for rid, line in lines:
        if len(line) + 1 > max_bytes:
            raise TooLargeError(
                f"batch line {rid!r} is {len(line) + 1} bytes, more than one batch file may hold "
                f"({max_bytes} bytes)"
            )
        if chunks[-1] and (len(chunks[-1]) >= max_requests or size + len(line) + 1 > max_bytes):
            chunks.append([])
            size = 0
        chunks[-1].append((rid, line))
        size += len(line) + 1
    return chunks


def batch_file_datasink(
    path: str,
    *,
    provider: str | None = None,
    max_requests: int | None = None,
    max_bytes: int | None = None,
    min_rows_per_file: int | None = None,
    **kwargs: Any,
) -> Any:
    """A Ray Data datasink writing the ``line`` column as ``.jsonl`` batch input files.

    Rows with an ``error`` are skipped (keep them with ``write_json`` to see why). Each file
    written under ``path`` is a batch input file for the provider ``encode_batch`` encoded for,
    within that provider's per-file limits (`mediablocks.batch.BATCH_LIMITS`; without
    ``provider``, the strictest of them; ``max_requests`` / ``max_bytes`` set lower ones): a
    block with more rolls over to numbered files (``<name>-001.jsonl``...). Two rows with the
    same ``id`` in one file raise `InvalidOptionError` (the provider would refuse the file).
    Other keyword arguments go to Ray's ``BlockBasedFileDatasink`` (``filesystem``...).
    """
    from ray.data.datasource import BlockBasedFileDatasink

    from .batch import BATCH_LIMITS
    from .providers import canonical_provider

    if provider is not None:
        count_limit, byte_limit = BATCH_LIMITS[_batch_provider(canonical_provider(provider))]
    else:
        count_limit = min(limit for limit, _ in BATCH_LIMITS.values())
        byte_limit = min(limit for _, limit in BATCH_LIMITS.values())
    for name, value in (("max_requests", max_requests), ("max_bytes", max_bytes)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise InvalidOptionError(f"batch_file_datasink: {name} must be >= 1, got {value!r}")
    limits = (
        min(max_requests or count_limit, count_limit),
        min(max_bytes or byte_limit, byte_limit),
    )

    class BatchFileDatasink(BlockBasedFileDatasink):  # type: ignore[misc,unused-ignore]
        def write_block(self, block: Any, block_index: int, ctx: Any) -> None:
            from ray.data.datasource import file_datasink

            table = block.to_arrow()
            names = table.column_names
            lines = table.column("line").to_pylist()
            errors = table.column("error").to_pylist() if "error" in names else []
            ids = table.column("id").to_pylist() if "id" in names else []
            kept: list[tuple[str, bytes]] = []
            for number, line in enumerate(lines):
                if line is None or (errors and errors[number] is not None):
                    continue
                kept.append((str(ids[number]) if ids else str(number), line.encode("utf-8")))
            filename = self.filename_provider.get_filename_for_task(
                ctx.kwargs[vars(file_datasink)["WRITE_UUID_KWARG_NAME"]],
                ctx.task_idx,
            )
            chunks = _chunks(kept, *limits)
            stem, dot, suffix = filename.rpartition(".")
            for number, chunk in enumerate(chunks, start=1):
                _unique(chunk)
                name = filename if len(chunks) == 1 else f"{stem}-{number:03d}{dot}{suffix}"
                with self.open_output_stream(f"{self.path.rstrip('/')}/{name}") as file:
                    for _, line in chunk:
                        file.write(line + b"\n")

    return BatchFileDatasink(
        path, min_rows_per_file=min_rows_per_file, file_format="jsonl", **kwargs
    )


def _batch_provider(name: str) -> str:
    from .batch import BATCH_LIMITS

    if name not in BATCH_LIMITS:
        raise InvalidOptionError(f"batch_file_datasink: {name} takes no batch files")
    return name


def _unique(chunk: list[tuple[str, bytes]]) -> None:
    seen: set[str] = set()
    for rid, _ in chunk:
        if rid in seen:
            raise InvalidOptionError(
                f"batch_file_datasink: id {rid!r} twice in one batch file (the same path or "
                "the same bytes): the provider would refuse the file"
            )
        seen.add(rid)
