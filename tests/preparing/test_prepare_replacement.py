"""The one mechanism by which prepare replaces a media block by several blocks, in order."""

from __future__ import annotations

import io

from PIL import Image

from mediablocks.blocks import TextBlock, ToolResultBlock
from mediablocks.images import Change
from mediablocks.media import ImageBlock, VideoBlock
from mediablocks.messages import ToolMessage, UserMessage
from mediablocks.preparing import _counted, _find_media, _rebuild


def png(shade: int) -> ImageBlock:
    buffer = io.BytesIO()
    Image.new("L", (4, 4), shade).save(buffer, "PNG")
    return ImageBlock.from_bytes(buffer.getvalue())


def test_a_block_in_a_message_becomes_several_in_place() -> None:
    video = VideoBlock.from_url("https://example.com/clip.mp4")
    messages = [UserMessage(content=["before", video, "after"])]
    slot = _find_media(messages)[0]
    frames = [png(10), png(200)]
    slot.replace_with(
        [TextBlock(text="[0:00]"), frames[0], TextBlock(text="[0:05]"), frames[1]],
        [Change("frames", "2 frames")],
    )
    rebuilt = _rebuild(messages, [slot])
    texts = [getattr(b, "text", None) for b in rebuilt[0].content]
    assert texts == ["before", "[0:00]", None, "[0:05]", None, "after"]
    assert rebuilt[0].content[2] is frames[0]
    assert rebuilt[0].content[4] is frames[1]
    assert messages[0].content[1] is video  # the input is untouched
    assert [part.block for part in _counted([slot])] == frames
    assert slot.size == sum(len(f.read()) for f in frames)


def test_two_blocks_of_one_tool_result_are_both_spliced() -> None:
    first = VideoBlock.from_url("https://example.com/a.mp4")
    second = VideoBlock.from_url("https://example.com/b.mp4")
    result = ToolResultBlock(tool_call_id="call", content=[first, TextBlock(text="mid"), second])
    messages = [ToolMessage(content=[result])]
    slots = _find_media(messages)
    slots[0].replace_with([TextBlock(text="a1"), TextBlock(text="a2")], [])
    slots[1].replace_with([TextBlock(text="b1"), png(0)], [])
    rebuilt = _rebuild(messages, slots)
    items = rebuilt[0].content[0].content
    assert isinstance(items, list)
    assert [getattr(i, "text", "image") for i in items] == ["a1", "a2", "mid", "b1", "image"]
