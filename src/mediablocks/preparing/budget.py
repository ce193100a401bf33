"""The byte budget of a whole request, and how images share it.

`prepare` fits each block to its own limits, then makes the images together fit the request:
a provider's limit for all images of a request (OpenAI: 50 MB) and its limit for the whole
request body (Anthropic: 32 MB, Gemini inline: 20 MB, both counted as base64). These helpers are
the arithmetic: what is left for images (`image_budget`) and the share each gets, largest first
(`water_level`). ``docs/preparation.md`` ("The whole request") describes the policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..blocks import ToolResultBlock
from ..limits import ByteMeasure, ProviderLimits
from ..media import MediaBlock
from ..messages import Message

__all__ = [
    "REQUEST_RESERVE",
    "SHARE_FLOOR_SIDE",
    "image_budget",
    "raw_within",
    "text_bytes",
    "water_level",
]

SHARE_FLOOR_SIDE = 512
"""When images share a request's byte budget, none is scaled below this long edge (px)."""

REQUEST_RESERVE = 64 * 1024
"""Bytes of a request's limit kept for what `prepare` cannot see: tools, settings, system
fields and the JSON around each block (the messages' text is counted on top of this)."""


def water_level(sizes: Sequence[int], budget: int) -> int:
    """The largest cap such that the sizes, each cut to at most the cap, sum to ``budget``.

    Sizes under the cap stay as they are; only the largest are cut (0: no cap fits).
    """
    ordered = sorted(sizes, reverse=True)
    rest = sum(ordered)
    for count, size in enumerate(ordered, start=1):
        rest -= size
        cap = (budget - rest) // count
        if count == len(ordered) or cap >= ordered[count]:
            return max(0, min(cap, size))
    return 0


def raw_within(limit: int, measure: ByteMeasure) -> int:
    """The most raw bytes whose size counted as ``measure`` is within ``limit``."""
    return (limit // 4) * 3 if measure == "base64" else limit


def text_bytes(messages: Sequence[Message]) -> int:
    """JSON bytes of everything in the messages but the media (text, tool calls, thinking)."""
    total = 0
    for message in messages:
        total += 64  # the role and the braces around the content
        for block in message.content:
            if isinstance(block, MediaBlock):
                continue
            if isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                total += 128 + sum(
                    len(item.model_dump_json())
                    for item in block.content
                    if not isinstance(item, MediaBlock)
                )
            else:
                total += len(block.model_dump_json())
    return total


def image_budget(
    limits: ProviderLimits, others: int, count: int, text: int
) -> tuple[int | None, str]:
    """The raw bytes ``count`` images may take together, and which limit says so.

    ``others`` is the other media's bytes counted as the request limit counts them, ``text``
    the messages' JSON bytes (`text_bytes`). ``None`` when the provider sets no total.
    """
    budgets: list[tuple[int, str]] = []
    if limits.max_total_image_bytes is not None:
        raw = raw_within(limits.max_total_image_bytes, limits.image_bytes_measure)
        budgets.append((raw, f"{limits.provider}'s limit for all images of a request"))
    if limits.max_request_bytes is not None:
        measure = limits.request_bytes_measure
        room = limits.max_request_bytes - others - REQUEST_RESERVE - text
        room -= 4 * count if measure == "base64" else 0  # base64 padding: a quad per image
        budgets.append(
            (
                raw_within(max(0, room), measure),
                f"{limits.provider}'s request limit of {limits.max_request_bytes:,} bytes "
                f"({measure}) with the other media and text",
            )
        )
    if not budgets:
        return None, ""
    return min(budgets)
