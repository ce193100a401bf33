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

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from ..blocks import TextBlock, ToolResultBlock
from ..errors import DoesNotFitError, InvalidOptionError, MediaBlocksError, UnsupportedBlockError
from ..fetching.policy import FetchPolicy
from ..limits import ProviderLimits, limits_for
from ..media import ImageBlock, MediaBlock
from ..messages import Message, sent_content
from ..providers._options import canonical_provider
from ..sources import FileIdSource, URLSource
from ._session_plan import Item, Plan, State, kind_cap, layouts, plan_states, sizes, totals
from .media_store import MediaStore, checked_get
from .references import reference_text

__all__ = ["Evicted", "FittedSession", "SessionReport", "fit_session"]

Older = Literal["thumbnail", "reference", "drop"]
REQUEST_HEADROOM = 0.95
"""Share of a provider's request-size limit a fitted session may use (the rest: JSON framing
the estimate does not count)."""
BLOCK_OVERHEAD = 64
"""Bytes of JSON around one block in a request (keys, quotes, braces), for the size estimate."""


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
    if isinstance(history, (str, bytes, BaseModel)) or not isinstance(history, Sequence):
        raise InvalidOptionError(
            f"fit_session takes a list of messages, not a {type(history).__name__}"
        )
    for index, message in enumerate(history):
        if not isinstance(message, BaseModel) or not isinstance(
            getattr(message, "role", None), str
        ):
            raise InvalidOptionError(
                f"fit_session: item {index} is a {type(message).__name__}, not a message"
            )
    return list(history)


