"""The address guard on its own: numeric host spellings, address ranges, host patterns.

Oracles are independent of the code under test: the C library's ``inet_aton`` for numeric IPv4
spellings, Python's ``ipaddress.is_global`` for "at least as strict as", and RFC ranges.
"""

from __future__ import annotations

import ipaddress
import random
import socket

import pytest

import mediablocks as mb
from mediablocks.fetching import _addresses
from mediablocks.fetching._addresses import (
    address_refusal,
    host_matches,
    normalize_host,
    parse_ipv4_number,
)

NUMERIC_SPELLINGS = [
    "2130706433",
    "0x7f000001",
    "0X7F000001",
    "0177.0.0.1",
    "0177.1",
    "0x7f.1",
    "127.1",
    "127.0.1",
    "017700000001",
    "127.000.000.001",
    "0",
    "0.0.0.0",
    "4294967295",
    "0xffffffff",
    "10.1",
    "169.254.43518",
    "1.2.3.4",
]


@pytest.mark.parametrize("host", NUMERIC_SPELLINGS)
def test_numeric_ipv4_spellings_read_like_inet_aton(host: str) -> None:
    expected = ipaddress.IPv4Address(socket.inet_aton(host))
    assert parse_ipv4_number(host) == expected
    assert parse_ipv4_number(host + ".") == expected  # a trailing dot changes nothing


@pytest.mark.parametrize(
    "host", ["256.0.0.1", "1.2.3.4.5", "08.0.0.1", "0x1g.1", "1.2.3.4294967296", "a.0x"]
)
def test_numeric_looking_hosts_that_are_no_address_are_refused(host: str) -> None:
    with pytest.raises(OSError, match="illegal IP address"):
        socket.inet_aton(host)
    with pytest.raises(ValueError, match="looks like an IPv4 address"):
        parse_ipv4_number(host)


@pytest.mark.parametrize("host", ["example.com", "1.2.3.com", "123abc", "localhost", "0x.example"])
def test_names_are_not_numbers(host: str) -> None:
    assert parse_ipv4_number(host) is None


REFUSED = [
    ("127.0.0.1", "loopback", "allow_private"),
    ("127.255.1.2", "loopback", "allow_private"),
    ("0.0.0.0", "unspecified", "allow_private"),
    ("10.1.2.3", "private", "allow_private"),
    ("172.16.0.1", "private", "allow_private"),
    ("172.31.255.254", "private", "allow_private"),
    ("192.168.1.1", "private", "allow_private"),
    ("100.64.0.1", "carrier-grade NAT", "allow_private"),
    ("100.127.255.254", "carrier-grade NAT", "allow_private"),
    ("169.254.1.1", "link-local", "allow_private"),
    ("192.0.2.7", "documentation", "allow_private"),
    ("198.51.100.7", "documentation", "allow_private"),
    ("203.0.113.7", "documentation", "allow_private"),
    ("198.18.0.1", "benchmarking", "allow_private"),
    ("198.19.255.1", "benchmarking", "allow_private"),
    ("240.0.0.1", "reserved", "allow_private"),
    ("224.0.0.1", "multicast", None),
    ("239.255.255.250", "multicast", None),
    ("255.255.255.255", "broadcast", None),
    ("169.254.169.254", "metadata", "allow_metadata"),
    ("100.100.100.200", "metadata", "allow_metadata"),
    ("::1", "loopback", "allow_private"),
    ("::", "unspecified", "allow_private"),
    ("fe80::1", "link-local", "allow_private"),
    ("fc00::1", "unique-local", "allow_private"),
    ("fd12:3456::1", "unique-local", "allow_private"),
    ("fec0::1", "site-local", "allow_private"),
    ("ff02::1", "multicast", None),
    ("2001:db8::1", "documentation", "allow_private"),
    ("3fff::1", "documentation", "allow_private"),
    ("2001:2::1", "benchmarking", "allow_private"),
    ("100::1", "discard", "allow_private"),
    ("64:ff9b:1::1", "NAT64", "allow_private"),
    ("fd00:ec2::254", "metadata", "allow_metadata"),
    ("::ffff:127.0.0.1", "IPv4-mapped", "allow_private"),
    ("::ffff:8.8.8.8", "IPv4-mapped", "allow_private"),
    ("::ffff:169.254.169.254", "metadata", "allow_metadata"),
    ("::127.0.0.1", "IPv4-compatible", "allow_private"),
    ("64:ff9b::10.0.0.1", "private", "allow_private"),
    ("64:ff9b::169.254.169.254", "metadata", "allow_metadata"),
    ("2002:7f00:1::", "loopback", "allow_private"),
    ("2002:a9fe:a9fe::1", "metadata", "allow_metadata"),
    ("4000::1", "reserved", "allow_private"),
]


