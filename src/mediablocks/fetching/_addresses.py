"""The address guard: which hosts and IP addresses a fetch may connect to.

Everything here is pure and synchronous except `resolve` / `aresolve`, which look names up
within the fetch's deadline (`._resolver`). The fetcher asks, for each
hop of a fetch: is the scheme allowed (`check_scheme`), is the host name allowed
(`check_host_name`), and are *all* the addresses it resolves to allowed (`resolve` +
`check_address`)? It then connects only to those checked addresses.

Numeric IPv4 hosts are read the way ``inet_aton`` and the WHATWG URL standard read them, so
``2130706433``, ``0x7f000001``, ``0177.1`` and ``127.1`` are all 127.0.0.1 — exactly what a
system resolver would connect to.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from ..errors import BlockedURLError, FetchError, FetchTimeoutError
from .policy import FetchPolicy

__all__ = [
    "METADATA_ADDRESSES",
    "METADATA_NAMES",
    "IPAddress",
    "Refusal",
    "address_refusal",
    "aresolve",
    "check_address",
    "check_host_name",
    "check_scheme",
    "host_matches",
    "ip_literal",
    "normalize_host",
    "parse_ipv4_number",
    "resolve",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_ALLOW_PRIVATE = "allow_private=True"
_ALLOW_METADATA = "allow_metadata=True"

METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OCI, DigitalOcean... instance metadata
        "169.254.170.2",  # AWS ECS task metadata and credentials
        "169.254.170.23",  # AWS EKS pod identity agent
        "fd00:ec2::254",  # AWS instance metadata over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity agent over IPv6
        "100.100.100.200",  # Alibaba Cloud metadata
        "168.63.129.16",  # Azure WireServer (a public address only reachable from Azure hosts)
        "192.0.0.192",  # Oracle Cloud Classic metadata
    )
)
"""Cloud metadata and credential endpoints: refused unless ``allow_metadata=True``."""

METADATA_NAMES: frozenset[str] = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
"""Host names of metadata services, refused before any name resolution."""


@dataclass(frozen=True)
class Refusal:
    """Why an address is refused and which policy setting would allow it (None: nothing does)."""

    reason: str
    allow: str | None


_V4_RANGES: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), what)
    for net, what in (
        ("0.0.0.0/8", "unspecified ('this network')"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT (shared address space)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved for IETF protocol assignments"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.88.99.0/24", "reserved (deprecated 6to4 relay anycast)"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("240.0.0.0/4", "reserved"),
    )
)
_V4_MULTICAST = ipaddress.IPv4Network("224.0.0.0/4")
_V4_BROADCAST = ipaddress.IPv4Address("255.255.255.255")

_V6_RANGES: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), what)
    for net, what in (
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "discard-only"),
        ("2001:2::/48", "benchmarking"),
        ("2001::/23", "reserved for IETF protocol assignments"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "segment routing (SRv6)"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
    )
)
_V6_MULTICAST = ipaddress.IPv6Network("ff00::/8")
_V6_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_V6_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_V6_COMPATIBLE = ipaddress.IPv6Network("::/96")
_V6_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def address_refusal(ip: IPAddress) -> Refusal | None:
    """Why ``ip`` is not a public unicast address, or None when it is one.

    Addresses that embed an IPv4 address (IPv4-mapped and -compatible, NAT64, 6to4, Teredo) are
    judged by what they embed as well.
    """
    if ip in METADATA_ADDRESSES:
        return Refusal("a cloud metadata endpoint", _ALLOW_METADATA)
    if isinstance(ip, ipaddress.IPv4Address):
        if ip == _V4_BROADCAST:
            return Refusal("the broadcast address", None)
        if ip in _V4_MULTICAST:
            return Refusal("multicast", None)
        for net, what in _V4_RANGES:
            if ip in net:
                return Refusal(what, _ALLOW_PRIVATE)
        return None
    return _v6_refusal(ip)


def _v6_refusal(ip: ipaddress.IPv6Address) -> Refusal | None:
    if ip.is_unspecified:
        return Refusal("unspecified", _ALLOW_PRIVATE)
    if ip.is_loopback:
        return Refusal("loopback", _ALLOW_PRIVATE)
    if ip in _V6_MAPPED or ip in _V6_COMPATIBLE:
        kind = "IPv4-mapped" if ip in _V6_MAPPED else "IPv4-compatible"
        embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        inner = address_refusal(embedded)
        if inner is not None and inner.allow != _ALLOW_PRIVATE:
            return Refusal(f"{kind} IPv6 for {embedded}, {inner.reason}", inner.allow)
        return Refusal(f"{kind} IPv6 (for {embedded})", _ALLOW_PRIVATE)
    if ip in _V6_MULTICAST:
        return Refusal("multicast", None)
    embedded_list: list[tuple[str, ipaddress.IPv4Address]] = []
    if ip in _V6_NAT64:
        embedded_list.append(("NAT64", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)))
    elif ip.teredo is not None:
        server, client = ip.teredo
        embedded_list += [("Teredo", server), ("Teredo", client)]
    elif ip.sixtofour is not None:
        embedded_list.append(("6to4", ip.sixtofour))
    for kind, embedded in embedded_list:
        inner = address_refusal(embedded)
        if inner is not None:
            return Refusal(f"{kind} IPv6 embedding {embedded}, {inner.reason}", inner.allow)
    if embedded_list:
        return None
    for net, what in _V6_RANGES:
        if ip in net:
            return Refusal(what, _ALLOW_PRIVATE)
    if ip not in _V6_GLOBAL_UNICAST:
        return Refusal("reserved (outside global unicast 2000::/3)", _ALLOW_PRIVATE)
    return None


def _allowed_by(refusal: Refusal, policy: FetchPolicy) -> bool:
    if refusal.allow == _ALLOW_METADATA:
        return policy.allow_metadata
    if refusal.allow == _ALLOW_PRIVATE:
        return policy.allow_private
    return False


def check_address(url: str, ip: IPAddress, policy: FetchPolicy) -> None:
    """Raise `BlockedURLError` unless ``policy`` lets a fetch of ``url`` connect to ``ip``."""
    refusal = address_refusal(ip)
    if refusal is None or _allowed_by(refusal, policy):
        return
    raise BlockedURLError(_refusal_message(url, f"address {ip}", refusal))


def _refusal_message(url: str, what: str, refusal: Refusal) -> str:
    if refusal.allow is None:
        remedy = "no fetch policy allows it"
    else:
        remedy = f"FetchPolicy({refusal.allow}) would allow it"
    return f"refused to fetch {_shown(url)}: {what} is {refusal.reason}; {remedy}"


def _shown(url: str) -> str:
    return repr(url if len(url) <= 200 else url[:197] + "...")


def check_scheme(url: str, scheme: str, policy: FetchPolicy) -> None:
    """Raise `BlockedURLError` unless ``scheme`` is http(s) and in ``policy.allowed_schemes``."""
    if scheme == "file":
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: local files are never fetched; "
            "read them explicitly with from_path (confined by FetchPolicy.allowed_roots)"
        )
    if scheme not in ("http", "https"):
        hint = " (use from_data_uri for data: URIs)" if scheme == "data" else ""
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: the {scheme or 'missing'!s} scheme is never fetched; "
            f"only http and https URLs are{hint}"
        )
    if scheme not in policy.allowed_schemes:
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: scheme {scheme!r} is not in "
            f"FetchPolicy.allowed_schemes={sorted(policy.allowed_schemes)!r}; "
            "add it there to allow it"
        )


def parse_ipv4_number(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a numeric host spells (``127.1``, ``0x7f000001``, ``0177.0.0.1``...).

    Returns None for a host that is not numeric. Raises ``ValueError`` for a host whose last label
    is numeric but which is not a valid IPv4 address: resolvers disagree on such names.
    """
    labels = host.split(".")
    if labels and labels[-1] == "" and len(labels) > 1:
        labels.pop()
    if not labels or not _is_number(labels[-1]):
        return None
    if len(labels) > 4:
        raise ValueError(f"{host!r} looks like an IPv4 address but has more than four parts")
    numbers = [_parse_number(label, host) for label in labels]
    *front, last = numbers
    if any(n > 255 for n in front) or last >= 256 ** (5 - len(numbers)):
        raise ValueError(f"{host!r} looks like an IPv4 address but a part is out of range")
    value = last
    for i, n in enumerate(front):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _is_number(label: str) -> bool:
    if label[:2] in ("0x", "0X"):
        return all(c in "0123456789abcdefABCDEF" for c in label[2:])
    return label != "" and label.isascii() and label.isdigit()