class _Session:
    """The history's media and fixed costs at one provider, and the thumbnails made so far."""

    def __init__(
        self,
        messages: list[Message],
        provider: str,
        model: str | None,
        limits: ProviderLimits,
        policy: FetchPolicy | None,
        side: int,
        store: MediaStore | None,
    ) -> None:
        self.provider, self.model, self.limits = provider, model, limits
        self.policy, self.side, self.store = policy, side, store
        self.items: list[Item] = []
        self.blocks: list[MediaBlock] = []
        self.fixed_tokens = 0
        self.fixed_bytes = 0
        self.unestimated = 0
        self.thumbs: dict[int, ImageBlock] = {}
        self.jpeg = "image/jpeg" in limits.image_types or not limits.image_types
        for index, message in enumerate(messages):
            self._message(index, message)

    def tokens(self, block: Any) -> int:
        from ..tokens import estimate_tokens

        return estimate_tokens(block, self.provider, model=self.model)

    def _fixed(self, block: Any) -> None:
        self.fixed_tokens += self.tokens(block)
        self.fixed_bytes += len(block.model_dump_json(exclude={"metadata"})) + BLOCK_OVERHEAD

    def _message(self, index: int, message: Message) -> None:
        content = getattr(message, "content", ())
        sent = sent_content(message)
        if sent is not content:  # a session message: sent as something else, or not at all
            for block in sent:
                self._fixed(block)
            return
        for position, block in enumerate(content):
            if isinstance(block, MediaBlock):
                self._media(block, index, position, None, None)
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                self.fixed_bytes += BLOCK_OVERHEAD + len(block.tool_call_id)
                for inner, part in enumerate(block.content):
                    if isinstance(part, MediaBlock):
                        self._media(part, index, position, inner, block.tool_call_id)
                    else:
                        self._fixed(part)
            else:
                self._fixed(block)

    def _bytes_of(self, block: MediaBlock) -> bytes | None:
        """The bytes, when they are here: in memory, in a local file, or (uploaded media) in
        the session's store; never fetched."""
        source = block.source
        if isinstance(source, FileIdSource) and not source.loaded:
            if self.store is None or source.sha256 is None:
                return None
            data = checked_get(self.store, source.sha256)
            if data is not None:
                source.keep_bytes(data)
            return data
        if isinstance(source, URLSource) and not source.loaded:
            return None
        return block.read(self.policy)

    def _media(
        self, block: MediaBlock, message: int, position: int, inner: int | None, call: str | None
    ) -> None:
        kind = str(getattr(block, "type", "file"))
        data = self._bytes_of(block)
        digest = hashlib.sha256(data).hexdigest() if data is not None else None
        if digest is None and isinstance(block.source, FileIdSource):
            digest = block.source.sha256
        carried = bool(self.limits.types_for(kind))
        tokens = 0
        try:
            tokens = self.tokens(block) if carried else 0
        except UnsupportedBlockError:
            carried = False
        except MediaBlocksError:
            self.unestimated += 1
        item = Item(
            number=len(self.items),
            message=message,
            position=position,
            inner=inner,
            kind=kind,
            tool_call_id=call,
            digest=digest,
            data=data,
            carried=carried,
        )
        item.big = carried and kind == "image" and self._big(block)
        request, image = sizes(len(data), self.limits, kind == "image") if data else (0, 0)
        item.costs["full"] = (tokens, request + BLOCK_OVERHEAD, image)
        item.costs["dropped"] = (0, 0, 0)
        self.items.append(item)
        self.blocks.append(block)

    def _big(self, block: MediaBlock) -> bool:
        side = self.limits.many_images_max_side
        if side is None or block.source.peek_header() is None:
            return False
        from ..probing import probe

        try:
            info = probe(block, self.policy)
        except MediaBlocksError:
            return False
        return max(info.width or 0, info.height or 0) > side

    # -- the other ways of sending an item ---------------------------------------------------

    def reference(self, item: Item, stored: bool) -> TextBlock:
        return TextBlock(
            text=reference_text(
                item.kind,
                item.digest,
                tool_call_id=item.tool_call_id,
                message=item.message,
                stored=stored,
            )
        )

    def label(self, item: Item, stored: bool) -> TextBlock:
        return TextBlock(
            text=reference_text(
                item.kind,
                item.digest,
                tool_call_id=item.tool_call_id,
                message=item.message,
                stored=stored,
                thumbnail=True,
            )
        )

    def stored(self, item: Item) -> bool:
        """Whether the item's bytes are (or can be put) in the store."""
        if self.store is None or item.digest is None:
            return False
        if item.data is not None:
            return True
        return bool(self.store.find(item.digest))

    def cost_reference(self, item: Item) -> None:
        if "reference" not in item.costs:
            text = self.reference(item, self.stored(item))
            item.costs["reference"] = (self.tokens(text), len(text.text) + BLOCK_OVERHEAD, 0)

    def cost_thumbnail(self, item: Item) -> None:
        """Cost the item's thumbnail from its header (no decoding), or note why there is none.

        The thumbnail itself is made by `make_thumbnail` once a plan sends it; its real cost
        then replaces this prediction."""
        if "thumbnail" in item.costs or item.note is not None or item.kind != "image":
            return
        if item.data is None or item.digest is None:
            item.note = "its bytes are not here (a URL or a provider file), so no thumbnail"
            return
        if not self.limits.image_types:
            item.note = "the provider takes no images"
            return
        from ..probing import probe_bytes
        from ..tokens import image_tokens
        from .thumbnails import thumbnail_size

        try:
            info = probe_bytes(item.data)
        except MediaBlocksError:
            info = None
        if info is None or not info.width or not info.height:
            self.make_thumbnail(item)  # no size in the header: the thumbnail will say
            return
        width, height = thumbnail_size(info.width, info.height, self.side)
        label = self.label(item, self.stored(item))
        tokens = self.tokens(label) + image_tokens(
            width, height, self.provider, model=self.model, detail="low"
        )
        self._thumbnail_costs(item, tokens, width * height // 2)

    def _thumbnail_costs(self, item: Item, tokens: int, raw_bytes: int) -> None:
        if tokens >= item.costs["full"][0]:
            item.note = (
                f"a thumbnail costs as many tokens as the image at {self.provider} "
                f"({item.costs['full'][0]})"
            )
            item.costs.pop("thumbnail", None)
            return
        request, image = sizes(raw_bytes, self.limits, True)
        label = self.label(item, self.stored(item))
        item.costs["thumbnail"] = (tokens, request + len(label.text) + 2 * BLOCK_OVERHEAD, image)

    def make_thumbnail(self, item: Item) -> None:
        """Make the item's thumbnail and put its real cost in place of the prediction."""
        from .thumbnails import thumbnail

        assert item.data is not None
        assert item.digest is not None
        try:
            data = thumbnail(
                item.data,
                item.digest,
                side=self.side,
                jpeg=self.jpeg,
                what=self.blocks[item.number].describe(),
            )
            block = ImageBlock.from_bytes(data).model_copy(
                update={"detail": "low", "metadata": {"thumbnail_of": f"sha256:{item.digest}"}}
            )
            tokens = self.tokens(block) + self.tokens(self.label(item, self.stored(item)))
        except MediaBlocksError as exc:
            item.note = f"no thumbnail: {exc}"
            item.costs.pop("thumbnail", None)
            return
        self.thumbs[item.number] = block
        self._thumbnail_costs(item, tokens, len(data))

    def cost(self, item: Item, state: State) -> tuple[int, int, int]:
        return item.costs[state]


def _fits(session: _Session, plan: Plan, max_tokens: int | None) -> tuple[bool, bool, int, int]:
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
    session: _Session, keep: int, older: str, step: int, max_tokens: int | None
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
    session: _Session, keep: int, older: str, caps: dict[str, int | None], max_tokens: int | None
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
    session: _Session, messages: list[Message], plan: Plan
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


def _replacement(session: _Session, item: Item, state: State) -> list[Any]:
    stored = session.store is not None and session.stored(item)
    if state == "thumbnail":
        return [session.label(item, stored), session.thumbs[item.number]]
    if state == "reference":
        return [session.reference(item, stored)]
    return []


def _rewritten(session: _Session, message: Message, items: list[Item], plan: Plan) -> Message:
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
    return TextBlock(
        text=reference_text(
            item.kind,
            item.digest,
            tool_call_id=item.tool_call_id,
            message=item.message,
            stored=False,
            removed=True,
        )
    )


def fit_session(
    history: Sequence[Message],
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
    session = _Session(messages, name, model, limits, policy, thumbnail_side, store)
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
