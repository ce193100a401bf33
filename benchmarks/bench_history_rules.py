"""What the history rules and frozen messages cost on the everyday path, as ratios in one run.

- ``check_sendable`` (empty tool ids and names, documented length limits; run by every
  `mb.encode`) against `mb.encode` of the same history: goal <= 5% of encode.
- `mb.validate` with ``tools=`` against `mb.validate` without: reported.

The history is text-heavy: N turns of user text, assistant text (accented, so not ASCII) with a
tool call, and its tool result. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_history_rules.py [--turns 1000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import mediablocks as mb
from mediablocks.providers._sendable import check_sendable


def _history(turns: int) -> list[mb.Message]:
    history: list[mb.Message] = []
    for i in range(turns):
        history.append(mb.UserMessage(content=f"question {i} " * 20))
        history.append(
            mb.AssistantMessage(
                content=[
                    mb.TextBlock(text=f"réponse {i} " * 30),
                    mb.ToolCallBlock(id=f"call_{i}", name="lookup", args={"q": i}),
                ]
            )
        )
        history.append(mb.ToolMessage.from_result(f"call_{i}", "found", name="lookup"))
    return history


def _best(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    history = _history(args.turns)
    print(f"{len(history)} messages, best of {args.repeat}")
    for provider in ("openai", "anthropic", "bedrock"):
        encode = _best(lambda p=provider: mb.encode(history, p), args.repeat)
        check = _best(lambda p=provider: check_sendable(history, p), args.repeat)
        print(
            f"  {provider:10} encode {encode * 1000:7.1f} ms   check_sendable "
            f"{check * 1000:6.2f} ms   = {check / encode:5.1%} of encode (goal <= 5%)"
        )
    tool = mb.Tool(name="lookup", description="d", parameters={"type": "object"})
    without = _best(lambda: mb.validate(history, "anthropic"), 3)
    with_tools = _best(lambda: mb.validate(history, "anthropic", tools=[tool]), 3)
    print(f"  validate: {without * 1000:.1f} ms, with tools= {with_tools / without:.2f}x")


if __name__ == "__main__":
    main()