def _parse_number(label: str, host: str) -> int:
    try:
        if label[:2] in ("0x", "0X"):
            return int(label[2:], 16) if label[2:] else 0
        if len(label) > 1 and label.startswith("0"):
            return int(label, 8)
        return int(label, 10)
    except ValueError:
        raise ValueError(
            f"{host!r} looks like an IPv4 address but {label!r} is not a number"
        ) from None


def ip_literal(host: str) -> IPAddress | None:
    """The address an IP-literal host names (any IPv4 spelling, or IPv6), else None.

    Raises ``ValueError`` for numeric-looking hosts that are not valid addresses.
    """
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            raise ValueError(f"{host!r} is not a valid IPv6 address") from None
    return parse_ipv4_number(host)


def normalize_host(host: str) -> str:
    """A host name as the guard compares it: ASCII (IDNA) form, lower case, no trailing dot.

    Numeric IPv4 spellings become dotted quads, so ``2130706433`` and ``127.0.0.1`` are equal.
    """
    name = host.strip().lower()
    if not name.isascii():
        import idna  # late: only non-ASCII host names need it

        try:  # the same IDNA 2008 encoding httpx applies to URL hosts
            name = idna.encode(name).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            return name
    if name.endswith(".") and name != ".":
        name = name[:-1]
    try:
        ip = ip_literal(name)
    except ValueError:
        return name
    return str(ip) if ip is not None else name


