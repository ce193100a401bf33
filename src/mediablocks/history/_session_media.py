"""The media of a session at one provider: each block's bytes, hash and cost whole, as a
thumbnail and as a reference, for `fit_session` to plan with (`_session_plan`).

Nothing here is fetched: media whose bytes are not in memory, in a local file or (uploaded
media) in the session's store are costed as they are and become references, never thumbnails.
Thumbnails are costed from the header first (`thumbnail_size`, the provider's token formula) and
made only when a plan sends them; their real cost then replaces the prediction.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..blocks import TextBlock, ToolResultBlock
from ..errors import MediaBlocksError, UnsupportedBlockError
from ..fetching.policy import FetchPolicy
from ..limits import ProviderLimits
from ..media import ImageBlock, MediaBlock
from ..messages import Message, sent_content
from ..sources import FileIdSource, URLSource
from ..sources.media_store import MediaStore, checked_get
from ._session_plan import Item, State, sizes
from .references import reference_text

__all__ = ["BLOCK_OVERHEAD", "SessionMedia", "item_note"]

BLOCK_OVERHEAD = 64
"""Bytes of JSON around one block in a request (keys, quotes, braces), for the size estimate."""


class SessionMedia:
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
        return item_note(item, stored=stored)

    def label(self, item: Item, stored: bool) -> TextBlock:
        return item_note(item, stored=stored, thumbnail=True)

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


def item_note(
    item: Item, *, stored: bool, thumbnail: bool = False, removed: bool = False
) -> TextBlock:
    """The text block standing for ``item``'s media (`reference_text`'s forms)."""
    return TextBlock(
        text=reference_text(
            item.kind,
            item.digest,
            tool_call_id=item.tool_call_id,
            message=item.message,
            stored=stored,
            thumbnail=thumbnail,
            removed=removed,
        )
    )
