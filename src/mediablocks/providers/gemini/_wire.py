"""What Gemini's encoder and decoder share: the accepted types, markers and field spelling."""

from __future__ import annotations

import mimetypes
import re
from datetime import date, datetime
from enum import Enum
from typing import Any, Union
from urllib.parse import urlsplit

from ...datauri import b64encode
from ...media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from ...mime import normalize_mime
from .._common import dumped

PROVIDER = "gemini"
_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})
AUDIO_TYPES = frozenset(
    {"audio/wav", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
)
VIDEO_TYPES = frozenset(
    {
        "video/mp4",
        "video/mpeg",
        "video/mpg",
        "video/quicktime",
        "video/mov",
        "video/x-msvideo",
        "video/avi",
        "video/x-flv",
        "video/webm",
        "video/x-ms-wmv",
        "video/wmv",
        "video/3gpp",
    }
)
DOCUMENT_TYPES = frozenset(
    {"application/pdf", "application/x-javascript", "application/x-python"}
)  # and every text/* type
TOOL_RESULT_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}
)
"""What Gemini 3 takes inside ``function_response.parts``; other media in a tool result follow
``options.tool_result_media``."""

# Spellings some detectors give, sent as the type Gemini documents.
_WIRE_MIME = {
    "audio/x-wav": "audio/wav",
    "audio/x-aiff": "audio/aiff",
    "audio/x-aac": "audio/aac",
    "audio/x-flac": "audio/flac",
    "audio/mp3": "audio/mpeg",
}
# Markers mediablocks keeps in ``provider_data["gemini"]`` that are not Gemini fields.
_SYNTHETIC_ID = "synthetic_id"
_RESPONSE_JSON = "response_json"
_AS_FILE_URI = "as_file_uri"
"""Marks an http(s) URL that Gemini sent as ``file_data``: it goes back as ``file_data``."""
_MARKERS = frozenset({_SYNTHETIC_ID, _RESPONSE_JSON, _AS_FILE_URI})
_SENT_TYPE = "sent_type"
"""Marks a file URI whose type Gemini itself sent though its docs do not list it (``audio/mp4``):
it goes back with that type instead of being refused."""
_NO_TYPE = "no_type"
"""Marks a file URI Gemini was sent without a ``mime_type``: it goes back without one."""
_NO_ARGS = "no_args"
"""Marks a function call that came without ``args``: it goes back without them."""
_EMPTY_PART = "empty_part"
"""Marks an empty text part a reply had: it goes back (empty text is otherwise not sent)."""
_MARKERS = _MARKERS | {_SENT_TYPE, _NO_TYPE, _NO_ARGS, _EMPTY_PART}
NEW_CONTENT = "new_content"
"""Marks (in ``metadata["gemini"]``) a message that began a content of the same role as the
content before it: it goes back as its own content, not merged into that one."""
NO_ROLE = "no_role"
"""Marks a message decoded from a content that named no role: it goes back without one."""
# Values whose keys belong to the caller (tool arguments and results): never respelled.
_FREE_FORM = frozenset({"args", "response", "part_metadata"})
_YOUTUBE_HOSTS = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be"})
_FILE_API_HOST = "generativelanguage.googleapis.com"
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


# -- spelling ---------------------------------------------------------------------------------


def _snake_key(key: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", key).lower() if not key.islower() else key


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _respell(value: Any, spell: Any) -> Any:
    """``value`` with every dict key respelled by ``spell``, except inside free-form fields.

    Null fields are dropped on the way (the SDK's ``model_dump()`` writes every unset field as
    None; the API reads null as unset).
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue
            name = spell(key) if isinstance(key, str) else key
            out[name] = item if _snake_key(str(key)) in _FREE_FORM else _respell(item, spell)
        return out
    if isinstance(value, list):
        return [_respell(item, spell) for item in value]
    return value


def _get(data: Any, name: str) -> Any:
    """A field by its snake_case name, or its camelCase spelling (None when absent)."""
    if not isinstance(data, dict):
        return None
    value = data.get(name)
    return value if value is not None else data.get(_camel_key(name))


def documented_type(mime: str) -> bool:
    """True for a type Gemini's docs list as input (images, audio, video, PDF and text)."""
    return (
        mime in IMAGE_TYPES
        or mime in AUDIO_TYPES
        or mime in VIDEO_TYPES
        or mime in DOCUMENT_TYPES
        or mime.startswith("text/")
    )


def _wire_mime(mime: str) -> str:
    return _WIRE_MIME.get(mime, mime)


def _guess(name: str | None) -> str | None:
    if not name:
        return None
    guessed = mimetypes.guess_type(urlsplit(name).path or name)[0]
    if guessed is None:
        return None
    try:
        return _wire_mime(normalize_mime(guessed))
    except ValueError:  # pragma: no cover - mimetypes gives well-formed types
        return None


def _gemini_reads(url: str) -> bool:
    """URLs Gemini fetches itself by default: YouTube videos and Gemini File API URIs."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in _YOUTUBE_HOSTS:
        return True
    return host == _FILE_API_HOST and "/files/" in parts.path


def _plain(value: Any) -> Any:
    """A dict for an SDK object (the SDK dumps snake_case, bytes kept), or the value as is."""
    return dumped(value, mode="python", exclude_none=True)


def _json_safe(value: Any) -> Any:
    """Bytes as base64 (the REST spelling), enums as their value, datetimes as ISO text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b64encode(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value
