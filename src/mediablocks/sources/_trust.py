"""Sources that came from outside: a loaded history, a decoded payload, a folded stream.

A stored history or a provider payload is untrusted input: a ``{"kind": "path", "path":
"/etc/passwd"}`` in it must not make the library read that file and send it to a provider, nor a
URL in it make the library fetch it. Every path and URL source built while such input is loaded
(inside `loading`) remembers an `Allowance`: what the caller allowed when loading (folders for
paths, a `FetchPolicy` for URLs), or nothing. Such a source is kept and written back as it came
(dumped, or sent on as a URL to a provider that fetches URLs itself), but read only when allowed:

- a path is read only under the folders given to the loader (``allow_paths=``), else under the
  ``allowed_roots`` of a policy passed to the read (``block.read(policy)``, ``encode(...,
  policy=...)``) or set with `use_policy`; otherwise `PathNotAllowedError`;
- a URL is fetched only under the policy given to the loader (``policy=``), else under one passed
  to the read or set with `use_policy`; otherwise `BlockedURLError`. The library's defaults are
  nobody's choice, so they never count.

Sources the caller builds (``from_path``, ``from_url``, dicts passed to ``encode``) carry no
allowance and read as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ..errors import InvalidOptionError
from ..fetching.policy import FetchPolicy, roots_option

__all__ = ["Allowance", "current_allowance", "loading"]


@dataclass(frozen=True)
class Allowance:
    """What the caller allowed the path and URL sources of one loaded input to read."""

    origin: str
    """Where the sources came from, for errors: ``a loaded history``, ``a decoded gemini
    payload``."""
    loader: str | None
    """The function whose ``allow_paths=`` / ``policy=`` would allow it (None: none has them)."""
    roots: tuple[str, ...] | None = None
    """Folders its paths may be read under; None: only where a read's policy allows."""
    policy: FetchPolicy | None = None
    """The policy its URLs are fetched under; None: only under a read's or a scope's policy."""


_current: ContextVar[Allowance | None] = ContextVar("mediablocks_loading", default=None)


def current_allowance() -> Allowance | None:
    """The allowance for sources built now: None outside `loading` (the caller's own sources)."""
    return _current.get()


@contextmanager
def loading(
    origin: str,
    loader: str | None,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> Iterator[Allowance]:
    """Mark every path and URL source built inside the ``with`` block as loaded from ``origin``.

    ``allow_paths`` (folders) and ``policy`` are what the caller of ``loader`` allowed; a policy's
    own ``allowed_roots`` allow paths too when ``allow_paths`` is not given. Both are checked
    here, so a wrong value fails the load, not a later read. Inside another `loading` and given
    neither, the outer allowance holds (``decode_request`` decoding through ``decode``).
    """
    outer = _current.get()
    if outer is not None and allow_paths is None and policy is None:
        yield outer
        return
    if policy is not None and not isinstance(policy, FetchPolicy):
        raise InvalidOptionError(
            f"{loader or origin}: policy must be a FetchPolicy or None, "
            f"not a {type(policy).__name__}"
        )
    roots = roots_option(f"{loader}: allow_paths", allow_paths) if allow_paths is not None else None
    if roots is None and policy is not None:
        roots = policy.allowed_roots
    allowance = Allowance(origin, loader, roots, policy)
    token = _current.set(allowance)
    try:
        yield allowance
    finally:
        _current.reset(token)
