"""Which media of a session stay whole, become thumbnails or references: the plan `fit_session`
follows, worked out from positions and costs alone, so the same history always gives the same plan.

Media are numbered in history order (message, block, item inside a tool result). With ``N`` the
media to keep and ``s`` the step, the first media sent whole is ``F = floor((M - N) / s) * s``
(``M`` media in all): between ``N`` and ``N + s - 1`` media go whole, and ``F`` moves only every
``s`` new media, so appending a turn leaves every earlier turn as it was ``s - 1`` times in ``s``.
Thumbnails run from ``R`` to ``F``; ``R`` stays a fixed distance behind ``F`` (what the
provider's image count leaves once ``N + s - 1`` media are whole), and when the token budget or
the request size needs more room it moves forward in whole steps of ``s`` too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..limits import ProviderLimits, measured_size

__all__ = ["Item", "Plan", "State", "kind_cap", "layouts", "plan_states", "sizes", "totals"]

State = Literal["full", "thumbnail", "reference", "dropped"]


@dataclass
class Item:
    """One media block of the history and what each way of sending it costs."""

    number: int
    message: int
    position: int
    inner: int | None  # index inside a tool result's content, None for a block of the message
    kind: str  # "image", "audio", "video", "file"
    tool_call_id: str | None
    digest: str | None
    data: bytes | None
    carried: bool  # the provider takes this kind of media at all
    big: bool = False  # an image past the provider's side limit for many images
    costs: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """state -> (tokens, request bytes, image bytes as the provider counts its image total)"""
    note: str | None = None  # why it cannot be a thumbnail, when it cannot


@dataclass(frozen=True)
class Plan:
    states: tuple[State, ...]
    reasons: tuple[str, ...]
    full_from: int
    thumbnails_from: int
    step: int


def kind_cap(limits: ProviderLimits, kind: str, items: list[Item]) -> int | None:
    """How many media of ``kind`` one request may hold (None: no documented limit)."""
    if kind == "image":
        cap = limits.max_images
        if limits.many_images_threshold is not None and any(i.big for i in items):
            threshold = limits.many_images_threshold
            cap = threshold if cap is None else min(cap, threshold)
        return cap
    if kind == "file":
        return limits.max_documents
    return None


def layouts(count: int, keep: int, step: int) -> list[tuple[int, int]]:
    """``(full_from, step)`` to try, most stable first: the step asked, then halved down to 1."""
    out: list[tuple[int, int]] = []
    size = step
    while True:
        start = (count - keep) // size * size if count > keep else 0
        if all(start != seen for seen, _ in out):
            out.append((start, size))
        if size == 1:
            return out
        size //= 2


_PLURAL = {"image": "images", "file": "documents", "audio": "audio clips", "video": "videos"}


def plan_states(
    items: list[Item],
    full_from: int,
    thumbnails_from: int,
    older: str,
    caps: dict[str, int | None],
    step: int,
    *,
    provider: str,
    why_older: str = "older than the thumbnails that fit",
) -> Plan:
    """The state of every item, newest first against the provider's counts per kind;
    ``why_older`` says why items before ``thumbnails_from`` are not thumbnails."""
    left = dict(caps)
    states: list[State] = ["full"] * len(items)
    reasons: list[str] = [""] * len(items)
    fallback: State = "dropped" if older == "drop" else "reference"
    for item in reversed(items):
        index = item.number
        state: State
        if not item.carried:
            state, reason = fallback, "the provider takes no such media"
        elif index >= full_from:
            state, reason = "full", ""
        elif older == "thumbnail" and index >= thumbnails_from and item.kind == "image":
            if item.note is None:
                state, reason = "thumbnail", "older than the media kept whole"
            else:
                state, reason = fallback, item.note
        elif older == "thumbnail" and index >= thumbnails_from:
            state, reason = fallback, "older than the media kept whole (no thumbnail of this kind)"
        elif older == "thumbnail":
            state, reason = fallback, why_older
        else:
            state, reason = fallback, "older than the media kept whole"
        if state in ("full", "thumbnail"):
            cap = left.get(item.kind)
            if cap is not None and cap <= 0:
                count = caps.get(item.kind)
                state = fallback
                reason = (
                    f"past {provider}'s {count} {_PLURAL.get(item.kind, item.kind)} per request"
                )
            elif cap is not None:
                left[item.kind] = cap - 1
        states[index], reasons[index] = state, reason
    return Plan(tuple(states), tuple(reasons), full_from, thumbnails_from, step)


def totals(
    items: list[Item], plan: Plan, cost: Callable[[Item, State], tuple[int, int, int]]
) -> tuple[int, int, int]:
    """``(media tokens, request bytes of media, image bytes)`` of a plan."""
    tokens = size = images = 0
    for item, state in zip(items, plan.states, strict=True):
        item_tokens, item_bytes, item_image_bytes = cost(item, state)
        tokens += item_tokens
        size += item_bytes
        images += item_image_bytes
    return tokens, size, images


def sizes(raw: int, limits: ProviderLimits, image: bool) -> tuple[int, int]:
    """``(request bytes, image bytes)`` of a file of ``raw`` bytes, as the provider counts."""
    request = measured_size(raw, limits.request_bytes_measure)
    return request, measured_size(raw, limits.image_bytes_measure) if image else 0
