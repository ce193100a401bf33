"""Blocks made from converted audio and video: the new media blocks and the text that places them
in time (``[video clip.mp4, frame 3/20 at 0:04.5]``), in the order `prepare` splices them in."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..blocks import ContentBlock, TextBlock
from ..changes import Change
from ..convert._av import clock
from ..convert.audio import AudioPiece
from ..convert.video import SampledVideo
from ..media import AudioBlock, ImageBlock, MediaBlock
from ..mime.names import OUTPUT_EXTENSIONS
from ..sources import BytesSource

__all__ = ["audio_piece_blocks", "derived_block", "frame_blocks", "label_of"]


def label_of(block: MediaBlock) -> str:
    """How the text blocks name the source: its file name, else its kind."""
    kind = type(block).__name__.removesuffix("Block").lower()
    return f"{kind} {block.filename}" if block.filename else kind


def derived_block(
    kind: type[MediaBlock],
    source: MediaBlock,
    data: bytes,
    mime: str,
    changes: Sequence[Change],
    provider: str,
    suffix: str = "",
) -> MediaBlock:
    """A new block of class ``kind`` over ``data``, named after ``source`` and noting ``changes``
    in ``metadata["prepared"]`` as every prepared block does."""
    filename = None
    if source.filename:
        stem = os.path.splitext(source.filename)[0]
        filename = stem + suffix + OUTPUT_EXTENSIONS.get(mime, "")
    block = kind.from_source(BytesSource(data=data), mime, filename, False)
    note = {"provider": provider, "changes": [str(change) for change in changes]}
    return block.model_copy(update={"metadata": {**source.metadata, "prepared": note}})


def frame_blocks(
    source: MediaBlock, sampled: SampledVideo, changes: Sequence[Change], provider: str
) -> list[ContentBlock]:
    """Each frame as a text block with its timestamp followed by the JPEG image, in time order."""
    label = label_of(source)
    total = len(sampled.frames)
    blocks: list[ContentBlock] = []
    for number, frame in enumerate(sampled.frames, 1):
        blocks.append(TextBlock(text=f"[{label}, frame {number}/{total} at {clock(frame.time)}]"))
        image = derived_block(
            ImageBlock, source, frame.data, "image/jpeg", changes, provider, f"-frame{number}"
        )
        assert isinstance(image, ImageBlock)
        blocks.append(image)
    return blocks


def audio_piece_blocks(
    source: MediaBlock,
    pieces: Sequence[AudioPiece],
    changes: Sequence[Change],
    provider: str,
    *,
    track: bool = False,
) -> list[ContentBlock]:
    """Each audio piece preceded by a text block with its time span (``track``: the audio of a
    video), in order."""
    label = label_of(source)
    what = f"audio track of {label}" if track else label
    blocks: list[ContentBlock] = []
    for number, piece in enumerate(pieces, 1):
        span = f"{clock(piece.start)} to {clock(piece.start + piece.duration)}"
        part = f", part {number}/{len(pieces)}" if len(pieces) > 1 else ""
        blocks.append(TextBlock(text=f"[{what}{part}, {span}]"))
        suffix = ("-audio" if track else "") + (f"-part{number}" if len(pieces) > 1 else "")
        audio = derived_block(
            AudioBlock, source, piece.data, piece.mime_type, changes, provider, suffix
        )
        assert isinstance(audio, AudioBlock)
        blocks.append(audio)
    return blocks
