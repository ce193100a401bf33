"""A model named anywhere in a call counts: media of a kind the model takes in no form raise.

The translators write what the provider's wire format carries (OpenAI Chat has ``input_audio``),
but a model may take less (only OpenAI's audio models take audio; Claude on Bedrock takes no video).
When a call names the model (``encode_json(..., model=)``, ``Request(model=)``, a batch line's
``model``), a media block of a kind that model refuses raises `UnsupportedBlockError` naming the
block and the model, instead of a body the provider answers with a 400.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..blocks import ToolResultBlock
from ..errors import UnsupportedBlockError
from ..media import AudioBlock, ImageBlock, MediaBlock, VideoBlock
from ..messages import Message

__all__ = ["check_model_media"]


def _kind(block: MediaBlock) -> str:
    if isinstance(block, ImageBlock):
        return "image"
    if isinstance(block, AudioBlock):
        return "audio"
    if isinstance(block, VideoBlock):
        return "video"
    return "document"


def check_model_media(messages: Sequence[Message], provider: str, model: object) -> None:
    """Raise `UnsupportedBlockError` for the first media block of a kind ``model`` takes in no
    form although ``provider`` does; nothing when no model is named."""
    if not isinstance(model, str) or not model.strip():
        return
    from .registry import provider_entry

    entry = provider_entry(provider)
    base = entry.limits()
    tuned = entry.limits_for_model(base, model)
    refused = {
        kind
        for kind in ("image", "audio", "video", "document")
        if base.types_for(kind) and not tuned.types_for(kind)
    }
    if not refused:
        return
    for m, message in enumerate(messages):
        for b, block in enumerate(getattr(message, "content", ())):
            inner = block.content if isinstance(block, ToolResultBlock) else [block]
            for item in inner if not isinstance(inner, str) else ():
                if isinstance(item, MediaBlock) and _kind(item) in refused:
                    raise UnsupportedBlockError(
                        f"message {m}, block {b}: {item.describe()}: {model} takes no "
                        f"{_kind(item)} input, though {base.provider} carries it for other "
                        f"models; mb.prepare(messages, {base.provider!r}, model={model!r}) "
                        "converts or refuses it by name",
                        block=item,
                    )
