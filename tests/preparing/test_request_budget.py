"""The request budget arithmetic: what is left for images and how they share it."""

from __future__ import annotations

from mediablocks.blocks import TextBlock
from mediablocks.messages import UserMessage
from mediablocks.preparing.budget import (
    REQUEST_RESERVE,
    image_budget,
    raw_within,
    text_bytes,
    water_level,
)
from mediablocks.providers.registry import limits_for


def test_water_level_cuts_only_the_largest() -> None:
    sizes = [100, 50, 10]
    cap = water_level(sizes, 120)
    assert cap == 60  # 120 - 50 - 10: only the largest is cut, the others stay whole
    assert sum(min(size, cap) for size in sizes) == 120
    assert water_level([100, 50, 10], 90) == 40  # now the two largest: 40 + 40 + 10
    assert water_level([40, 40, 40], 90) == 30
    assert water_level([10, 10], 100) == 10  # under the budget: nothing is cut below its size
    assert water_level([10, 10], 0) == 0


def test_the_budget_counts_other_media_text_and_base64() -> None:
    anthropic = limits_for("anthropic")
    budget, reason = image_budget(anthropic, others=1_000_000, count=25, text=5_000)
    room = 32_000_000 - 1_000_000 - REQUEST_RESERVE - 5_000 - 4 * 25
    assert budget == raw_within(room, "base64") == (room // 4) * 3
    assert "32,000,000 bytes (base64)" in reason
    openai_budget, openai_reason = image_budget(limits_for("openai"), 0, 8, 0)
    assert openai_budget == 50_000_000
    assert "all images" in openai_reason
    assert image_budget(limits_for("ollama"), 0, 3, 0) == (None, "")


def test_text_bytes_grow_with_the_text() -> None:
    short = text_bytes([UserMessage(content=[TextBlock(text="hi")])])
    long = text_bytes([UserMessage(content=[TextBlock(text="x" * 10_000)])])
    assert long - short >= 9_998
