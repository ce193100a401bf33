"""MIME detection: accuracy on testdata/ and cost per call, against filetype, puremagic, libmagic.

Every file listed in ``testdata/manifest.json`` is read into memory once; each library is then
asked about the file's bytes (the whole file, as a caller holding the bytes would pass them):

- mediablocks: ``mb.detect_mime(data)``
- filetype: ``filetype.guess_mime(data)``
- puremagic: ``puremagic.from_string(data, mime=True)`` (``PureError`` means "no answer")
- python-magic (libmagic): ``magic.from_buffer(data, mime=True)``

A library that is not installed gets a "not installed" row (see benchmarks/requirements.txt).

**Accuracy.** An answer is correct when, after ``mb.normalize_mime`` and the small
``EQUIVALENT`` table below (spellings of the same type that our alias table does not carry), it
equals the manifest's ``mime``. Where the manifest says ``null`` (empty, random or junk bytes) the
correct answer is no answer: ``None``, an empty string, ``application/octet-stream`` or libmagic's
``application/x-empty``.

"strict" is that share over every file; "strict, type clear" over the files whose manifest type
is not ``null`` (the figure issue 20 asks for).

**Cost.** For each file and library, calls are timed with ``time.perf_counter_ns`` in batches of
``--batch`` calls, ``--rounds`` batches per file, libraries interleaved within each round; the
per-call cost of a file is the median batch divided by the batch size, and the table shows the
median over all files (and the 90th percentile), with the ratio to filetype's median.

Run from the repository root:

    python benchmarks/bench_mime.py [--rounds N] [--batch N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _common import table

import mediablocks as mb
from mediablocks.mime import detect_mime, normalize_mime

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
NO_ANSWER = frozenset({"", "application/octet-stream", "application/x-empty", "inode/x-empty"})
# Other libraries' names for a type that mediablocks spells differently and normalize_mime does
# not map (they are not aliases in the wild, so they stay out of mediablocks' own table).
EQUIVALENT = {
    "audio/vnd.dolby.dd-raw": "audio/ac3",  # libmagic's name for AC-3
    "image/x-j2c": "image/x-jp2-codestream",
    "application/x-ms-wmv": "video/x-ms-wmv",
}

Detector = Callable[[bytes], "str | None"]


@dataclass
class Library:
    name: str
    version: str
    detect: Detector | None
    per_file_ns: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    correct: int = 0
    correct_clear: int = 0  # correct on files whose manifest type is not null
    clear: int = 0  # files whose manifest type is not null


def _libraries() -> list[Library]:
    libraries = [Library("mediablocks", mb.__version__, detect_mime)]
    try:
        import filetype

        libraries.append(Library("filetype", filetype.__version__, filetype.guess_mime))
    except ImportError:
        libraries.append(Library("filetype", "", None))
    try:
        import puremagic

        def by_puremagic(data: bytes) -> str | None:
            try:
                answer: str = puremagic.from_string(data, mime=True)
            except (puremagic.PureError, ValueError):  # ValueError: empty input
                return None
            return answer

        libraries.append(Library("puremagic", puremagic.__version__, by_puremagic))
    except ImportError:
        libraries.append(Library("puremagic", "", None))
    try:
        import magic

        def by_libmagic(data: bytes) -> str | None:
            answer: str = magic.from_buffer(data, mime=True)
            return answer

        version = f"libmagic {magic.version()}" if hasattr(magic, "version") else "?"
        libraries.append(Library("python-magic", version, by_libmagic))
    except ImportError:
        libraries.append(Library("python-magic", "", None))
    return libraries


def canonical(answer: str | None) -> str | None:
    """A library's answer in mediablocks' spelling; None for "no answer"."""
    if answer is None or answer.strip().lower() in NO_ANSWER:
        return None
    try:
        mime = normalize_mime(answer)
    except ValueError:
        return answer
    return EQUIVALENT.get(mime, mime)


def _per_call_ns(detect: Detector, data: bytes, batch: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(batch):
        detect(data)
    return (time.perf_counter_ns() - start) / batch


def run(rounds: int, batch: int) -> tuple[list[Library], int]:
    manifest = json.loads((TESTDATA / "manifest.json").read_text())
    files = {path: (TESTDATA / path).read_bytes() for path in sorted(manifest)}
    libraries = _libraries()
    for path, data in files.items():
        expected = manifest[path]["mime"]
        samples: dict[str, list[float]] = {lib.name: [] for lib in libraries}
        for lib in libraries:
            if lib.detect is None:
                continue
            answer = canonical(lib.detect(data))
            if answer == expected:
                lib.correct += 1
                lib.correct_clear += expected is not None
            else:
                lib.wrong.append(f"{path}: expected {expected}, got {answer}")
        for _ in range(rounds):
            for lib in libraries:
                if lib.detect is not None:
                    samples[lib.name].append(_per_call_ns(lib.detect, data, batch))
        for lib in libraries:
            if lib.detect is not None:
                lib.per_file_ns.append(statistics.median(samples[lib.name]))
    clear = sum(entry["mime"] is not None for entry in manifest.values())
    for lib in libraries:
        lib.clear = clear
    return libraries, len(files)


def report(libraries: Sequence[Library], total: int) -> str:
    baseline = next((lib for lib in libraries if lib.name == "filetype" and lib.per_file_ns), None)
    base_median = statistics.median(baseline.per_file_ns) if baseline else None
    rows = []
    for lib in libraries:
        if lib.detect is None:
            rows.append([lib.name, "not installed", "", "", "", "", "", ""])
            continue
        cost = statistics.median(lib.per_file_ns)
        p90 = statistics.quantiles(lib.per_file_ns, n=10)[-1]
        ratio = f"{cost / base_median:.2f}x" if base_median else ""
        rows.append(
            [
                lib.name,
                lib.version,
                f"{lib.correct}/{total}",
                f"{100 * lib.correct / total:.1f}%",
                f"{100 * lib.correct_clear / max(1, lib.clear):.1f}%",
                f"{cost / 1000:.2f}",
                f"{p90 / 1000:.2f}",
                ratio,
            ]
        )
    headers = [
        "library",
        "version",
        "correct",
        "strict",
        "strict, type clear",
        "median us",
        "p90 us",
        "vs filetype",
    ]
    lines = [table(headers, rows), ""]
    for lib in libraries:
        if lib.detect is None:
            continue
        shown = lib.wrong if lib.name == "mediablocks" else lib.wrong[:12]
        more = len(lib.wrong) - len(shown)
        lines.append(f"{lib.name} wrong on {len(lib.wrong)} file(s):")
        lines += [f"  {line}" for line in shown]
        if more:
            lines.append(f"  ... and {more} more")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=9, help="timed batches per file")
    parser.add_argument("--batch", type=int, default=10, help="calls per timed batch")
    args = parser.parse_args(argv)
    libraries, total = run(args.rounds, args.batch)
    print(f"MIME detection on {total} files of testdata/ (manifest.json)\n")
    print(report(libraries, total))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
