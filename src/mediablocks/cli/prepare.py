"""``mediablocks prepare``: files fitted to a provider's limits, written under a folder.

Every input gets its own output: a file whose format changed keeps its old extension in the stem
(``photo.heic`` -> ``photo.heic.jpg``), so ``photo.heic``, ``photo.avif`` and ``photo.jpg`` never
meet; two inputs that would still share a name get ``-2``, ``-3``... An existing file is never
replaced without ``--overwrite`` (files are created exclusively, so not even a race replaces one).

A file `prepare_with_report` turns into several blocks (a video into frames, a PDF into page
images, long audio into parts, a DOCX into its text) gets one numbered file per media block
(``clip.mp4.frame-01.jpg``, ``report.pdf.page-1.jpg``) and its text blocks, in order,
separated by a blank line and ending in a newline, in ``<name>.txt``; ``report.json`` lists
every output in message order, a text block as its place (``offset``, ``chars``) in that file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

from ..blocks import Block, TextBlock
from ..errors import DoesNotFitError
from ..media import MediaBlock
from ..messages import UserMessage
from ..prepare import prepare_with_report
from ..providers import canonical_provider
from ._conversion import add_conversion_flags, conversion_options, part_label, plural
from ._items import Item, expand, load
from ._output import run_each
from ._wording import ItemError, for_shell

__all__ = ["add_parser", "output_name", "run"]

_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/flac": ".flac",
    "video/mp4": ".mp4",
}

TEXT_SEPARATOR = "\n\n"
"""Between two text blocks in ``<name>.txt``."""

REPORT = "report.json"


def output_name(relative: PurePosixPath, before: str, after: str) -> PurePosixPath:
    """The same relative name; when the format changed, the new extension after the old one."""
    if before == after or after not in _EXTENSIONS:
        return relative
    return relative.with_name(relative.name + _EXTENSIONS[after])


class _Outputs:
    """Hands out output paths no other input of this run has, and writes without replacing."""

    def __init__(self, out: Path, overwrite: bool) -> None:
        self.out = out
        self.overwrite = overwrite
        self.claimed = {REPORT}  # compared case-blind: macOS and Windows folders are

    def claim(self, relative: PurePosixPath) -> Path:
        candidate, number = relative, 2
        while candidate.as_posix().lower() in self.claimed:
            stem, dot, suffix = relative.name.rpartition(".")
            name = f"{stem}-{number}.{suffix}" if dot and stem else f"{relative.name}-{number}"
            candidate, number = relative.with_name(name), number + 1
        self.claimed.add(candidate.as_posix().lower())
        return self.out / Path(*candidate.parts)

    def write(self, target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(target, "wb" if self.overwrite else "xb") as handle:
                handle.write(data)
        except FileExistsError:
            raise ItemError(f"{target} already exists; pass --overwrite to replace it") from None


def _numbered_names(
    relative: PurePosixPath, source: MediaBlock, parts: list[Block]
) -> list[PurePosixPath | None]:
    """``clip.mp4.frame-01.jpg``...: each media part numbered within its label (frame, page,
    part, audio), padded to the widest number; ``None`` for a text part."""
    labels = [part_label(source, part) for part in parts]
    totals = Counter(labels)
    seen: Counter[str] = Counter()
    names: list[PurePosixPath | None] = []
    for part, label in zip(parts, labels, strict=True):
        if not isinstance(part, MediaBlock):
            names.append(None)
            continue
        seen[label] += 1
        number = str(seen[label]).zfill(len(str(totals[label])))
        extension = _EXTENSIONS.get(part.mime_type, ".bin")
        names.append(relative.with_name(f"{relative.name}.{label}-{number}{extension}"))
    return names


def _write_parts(
    item: Item, source: MediaBlock, parts: list[Block], outputs: _Outputs
) -> list[dict[str, Any]]:
    """Every block ``source`` became, written; the report's ordered ``outputs`` list."""
    relative = item.relative()
    texts = [part.text for part in parts if isinstance(part, TextBlock)]
    text_target = None
    if texts:
        text_target = outputs.claim(relative.with_name(relative.name + ".txt"))
        outputs.write(text_target, (TEXT_SEPARATOR.join(texts) + "\n").encode("utf-8"))
    written: list[dict[str, Any]] = []
    offset = 0
    for part, name in zip(parts, _numbered_names(relative, source, parts), strict=True):
        label = part_label(source, part)
        if isinstance(part, TextBlock):
            entry = {"part": label, "output": str(text_target), "mime_type": "text/plain"}
            written.append(entry | {"offset": offset, "chars": len(part.text)})
            offset += len(part.text) + len(TEXT_SEPARATOR)
        elif isinstance(part, MediaBlock) and name is not None:
            data = part.read()
            target = outputs.claim(name)
            outputs.write(target, data)
            entry = {"part": label, "output": str(target), "mime_type": part.mime_type}
            written.append(entry | {"bytes": len(data)})
        else:  # prepare makes text and media blocks only; anything else is reported, not lost
            raise ItemError(f"prepare made a {type(part).__name__}, which has no file form")
    return written


