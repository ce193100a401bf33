"""What Bedrock Converse's encoder and decoder share: formats, markers and field sets."""

from __future__ import annotations

import re
from typing import TypeVar, Union

from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock

PROVIDER = "bedrock"
BYTES_MARKER = "__mediablocks_bytes__"
"""In a `RawBlock` from Bedrock, bytes are stored as ``{BYTES_MARKER: "<base64>"}`` so the block
stays JSON-safe; encoding turns the marker back into bytes (boto3) or base64 text (JSON)."""

_M = TypeVar("_M", bound=MediaBlock)
_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]

IMAGE_FORMATS: dict[str, str] = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
DOCUMENT_FORMATS: dict[str, str] = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
VIDEO_FORMATS: dict[str, str] = {
    "video/x-matroska": "mkv",
    "video/quicktime": "mov",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "video/x-flv": "flv",
    "video/mpeg": "mpeg",
    "video/x-ms-wmv": "wmv",
    "video/3gpp": "three_gp",
}
AUDIO_FORMATS: dict[str, str] = {
    "audio/mpeg": "mp3",
    "audio/opus": "opus",
    "audio/wav": "wav",
    "audio/aac": "aac",
    "audio/flac": "flac",
    "audio/mp4": "m4a",
    "audio/x-m4a": "m4a",
    "audio/ogg": "ogg",
    "audio/x-matroska": "mka",
    "audio/webm": "webm",
    "audio/pcm": "pcm",
}
_FORMAT_MIMES: dict[str, dict[str, str]] = {
    "image": {fmt: mime for mime, fmt in IMAGE_FORMATS.items()},
    "document": {fmt: mime for mime, fmt in DOCUMENT_FORMATS.items()},
    "video": {**{fmt: mime for mime, fmt in VIDEO_FORMATS.items()}, "mpg": "video/mpeg"},
    "audio": {
        **{fmt: mime for mime, fmt in AUDIO_FORMATS.items() if mime != "audio/x-m4a"},
        "mp4": "audio/mp4",
        "x-aac": "audio/aac",
        "mkv": "audio/x-matroska",
        "mpeg": "audio/mpeg",
        "mpga": "audio/mpeg",
    },
}
_MEDIA_CLASSES: dict[str, type[_Media]] = {
    "image": ImageBlock,
    "document": FileBlock,
    "video": VideoBlock,
    "audio": AudioBlock,
}
_DOCUMENT_EXTENSIONS = {fmt: fmt for fmt in DOCUMENT_FORMATS.values()}

_NAME_LIMIT = 200
_NAME_DISALLOWED = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")
_WHITESPACE = re.compile(r"\s+")

# The keys of a toolUse / toolResult / document that mediablocks models; others are kept in
# ``provider_data["bedrock"]`` and sent back with the block.
_TOOL_USE_KEYS = frozenset({"toolUseId", "name", "input"})
_TOOL_RESULT_KEYS = frozenset({"toolUseId", "content", "status"})
_DOCUMENT_KEYS = frozenset({"format", "name", "source"})
_MEDIA_KEYS = frozenset({"format", "source"})
