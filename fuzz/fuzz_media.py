"""Fuzz the media entry points with mutated real files: only `MediaBlocksError` may escape.

Run by hand (not by the test suite or CI), from the repository root:

    python fuzz/fuzz_media.py [--inputs N] [--seed S] [--targets a,b] [--memory-mb M]

Every file of ``testdata/`` (``manifest.json``) is a seed. Each input is one seed mutated a few
times: cut short, bytes flipped, a 4-byte field overwritten with an extreme value (0, 1, 2**31-1,
2**32-1...: where sizes and counts live), bytes inserted or deleted, or spliced with another seed.
Each target gets ``--inputs`` inputs:

- ``detect_mime``: `mb.detect_mime` on the bytes; must return a str or None;
- ``probe_bytes``: `mb.probe_bytes`, with and without the seed's MIME type;
- ``data_uri``: the bytes as a data URI and bare base64 (both also mutated as text) through
  `mb.parse_data_uri`, `MediaBlock.from_data_uri`, `from_base64` and `mb.media_block`;
- ``estimate_tokens``: `mb.estimate_tokens` of `mb.media_block(bytes)` for every provider;
- ``path``: the bytes written to a file, then `mb.media_block(path)`, `read_header`, `read`
  and `mb.probe` on the block.

An *escape* is any exception that is not a `MediaBlocksError` (a `MemoryError` included: the
process's address space is capped at ``--memory-mb``, so allocating by a size read from a header
shows up). The script prints inputs tried and escapes per target, and the first escapes of each
kind with the input that caused them (saved under ``fuzz/escapes/`` for replay). Exit status 1 if
anything escaped.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import mediablocks as mb

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
ESCAPES = Path(__file__).resolve().parent / "escapes"
PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
)
EXTREMES = (0, 1, 0x7F, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


def load_seeds() -> list[tuple[str, bytes, str | None]]:
    manifest = json.loads((TESTDATA / "manifest.json").read_text())
    seeds = []
    for path, entry in sorted(manifest.items()):
        data = (TESTDATA / path).read_bytes()
        if len(data) <= 2 * 1024 * 1024:
            seeds.append((path, data, entry.get("mime")))
    return seeds


def mutate(data: bytes, rng: random.Random, seeds: list[tuple[str, bytes, str | None]]) -> bytes:
    """One to four mutations, biased towards the header where parsers make their decisions."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        where = _position(out, rng)
        kind = rng.randrange(6)
        if kind == 0 and out:  # cut short
            del out[where:]
        elif kind == 1 and out:  # flip bytes
            for _ in range(rng.randint(1, 8)):
                out[_position(out, rng)] = rng.randrange(256)
        elif kind == 2 and len(out) >= 4:  # a size or count field set to an extreme
            value = rng.choice(EXTREMES)
            order = rng.choice(("big", "little"))
            where = min(where, len(out) - 4)
            out[where : where + 4] = value.to_bytes(4, order)
        elif kind == 3:  # insert bytes
            out[where:where] = rng.randbytes(rng.randint(1, 64))
        elif kind == 4 and out:  # delete bytes
            del out[where : where + rng.randint(1, 64)]
        else:  # splice with another seed
            other = rng.choice(seeds)[1]
            cut = _position(bytearray(other), rng)
            out = out[:where] + bytearray(other[cut:])
    return bytes(out)


def _position(buf: bytearray, rng: random.Random) -> int:
    if not buf:
        return 0
    if rng.random() < 0.7:
        return rng.randrange(min(len(buf), 512))
    return rng.randrange(len(buf))


