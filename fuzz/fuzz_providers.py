"""Fuzz every decoder, every stream fold and `load_messages` with mutated real inputs.

Run by hand from the repository root (not in CI):

    PYTHONPATH=src python fuzz/fuzz_providers.py --inputs 5000 --seed 1

Prints, per target, the inputs tried, how many raised a library error (expected for broken input)
and the escapes: any other exception, or a run whose peak memory passed the kit's bound. Each
escape is written with its input to ``fuzz/escapes/`` so it can become a regression test. Exits 1
when anything escaped.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.providers.kit import (
    PROVIDERS,
    STREAMS,
    decode_target,
    fold_target,
    mutate_events,
    mutate_json,
    only_library_errors,
    payload_seeds,
    sample_history,
)

import mediablocks as mb

Target = tuple[str, Callable[[random.Random], tuple[Any, Callable[[], Any]]]]


def _decoder(provider: str) -> Target:
    seeds = payload_seeds(provider)

    def make(rng: random.Random) -> tuple[Any, Callable[[], Any]]:
        payload = mutate_json(rng.choice(seeds), rng)
        return payload, decode_target(provider, payload)

    return f"decode {provider}", make


def _fold(provider: str) -> Target:
    events = STREAMS[provider]

    def make(rng: random.Random) -> tuple[Any, Callable[[], Any]]:
        mutated = mutate_events(events, rng)
        return mutated, fold_target(provider, mutated)

    return f"fold {provider}", make


def _load_messages() -> Target:
    document = json.loads(mb.dump_messages(sample_history()))

    def make(rng: random.Random) -> tuple[Any, Callable[[], Any]]:
        mutated = mutate_json(document, rng)
        return mutated, lambda: mb.load_messages(mutated)

    return "load_messages", make


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=1000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    targets = [_decoder(p) for p in PROVIDERS] + [_fold(p) for p in PROVIDERS] + [_load_messages()]
    out_dir = Path(__file__).resolve().parent / "escapes"
    total_escapes = 0
    print(f"{'target':<26} {'inputs':>7} {'errors':>7} {'escapes':>8} {'seconds':>8}")
    for name, make in targets:
        rng = random.Random(f"{args.seed}:{name}")
        errors = escapes = 0
        started = time.perf_counter()
        for number in range(args.inputs):
            value, call = make(rng)
            try:
                if only_library_errors(call) is not None:
                    errors += 1
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
                escapes += 1
                out_dir.mkdir(exist_ok=True)
                path = out_dir / f"{name.replace(' ', '-')}-{number}.txt"
                path.write_text(repr(value)[:200_000] + "\n\n" + traceback.format_exc())
        seconds = time.perf_counter() - started
        total_escapes += escapes
        print(f"{name:<26} {args.inputs:>7} {errors:>7} {escapes:>8} {seconds:>8.1f}")
    print(f"escapes: {total_escapes}")
    return 1 if total_escapes else 0


if __name__ == "__main__":
    raise SystemExit(main())