@pytest.mark.parametrize(("address", "reason", "allow"), REFUSED)
def test_non_public_addresses_are_refused_with_the_setting_that_allows_them(
    address: str, reason: str, allow: str | None
) -> None:
    refusal = address_refusal(ipaddress.ip_address(address))
    assert refusal is not None
    assert reason.lower() in refusal.reason.lower()
    assert refusal.allow == (None if allow is None else f"{allow}=True")


def _teredo(server: str, client: str) -> ipaddress.IPv6Address:
    # RFC 4380: 2001:0000:<server v4>:<flags>:<port ^ 0xffff>:<client v4 ^ 0xffffffff>
    value = (0x20010000 << 96) | (int(ipaddress.IPv4Address(server)) << 64)
    value |= (0x8000 << 48) | ((4096 ^ 0xFFFF) << 32)
    value |= int(ipaddress.IPv4Address(client)) ^ 0xFFFFFFFF
    return ipaddress.IPv6Address(value)


def test_teredo_is_judged_by_the_addresses_it_embeds() -> None:
    to_loopback = _teredo("65.54.227.120", "127.0.0.1")
    assert to_loopback.teredo == (
        ipaddress.IPv4Address("65.54.227.120"),
        ipaddress.IPv4Address("127.0.0.1"),
    )
    refusal = address_refusal(to_loopback)
    assert refusal is not None
    assert "loopback" in refusal.reason
    assert address_refusal(_teredo("65.54.227.120", "8.8.4.4")) is None


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "2a00:1450::1"]
)
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_at_least_as_strict_as_pythons_is_global() -> None:
    rng = random.Random(1234)
    samples: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [
        ipaddress.IPv4Address(rng.getrandbits(32)) for _ in range(20000)
    ]
    samples += [ipaddress.IPv6Address(rng.getrandbits(128)) for _ in range(5000)]
    # Dense samples in the IPv6 space that matters (global unicast and special prefixes).
    samples += [ipaddress.IPv6Address((0x2 << 124) | rng.getrandbits(124)) for _ in range(5000)]
    teredo = ipaddress.IPv6Network("2001::/32")
    checked = 0
    for ip in samples:
        if ip.is_global or ip in teredo:
            continue  # Teredo is judged by what it embeds, not refused wholesale
        checked += 1
        assert address_refusal(ip) is not None, ip
    assert checked > 1000


def test_host_names_compare_in_ascii_lower_case_without_trailing_dot() -> None:
    assert normalize_host("Example.COM.") == "example.com"
    assert normalize_host("bücher.test") == "xn--bcher-kva.test"
    assert normalize_host("2130706433") == "127.0.0.1"
    assert normalize_host("0x7f.1.") == "127.0.0.1"


def test_host_patterns() -> None:
    patterns = frozenset({"*.example.com", "exact.test", "bücher.test", "10.0.0.1"})
    assert host_matches("a.example.com", patterns) == "*.example.com"
    assert host_matches("a.b.example.com", patterns) == "*.example.com"
    assert host_matches("example.com", patterns) is None  # the suffix pattern is subdomains only
    assert host_matches("badexample.com", patterns) is None
    assert host_matches("exact.test", patterns) == "exact.test"
    assert host_matches("sub.exact.test", patterns) is None
    assert host_matches("xn--bcher-kva.test", patterns) == "bücher.test"
    assert host_matches(normalize_host("167772161"), patterns) == "10.0.0.1"


def test_check_host_name_refuses_invalid_names_and_metadata_names() -> None:
    policy = mb.FetchPolicy(allow_private=True)
    with pytest.raises(mb.BlockedURLError, match="no fetch policy allows it"):
        _addresses.check_host_name("http://%31%32%37.0.0.1/", "%31%32%37.0.0.1", policy)
    with pytest.raises(mb.BlockedURLError, match="not a valid DNS name"):
        _addresses.check_host_name("http://exa%6dple.com/", "exa%6dple.com", policy)
    with pytest.raises(mb.BlockedURLError, match="not a valid DNS name"):
        _addresses.check_host_name("http://a..b/", "a..b", policy)
    with pytest.raises(mb.BlockedURLError, match=r"metadata.*allow_metadata=True"):
        _addresses.check_host_name(
            "http://metadata.google.internal/", "metadata.google.internal.", policy
        )
    with_metadata = policy.replace(allow_metadata=True)
    assert _addresses.check_host_name("http://metadata/", "metadata", with_metadata) is None