def mutate_text(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        where = rng.randrange(len(chars) + 1)
        choice = rng.randrange(4)
        if choice == 0:
            del chars[where:]
        elif choice == 1 and chars:
            chars[min(where, len(chars) - 1)] = rng.choice("=,;:%$*-_/+ \n\x00é\ud800")
        elif choice == 2:
            chars[where:where] = rng.choice([";base64", ",", "data:", "%2", "==", ";name=x"])
        elif chars:
            del chars[where : where + rng.randint(1, 8)]
    return "".join(chars)


# -- targets ---------------------------------------------------------------------------------------


def t_detect_mime(data: bytes, mime: str | None, rng: random.Random, scratch: Path) -> None:
    answer = mb.detect_mime(data)
    if answer is not None and not isinstance(answer, str):
        raise AssertionError(f"detect_mime returned {answer!r}")


def t_probe_bytes(data: bytes, mime: str | None, rng: random.Random, scratch: Path) -> None:
    mb.probe_bytes(data)
    if mime:
        mb.probe_bytes(data, mime)


def t_data_uri(data: bytes, mime: str | None, rng: random.Random, scratch: Path) -> None:
    encoded = base64.b64encode(data).decode("ascii")
    uri = f"data:{mime or 'application/octet-stream'};base64,{encoded}"
    if rng.random() < 0.5:
        uri = mutate_text(uri, rng)
        encoded = mutate_text(encoded, rng)
    calls: list[Callable[[], object]] = [
        lambda: mb.parse_data_uri(uri),
        lambda: mb.MediaBlock.from_data_uri(uri),
        lambda: mb.ImageBlock.from_data_uri(uri),
        lambda: mb.FileBlock.from_base64(encoded),
        lambda: mb.AudioBlock.from_base64(uri),
        lambda: mb.media_block(uri),
    ]
    for call in calls:
        with contextlib.suppress(mb.MediaBlocksError):
            call()


def t_estimate_tokens(data: bytes, mime: str | None, rng: random.Random, scratch: Path) -> None:
    block = mb.media_block(data)
    for provider in PROVIDERS:
        with contextlib.suppress(mb.MediaBlocksError):
            mb.estimate_tokens(block, provider)


def t_path(data: bytes, mime: str | None, rng: random.Random, scratch: Path) -> None:
    path = scratch / f"input{rng.randrange(4)}"
    path.write_bytes(data)
    block = mb.media_block(path)
    block.read_header(rng.choice((1, 16, 4096, 70_000)))
    with contextlib.suppress(mb.MediaBlocksError):
        mb.probe(block)
    block.read(mb.FetchPolicy(max_path_bytes=max(1, len(data) + rng.randint(-8, 8))))


TARGETS: dict[str, Callable[[bytes, str | None, random.Random, Path], None]] = {
    "detect_mime": t_detect_mime,
    "probe_bytes": t_probe_bytes,
    "data_uri": t_data_uri,
    "estimate_tokens": t_estimate_tokens,
    "path": t_path,
}


def cap_memory(megabytes: int) -> None:
    try:
        import resource
    except ImportError:  # not on this platform: run uncapped
        return
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--inputs", type=int, default=5000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--memory-mb", type=int, default=2048, help="address-space cap (Linux)")
    args = parser.parse_args(argv)
    seeds = load_seeds()
    cap_memory(args.memory_mb)
    tried: Counter[str] = Counter()
    escaped: Counter[str] = Counter()
    first: dict[tuple[str, str], str] = {}
    ESCAPES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        for name in args.targets.split(","):
            target = TARGETS[name]
            rng = random.Random(f"{args.seed}:{name}")
            started = time.perf_counter()
            for index in range(args.inputs):
                path, seed, mime = rng.choice(seeds)
                data = mutate(seed, rng, seeds)
                tried[name] += 1
                try:
                    target(data, mime, rng, scratch)
                except mb.MediaBlocksError:
                    pass
                except BaseException as exc:
                    if isinstance(exc, KeyboardInterrupt):
                        raise
                    escaped[name] += 1
                    key = (name, f"{type(exc).__name__}: {str(exc)[:80]}")
                    if key not in first:
                        saved = ESCAPES / f"{name}-{index}.bin"
                        saved.write_bytes(data)
                        first[key] = f"seed {path}, saved {saved.relative_to(ROOT)}\n" + "".join(
                            traceback.format_exception(exc)[-3:]
                        )
            seconds = time.perf_counter() - started
            counts = f"inputs {tried[name]:6d}  escapes {escaped[name]:4d}"
            print(f"{name:16s} {counts}  {seconds:6.1f} s")
            sys.stdout.flush()
    for (name, kind), where in first.items():
        print(f"\n[{name}] {kind}\n  {where}")
    if not escaped:
        print("\nescapes: 0")
    with_escapes = [name for name in TARGETS if escaped[name]]
    if not with_escapes and ESCAPES.exists() and not any(ESCAPES.iterdir()):
        ESCAPES.rmdir()
    return 1 if escaped else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