def host_matches(name: str, patterns: frozenset[str]) -> str | None:
    """The pattern in ``patterns`` that matches ``name`` (exact, or ``*.suffix`` for subdomains)."""
    for pattern in patterns:
        if pattern.startswith("*."):
            suffix = normalize_host(pattern[2:])
            if name.endswith("." + suffix):
                return pattern
        elif normalize_host(pattern) == name:
            return pattern
    return None


def _valid_name(name: str) -> bool:
    if not name or len(name) > 253:
        return False
    for label in name.split("."):
        if not label or len(label) > 63:
            return False
        if not all(c.isascii() and (c.isalnum() or c in "-_") for c in label):
            return False
    return True


def check_host_name(url: str, host: str, policy: FetchPolicy) -> IPAddress | None:
    """Check a URL's host (httpx's ASCII ``raw_host``) against ``policy`` before any resolution.

    Returns the address when the host is an IP literal (already checked), None for a name
    that still has to be resolved and checked with `check_address`.
    """
    if not host:
        raise BlockedURLError(f"refused to fetch {_shown(url)}: the URL has no host")
    name = normalize_host(host)
    blocked = host_matches(name, policy.blocked_hosts)
    if blocked is not None:
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: host {name!r} matches {blocked!r} in "
            "FetchPolicy.blocked_hosts; remove it there to allow it"
        )
    if policy.allowed_hosts is not None and host_matches(name, policy.allowed_hosts) is None:
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: host {name!r} is not in FetchPolicy.allowed_hosts; "
            "add it there to allow it"
        )
    try:
        ip = ip_literal(name)
    except ValueError as exc:
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: {exc}; no fetch policy allows it"
        ) from None
    if ip is not None:
        check_address(url, ip, policy)
        return ip
    if not _valid_name(name):
        raise BlockedURLError(
            f"refused to fetch {_shown(url)}: host {host!r} is not a valid DNS name; "
            "no fetch policy allows it"
        )
    if name in METADATA_NAMES and not policy.allow_metadata:
        refusal = Refusal("a cloud metadata service", _ALLOW_METADATA)
        raise BlockedURLError(_refusal_message(url, f"host {name!r}", refusal))
    if (name == "localhost" or name.endswith(".localhost")) and not policy.allow_private:
        refusal = Refusal("loopback", _ALLOW_PRIVATE)
        raise BlockedURLError(_refusal_message(url, f"host {name!r}", refusal))
    return None


def _addresses_of(
    url: str, host: str, infos: list[tuple[object, ...]], policy: FetchPolicy
) -> tuple[str, ...]:
    found: list[str] = []
    for info in infos:
        sockaddr = info[4]
        assert isinstance(sockaddr, tuple)
        text = str(sockaddr[0]).split("%", 1)[0]
        ip = ipaddress.ip_address(text)
        check_address(url, ip, policy)
        if text not in found:
            found.append(text)
    if not found:
        raise FetchError(f"cannot fetch {_shown(url)}: host {host!r} has no address")
    return tuple(found)


def _resolve_error(url: str, host: str, exc: BaseException) -> FetchError:
    return FetchError(f"cannot fetch {_shown(url)}: cannot resolve host {host!r}: {exc}")


def _lookup_timeout(url: str, host: str, policy: FetchPolicy) -> FetchTimeoutError:
    return FetchTimeoutError(
        f"cannot fetch {_shown(url)}: resolving host {host!r} took longer than "
        f"FetchPolicy.timeout={policy.timeout}s (for the whole fetch, name resolution included)"
    )


def resolve(
    url: str, host: str, port: int, policy: FetchPolicy, seconds: float | None = None
) -> tuple[str, ...]:
    """Resolve ``host`` and check every address; the checked addresses, in resolver order.

    One refused address refuses the host: a name that also points somewhere private is not
    trusted for its public addresses either. The lookup gets ``seconds`` (default: the policy's
    whole timeout); a resolver that hangs past them raises `FetchTimeoutError`.
    """
    from ._resolver import LookupTimeout, LookupUnavailable, lookup

    try:
        infos = lookup(host, port, policy.timeout if seconds is None else seconds)
    except LookupTimeout:
        raise _lookup_timeout(url, host, policy) from None
    except (OSError, UnicodeError, LookupUnavailable) as exc:
        raise _resolve_error(url, host, exc) from None
    return _addresses_of(url, host, infos, policy)


async def aresolve(
    url: str, host: str, port: int, policy: FetchPolicy, seconds: float | None = None
) -> tuple[str, ...]:
    """`resolve` for async code (asyncio or trio); the event loop never waits on the resolver."""
    from ._resolver import LookupTimeout, LookupUnavailable, alookup

    try:
        infos = await alookup(host, port, policy.timeout if seconds is None else seconds)
    except LookupTimeout:
        raise _lookup_timeout(url, host, policy) from None
    except (OSError, UnicodeError, LookupUnavailable) as exc:
        raise _resolve_error(url, host, exc) from None
    return _addresses_of(url, host, infos, policy)
