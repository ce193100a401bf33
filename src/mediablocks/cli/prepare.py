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
import os
import sys
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from ..blocks import Block, TextBlock
from ..errors import DoesNotFitError
from ..media import MediaBlock
from ..messages import UserMessage
from ..mime.names import OUTPUT_EXTENSIONS
from ..preparing import prepare_with_report
from ..providers import canonical_provider
from ._conversion import conversion_options, part_label, plural
from ._items import Item, expand, load
from ._output import run_each
from ._printable import printable
from ._safe_out import OutputFolder
from ._wording import ItemError, for_shell

__all__ = ["output_name", "run"]


TEXT_SEPARATOR = "\n\n"
"""Between two text blocks in ``<name>.txt``."""

REPORT = "report.json"


def output_name(relative: PurePosixPath, before: str, after: str) -> PurePosixPath:
    """The same relative name; when the format changed, the new extension after the old one."""
    if before == after or after not in OUTPUT_EXTENSIONS:
        return relative
    return relative.with_name(relative.name + OUTPUT_EXTENSIONS[after])


class _Outputs:
    """Hands out output names no other input of this run has, and writes them inside --out.

    ``written`` maps each name written (relative to --out) to whether it replaced a file.
    """

    def __init__(self, folder: OutputFolder, overwrite: bool) -> None:
        self.folder = folder
        self.overwrite = overwrite
        self.claimed = {REPORT}  # compared case-blind: macOS and Windows folders are
        self.written: dict[str, bool] = {}

    def claim(self, relative: PurePosixPath) -> PurePosixPath:
        candidate, number = relative, 2
        while candidate.as_posix().lower() in self.claimed:
            stem, dot, suffix = relative.name.rpartition(".")
            name = f"{stem}-{number}.{suffix}" if dot and stem else f"{relative.name}-{number}"
            candidate, number = relative.with_name(name), number + 1
        self.claimed.add(candidate.as_posix().lower())
        return candidate

    def write(self, relative: PurePosixPath, data: bytes) -> str:
        """Write one output; its name as the report gives it (under --out)."""
        replaced = self.folder.write(relative, data, replace=self.overwrite)
        self.written[relative.as_posix()] = replaced
        return str(self.folder.out / Path(*relative.parts))


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
        extension = OUTPUT_EXTENSIONS.get(part.mime_type, ".bin")
        names.append(relative.with_name(f"{relative.name}.{label}-{number}{extension}"))
    return names


def _write_parts(
    item: Item, source: MediaBlock, parts: list[Block], outputs: _Outputs, sizes: dict[str, int]
) -> list[dict[str, Any]]:
    """Every block ``source`` became, written; the report's ordered ``outputs`` list. ``sizes``
    gets each file's byte count."""
    relative = item.relative()
    texts = [part.text for part in parts if isinstance(part, TextBlock)]
    text_target = None
    if texts:
        text_name = outputs.claim(relative.with_name(relative.name + ".txt"))
        text = (TEXT_SEPARATOR.join(texts) + "\n").encode("utf-8")
        text_target = outputs.write(text_name, text)
        sizes[text_target] = len(text)
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
            target = outputs.write(outputs.claim(name), data)
            sizes[target] = len(data)
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
        name = outputs.claim(output_name(item.relative(), before, fitted.mime_type))
        target = outputs.write(name, data)
        row |= {"output": target, "mime_after": fitted.mime_type, "bytes_after": len(data)}
        return row | {"changes": changes}
    sizes: dict[str, int] = {}
    written = _write_parts(item, block, parts, outputs, sizes)
    row["bytes_after"] = sum(sizes.values())
    return row | {"outputs": written, "changes": changes}


def _why(skipped: str) -> str:
    """``pcm16.wav (audio/wav): anthropic takes no audio input`` -> the part after the file."""
    return skipped.split("): ", 1)[-1]


def _summary(
    results: list[dict[str, Any]], failed: int, report: Path, replaced: dict[str, Any] | None
) -> list[str]:
    done = [r for r in results if "output" in r or "outputs" in r]
    changed = sum(1 for r in done if r["changes"])
    skipped = [r["skipped"] for r in results if "skipped" in r]
    lines = [
        f"{len(done)} prepared ({changed} changed, {len(done) - changed} copied as they were), "
        f"{len(skipped)} skipped, {failed} failed; report: {report}"
    ]
    for reason, count in Counter(_why(s) for s in skipped).most_common():
        lines.append(f"  skipped {count}: {reason}")
    if replaced is not None:
        overwritten, removed = len(replaced["overwritten"]), len(replaced["removed"])
        lines.append(
            f"  replaced the previous output: {overwritten} overwritten, {removed} removed"
            + (f", {len(replaced['left'])} left (see the report)" if "left" in replaced else "")
        )
        if "problem" in replaced:
            lines.append(f"  warning: {replaced['problem']}; earlier outputs were not removed")
    return lines


REPORT_LIMIT = 64 * 1024 * 1024
"""The largest previous ``report.json`` read to learn what a run wrote before."""


