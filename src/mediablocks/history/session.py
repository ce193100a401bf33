"""A media budget for long sessions: `fit_session`.

Agents that browse or look at screens pile a screenshot into every tool result, and every turn
sends them all again. `fit_session` returns the history to send this turn: the last
``keep_last_media`` media exactly as they were, older images as small thumbnails (or text
references, or nothing), within the provider's count and size limits and, when given, a token
budget. Nothing else changes: every message, tool call and tool result stays where it was, so
calls stay paired with their results, and the history you keep is not touched.

It is deterministic (the same history gives the same bytes, thumbnails included) and evicts in
steps (see `_session_plan`), so a provider's prompt cache keeps hitting as turns are appended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..blocks import TextBlock, ToolResultBlock
from ..errors import DoesNotFitError, InvalidOptionError
from ..fetching.policy import FetchPolicy
from ..message_input import MessagesLike
from ..messages import Message
from ..providers._options import canonical_provider
from ..providers.registry import limits_for
from ..sources.media_store import MediaStore
from ._session_media import SessionMedia, item_note
from ._session_plan import Item, Plan, State, kind_cap, layouts, plan_states, totals

__all__ = ["Evicted", "FittedSession", "SessionReport", "fit_session"]

Older = Literal["thumbnail", "reference", "drop"]
REQUEST_HEADROOM = 0.95
"""Share of a provider's request-size limit a fitted session may use (the rest: JSON framing
the estimate does not count)."""


@dataclass(frozen=True)
class Evicted:
    """One media block that is not sent whole, where it was and what it became."""

    message: int
    position: int
    item: int | None
    """Its index inside the tool result at ``position``, None for a block of the message."""
    kind: str
    sha256: str | None
    tool_call_id: str | None
    became: Literal["thumbnail", "reference", "dropped"]
    stored: bool
    """True when its bytes are in the ``store``, for `view_media`."""
    reason: str
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class SessionReport:
    """What `fit_session` did: token estimates before and after, and every eviction."""

    provider: str
    model: str | None
    media: int
    kept: int
    """Media sent whole."""
    tokens_before: int
    tokens_after: int
    max_tokens: int | None
    request_bytes: int
    """The estimated size of the fitted request, as the provider counts it."""
    step: int
    """The eviction step used (smaller than asked when the budget needed it)."""
    evicted: tuple[Evicted, ...]
    unestimated: int
    """Media whose tokens could not be estimated locally (URLs not fetched, provider file
    ids): counted as 0."""


class FittedSession(list[Message]):
    """The fitted messages (a list: pass it to `mb.encode` as it is) and its `SessionReport`."""

    report: SessionReport

    def __init__(self, messages: Sequence[Message], report: SessionReport) -> None:
        super().__init__(messages)
        self.report = report

    @property
    def messages(self) -> list[Message]:
        """The fitted messages as a plain list."""
        return list(self)

    @property
    def tokens_before(self) -> int:
        return self.report.tokens_before

    @property
    def tokens_after(self) -> int:
        return self.report.tokens_after

    @property
    def evicted(self) -> tuple[Evicted, ...]:
        return self.report.evicted


def _check(
    keep_last_media: object,
    older: object,
    max_tokens: object,
    step: object,
    thumbnail_side: object,
    store: object,
) -> None:
    for name, value, low in (
        ("keep_last_media", keep_last_media, 0),
        ("step", step, 1),
        ("thumbnail_side", thumbnail_side, 16),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidOptionError(
                f"fit_session: {name} must be an integer >= {low}, got {value!r}"
            )
    if older not in ("thumbnail", "reference", "drop"):
        raise InvalidOptionError(
            f"fit_session: older must be 'thumbnail', 'reference' or 'drop', got {older!r}"
        )
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
    ):
        raise InvalidOptionError(
            f"fit_session: max_tokens must be an integer >= 1, got {max_tokens!r}"
        )
    if store is not None and not all(
        callable(getattr(store, name, None)) for name in ("put", "get", "find")
    ):
        raise InvalidOptionError(
            f"fit_session: store must have put(), get() and find() (a MediaStore), got {store!r}"
        )


def _messages(history: object) -> list[Message]:
    """The history as every entry point reads messages (`mediablocks.message_input`)."""
    from ..message_input import as_messages

    return as_messages(history, "fit_session")


def _fits(session: SessionMedia, plan: Plan, max_tokens: int | None) -> tuple[bool, bool, int, int]:
    """``(within the budget, within the provider's sizes, tokens, request bytes)``."""
    tokens, size, images = totals(session.items, plan, session.cost)
    tokens += session.fixed_tokens
    size += session.fixed_bytes
    limits = session.limits
    sized = (
        limits.max_request_bytes is None or size <= limits.max_request_bytes * REQUEST_HEADROOM
    ) and (limits.max_total_image_bytes is None or images <= limits.max_total_image_bytes)
    return max_tokens is None or tokens <= max_tokens, sized, tokens, size


def _choose(
    session: SessionMedia, keep: int, older: str, step: int, max_tokens: int | None
) -> tuple[Plan, int, int]:
    items = session.items
    caps = {kind: kind_cap(session.limits, kind, items) for kind in ("image", "file")}
    image_cap = caps["image"]
    best: tuple[Plan, int, int] | None = None
    least: int | None = None
    for full_from, size in layouts(len(items), keep, step):
        room = len(items) if image_cap is None else max(0, image_cap - (keep + size - 1))
        start = max(0, full_from - room) if older == "thumbnail" else full_from
        for thumbnails_from in _thumbnail_starts(start, full_from, size):
            for item in items:
                if thumbnails_from <= item.number < full_from:
                    session.cost_thumbnail(item)
                if item.number < full_from or not item.carried:
                    session.cost_reference(item)
            if thumbnails_from > start:
                why = "older than the thumbnails the token budget or request size leaves room for"
            else:
                why = (
                    f"older than the thumbnails {session.provider}'s {image_cap} images per "
                    f"request leave room for ({keep + size - 1} may be sent whole)"
                )
            plan = plan_states(
                items,
                full_from,
                thumbnails_from,
                older,
                caps,
                size,
                provider=session.provider,
                why_older=why,
            )
            for item, state in zip(items, plan.states, strict=True):
                if state == "reference":
                    session.cost_reference(item)
            budget, sized, tokens, request = _fits(session, plan, max_tokens)
            if sized and best is None:
                best = (plan, tokens, request)
            if sized:
                least = tokens if least is None else min(least, tokens)
            if budget and sized:
                return plan, tokens, request
    if best is None or least is None:
        return _shrink_for_size(session, keep, older, caps, max_tokens)
    raise DoesNotFitError(
        f"fit_session: the history needs {least:,} tokens at {session.provider} with its last "
        f"{keep} media whole and every older one as small as older={older!r} makes it, more "
        f"than max_tokens={max_tokens:,}; raise max_tokens, lower keep_last_media, or trim "
        "the text (mb.trim_messages)",
        [f"{least - (max_tokens or 0):,} tokens over the budget"],
    )


def _thumbnail_starts(start: int, full_from: int, step: int) -> list[int]:
    """Where thumbnails may start: ``start``, then later in whole steps, up to ``full_from``."""
    out = [start]
    position = (start // step + 1) * step
    while position < full_from:
        out.append(position)
        position += step
    if out[-1] != full_from:
        out.append(full_from)
    return out


def _shrink_for_size(
    session: SessionMedia,
    keep: int,
    older: str,
    caps: dict[str, int | None],
    max_tokens: int | None,
) -> tuple[Plan, int, int]:
    """Past the provider's request size even with only the last ``keep`` whole: send fewer whole,
    oldest first (a request the provider refuses helps nobody)."""
    items = session.items
    for full_from in range(max(0, len(items) - keep) + 1, len(items) + 1):
        for item in items:
            session.cost_reference(item)
        plan = plan_states(items, full_from, full_from, older, caps, 1, provider=session.provider)
        reasons = list(plan.reasons)
        for number in range(max(0, len(items) - keep), full_from):
            reasons[number] = "past the provider's request size limit"
        plan = Plan(plan.states, tuple(reasons), full_from, full_from, 1)
        budget, sized, tokens, request = _fits(session, plan, max_tokens)
        if sized:
            if not budget:
                break
            return plan, tokens, request
    raise DoesNotFitError(
        f"fit_session: the history does not fit {session.provider}'s request size or the token "
        "budget even with every media block taken out; trim the text (mb.trim_messages)"
    )


def _assemble(
    session: SessionMedia, messages: list[Message], plan: Plan
) -> tuple[list[Message], list[Evicted]]:
    """The messages with each item in its planned state; untouched messages are the same
    objects. Bytes of thumbnailed and referenced items go to the store first."""
    by_message: dict[int, list[Item]] = {}
    evicted: list[Evicted] = []
    for item, state, reason in zip(session.items, plan.states, plan.reasons, strict=True):
        if state == "full":
            continue
        by_message.setdefault(item.message, []).append(item)
        stored = False
        if state != "dropped" and session.store is not None and item.digest is not None:
            if item.data is not None:
                session.store.put(item.data)
            stored = session.stored(item)
        evicted.append(
            Evicted(
                message=item.message,
                position=item.position,
                item=item.inner,
                kind=item.kind,
                sha256=item.digest,
                tool_call_id=item.tool_call_id,
                became=state,
                stored=stored,
                reason=reason,
                tokens_before=item.costs["full"][0],
                tokens_after=item.costs[state][0],
            )
        )
    out = list(messages)
    for index, items in by_message.items():
        out[index] = _rewritten(session, messages[index], items, plan)
    return out, evicted


def _replacement(session: SessionMedia, item: Item, state: State) -> list[Any]:
    stored = session.store is not None and session.stored(item)
    if state == "thumbnail":
        return [session.label(item, stored), session.thumbs[item.number]]
    if state == "reference":
        return [session.reference(item, stored)]
    return []


def _rewritten(session: SessionMedia, message: Message, items: list[Item], plan: Plan) -> Message:
    top: dict[int, Item] = {i.position: i for i in items if i.inner is None}
    inside: dict[int, dict[int, Item]] = {}
    for item in items:
        if item.inner is not None:
            inside.setdefault(item.position, {})[item.inner] = item
    content: list[Any] = []
    for position, block in enumerate(message.content):
        if position in top:
            item = top[position]
            content.extend(_replacement(session, item, plan.states[item.number]))
        elif position in inside and isinstance(block, ToolResultBlock):
            parts: list[Any] = []
            assert not isinstance(block.content, str)
            for inner, part in enumerate(block.content):
                changed = inside[position].get(inner)
                if changed is None:
                    parts.append(part)
                else:
                    parts.extend(_replacement(session, changed, plan.states[changed.number]))
            if not parts:  # every item dropped: the result still says what it held
                first = next(iter(inside[position].values()))
                parts = [_removed(first)]
            content.append(block.model_copy(update={"content": parts}))
        else:
            content.append(block)
    if not content:
        content = [_removed(items[0])]
    return message.model_copy(update={"content": content})


def _removed(item: Item) -> TextBlock:
    return item_note(item, stored=False, removed=True)


def fit_session(
    history: MessagesLike,
    provider: str,
    *,
    keep_last_media: int = 3,
    older: Older = "thumbnail",
    max_tokens: int | None = None,
    store: MediaStore | None = None,
    model: str | None = None,
    step: int = 8,
    thumbnail_side: int = 256,
    policy: FetchPolicy | None = None,
) -> FittedSession:
    """The history to send to ``provider`` this turn, with a media budget.

    The last ``keep_last_media`` media blocks (images, audio, video, documents, in tool results
    or not) are sent exactly as they are. Older images become, by ``older``:

    - ``"thumbnail"``: at most ``thumbnail_side`` px, JPEG, OpenAI ``detail="low"``, after a
      note ``[thumbnail of image sha256:3f9a… from tool call c7, stored]``; other media, and
      thumbnails past what the provider or the budget allows, become references;
    - ``"reference"``: the note alone, ``[image sha256:3f9a… from tool call c7, stored]``;
    - ``"drop"``: nothing (a tool result left empty says ``[image from tool call c7 removed]``).

    With a ``store`` (a `MediaStore`), every thumbnailed or referenced media's bytes are put
    there and its note says ``stored``: answer the model's ``view_media`` calls with
    `view_media` (the tool: `view_media_tool`). The provider's limits always hold: at most its
    images (and documents) per request, its request size, Anthropic's smaller side limit when
    more than 20 images are sent; a kind it takes no media of becomes references. These limits
    win over ``keep_last_media`` (the report says which media they took); ``max_tokens``, yours,
    does not: when the kept media and the text alone exceed it, `DoesNotFitError` is raised.

    Media are evicted ``step`` at a time (between ``keep_last_media`` and ``keep_last_media +
    step - 1`` are sent whole), so appending turns leaves the earlier ones byte for byte the
    same and a prompt cache keeps hitting; a budget that needs it makes the step smaller.
    ``step=1`` evicts one media per new one. The same history always gives the same bytes.
    ``model`` picks the provider's token rules for that model (and its limits); ``policy``
    governs reading media from local paths. Returns a `FittedSession`: the messages (a list)
    with ``.report`` (`SessionReport`: tokens before and after, each `Evicted` block and why).
    """
    _check(keep_last_media, older, max_tokens, step, thumbnail_side, store)
    name = canonical_provider(provider)
    limits = limits_for(name, model)
    messages = _messages(history)
    session = SessionMedia(messages, name, model, limits, policy, thumbnail_side, store)
    before = session.fixed_tokens + sum(item.costs["full"][0] for item in session.items)
    while True:  # plan on predicted thumbnail costs, then make the thumbnails and check again
        plan, tokens, request = _choose(session, keep_last_media, older, step, max_tokens)
        unmade = [
            item
            for item, state in zip(session.items, plan.states, strict=True)
            if state == "thumbnail" and item.number not in session.thumbs
        ]
        if not unmade:
            break
        for item in unmade:
            session.make_thumbnail(item)
    fitted, evicted = _assemble(session, messages, plan)
    report = SessionReport(
        provider=name,
        model=model,
        media=len(session.items),
        kept=plan.states.count("full"),
        tokens_before=before,
        tokens_after=tokens,
        max_tokens=max_tokens,
        request_bytes=request,
        step=plan.step,
        evicted=tuple(evicted),
        unestimated=session.unestimated,
    )
    return FittedSession(fitted, report)