def _prepare_one(
    item: Item, provider: str, outputs: _Outputs, options: dict[str, Any]
) -> dict[str, Any]:
    block = load(item)
    before = block.mime_type
    size_before = len(block.read())
    prepared, report = prepare_with_report([UserMessage(content=[block])], provider, **options)
    [entry] = report.blocks
    parts = list(prepared[0].content)
    row: dict[str, Any] = {"path": item.label, "mime_before": before, "bytes_before": size_before}
    changes = [str(change) for change in entry.changes]
    fitted = parts[0]
    if not entry.replaced_by and len(parts) == 1 and isinstance(fitted, MediaBlock):
        data = fitted.read()
        target = outputs.claim(output_name(item.relative(), before, fitted.mime_type))
        outputs.write(target, data)
        row |= {"output": str(target), "mime_after": fitted.mime_type, "bytes_after": len(data)}
        return row | {"changes": changes}
    written = _write_parts(item, block, parts, outputs)
    files = {part["output"] for part in written}
    row["bytes_after"] = sum(Path(name).stat().st_size for name in files)
    return row | {"outputs": written, "changes": changes}


def _why(skipped: str) -> str:
    """``pcm16.wav (audio/wav): anthropic takes no audio input`` -> the part after the file."""
    return skipped.split("): ", 1)[-1]


def _summary(results: list[dict[str, Any]], failed: int, report: Path) -> list[str]:
    done = [r for r in results if "output" in r or "outputs" in r]
    changed = sum(1 for r in done if r["changes"])
    skipped = [r["skipped"] for r in results if "skipped" in r]
    lines = [
        f"{len(done)} prepared ({changed} changed, {len(done) - changed} copied as they were), "
        f"{len(skipped)} skipped, {failed} failed; report: {report}"
    ]
    for reason, count in Counter(_why(s) for s in skipped).most_common():
        lines.append(f"  skipped {count}: {reason}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Prepare every file; exit 1 when any failed (skips are not failures)."""
    provider = canonical_provider(args.provider)
    out = Path(args.out)
    report = out / REPORT
    if report.exists() and not args.overwrite:
        print(
            f"mediablocks prepare: error: {report} already exists; pass --overwrite to replace "
            "what is there, or choose another --out",
            file=sys.stderr,
        )
        return 2
    out.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {"model": args.model, "max_image_pixels": args.max_pixels}
    options |= conversion_options(args)
    if args.optimal:
        options["optimal_size"] = True
    outputs = _Outputs(out, args.overwrite)
    items = list(expand(args.paths))

    def show(row: dict[str, Any]) -> None:
        what = "; ".join(row["changes"]) or "unchanged"
        if "output" in row:
            print(f"{row['path']} -> {row['output']}: {what}")
            return
        labels = Counter(part["part"] for part in row["outputs"])
        parts = ", ".join(plural(label, count) for label, count in labels.items())
        files = len({part["output"] for part in row["outputs"]})
        print(f"{row['path']} -> {files} file{'s' if files != 1 else ''} ({parts}): {what}")

    def skip(item: Item, exc: BaseException) -> dict[str, Any] | None:
        if args.skip_unsupported and isinstance(exc, DoesNotFitError):
            return {"path": item.label, "skipped": for_shell(exc)}
        return None

    results, failed = run_each(
        items,
        lambda item: _prepare_one(item, provider, outputs, options),
        show,
        args.debug,
        skip,
    )
    document = {"provider": provider, "model": args.model, "files": results}
    with open(report, "w" if args.overwrite else "x", encoding="utf-8") as handle:
        handle.write(json.dumps(document, indent=2) + "\n")
    for line in _summary(results, failed, report):
        print(line, file=sys.stderr)
    return 1 if failed else 0


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``prepare`` on the subcommand parsers."""
    parser = commands.add_parser(
        "prepare",
        parents=[common],
        help="write files fitted to a provider's limits, and a report",
        description="Fit files to a provider: convert, orient, strip metadata, downscale.",
    )
    parser.add_argument("paths", nargs="+", help="files, folders or http(s) URLs")
    parser.add_argument("--provider", required=True, help="e.g. openai, anthropic, gemini")
    parser.add_argument("--out", required=True, help="folder for the fitted files")
    parser.add_argument("--model", help="the model, where limits depend on it")
    parser.add_argument(
        "--optimal", action="store_true", help="target the provider's optimal image size"
    )
    parser.add_argument(
        "--skip-unsupported",
        action="store_true",
        help="skip files the provider cannot take (counted in the summary), instead of failing",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace files already in --out")
    add_conversion_flags(parser)
    parser.set_defaults(run=run)
