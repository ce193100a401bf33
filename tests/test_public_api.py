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
    "decode_response",
    "from_stream",
    "StreamAccumulator",
    "normalize_messages",
    "validate",
    "estimate_tokens",
    "prepare",
    "upload",
    "write_batch",
    "Tool",
    "Settings",
    "Request",
    "decode_request",
    "encode_request",
    "encode_response",
}

SCALE_NAMES = {
    "upload",
    "aupload",
    "UploadCache",
    "MemoryUploadCache",
    "DirectoryUploadCache",
    "UploadError",
    "write_batch",
    "read_batch_results",
    "BatchResult",
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


def test_scale_names_are_public() -> None:
    assert not SCALE_NAMES - set(mb.__all__)


def test_import_loads_no_sdk_and_no_engine() -> None:
    """Uploads, batches and Ray take the caller's SDK objects: importing mediablocks loads none."""
    import subprocess
    import sys

    heavy = ["openai", "anthropic", "google.genai", "boto3", "botocore", "ray", "pyarrow"]
    code = f"import sys, mediablocks; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
