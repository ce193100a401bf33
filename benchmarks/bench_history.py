"""Loading a stored history and estimating tokens after `decode`, against their floors (issue 21).

- ``load_messages`` of a stored history from `dump_messages` text, against ``json.loads`` of the
  same text, at each of ``--sizes`` (megabytes of JSON; 2 and 33 by default). The history mixes
  what agents keep: user and assistant turns of about 600 and 1,200 characters, a JPEG (made by
  Pillow, about 30 KB) in every fourth user turn, a tool call every tenth assistant turn answered
  by a tool message whose result holds text and, every other time, an image. Goal: at most 2x at
  every size (the ratio must not grow with the size). Also printed: ``load_history`` of the same
  text, pydantic-core validating the same messages from JSON with the project's models as
  ``load_messages`` does (what the models cost, freezing included), and a plain model of the
  same fields and no Python validators (what pydantic-core itself costs), each against
  ``json.loads``.
- ``estimate_tokens`` of messages fresh from ``mb.decode`` (images as base64 text), against the
  same call on the same blocks once their bytes are in memory. Goal: at most 1.5x.

Each figure is the best of the rounds in CPU seconds of this process (`time.process_time`): on a
shared machine, wall time counts the moments this process waited for a core. What a call returns
is freed after the clock stops (for the floor too): freeing a large result is not the call.
The cases run in a new shuffled order each round: whether a call finds the allocator's memory
warm or must fault in fresh pages depends on what the case before it freed, and that swings a
case's time by a third or more; a fixed order would give one case the bad neighbour every time.

Run from the repository root: ``PYTHONPATH=src python benchmarks/bench_history.py``.
"""

from __future__ import annotations

import argparse
import base64
import gc
import io
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import table
from pydantic import BaseModel, TypeAdapter

import mediablocks as mb
from mediablocks.message_json import _stored_messages_adapter