def _listed_outputs(document: dict[str, Any], out: Path) -> tuple[list[str], list[str]]:
    """``(inside, outside)``: the output names a previous report lists, each once, in order;
    those under --out relative to it, the others as written (never removed).

    The report's own ``out`` is trusted only when it names this same folder, so a forged
    ``"out": "/"`` cannot turn ``/etc/passwd`` into a name inside --out.
    """
    prefixes = [PurePosixPath(out.as_posix())]
    given = document.get("out")
    if isinstance(given, str) and given and Path(given).resolve() == out.resolve():
        prefixes.append(PurePosixPath(Path(given).as_posix()))
    rows = document.get("files")
    inside: dict[str, None] = {}
    outside: dict[str, None] = {}
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        parts = row.get("outputs")
        listed = [row.get("output")] + [
            part.get("output")
            for part in (parts if isinstance(parts, list) else [])
            if isinstance(part, dict)
        ]
        for name in listed:
            if not isinstance(name, str):
                continue
            path = PurePosixPath(Path(name).as_posix())
            under = [path.relative_to(p) for p in prefixes if path.is_relative_to(p)]
            if under and under[0].parts:
                inside[under[0].as_posix()] = None
            else:
                outside[name] = None
    return list(inside), list(outside)


class _Previous(NamedTuple):
    """What the report already in --out says the previous run wrote."""

    inside: list[str]
    outside: list[str]
    problem: str | None


def _previous_outputs(folder: OutputFolder) -> _Previous:
    """What the report already in --out says was written, or why that cannot be known."""
    try:
        data = folder.read(PurePosixPath(REPORT), REPORT_LIMIT)
        if data is None:
            return _Previous([], [], None)
        if len(data) > REPORT_LIMIT:
            return _Previous([], [], f"the previous {REPORT} is over {REPORT_LIMIT} bytes")
        document = json.loads(data)
        if not isinstance(document, dict):
            return _Previous([], [], f"the previous {REPORT} is not a report")
        return _Previous(*_listed_outputs(document, folder.out), None)
    except (ItemError, ValueError, RecursionError, OSError) as exc:
        return _Previous([], [], f"the previous {REPORT} cannot be read ({for_shell(exc)})")


def _replace_previous(
    folder: OutputFolder, previous: _Previous, outputs: _Outputs
) -> dict[str, Any]:
    """Remove what the previous run wrote and this one did not write again; the report's
    ``replaced`` entry. Only regular files inside --out are removed."""
    removed: list[str] = []
    left = [{"output": name, "why": "not under --out; left in place"} for name in previous.outside]
    for name in previous.inside:
        if name in outputs.written:
            continue
        why = folder.remove_file(PurePosixPath(name))
        if why is None:
            removed.append(name)
        elif why != "already gone":
            left.append({"output": name, "why": why})
    replaced: dict[str, Any] = {
        "overwritten": sorted(name for name, was in outputs.written.items() if was),
        "removed": removed,
    }
    if left:
        replaced["left"] = left
    if previous.problem:
        replaced["problem"] = previous.problem
    return replaced


def _open_out(out: Path) -> OutputFolder:
    try:
        out.mkdir(parents=True, exist_ok=True)
        return OutputFolder(out)
    except FileExistsError:
        raise ItemError(f"--out {out} exists and is not a folder") from None
    except OSError as exc:
        raise ItemError(f"--out {out}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    """Prepare every file; exit 1 when any failed (skips are not failures)."""
    provider = canonical_provider(args.provider)
    out = Path(args.out)
    report = out / REPORT
    if os.path.lexists(report) and not args.overwrite:
        print(
            f"mediablocks prepare: error: {printable(str(report))} already exists; pass "
            "--overwrite to replace "
            "what is there, or choose another --out",
            file=sys.stderr,
        )
        return 2
    try:
        folder = _open_out(out)
    except ItemError as exc:
        print(f"mediablocks prepare: error: {for_shell(exc)}", file=sys.stderr)
        return 2
    with folder:
        return _run_into(args, provider, folder)


def _run_into(args: argparse.Namespace, provider: str, folder: OutputFolder) -> int:
    options: dict[str, Any] = {"model": args.model, "max_image_pixels": args.max_pixels}
    options |= conversion_options(args)
    if args.full_size:
        options["optimal_size"] = False
    previous = _previous_outputs(folder) if args.overwrite else _Previous([], [], None)
    outputs = _Outputs(folder, args.overwrite)
    items = list(expand(args.paths))

    def show(row: dict[str, Any]) -> None:
        what = printable("; ".join(row["changes"]) or "unchanged")
        path = printable(row["path"])
        if "output" in row:
            print(f"{path} -> {printable(row['output'])}: {what}")
            return
        labels = Counter(part["part"] for part in row["outputs"])
        parts = ", ".join(plural(label, count) for label, count in labels.items())
        files = len({part["output"] for part in row["outputs"]})
        print(f"{path} -> {files} file{'s' if files != 1 else ''} ({parts}): {what}")

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
    document: dict[str, Any] = {"provider": provider, "model": args.model, "out": str(folder.out)}
    document["files"] = results
    if args.overwrite:
        document["replaced"] = _replace_previous(folder, previous, outputs)
    report = folder.out / REPORT
    try:
        text = json.dumps(document, indent=2) + "\n"
        folder.write(PurePosixPath(REPORT), text.encode("utf-8"), replace=args.overwrite)
    except (ItemError, OSError) as exc:
        print(
            f"mediablocks prepare: error: {printable(str(report))}: {for_shell(exc)}",
            file=sys.stderr,
        )
        return 1
    for line in _summary(results, failed, report, document.get("replaced")):
        print(printable(line), file=sys.stderr)
    return 1 if failed else 0
