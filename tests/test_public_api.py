"""The public names of DESIGN.md are promises: pin them."""

from __future__ import annotations

import mediablocks as mb

DESIGN_NAMES = {
    "detect_mime",
    "normalize_mime",
    "register_signature",
    "MediaBlock",
    "ImageBlock",
    "AudioBlock",
    "VideoBlock",
    "FileBlock",
    "media_block",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "RawBlock",
    "Block",
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolMessage",
    "FetchPolicy",
    "MediaBlocksError",
    "DecodeError",
    "MediaTypeError",
    "FetchError",
    "BlockedURLError",
    "TooLargeError",
    "ImageBombError",
    "UnsupportedBlockError",
    "DoesNotFitError",
    "fetch",
    "afetch",
    "encode",
    "encode_json",
    "decode",
    "from_stream",
    "StreamAccumulator",
    "normalize_messages",
    "validate",
    "estimate_tokens",
    "prepare",
    "Tool",
    "Settings",
    "Request",
    "decode_request",
    "encode_request",
    "encode_response",
}


def test_all_is_sorted_and_importable() -> None:
    assert list(mb.__all__) == sorted(mb.__all__)
    for name in mb.__all__:
        assert hasattr(mb, name), name


def test_design_names_are_public() -> None:
    missing = DESIGN_NAMES - set(mb.__all__)
    assert not missing


def test_media_block_constructors_exist_on_every_class() -> None:
    for cls in (mb.ImageBlock, mb.AudioBlock, mb.VideoBlock, mb.FileBlock):
        for name in ("from_bytes", "from_base64", "from_data_uri", "from_path", "from_url"):
            assert callable(getattr(cls, name))
    assert callable(mb.ImageBlock.from_pil)


def test_version() -> None:
    assert mb.__version__.count(".") == 2
