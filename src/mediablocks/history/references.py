"""The text that stands for media taken out of a session, and the tool that brings it back.

`fit_session` replaces an older image with a reference the model can read and quote::

    [image sha256:3f9a0c51d2e4b7a8… from tool call c7, stored]

(``stored``: the bytes are in the session's `MediaStore`; ``not stored``: they are gone from this
request and nothing can bring them back). A thumbnail carries the same words after ``thumbnail
of``. Give the model the ``view_media`` tool (`view_media_tool`) and answer its calls with
`view_media`, which finds the bytes by the quoted hash and returns them as the tool's result.

The parsers here read text a model wrote: `media_digests` and `view_media` look at no more than
`MAX_ARGUMENT` characters with one linear regular expression.
"""

from __future__ import annotations

import re

from ..blocks import TextBlock, ToolResultBlock
from ..errors import InvalidOptionError
from ..media_input import media_block
from ..sources.media_store import MIN_PREFIX, MediaStore, check_prefix, checked_get
from ..tools import Tool

__all__ = [
    "MAX_ARGUMENT",
    "SHOWN_DIGITS",
    "VIEW_MEDIA",
    "media_digests",
    "reference_text",
    "view_media",
    "view_media_tool",
]

SHOWN_DIGITS = 16
"""Hex digits of the SHA-256 a reference shows (64 bits: unique within any one store)."""
MAX_ARGUMENT = 1000
"""The most characters of a model's ``view_media`` argument that are read."""
VIEW_MEDIA = "view_media"
"""The name of the tool `view_media_tool` defines."""

_HASH = re.compile(rf"sha256:([0-9a-fA-F]{{{MIN_PREFIX},64}})")
_BARE = re.compile(rf"\s*([0-9a-fA-F]{{{MIN_PREFIX},64}})\s*")
_UNSAFE = re.compile(r"[\[\]\x00-\x1f\x7f]")


def _kind_word(kind: str) -> str:
    return "document" if kind == "file" else kind


def _origin(tool_call_id: str | None, message: int) -> str:
    if tool_call_id is None:
        return f"message {message}"
    shown = _UNSAFE.sub("_", tool_call_id)[:64]
    return f"tool call {shown}"


def reference_text(
    kind: str,
    digest: str | None,
    *,
    tool_call_id: str | None,
    message: int,
    stored: bool,
    thumbnail: bool = False,
    removed: bool = False,
) -> str:
    """The bracketed text for media taken out of a request (the forms in the module docstring).

    ``digest`` None (media whose bytes are elsewhere: a URL, a provider file id) names no hash.
    ``removed`` is the form for ``older="drop"``: ``[image from tool call c7 removed]``.
    """
    word = _kind_word(kind)
    where = _origin(tool_call_id, message)
    if removed:
        return f"[{word} from {where} removed]"
    name = f"{word} sha256:{digest[:SHOWN_DIGITS]}…" if digest else f"earlier {word}"
    state = "stored" if stored else "not stored"
    if thumbnail:
        return f"[thumbnail of {name} from {where}, {state}]"
    return f"[{name} from {where}, {state}]"


def media_digests(text: str) -> list[str]:
    """The hex digests (or prefixes) quoted as ``sha256:<hex>`` in ``text``, lowercased, in
    order, without repeats; only the first `MAX_ARGUMENT` characters are read."""
    if not isinstance(text, str):
        return []
    found: list[str] = []
    for match in _HASH.finditer(text[:MAX_ARGUMENT]):
        digest = match.group(1).lower()
        if digest not in found:
            found.append(digest)
    return found


def _wanted(reference: object) -> str | None:
    """The one hex prefix a ``view_media`` argument names, or None."""
    if not isinstance(reference, str):
        return None
    quoted = media_digests(reference)
    if len(quoted) == 1:
        return quoted[0]
    if not quoted:
        bare = _BARE.fullmatch(reference[:MAX_ARGUMENT])
        if bare is not None and len(reference) <= MAX_ARGUMENT:
            return bare.group(1).lower()
    return None


def view_media(
    reference: object, store: MediaStore, *, tool_call_id: str, name: str | None = VIEW_MEDIA
) -> ToolResultBlock:
    """The result of a ``view_media`` call: the stored media a reference names, as a tool result.

    ``reference`` is what the model passed: a whole reference (``[image sha256:3f9a… from tool
    call c7, stored]``), ``sha256:<hex>`` or bare hex, at least 8 digits. The result holds a
    line naming the full hash and the media block (its class from the bytes). A reference the
    model got wrong (no hash, several, unknown, or a prefix two stored media share) gives a
    result with ``is_error=True`` saying so, for the model to read; a store whose bytes do not
    match their hash raises `SourceError`.
    """
    if not isinstance(tool_call_id, str) or not tool_call_id:
        raise InvalidOptionError("view_media: tool_call_id must be a non-empty string")

    def error(text: str) -> ToolResultBlock:
        return ToolResultBlock(tool_call_id=tool_call_id, content=text, is_error=True, name=name)

    prefix = _wanted(reference)
    if prefix is None:
        return error(
            "view_media needs one media reference: the sha256:<hex> of a stored item, as quoted "
            "in its [... sha256:... stored] note"
        )
    check_prefix(prefix)
    matches = store.find(prefix)
    if not matches:
        return error(f"no stored media has sha256:{prefix}")
    if len(matches) > 1:
        return error(f"sha256:{prefix} names {len(matches)} stored media; give more digits")
    digest = matches[0]
    data = checked_get(store, digest)
    if data is None:
        return error(f"no stored media has sha256:{prefix}")
    block = media_block(data)
    label = TextBlock(text=f"sha256:{digest}")
    return ToolResultBlock(tool_call_id=tool_call_id, content=[label, block], name=name)


def view_media_tool(name: str = VIEW_MEDIA) -> Tool:
    """The `Tool` a model calls to see stored media again: one string argument ``ref``."""
    return Tool(
        name=name,
        description=(
            "Show again, at full size, an image or other media that was taken out of the "
            "conversation to save space. Pass the sha256 from its note, as in "
            "'sha256:3f9a0c51d2e4b7a8'."
        ),
        parameters={
            "type": "object",
            "properties": {
                "ref": {
                    "type": "string",
                    "description": "The sha256:<hex> quoted in the media's note.",
                }
            },
            "required": ["ref"],
        },
    )
