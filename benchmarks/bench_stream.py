"""Folding a streamed reply, against a bare loop that appends the text deltas (issue 21, goal 1).

For each provider a stream of ``--deltas`` text deltas (parsed SSE data, as plain dicts, framed
by the events the provider sends before and after) goes through ``mb.from_stream``; the floor is
a bare loop over the same events that appends each delta's text to a list and joins it at the
end, the least any fold must do. Each figure is the best of the rounds (the one least disturbed
by other work on the machine), in CPU seconds of this process; the ratio of medians is printed
beside it. Goal: ``from_stream`` at most 3x its floor (the depth limit
kept: the text deltas take the folds' fast path, every other event is checked).

Run from the repository root: ``PYTHONPATH=src python benchmarks/bench_stream.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Case, median, milliseconds, table

import mediablocks as mb

GOAL = 3.0


def _anthropic(n: int) -> tuple[list[Any], Callable[[Any], str]]:
    start = {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 9}}
    events: list[Any] = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}
        for w in _words(n)
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": n},
        },
        {"type": "message_stop"},
    ]

    def floor(events: Any) -> str:
        pieces = []
        for event in events:
            if event["type"] == "content_block_delta":
                pieces.append(event["delta"]["text"])
        return "".join(pieces)

    return events, floor


def _openai_chat(n: int) -> tuple[list[Any], Callable[[Any], str]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt",
            "system_fingerprint": "fp",
            "choices": [choice],
        }

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"content": w}) for w in _words(n)]
    events.append(chunk({}, "stop"))

    def floor(events: Any) -> str:
        pieces = []
        for event in events:
            for choice in event["choices"]:
                content = choice["delta"].get("content")
                if content:
                    pieces.append(content)
        return "".join(pieces)

    return events, floor


def _responses(n: int) -> tuple[list[Any], Callable[[Any], str]]:
    item = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    part = {"type": "output_text", "text": "", "annotations": []}
    response = {"id": "resp_1", "model": "gpt", "status": "in_progress", "output": []}
    events: list[Any] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "item_id": "msg_1",
            "part": part,
        },
    ]
    events += [
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": w,
            "sequence_number": i,
        }
        for i, w in enumerate(_words(n))
    ]
    events.append({"type": "response.completed", "response": {**response, "status": "completed"}})

    def floor(events: Any) -> str:
        pieces = []
        for event in events:
            if event["type"] == "response.output_text.delta":
                pieces.append(event["delta"])
        return "".join(pieces)

    return events, floor


def _gemini(n: int) -> tuple[list[Any], Callable[[Any], str]]:
    def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
        if finish:
            candidate["finishReason"] = finish
        usage = {
            "promptTokenCount": 9,
            "totalTokenCount": 9,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
        }
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "gemini",
            "responseId": "r1",
        }

    events = [chunk(w) for w in _words(n)]
    events.append(chunk("", "STOP"))

    def floor(events: Any) -> str:
        pieces = []
        for event in events:
            for part in event["candidates"][0]["content"]["parts"]:
                pieces.append(part["text"])
        return "".join(pieces)

    return events, floor


def _bedrock(n: int) -> tuple[list[Any], Callable[[Any], str]]:
    events: list[Any] = [{"messageStart": {"role": "assistant"}}]
    events += [
        {"contentBlockDelta": {"delta": {"text": w}, "contentBlockIndex": 0}} for w in _words(n)
    ]
    events += [
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 9, "outputTokens": n}, "metrics": {"latencyMs": 1}}},
    ]

    def floor(events: Any) -> str:
        pieces = []
        for event in events:
            if "contentBlockDelta" in event:
                pieces.append(event["contentBlockDelta"]["delta"]["text"])
        return "".join(pieces)

    return events, floor


def _ollama(n: int) -> tuple[list[Any], Callable[[Any], str]]:
    def chunk(text: str, done: bool = False) -> dict[str, Any]:
        message = {"role": "assistant", "content": text}
        return {
            "model": "llama",
            "created_at": "2026-01-01T00:00:00Z",
            "message": message,
            "done": done,
        }

    events = [chunk(w) for w in _words(n)]
    events.append({**chunk(""), "done": True, "done_reason": "stop", "eval_count": n})

    def floor(events: Any) -> str:
        pieces = []
        for event in events:
            pieces.append(event["message"]["content"])
        return "".join(pieces)

    return events, floor


PROVIDERS = {
    "anthropic": _anthropic,
    "openai-chat": _openai_chat,
    "openai-responses": _responses,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "ollama": _ollama,
}


def _words(n: int) -> list[str]:
    return [f"word{i} " for i in range(n)]


def cases(deltas: int) -> list[tuple[str, Case, Case]]:
    out = []
    for provider, make in PROVIDERS.items():
        events, floor = make(deltas)
        expected = floor(events)

        def check(message: Any, expected: str = expected) -> None:
            assert message.text == expected, "the fold must give the whole text"

        def ours(_: Any, events: list[Any] = events, provider: str = provider) -> Any:
            return mb.from_stream(events, provider)

        out.append(
            (
                provider,
                Case(f"{provider} floor", lambda _, events=events, floor=floor: floor(events)),
                Case(f"{provider} from_stream", ours, check=check),
            )
        )
    return out


def _measure_cpu(cases: list[Case], rounds: int) -> None:
    """Fill each case's ``times`` with CPU seconds (`time.process_time`), rounds interleaved.

    CPU time, not wall time: on a machine shared with other work, wall time counts the moments
    this process waited for a core, which moves a few-millisecond run by several times.
    """
    for case in cases:  # warm-up (lazy imports, first-call caches) and the check
        result = case.run(None)
        if case.check is not None:
            case.check(result)
    order = list(cases)
    shuffle = random.Random(2024).shuffle
    for _ in range(rounds):
        shuffle(order)
        for case in order:
            gc.collect()
            start = time.process_time()
            case.run(None)
            case.times.append(time.process_time() - start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--deltas", type=int, default=5000)
    args = parser.parse_args(argv)
    triples = cases(args.deltas)
    _measure_cpu([case for _, floor, ours in triples for case in (floor, ours)], args.rounds)
    rows = []
    for provider, floor, ours in triples:
        if ours.error is not None:
            rows.append([provider, "", ours.error[:60], "", ""])
            continue
        ratio = min(ours.times) / min(floor.times)
        rows.append(
            [
                provider,
                milliseconds(min(floor.times)),
                milliseconds(min(ours.times)),
                f"{ratio:.2f}x",
                f"{median(ours) / median(floor):.2f}x",
                f"<= {GOAL:.0f}x {'met' if ratio <= GOAL else 'MISSED'}",
            ]
        )
    print(f"{args.deltas} text deltas as dicts, {args.rounds} interleaved rounds")
    headers = ["stream", "floor ms", "from_stream ms", "ratio (best)", "ratio (median)", "goal"]
    print(table(headers, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
