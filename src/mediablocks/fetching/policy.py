"""`FetchPolicy`: what reading a URL or a path may do, set per call or once for a scope.

A policy is immutable. Pass one to `fetch`, `MediaBlock.read` or `aread`, or make it the default
for a block of code with `use_policy`, safe across threads and asyncio tasks (a context variable)::

    with mb.use_policy(mb.FetchPolicy(max_bytes=5_000_000)):
        data = block.read()
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from .._checks import check_bool, check_count, check_seconds, check_size, check_text
from ..errors import BlockedURLError, DownloadTooLargeError, InvalidOptionError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PATH_BYTES",
    "FetchPolicy",
    "URLDecision",
    "current_policy",
    "decision_for",
    "fetch_budget",
    "roots_option",
    "scoped_policy",
    "use_policy",
]

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
"""The default cap on one URL download (50 MiB)."""

DEFAULT_MAX_PATH_BYTES = 1024 * 1024 * 1024
"""The default cap on reading one local file (1 GiB): far above any provider's inline limit,
yet a file that never ends (a device, a FIFO, a log being written) stops with an error instead of
filling memory."""


@dataclass(frozen=True)
class URLDecision:
    """What a `FetchPolicy.url_hook` says about one URL.

    ``headers``: sent with the request for this URL only (an ``Authorization`` for your own
    storage; a redirect to another URL asks the hook again, so credentials never follow a
    redirect unless the hook says so for the new URL). ``refuse``: a reason; the URL is not
    fetched (`BlockedURLError`) and is not sent to a provider either. ``fetch``: who fetches
    it when a provider could: ``"inline"`` (downloaded here, under the policy, and sent as
    bytes), ``"url"`` (the provider fetches it), ``"auto"`` (the call's ``url_media``).
    """

    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    refuse: str | None = None
    fetch: Literal["auto", "inline", "url"] = "auto"

    def __post_init__(self) -> None:
        if not isinstance(self.headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and "\n" not in k + v and "\r" not in k + v
            for k, v in self.headers.items()
        ):
            raise InvalidOptionError("URLDecision.headers must map text names to text values")
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))
        if self.refuse is not None and not isinstance(self.refuse, str):
            raise InvalidOptionError("URLDecision.refuse must be a reason (text) or None")
        if self.fetch not in ("auto", "inline", "url"):
            raise InvalidOptionError("URLDecision.fetch must be 'auto', 'inline' or 'url'")


URLHook = Callable[[str], "URLDecision | None"]
"""``hook(url) -> URLDecision | None``: called for each URL before it is fetched or sent."""


@dataclass(frozen=True)
class FetchPolicy:
    """Limits and permissions for fetching URLs and reading paths.

    The defaults are safe for URLs that came from untrusted users: only http and https, no private,
    loopback, link-local or metadata addresses, at most 50 MiB, 30 seconds in all, 5 redirects;
    local files of at most 1 GiB. Widen them on purpose with `replace` or by building a new policy.
    Every value is checked when the policy is built: a wrong type, NaN, an infinity or a negative
    number raises `InvalidOptionError` naming the option. See docs/fetching.md.
    """

    allow_private: bool = False
    """Allow addresses in private, loopback, link-local, CGNAT and other non-public ranges
    (never multicast or broadcast, and not cloud metadata endpoints: see `allow_metadata`)."""
    allow_metadata: bool = False
    """Allow cloud metadata endpoints (169.254.169.254, fd00:ec2::254, 100.100.100.200,
    ``metadata.google.internal``...). Separate from `allow_private` on purpose."""
    allowed_schemes: frozenset[str] = frozenset({"http", "https"})
    """URL schemes the fetcher accepts. ``file:`` is never fetched: use ``from_path``."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """The most bytes one fetch may download; reading stops there with `TooLargeError`."""
    max_path_bytes: int = field(default=DEFAULT_MAX_PATH_BYTES, kw_only=True)
    """The most bytes reading one local file (``from_path``) may return. A larger file, or one
    that grows past it while read, raises `FileTooLargeError` after reading at most one byte more;
    devices, FIFOs and sockets are refused before reading. Keyword only."""
    timeout: float = 30.0
    """Seconds for the whole fetch, redirects and a slowly trickling body included."""
    max_redirects: int = 5
    """Redirects followed before giving up."""
    allowed_hosts: frozenset[str] | None = None
    """When set, only these host names (or ``*.example.com`` suffix patterns) may be fetched."""
    blocked_hosts: frozenset[str] = frozenset()
    """Host names (or ``*.suffix`` patterns) never fetched."""
    allowed_roots: tuple[str, ...] | None = None
    """When set, `from_path` blocks may only read files under these folders. The file is reached
    from the folder by descriptor, component by component: a symbolic link is followed only
    while it stays inside, and what was checked is what is read (no check by name, then a read
    by name). Also what lets a path from a loaded history be read (docs/history.md)."""
    user_agent: str = "mediablocks"
    """The User-Agent header sent with each request."""
    client: httpx.Client | None = field(default=None, compare=False, repr=False)
    """An httpx client to send requests with. Every hop is still checked and the limits apply,
    but the client connects by itself: connections are not pinned to the checked address
    (see docs/fetching.md). Its own redirect following is not used."""
    async_client: httpx.AsyncClient | None = field(default=None, compare=False, repr=False)
    """An httpx async client for `afetch`, with the same guarantees as `client`."""
    transport: httpx.BaseTransport | None = field(default=None, compare=False, repr=False)
    """An httpx transport to send requests with when no client is given (same guarantees)."""
    async_transport: httpx.AsyncBaseTransport | None = field(
        default=None, compare=False, repr=False
    )
    """An httpx transport for the async client the fetcher builds."""
    url_hook: URLHook | None = field(default=None, compare=False, repr=False, kw_only=True)
    """Your per-URL choices: called with each URL (and each redirect) before it is fetched, and
    with each URL block an encoder is about to send; returns a `URLDecision` (auth headers,
    refusing, forcing a download or the URL) or None for the defaults. Keyword only."""
    max_total_bytes: int | None = field(default=None, kw_only=True)
    """The most bytes all fetches of one `encode`, `prepare` or `upload` call may download
    together (each fetch still stops at ``max_bytes``); alone, `fetch` caps one download at
    it. None: no total. Keyword only."""

    def __post_init__(self) -> None:
        owner = "FetchPolicy"
        check_bool(owner, "allow_private", self.allow_private)
        check_bool(owner, "allow_metadata", self.allow_metadata)
        check_size(owner, "max_bytes", self.max_bytes)
        check_size(owner, "max_path_bytes", self.max_path_bytes)
        check_size(owner, "max_total_bytes", self.max_total_bytes, optional=True)
        if self.url_hook is not None and not callable(self.url_hook):
            raise InvalidOptionError("FetchPolicy.url_hook must be a callable or None")
        check_seconds(owner, "timeout", self.timeout)
        check_count(owner, "max_redirects", self.max_redirects)
        check_text(owner, "user_agent", self.user_agent)
        # Accept any iterable of strings for the set-like fields, stored lower-case and frozen.
        object.__setattr__(
            self, "allowed_schemes", _lower_set("allowed_schemes", self.allowed_schemes)
        )
        object.__setattr__(self, "blocked_hosts", _lower_set("blocked_hosts", self.blocked_hosts))
        if self.allowed_hosts is not None:
            object.__setattr__(
                self, "allowed_hosts", _lower_set("allowed_hosts", self.allowed_hosts)
            )
        if self.allowed_roots is not None:
            object.__setattr__(
                self, "allowed_roots", roots_option("FetchPolicy.allowed_roots", self.allowed_roots)
            )

    def replace(self, **changes: Any) -> FetchPolicy:
        """A copy with some fields changed: ``policy.replace(max_bytes=10_000_000)``."""
        return replace(self, **changes)


def _lower_set(name: str, values: Any) -> frozenset[str]:
    if isinstance(values, str):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        raise InvalidOptionError(
            f"FetchPolicy.{name} must be a collection of str, got {type(values).__name__}"
        ) from None
    for item in items:
        if not isinstance(item, str):
            raise InvalidOptionError(f"FetchPolicy.{name} must hold only str, got {item!r}")
    return frozenset(item.lower() for item in items)


def roots_option(name: str, values: Any) -> tuple[str, ...]:
    """Folders given as one path or a collection of them, checked: a tuple of non-empty str
    paths, or `InvalidOptionError` naming option ``name``."""
    if isinstance(values, (str, os.PathLike)):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        raise InvalidOptionError(
            f"{name} must be a collection of paths or None, got {type(values).__name__}"
        ) from None
    roots = []
    for item in items:
        root = os.fspath(item) if isinstance(item, (str, os.PathLike)) else None
        if not isinstance(root, str) or not root:
            raise InvalidOptionError(f"{name} must hold non-empty str paths, got {item!r}")
        roots.append(root)
    return tuple(roots)


_DEFAULT = FetchPolicy()
_current: ContextVar[FetchPolicy] = ContextVar("mediablocks_fetch_policy", default=_DEFAULT)


def current_policy(policy: FetchPolicy | None = None) -> FetchPolicy:
    """The policy to use: the one given, else the scope's (see `use_policy`), else the defaults."""
    return policy if policy is not None else _current.get()


def scoped_policy() -> FetchPolicy | None:
    """The policy a caller set with `use_policy` around this code, or None when none is set
    (the defaults are not a choice anyone made: loaded sources are not read under them)."""
    policy = _current.get()
    return None if policy is _DEFAULT else policy


@contextmanager
def use_policy(policy: FetchPolicy) -> Iterator[FetchPolicy]:
    """Make ``policy`` the default for reads and fetches inside the ``with`` block."""
    token = _current.set(policy)
    try:
        yield policy
    finally:
        _current.reset(token)


# -- per-URL decisions and the budget of one call ------------------------------------------------


def decision_for(url: str, policy: FetchPolicy) -> URLDecision:
    """What ``policy``'s hook says about ``url`` (the defaults when it has none, or says None).

    A hook that raises, or answers with something else, is an `InvalidOptionError` naming it:
    the URL is never fetched on a guess.
    """
    hook = policy.url_hook
    if hook is None:
        return _DEFAULT_DECISION
    try:
        decision = hook(url)
    except Exception as exc:
        raise InvalidOptionError(
            f"FetchPolicy.url_hook failed on {url[:200]!r}: {type(exc).__name__}: {exc}"
        ) from exc
    if decision is None:
        return _DEFAULT_DECISION
    if not isinstance(decision, URLDecision):
        raise InvalidOptionError(
            f"FetchPolicy.url_hook returned a {type(decision).__name__}; it returns a "
            "URLDecision or None"
        )
    if decision.refuse is not None:
        raise BlockedURLError(f"{url[:200]!r} refused by FetchPolicy.url_hook: {decision.refuse}")
    return decision


_DEFAULT_DECISION = URLDecision()


class FetchBudget:
    """Bytes all fetches of one call downloaded so far, against ``max_total_bytes``."""

    def __init__(self) -> None:
        self.used = 0
        self._lock = threading.Lock()

    def room(self, policy: FetchPolicy) -> int:
        """The most bytes the next fetch may download under ``policy``."""
        if policy.max_total_bytes is None:
            return policy.max_bytes
        with self._lock:
            return max(min(policy.max_bytes, policy.max_total_bytes - self.used), 0)

    def spend(self, size: int) -> None:
        with self._lock:
            self.used += size


_budget: ContextVar[FetchBudget | None] = ContextVar("mediablocks_fetch_budget", default=None)


@contextmanager
def fetch_budget() -> Iterator[FetchBudget]:
    """One budget for every fetch inside the block (`encode`, `prepare` and `upload` open one;
    a block inside another shares the outer one)."""
    outer = _budget.get()
    if outer is not None:
        yield outer
        return
    budget = FetchBudget()
    token = _budget.set(budget)
    try:
        yield budget
    finally:
        _budget.reset(token)


def budget_room(policy: FetchPolicy) -> tuple[int, FetchBudget | None]:
    """The cap on the next fetch's body, and the budget it counts against (None: alone)."""
    budget = _budget.get()
    if budget is None:
        cap = policy.max_bytes
        if policy.max_total_bytes is not None:
            cap = min(cap, policy.max_total_bytes)
        return cap, None
    return budget.room(policy), budget


def over_budget(url: str, policy: FetchPolicy, budget: FetchBudget) -> DownloadTooLargeError:
    """The error for a fetch the call's ``max_total_bytes`` has no room left for."""
    return DownloadTooLargeError(
        f"cannot fetch {url[:200]!r}: the downloads of this call would pass "
        f"FetchPolicy.max_total_bytes={policy.max_total_bytes:,} "
        f"({budget.used:,} bytes already downloaded)",
        limit=policy.max_total_bytes,
        size=budget.used,
    )