def _best(cases: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    order = list(cases)
    shuffle = random.Random(2026).shuffle
    for _ in range(rounds):
        shuffle(order)  # no case always runs after the same neighbour (see the docstring)
        for name in order:
            run = cases[name]
            gc.collect()
            start = time.process_time()
            result = run()
            times[name].append(time.process_time() - start)
            del result  # freed after the clock stops: the call is timed, not freeing its result
    return {name: min(values) for name, values in times.items()}


def _jpegs(count: int) -> list[bytes]:
    """Real JPEGs of noise (about 30 KB each), so base64 media make a good part of the history."""
    from PIL import Image

    rng = random.Random(7)
    out = []
    for _ in range(count):
        buffer = io.BytesIO()
        Image.frombytes("RGB", (128, 128), rng.randbytes(128 * 128 * 3)).save(buffer, "JPEG")
        out.append(buffer.getvalue())
    return out


def _history(pairs: int, images: Sequence[bytes]) -> list[mb.Message]:
    """``pairs`` user/assistant turns of text, images, tool calls and tool results."""
    out: list[mb.Message] = []
    for index in range(pairs):
        user: list[Any] = [mb.TextBlock(text=f"question {index} " * 50)]
        if index % 4 == 0:
            user.append(mb.ImageBlock.from_bytes(images[index % len(images)]))
        out.append(mb.UserMessage(content=user))
        content: list[Any] = [mb.TextBlock(text=f"answer {index} " * 100)]
        if index % 10 != 3:
            out.append(mb.AssistantMessage(content=content, stop_reason="end_turn"))
            continue
        call = mb.ToolCallBlock(id=f"call_{index}", name="f", args={"x": index, "q": ["a", 1]})
        out.append(mb.AssistantMessage(content=[*content, call], stop_reason="tool_use"))
        result: list[Any] = [mb.TextBlock(text=f"result {index} " * 20)]
        if index % 20 == 3:
            result.append(mb.ImageBlock.from_bytes(images[(index + 1) % len(images)]))
        block = mb.ToolResultBlock(tool_call_id=call.id, name="f", content=result)
        out.append(mb.ToolMessage(content=[block]))
    return out


def _history_of_size(megabytes: float) -> list[mb.Message]:
    """A history whose `dump_messages` text is about ``megabytes`` MB."""
    images = _jpegs(8)
    sample = 200
    per_pair = len(mb.dump_messages(_history(sample, images))) / sample
    return _history(max(1, round(megabytes * 1e6 / per_pair)), images)


class _PlainText(BaseModel):
    provider_data: dict[str, dict[str, Any]] = {}
    type: Literal["text"] = "text"
    text: str
    annotations: list[dict[str, Any]] = []


class _PlainMessage(BaseModel):
    model_config = {"extra": "ignore"}
    id: str
    timestamp: datetime
    content: list[dict[str, Any]] = []
    metadata: dict[str, Any] = {}
    role: str


def load_table(megabytes: float, rounds: int) -> str:
    messages = _history_of_size(megabytes)
    text = mb.dump_messages(messages)
    body = json.dumps(json.loads(text)["messages"])
    plain = TypeAdapter(list[_PlainMessage])
    stored = _stored_messages_adapter()
    best = _best(
        {
            "json.loads (floor)": lambda: json.loads(text),
            "mb.load_messages(text)": lambda: mb.load_messages(text),
            "mb.load_history(text)": lambda: mb.load_history(text),
            "pydantic-core, mediablocks models": lambda: stored.validate_json(body),
            "pydantic-core, plain models": lambda: plain.validate_json(body),
        },
        rounds,
    )
    assert mb.load_messages(text) == messages
    floor = best["json.loads (floor)"]
    rows = [[name, f"{value * 1000:.2f}", f"{value / floor:.2f}x"] for name, value in best.items()]
    head = (
        f"load_messages: {len(messages)} messages, {len(text) / 1e6:.1f} MB of JSON "
        f"({_media_share(json.loads(text)):.0%} of it base64 media); goal <= 2x"
    )
    return head + "\n" + table(["case", "CPU ms (best)", "vs json.loads"], rows)


def _media_share(document: dict[str, Any]) -> float:
    """How much of the document's text is base64 media."""
    total = 0

    def walk(node: Any) -> None:
        nonlocal total
        if isinstance(node, dict):
            if node.get("kind") == "bytes" and isinstance(node.get("data"), str):
                total += len(node["data"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(document)
    return total / len(json.dumps(document))


def _image_payload(images: int) -> list[dict[str, Any]]:
    from PIL import Image

    rng = random.Random(1)
    content: list[dict[str, Any]] = [{"type": "text", "text": "what is in these?"}]
    for index in range(images):
        out = io.BytesIO()
        pixels = rng.randbytes(800 * 800 * 3)
        Image.frombytes("RGB", (800, 800), pixels).save(out, "PNG" if index % 3 == 2 else "JPEG")
        media_type = "image/png" if index % 3 == 2 else "image/jpeg"
        data = base64.b64encode(out.getvalue()).decode()
        source = {"type": "base64", "media_type": media_type, "data": data}
        content.append({"type": "image", "source": source})
    return [{"role": "user", "content": content}]


def tokens_table(images: int, rounds: int) -> str:
    payload = _image_payload(images)
    in_memory = mb.decode(payload, "anthropic")
    for message in in_memory:
        for block in message.media:
            block.read()
    fresh: list[Any] = []

    def decode() -> None:
        fresh[:] = mb.decode(payload, "anthropic")

    times = {"in memory (floor)": [], "right after decode": []}
    for _ in range(rounds):
        decode()
        gc.collect()
        start = time.process_time()
        after = mb.estimate_tokens(fresh, "anthropic")
        times["right after decode"].append(time.process_time() - start)
        start = time.process_time()
        floor_count = mb.estimate_tokens(in_memory, "anthropic")
        times["in memory (floor)"].append(time.process_time() - start)
        assert after == floor_count
    floor = min(times["in memory (floor)"])
    rows = [[name, f"{min(v) * 1000:.3f}", f"{min(v) / floor:.2f}x"] for name, v in times.items()]
    head = (
        f"estimate_tokens(messages, 'anthropic'): {images} base64 images of about 1 MB; "
        "goal <= 1.5x"
    )
    return head + "\n" + table(["case", "CPU ms (best)", "vs in memory"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--sizes", default="2,33", help="history sizes to load, in MB of JSON (comma-separated)"
    )
    parser.add_argument("--images", type=int, default=6)
    args = parser.parse_args(argv)
    for size in args.sizes.split(","):
        rounds = args.rounds if float(size) < 10 else max(3, args.rounds // 3)
        print(load_table(float(size), rounds))
        print()
    print(tokens_table(args.images, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
