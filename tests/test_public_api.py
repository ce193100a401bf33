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


def _type_checking_imports() -> dict[str, str]:
    """Public name -> module, as the ``if TYPE_CHECKING:`` imports of the package face say."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(mb.__file__).read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
    )
    found: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        for alias in node.names:
            found[alias.asname or alias.name] = "." * node.level + (node.module or "")
    return found


def test_the_lazy_face_agrees_with_what_type_checkers_read() -> None:
    """The run-time table, the imports type checkers read and ``__all__`` name the same things."""
    from mediablocks import _EXPORTS  # type: ignore[attr-defined]

    assert _type_checking_imports() == _EXPORTS
    assert sorted([*_EXPORTS, "__version__"]) == list(mb.__all__)


def test_dir_shows_the_public_face_only() -> None:
    assert dir(mb) == list(mb.__all__)
    assert "importlib" not in dir(mb)


def test_an_unknown_name_is_an_attribute_error() -> None:
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'prepare_everything'"):
        mb.prepare_everything  # noqa: B018


def test_a_public_name_is_never_shadowed_by_a_submodule() -> None:
    """Importing every submodule leaves each public name bound to its object, not a module."""
    import importlib
    import pkgutil
    import types

    for info in pkgutil.walk_packages(mb.__path__, "mediablocks."):
        if ".integrations." in info.name or info.name.endswith(".ray") or "__main__" in info.name:
            continue
        importlib.import_module(info.name)
    for name in mb.__all__:
        assert not isinstance(getattr(mb, name), types.ModuleType), name


def test_a_submodule_name_still_reaches_the_submodule() -> None:
    """``mb.history`` worked when the face imported everything; it imports the submodule now."""
    import subprocess
    import sys

    code = "import mediablocks as mb\nprint(mb.batch.BATCH_PROVIDERS[0], mb.history.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["openai-chat", "mediablocks.history"]
