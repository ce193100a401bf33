"""Loading a stored history and estimating tokens after `decode`, against their floors (issue 21).

- ``load_messages`` of a text-heavy history (``--messages`` user/assistant turns of about 600 and
  1,200 characters, one tool call every tenth turn) from `dump_messages` text, against
  ``json.loads`` of the same text. Goal: at most 2x. Also printed: pydantic-core validating the
  same messages from JSON with the project's models as ``load_messages`` does (what the models
  cost) and with the Python-path union (`Message`, whose role discriminator is a Python
  function), the depth walk ``load_messages`` runs on the result, and a plain model of the same
  fields and no Python validators (what pydantic-core itself costs).
- ``estimate_tokens`` of messages fresh from ``mb.decode`` (images as base64 text), against the
  same call on the same blocks once their bytes are in memory. Goal: at most 1.5x.

Each figure is the best of the rounds in CPU seconds of this process (`time.process_time`): on a
shared machine, wall time counts the moments this process waited for a core.

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
from mediablocks._loading import check_loaded_depth
from mediablocks.messages import _messages_adapter, _stored_messages_adapter


def _best(
    cases: dict[str, Callable[[], Any]], rounds: int, setup: Callable[[], Any] | None = None
) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, run in cases.items():
            if setup is not None:
                setup()
            gc.collect()
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    return {name: min(values) for name, values in times.items()}


def _history(count: int) -> list[mb.Message]:
    out: list[mb.Message] = []
    for index in range(count):
        out.append(mb.UserMessage.text(f"question {index} " * 50))
        content: list[Any] = [mb.TextBlock(text=f"answer {index} " * 100)]
        if index % 10 == 3:
            content.append(mb.ToolCallBlock(id=f"call_{index}", name="f", args={"x": index}))
        out.append(mb.AssistantMessage(content=content))
    return out


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


def load_table(count: int, rounds: int) -> str:
    text = mb.dump_messages(_history(count))
    body = json.dumps(json.loads(text)["messages"])
    plain = TypeAdapter(list[_PlainMessage])
    stored = _stored_messages_adapter()
    loaded = stored.validate_json(body)
    best = _best(
        {
            "json.loads (floor)": lambda: json.loads(text),
            "mb.load_messages(text)": lambda: mb.load_messages(text),
            "pydantic-core, mediablocks models": lambda: stored.validate_json(body),
            "  same, Python-path union": lambda: _messages_adapter().validate_json(body),
            "  depth walk of the result": lambda: check_loaded_depth(loaded, "history", 1),
            "pydantic-core, plain models": lambda: plain.validate_json(body),
        },
        rounds,
    )
    floor = best["json.loads (floor)"]
    rows = [[name, f"{value * 1000:.2f}", f"{value / floor:.2f}x"] for name, value in best.items()]
    head = f"load_messages: {2 * count} messages, {len(text) / 1e6:.1f} MB of JSON; goal <= 2x"
    return head + "\n" + table(["case", "CPU ms (best)", "vs json.loads"], rows)


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
    parser.add_argument("--messages", type=int, default=1000, help="turn pairs")
    parser.add_argument("--images", type=int, default=6)
    args = parser.parse_args(argv)
    print(load_table(args.messages, args.rounds))
    print()
    print(tokens_table(args.images, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
