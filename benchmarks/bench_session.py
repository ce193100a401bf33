"""`mb.fit_session` on a 200-turn browser-agent history, for every provider.

The history: a system prompt, a task, then 200 turns of an assistant tool call and a tool result
holding a 1280x800 PNG screenshot (lines of word-like boxes and a noisy photo, drawn with
Pillow: about 230 KB each, like a real page's screenshot). Each
provider's fit uses ``keep_last_media=4``, ``max_tokens=40_000`` and a `MemoryMediaStore`.

Printed per provider: the token estimate before and after, the media kept whole, what the others
became, the JSON request body before (when the provider takes it at all) and after, and the fit
time: cold (the first fit decodes every screenshot that becomes a thumbnail) and warm (median of
the next runs, thumbnails remembered), against the time `encode_json` takes for the fitted
history in the same run. Then, for Anthropic, how much of the request stays byte for byte the
same when one turn is appended, over 24 appended turns (the prompt-cache check).

Run from the repository root::

    python benchmarks/bench_session.py
    python benchmarks/bench_session.py --turns 200 --rounds 5
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import mediablocks as mb
from mediablocks.history import thumbnails
from mediablocks.providers._options import PROVIDERS

KEEP, BUDGET = 4, 40_000


def screenshot(number: int) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1280, 800), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    rows = random.Random(number)
    for row in range(28):  # lines of "words": dark boxes of random widths
        top, left = 20 + row * 27, 24
        while left < rows.randint(300, 1240):
            width = rows.randint(12, 70)
            draw.rectangle((left, top, left + width, top + 11), fill=(rows.randint(0, 80),) * 3)
            left += width + 8
    draw.rectangle((0, 0, 1279, 12), fill=(number % 256, 90, 200))
    photo = Image.effect_noise((360, 240), 48).convert("RGB")  # a photo on the page
    image.paste(photo, (880, 420))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def history(turns: int) -> list[mb.Message]:
    out: list[mb.Message] = [
        mb.SystemMessage(content=[mb.TextBlock(text="You drive a web browser.")]),
        mb.UserMessage.text("Find the cheapest flight to Lisbon next Friday."),
    ]
    for number in range(turns):
        call = mb.ToolCallBlock(id=f"c{number}", name="computer", args={"action": "screenshot"})
        shot = mb.ImageBlock.from_bytes(screenshot(number))
        out.append(mb.AssistantMessage(content=[mb.TextBlock(text=f"Step {number}."), call]))
        out.append(
            mb.ToolMessage(content=[mb.ToolResultBlock(tool_call_id=call.id, content=[shot])])
        )
    return out


def body_size(messages: list[mb.Message], provider: str) -> str:
    try:
        return f"{len(mb.encode_json(messages, provider, model='m', max_tokens=100)) / 1e6:.2f}"
    except mb.MediaBlocksError:
        return "refused"


def timed(call: object) -> float:
    start = time.perf_counter()
    call()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    full = history(args.turns)
    raw = sum(len(m.content[0].content[0].read()) for m in full[3::2])  # type: ignore[union-attr]
    print(
        f"fit_session: {args.turns} turns, {args.turns} PNG screenshots of 1280x800 "
        f"({raw / 1e6:.1f} MB), keep_last_media={KEEP}, max_tokens={BUDGET:,}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  {'provider':<18} {'tokens before':>13} {'after':>7} {'kept':>4} "
        f"{'thumb/ref':>9} {'MB before':>9} {'after':>6} {'cold s':>7} {'(CPU)':>6} "
        f"{'warm s':>7} {'encode s':>8}"
    )
    for provider in PROVIDERS:
        thumbnails._cache.clear()  # every provider's cold fit decodes its thumbnails again
        store = mb.MemoryMediaStore()

        def fit(provider: str = provider, store: mb.MemoryMediaStore = store) -> mb.FittedSession:
            return mb.fit_session(
                full, provider, keep_last_media=KEEP, max_tokens=BUDGET, store=store
            )

        try:
            cpu = time.process_time()
            cold = timed(fit)
            cold_cpu = time.process_time() - cpu
        except mb.DoesNotFitError as exc:
            print(f"  {provider:<18} over the budget: {str(exc).split(';')[0]}")
            continue
        warm = statistics.median(timed(fit) for _ in range(args.rounds))
        fitted = fit()

        def send(fitted: list[mb.Message] = fitted, provider: str = provider) -> bytes:
            return mb.encode_json(fitted, provider, model="m", max_tokens=100)

        encode = statistics.median(timed(send) for _ in range(args.rounds))
        report = fitted.report
        became = Counter(e.became for e in report.evicted)
        print(
            f"  {provider:<18} {report.tokens_before:>13,} {report.tokens_after:>7,} "
            f"{report.kept:>4} {became['thumbnail']:>4}/{became['reference']:<4} "
            f"{body_size(full, provider):>9} {body_size(fitted, provider):>6} "
            f"{cold:7.2f} {cold_cpu:6.2f} {warm:7.3f} {encode:8.3f}"
        )
    same = changed = 0
    previous: list[object] | None = None
    for end in range(len(full) - 48, len(full) + 1, 2):
        fitted = mb.fit_session(full[:end], "anthropic", keep_last_media=KEEP)
        messages = json.loads(mb.encode_json(fitted, "anthropic", model="m", max_tokens=9))[
            "messages"
        ]
        if previous is not None:
            if messages[: len(previous)] == previous:
                same += 1
            else:
                changed += 1
        previous = messages
    print(
        f"  appending one turn at a time ({same + changed} appends, anthropic, step 8): the "
        f"earlier request unchanged {same} times, rewritten {changed} times"
    )


if __name__ == "__main__":
    main()
