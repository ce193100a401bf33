"""Users' own signatures, checked by `detect_mime` before the built-in table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidOptionError, MediaTypeError
from ._common import HEADER_WINDOW
from .names import normalize_mime

# -- users' signatures -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _UserSignature:
    name: str
    mime: str
    prefix: bytes
    offset: int
    accept: Callable[[memoryview], bool] | None

    def matches(self, window: memoryview) -> bool:
        if self.prefix:
            end = self.offset + len(self.prefix)
            if len(window) < end or window[self.offset : end].tobytes() != self.prefix:
                return False
        return self.accept is None or bool(self.accept(window))


_user_signatures: tuple[_UserSignature, ...] = ()


def register_signature(
    mime: str,
    accept: Callable[[memoryview], bool] | None = None,
    *,
    prefix: bytes | None = None,
    offset: int = 0,
    name: str | None = None,
) -> None:
    """Teach `detect_mime` a format of your own; it is checked before the built-in table.

    ``accept(window)`` gets a read-only memoryview of the header window (at most `HEADER_WINDOW`
    bytes) and says whether the bytes are ``mime``. ``prefix`` (bytes expected at ``offset``) is a
    convenience that can replace or guard ``accept``: with both, both must agree. ``name``
    (default: the MIME type) identifies the signature; registering a name again replaces it.
    The most recently registered signature is checked first. Exceptions from ``accept`` propagate.
    """
    canonical = normalize_mime(mime)
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise InvalidOptionError(f"register_signature.offset must be an int, got {offset!r}")
    if prefix is not None and not isinstance(prefix, (bytes, bytearray, memoryview)):
        raise InvalidOptionError(f"register_signature.prefix must be bytes, got {prefix!r}")
    if name is not None and not isinstance(name, str):
        raise InvalidOptionError(f"register_signature.name must be a str, got {name!r}")
    if accept is None and not prefix:
        raise MediaTypeError(f"register_signature({mime!r}): give accept, prefix, or both")
    if accept is not None and not callable(accept):
        raise MediaTypeError(f"register_signature({mime!r}): accept must be callable")
    if offset < 0 or offset + len(prefix or b"") > HEADER_WINDOW:
        raise MediaTypeError(
            f"register_signature({mime!r}): the prefix must lie within the first "
            f"{HEADER_WINDOW} bytes (offset={offset})"
        )
    global _user_signatures
    signature = _UserSignature(name or canonical, canonical, bytes(prefix or b""), offset, accept)
    kept = tuple(s for s in _user_signatures if s.name != signature.name)
    _user_signatures = (signature, *kept)


def unregister_signature(name: str) -> bool:
    """Forget a signature added by `register_signature` (by its name, default its MIME type).

    Returns whether one was removed. Built-in signatures cannot be removed; register your own to
    take precedence over them instead.
    """
    global _user_signatures
    try:
        key = normalize_mime(name)
    except MediaTypeError:
        key = name
    kept = tuple(s for s in _user_signatures if s.name not in (name, key))
    removed = len(kept) != len(_user_signatures)
    _user_signatures = kept
    return removed
