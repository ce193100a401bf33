"""``prepare(..., accept=[...])``: refuse every media block of a kind or type the caller does not
take, before any decoder, converter or worker runs on it.

An entry is a kind (``"image"``, ``"audio"``, ``"video"``, ``"document"``; ``"file"`` is the same
as ``"document"``), a MIME type (``"application/pdf"``, aliases normalised: ``"image/jpg"``) or a
wildcard (``"image/*"``). A block's type is what its first bytes say (`MediaBlock.mime_type`: a
signature look-up on the header, no decoding); for a URL or file id not read, the declared type or
the extension.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import InvalidOptionError, NotAcceptedError
from ..mime import mime_kind, normalize_mime
from .slots import _Slot

__all__ = ["Accepted", "check_accepted"]

_KINDS = {"image": "image", "audio": "audio", "video": "video", "document": "file", "file": "file"}


class Accepted:
    """What ``accept=`` allows: kinds, exact MIME types and ``major/*`` wildcards."""

    def __init__(self, entries: Iterable[str]) -> None:
        if isinstance(entries, (str, bytes)):
            raise InvalidOptionError(
                f"prepare: accept takes a list of kinds or MIME types, not one string "
                f"({entries!r}): write accept=[{entries!r}]"
            )
        self.kinds: set[str] = set()
        self.types: set[str] = set()
        self.majors: set[str] = set()
        self.shown: list[str] = []
        for entry in entries:
            if not isinstance(entry, str) or not entry.strip():
                raise InvalidOptionError(
                    f"prepare: accept entries are kinds or MIME types, not {entry!r}"
                )
            text = entry.strip().lower()
            self.shown.append(text)
            if text in _KINDS:
                self.kinds.add(_KINDS[text])
            elif text in ("*", "*/*"):
                self.majors.add("*")
            elif text.endswith("/*") and text.count("/") == 1:
                self.majors.add(text[:-2])
            elif text.count("/") == 1 and all(text.split("/")):
                self.types.add(normalize_mime(text))
            else:
                raise InvalidOptionError(
                    f"prepare: accept entry {entry!r} is neither a kind (image, audio, video, "
                    "document) nor a MIME type (image/png, image/*)"
                )

    def allows(self, mime: str) -> bool:
        major = mime.split("/", 1)[0]
        return (
            "*" in self.majors
            or mime in self.types
            or major in self.majors
            or mime_kind(mime) in self.kinds
        )


def check_accepted(slots: Sequence[_Slot], accept: Iterable[str] | None) -> None:
    """Raise `NotAcceptedError` naming every block ``accept`` does not allow (nothing read past
    the header, nothing decoded); do nothing when ``accept`` is None."""
    if accept is None:
        return
    allowed = Accepted(accept)
    refused = [slot for slot in slots if not allowed.allows(slot.block.mime_type)]
    if not refused:
        return
    listing = "; ".join(f"{slot.where} is {slot.block.mime_type}" for slot in refused)
    raise NotAcceptedError(
        f"{len(refused)} block{'s' if len(refused) > 1 else ''} of a type not accepted "
        f"(accept={allowed.shown}): {listing}",
        block=refused[0].block,
        blocks=[slot.block for slot in refused],
    )
