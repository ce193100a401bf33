"""Fetching against a real HTTP server on 127.0.0.1 that the tests start.

Two safety nets are on for every test here (autouse fixtures):

* ``connects`` records every ``socket.connect`` and refuses any address other than 127.0.0.1/::1,
  so a guard bug can never send traffic elsewhere, and tests can assert nothing was connected.
* ``dns`` replaces name resolution with a table: names the tests made up resolve to what the test
  says, every other name fails. Numeric hosts still go to the real (numeric-only) resolver.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import importlib
import ipaddress
import shutil
import socket
import ssl
import subprocess
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

import mediablocks as mb
from mediablocks.fetching import FetchResult, FetchStatusError, afetch, fetch
from tests.conftest import make_png, make_wav

fetch_module = importlib.import_module("mediablocks.fetching")
fetcher_module = importlib.import_module("mediablocks.fetching._client")
"""The module itself (``mediablocks.fetching`` is also the re-exported function); the machinery."""

LOCAL = mb.FetchPolicy(allow_private=True, timeout=5.0)
"""Loopback allowed: the test server lives on 127.0.0.1."""

# -- the server ---------------------------------------------------------------------------------


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


@dataclass
class Server:
    port: int
    routes: dict[str, Callable[[Handler], None]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)
    done: dict[str, threading.Event] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    def add(self, path: str, route: Callable[[Handler], None]) -> str:
        self.routes[path] = route
        self.done[path] = threading.Event()
        return self.base + path


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        state: Server = self.server.state  # type: ignore[attr-defined]
        path = self.path.split("?", 1)[0]
        state.seen.append(Seen(path, {k.lower(): v for k, v in self.headers.items()}))
        route = state.routes.get(path)
        try:
            if route is None:
                self.send_error(404)
            else:
                route(self)
        finally:
            if path in state.done:
                state.done[path].set()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # Helpers for routes.

    def reply(
        self,
        body: bytes,
        content_type: str | None = "application/octet-stream",
        *,
        status: int = 200,
        length: int | bool | None = True,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        if length is True:
            self.send_header("Content-Length", str(len(body)))
        elif isinstance(length, int) and length is not False:
            self.send_header("Content-Length", str(length))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.send_all(body)

    def send_all(self, data: bytes) -> bool:
        """Send and count what the kernel accepted; False once the client went away."""
        state: Server = self.server.state  # type: ignore[attr-defined]
        path = self.path.split("?", 1)[0]
        try:
            self.connection.sendall(data)
        except OSError:
            return False
        state.sent[path] = state.sent.get(path, 0) + len(data)
        return True


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-body is what several tests do on purpose


@pytest.fixture(scope="module")
def _httpd() -> Iterator[_HTTPServer]:
    httpd = _HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def server(_httpd: _HTTPServer) -> Server:
    state = Server(port=_httpd.server_address[1])
    _httpd.state = state  # type: ignore[attr-defined]
    return state


# -- safety nets --------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every outgoing connection made during the test; anything but loopback is refused."""
    made: list[tuple[str, int]] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def check(address: Any) -> None:
        if isinstance(address, tuple):
            host = str(address[0]).split("%", 1)[0]
            made.append((host, int(address[1])))
            if ipaddress.ip_address(host) not in (
                ipaddress.ip_address("127.0.0.1"),
                ipaddress.ip_address("::1"),
            ):
                raise PermissionError(f"test safety net: connection to {address} refused")

    def connect(self: socket.socket, address: Any) -> None:
        check(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    return made


@dataclass
class FakeDNS:
    table: dict[str, list[list[str]]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    def set(self, name: str, *answers: list[str]) -> None:
        """``name`` resolves to answers[0], then answers[1] on the next lookup, and so on."""
        self.table[name.lower()] = list(answers)


@pytest.fixture(autouse=True)
def dns(monkeypatch: pytest.MonkeyPatch) -> FakeDNS:
    fake = FakeDNS()
    real = socket.getaddrinfo

    def getaddrinfo(
        host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0
    ) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else str(host)
        try:
            ipaddress.ip_address(name.split("%", 1)[0])
        except ValueError:
            pass
        else:
            return real(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        fake.asked.append(name)
        answers = fake.table.get(name.lower().rstrip("."))
        if not answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known (test DNS)")
        current = answers.pop(0) if len(answers) > 1 else answers[0]
        out = []
        for address in current:
            ip = ipaddress.ip_address(address)
            if ip.version == 4:
                out.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port))))
            else:
                out.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, int(port), 0, 0)))
        return out

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return fake


# -- routes -------------------------------------------------------------------------------------


def serve(body: bytes, content_type: str | None = "application/octet-stream", **kw: Any) -> Any:
    return lambda h: h.reply(body, content_type, **kw)


def redirect(location: str, status: int = 302) -> Any:
    return lambda h: h.reply(b"", None, status=status, headers={"Location": location})


def endless(
    chunk: int = 16 * 1024, total: int = 256 * 1024 * 1024, length: int | None = None
) -> Any:
    """A body of ``total`` bytes made chunk by chunk, stopping when the client hangs up."""

    def route(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            h.send_header("Content-Length", str(length))
        h.end_headers()
        block = b"\x00" * chunk
        sent = 0
        while sent < total and h.send_all(block):
            sent += chunk

    return route


def trickle(interval: float = 0.05, limit: float = 5.0) -> Any:
    """One byte every ``interval`` seconds, for at most ``limit`` seconds."""

    def route(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        h.end_headers()
        end = time.monotonic() + limit
        while time.monotonic() < end and h.send_all(b"x"):
            time.sleep(interval)

    return route


def _only_loopback_to(server: Server, connects: list[tuple[str, int]]) -> None:
    assert connects, "expected connections to the test server"
    assert all(host == "127.0.0.1" and port == server.port for host, port in connects)


# -- the basics ---------------------------------------------------------------------------------


def test_bytes_decide_the_type_not_the_header(server: Server) -> None:
    png = make_png((9, 4))
    url = server.add("/pic", serve(png, "text/plain; charset=utf-8"))
    result = fetch(url, LOCAL)
    assert isinstance(result, FetchResult)
    assert result.data == png
    assert result.mime_type == "image/png"
    assert result.content_type == "text/plain; charset=utf-8"
    assert (result.url, result.status_code, result.redirects) == (url, 200, ())
    assert "bytes" in repr(result)
    assert str(len(png)) in repr(result)
    assert "\\x89PNG" not in repr(result)  # 50 MB of bytes never end up in a log line


def test_header_is_a_normalised_fallback_and_the_extension_comes_last(server: Server) -> None:
    unknown = bytes(range(7, 200)) * 3  # no format's magic bytes
    assert mb.detect_mime(unknown) is None
    declared = server.add("/declared", serve(unknown, "image/JPG; q=1"))
    assert fetch(declared, LOCAL).mime_type == "image/jpeg"
    by_extension = server.add("/clip.wav", serve(unknown, "application/octet-stream"))
    assert fetch(by_extension, LOCAL).mime_type == "audio/wav"
    nothing = server.add("/blob", serve(unknown, None))
    result = fetch(nothing, LOCAL)
    assert result.mime_type is None
    assert result.content_type is None


def test_request_headers(server: Server) -> None:
    url = server.add("/h", serve(b"ok"))
    fetch(url, LOCAL.replace(user_agent="my-app/1.0"))
    headers = server.seen[-1].headers
    assert headers["user-agent"] == "my-app/1.0"
    assert headers["accept-encoding"] == "identity"
    assert headers["host"] == f"127.0.0.1:{server.port}"


def test_credentials_in_the_url_become_basic_auth_and_leave_the_url(server: Server) -> None:
    server.add("/private", serve(b"secret"))
    url = f"http://al%20ice:p%40ss@127.0.0.1:{server.port}/private"
    assert fetch(url, LOCAL).data == b"secret"
    expected = "Basic " + base64.b64encode(b"al ice:p@ss").decode()
    assert server.seen[-1].headers["authorization"] == expected
    assert server.seen[-1].path == "/private"


def test_http_errors_carry_the_status(server: Server) -> None:
    missing = server.base + "/nothing-here"
    with pytest.raises(FetchStatusError, match="HTTP 404") as info:
        fetch(missing, LOCAL)
    assert info.value.status_code == 404
    assert info.value.url == missing
    assert isinstance(info.value, mb.FetchError)
    boom = server.add("/boom", serve(b"oops", status=503))
    with pytest.raises(FetchStatusError, match="HTTP 503") as busy:
        fetch(boom, LOCAL)
    assert (busy.value.status, busy.value.retry_after) == (503, None)
    later = server.add("/later", serve(b"slow down", status=429, headers={"Retry-After": "30"}))
    with pytest.raises(FetchStatusError, match="HTTP 429") as limited:
        fetch(later, LOCAL)
    assert (limited.value.status, limited.value.retry_after) == (429, 30.0)
    assert limited.value.code == "fetch_status"


def test_connection_errors_are_fetch_errors_not_httpx_errors() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens there now.
    with pytest.raises(mb.FetchError, match="cannot fetch") as info:
        fetch(f"http://127.0.0.1:{port}/x", LOCAL)
    assert not isinstance(info.value, httpx.HTTPError)
    assert not isinstance(info.value, mb.BlockedURLError)


def test_invalid_urls_are_fetch_errors() -> None:
    with pytest.raises(mb.FetchError, match="not a valid URL"):
        fetch("http://[::1/", LOCAL)
    with pytest.raises(mb.FetchError, match="out of range"):
        fetch("http://127.0.0.1:99999/", LOCAL)


# -- redirects ----------------------------------------------------------------------------------


def test_redirect_chain_within_the_limit(server: Server) -> None:
    png = make_png()
    server.add("/final.png", serve(png, "image/png"))
    server.add("/r1", redirect("/final.png", 308))
    server.add("/r2", redirect(server.base + "/r1", 307))
    server.add("/r3", redirect("r2", 303))  # relative to /r3
    start = server.add("/r4", redirect("/r3", 301))
    result = fetch(start, LOCAL.replace(max_redirects=4))
    assert result.data == png
    assert result.url == server.base + "/final.png"
    assert result.redirects == tuple(server.base + p for p in ("/r4", "/r3", "/r2", "/r1"))
    assert server.paths() == ["/r4", "/r3", "/r2", "/r1", "/final.png"]


def test_too_many_redirects(server: Server) -> None:
    server.add("/end", serve(b"never"))
    server.add("/c", redirect("/end"))
    server.add("/b", redirect("/c"))
    start = server.add("/a", redirect("/b"))
    with pytest.raises(mb.FetchError, match=r"more than 2 redirects") as info:
        fetch(start, LOCAL.replace(max_redirects=2))
    assert not isinstance(info.value, mb.BlockedURLError)
    assert server.paths() == ["/a", "/b", "/c"]  # the third redirect is not followed
    loop = server.add("/loop", redirect("/loop"))
    with pytest.raises(mb.FetchError, match="redirects"):
        fetch(loop, LOCAL)
    with pytest.raises(mb.FetchError, match="more than 0 redirects"):
        fetch(start, LOCAL.replace(max_redirects=0))


# Every redirect hop goes through the guard again. The test server is on loopback, so the first hop
# needs allow_private=True; the redirects below go to places that stay refused even then:
# metadata endpoints need their own flag (allow_metadata), multicast is never fetched, and
# allowed_hosts restricts names on every hop. The safety net would fail the test on any
# connection other than to the test server.
@pytest.mark.parametrize(
    ("target", "policy", "expected"),
    [
        (
            "http://169.254.169.254/latest/meta-data/",
            LOCAL,
            r"169\.254\.169\.254.*allow_metadata=True",
        ),
        ("http://[fd00:ec2::254]/", LOCAL, r"fd00:ec2::254.*allow_metadata=True"),
        ("http://[::ffff:a9fe:a9fe]/", LOCAL, r"allow_metadata=True"),
        ("http://metadata.google.internal/computeMetadata/v1/", LOCAL, "allow_metadata=True"),
        ("http://metadata-alias.test/", LOCAL, r"169\.254\.169\.254.*allow_metadata=True"),
        ("http://224.0.0.1/", LOCAL, "multicast.*no fetch policy allows it"),
        ("http://10.0.0.1/", LOCAL.replace(allowed_hosts={"127.0.0.1"}), "allowed_hosts"),
        ("http://other.test/", LOCAL.replace(allowed_hosts={"127.0.0.1"}), "allowed_hosts"),
        ("ftp://127.0.0.1/x", LOCAL, "scheme"),
        ("file:///etc/passwd", LOCAL, "from_path"),
    ],
)
def test_redirects_are_checked_on_every_hop(
    server: Server,
    connects: list[tuple[str, int]],
    dns: FakeDNS,
    target: str,
    policy: mb.FetchPolicy,
    expected: str,
) -> None:
    dns.set("metadata-alias.test", ["169.254.169.254"])
    start = server.add("/go", redirect(target))
    with pytest.raises(mb.BlockedURLError, match=expected):
        fetch(start, policy)
    assert server.paths() == ["/go"]
    _only_loopback_to(server, connects)


def test_cross_origin_redirects_do_not_carry_client_credentials(
    server: Server, dns: FakeDNS
) -> None:
    dns.set("elsewhere.test", ["127.0.0.1"])
    server.add("/there", serve(b"done"))
    start = server.add("/here", redirect(f"http://elsewhere.test:{server.port}/there"))
    with httpx.Client(headers={"Authorization": "Bearer s3cret"}) as client:
        result = fetch(start, LOCAL.replace(client=client))
    assert result.data == b"done"
    assert server.seen[0].headers.get("authorization") == "Bearer s3cret"
    assert "authorization" not in server.seen[1].headers
    assert server.seen[1].headers["host"] == f"elsewhere.test:{server.port}"


# -- the address guard --------------------------------------------------------------------------

SPELLINGS = [
    "http://127.0.0.1:{port}/",
    "http://2130706433:{port}/",
    "http://0x7f000001:{port}/",
    "http://0x7f.1:{port}/",
    "http://0177.1:{port}/",
    "http://127.1:{port}/",
    "http://127.0.1:{port}/",
    "http://127.0.0.1.:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://[::ffff:7f00:1]:{port}/",
    "http://[::127.0.0.1]:{port}/",
    "http://[::1]:{port}/",
    "http://[::]:{port}/",
    "http://0.0.0.0:{port}/",
    "http://0:{port}/",
    "http://user@127.0.0.1:{port}/",
    "http://user:pass@127.0.0.1:{port}/",
    "http://evil.test@127.0.0.1:{port}/",
    "http://127.0.0.1:{port}#@evil.test/",
    "http://127.0.0.1@loopback-alias.test:{port}/",
    "http://localhost:{port}/",
    "http://LOCALHOST.:{port}/",
    "http://app.localhost:{port}/",
    "http://bücher.test:{port}/",
    "http://loopback-alias.test.:{port}/",
    "HTTP://LoopBack-Alias.TEST:{port}/",
    "http://[2002:7f00:1::]:{port}/",
    "http://[64:ff9b::7f00:1]:{port}/",
    "http://10.0.0.1:{port}/",
    "http://172.16.0.1:{port}/",
    "http://192.168.0.1:{port}/",
    "http://100.64.0.1:{port}/",
    "http://169.254.0.1:{port}/",
    "http://[fe80::1]:{port}/",
    "http://[fc00::1]:{port}/",
    "http://198.18.0.1:{port}/",
    "http://192.0.2.1:{port}/",
    "http://[2001:db8::1]:{port}/",
    "http://240.0.0.1:{port}/",
    "http://255.255.255.255:{port}/",
    "http://224.0.0.251:{port}/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",
    "http://metadata.google.internal/",
    "http://METADATA.GOOGLE.INTERNAL./",
    "https://127.0.0.1:{port}/",
]


@pytest.mark.parametrize("template", SPELLINGS)
def test_every_spelling_of_a_private_address_is_refused_without_connecting(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS, template: str
) -> None:
    dns.set("loopback-alias.test", ["127.0.0.1"])
    dns.set("xn--bcher-kva.test", ["127.0.0.1"])
    server.add("/", serve(b"you should not see this"))
    url = template.format(port=server.port)
    with pytest.raises(mb.BlockedURLError) as info:
        fetch(url, mb.FetchPolicy(timeout=2.0))
    message = str(info.value)
    assert "refused to fetch" in message
    assert (
        "allow_private=True" in message
        or "allow_metadata=True" in message
        or ("no fetch policy allows it" in message)
    )
    assert connects == []
    assert server.seen == []
    assert len(dns.asked) <= 1  # at most the one lookup of the name itself


def test_octal_dotted_quads_that_httpx_rejects_never_connect(
    server: Server, connects: list[tuple[str, int]]
) -> None:
    with pytest.raises(mb.FetchError):
        fetch(f"http://0177.0.0.1:{server.port}/", mb.FetchPolicy())
    assert connects == []


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "gopher://127.0.0.1:70/_x",
        "javascript:alert(1)",
        "data:image/png;base64,iVBORw0KGgo=",
    ],
)
def test_other_schemes_are_refused(url: str, connects: list[tuple[str, int]]) -> None:
    with pytest.raises(mb.BlockedURLError, match="refused to fetch") as info:
        fetch(url, LOCAL.replace(allowed_schemes={"http", "https", "ftp", "file", "gopher"}))
    if url.startswith("file:"):
        assert "from_path" in str(info.value)
    assert connects == []


def test_allowed_schemes_narrows(server: Server) -> None:
    url = server.add("/x", serve(b"x"))
    with pytest.raises(mb.BlockedURLError, match="allowed_schemes"):
        fetch(url, LOCAL.replace(allowed_schemes={"https"}))
    assert server.seen == []


def test_a_name_with_one_refused_address_is_refused_entirely(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS
) -> None:
    dns.set("mixed.test", ["127.0.0.1", "169.254.169.254"])
    server.add("/", serve(b"x"))
    with pytest.raises(mb.BlockedURLError, match=r"169\.254\.169\.254"):
        fetch(f"http://mixed.test:{server.port}/", LOCAL)
    assert connects == []


def test_allow_private_fetches_from_loopback_names(server: Server, dns: FakeDNS) -> None:
    dns.set("localhost", ["127.0.0.1"])
    url = server.add("/p", serve(b"hello"))
    assert fetch(url, LOCAL).data == b"hello"
    assert fetch(f"http://localhost:{server.port}/p", LOCAL).data == b"hello"
    assert fetch(f"http://2130706433:{server.port}/p", LOCAL).data == b"hello"


def test_the_connection_goes_to_the_checked_address_no_rebinding(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS
) -> None:
    # First answer 127.0.0.1 (checked and allowed), every later answer 10.0.0.1. Connecting by
    # name would resolve again and hit 10.0.0.1; the pinned connection uses the checked address.
    dns.set("rebind.test", ["127.0.0.1"], ["10.0.0.1"])
    server.add("/p", serve(b"pinned"))
    result = fetch(f"http://rebind.test:{server.port}/p", LOCAL)
    assert result.data == b"pinned"
    assert dns.asked == ["rebind.test"]
    assert connects == [("127.0.0.1", server.port)]
    assert server.seen[0].headers["host"] == f"rebind.test:{server.port}"


def test_each_hop_is_resolved_and_checked_again(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS
) -> None:
    dns.set("flip.test", ["127.0.0.1"], ["169.254.169.254"])
    server.add("/first", redirect("/second"))
    with pytest.raises(mb.BlockedURLError, match=r"169\.254\.169\.254"):
        fetch(f"http://flip.test:{server.port}/first", LOCAL)
    assert dns.asked == ["flip.test", "flip.test"]
    assert server.paths() == ["/first"]
    _only_loopback_to(server, connects)


def test_the_next_checked_address_is_tried_when_one_does_not_answer(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS
) -> None:
    dns.set("multi.test", ["::1", "127.0.0.1"])  # nothing of ours listens on ::1
    server.add("/m", serve(b"second address"))
    assert fetch(f"http://multi.test:{server.port}/m", LOCAL).data == b"second address"
    assert connects[-1] == ("127.0.0.1", server.port)


def test_host_lists(server: Server, dns: FakeDNS, connects: list[tuple[str, int]]) -> None:
    dns.set("img.good.test", ["127.0.0.1"])
    dns.set("good.test", ["127.0.0.1"])
    dns.set("xn--bcher-kva.test", ["127.0.0.1"])
    server.add("/p", serve(b"ok"))
    port = server.port
    only_good = LOCAL.replace(allowed_hosts={"*.good.test", "Bücher.TEST"})
    assert fetch(f"http://img.good.test:{port}/p", only_good).data == b"ok"
    assert fetch(f"http://bücher.test:{port}/p", only_good).data == b"ok"
    with pytest.raises(
        mb.BlockedURLError, match=r"'good.test' is not in FetchPolicy.allowed_hosts"
    ):
        fetch(f"http://good.test:{port}/p", only_good)
    blocked = LOCAL.replace(blocked_hosts={"*.good.test", "127.0.0.1"})
    with pytest.raises(mb.BlockedURLError, match=r"blocked_hosts"):
        fetch(f"http://img.good.test:{port}/p", blocked)
    with pytest.raises(mb.BlockedURLError, match=r"blocked_hosts"):
        fetch(f"http://2130706433:{port}/p", blocked)  # every spelling of a blocked address
    assert server.paths() == ["/p", "/p"]


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[Server, list[str | None], Path]]:
    """An HTTPS server on 127.0.0.1 with a self-made certificate for ``pinned.test``."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=pinned.test",
            "-addext",
            "subjectAltName=DNS:pinned.test",
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []
    context.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment,misc]
    httpd = _HTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    state = Server(port=httpd.server_address[1])
    httpd.state = state  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state, names, cert
    httpd.shutdown()
    httpd.server_close()


def test_tls_checks_the_host_name_on_the_checked_address(
    tls_server: tuple[Server, list[str | None], Path],
    dns: FakeDNS,
    connects: list[tuple[str, int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, names, cert = tls_server
    dns.set("pinned.test", ["127.0.0.1"])
    state.routes["/tls"] = serve(b"over tls")
    url = f"https://pinned.test:{state.port}/tls"
    # The self-made certificate is not in the default trust store: verification is on.
    with pytest.raises(mb.FetchError, match="certificate"):
        fetch(url, LOCAL)
    assert names == ["pinned.test"]
    # Trusting it, the fetch works: SNI and certificate name are pinned.test, the socket
    # goes to the checked 127.0.0.1, the Host header keeps the name.
    monkeypatch.setattr(fetcher_module, "_ssl_cache", [ssl.create_default_context(cafile=cert)])
    assert fetch(url, LOCAL).data == b"over tls"
    assert names == ["pinned.test", "pinned.test"]
    assert state.seen[-1].headers["host"] == f"pinned.test:{state.port}"
    assert set(connects) == {("127.0.0.1", state.port)}


async def test_async_tls_checks_the_host_name_on_the_checked_address(
    tls_server: tuple[Server, list[str | None], Path],
    dns: FakeDNS,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, names, cert = tls_server
    dns.set("pinned.test", ["127.0.0.1"])
    state.routes["/tls"] = serve(b"over tls, async")
    url = f"https://pinned.test:{state.port}/tls"
    with pytest.raises(mb.FetchError, match="certificate"):
        await afetch(url, LOCAL)
    monkeypatch.setattr(fetcher_module, "_ssl_cache", [ssl.create_default_context(cafile=cert)])
    assert (await afetch(url, LOCAL)).data == b"over tls, async"
    assert names == ["pinned.test", "pinned.test"]


# -- limits -------------------------------------------------------------------------------------


def test_an_oversize_body_is_cut_early(server: Server) -> None:
    total = 256 * 1024 * 1024
    url = server.add("/huge", endless(total=total))
    with pytest.raises(mb.TooLargeError) as info:
        fetch(url, LOCAL.replace(max_bytes=64 * 1024))
    assert info.value.limit == 64 * 1024
    assert info.value.size is not None
    assert info.value.size > 64 * 1024
    assert server.done["/huge"].wait(5), "the server should notice the client hanging up"
    # Kernel buffers on loopback hold a few MB at most; the body is 256 MB.
    assert server.sent["/huge"] < 32 * 1024 * 1024


def test_an_honest_content_length_over_the_limit_is_refused_before_the_body(server: Server) -> None:
    size = 8 * 1024 * 1024
    url = server.add("/declared-big", endless(total=size, length=size))
    with pytest.raises(mb.TooLargeError, match="Content-Length") as info:
        fetch(url, LOCAL.replace(max_bytes=1000))
    assert (info.value.limit, info.value.size) == (1000, size)
    assert server.done["/declared-big"].wait(5)
    assert server.sent.get("/declared-big", 0) < size


def test_a_lying_content_length(server: Server) -> None:
    body = bytes(range(256)) * 20
    # Smaller than the body: HTTP framing ends the body at the declared length.
    short = server.add("/short", serve(body, length=100))
    assert fetch(short, LOCAL.replace(max_bytes=1000)).data == body[:100]
    # Larger than the body, and the server hangs up: an incomplete body is an error.
    long = server.add("/long", serve(body, length=len(body) + 500))
    with pytest.raises(mb.FetchError, match="cannot fetch") as info:
        fetch(long, LOCAL)
    assert not isinstance(info.value, (mb.TooLargeError, mb.FetchTimeoutError))
    # No Content-Length at all: the streaming count alone decides.
    none = server.add("/none", serve(body, length=None))
    assert fetch(none, LOCAL).data == body
    with pytest.raises(mb.TooLargeError):
        fetch(none, LOCAL.replace(max_bytes=len(body) - 1))
    # Claiming more than the limit is taken at its word.
    claims = server.add("/claims", serve(b"tiny", length=10_000_000))
    with pytest.raises(mb.TooLargeError, match="Content-Length"):
        fetch(claims, LOCAL.replace(max_bytes=1000))


def test_exactly_max_bytes_is_fine(server: Server) -> None:
    body = b"a" * 4096
    url = server.add("/exact", serve(body, length=None))
    assert fetch(url, LOCAL.replace(max_bytes=4096)).data == body
    with pytest.raises(mb.TooLargeError):
        fetch(url, LOCAL.replace(max_bytes=4095))


def test_a_trickling_body_is_cut_by_the_total_timeout(server: Server) -> None:
    url = server.add("/slow", trickle(0.05))
    started = time.monotonic()
    with pytest.raises(mb.FetchTimeoutError, match=r"timeout=0\.5s"):
        fetch(url, LOCAL.replace(timeout=0.5))
    elapsed = time.monotonic() - started
    assert 0.45 <= elapsed < 1.5
    assert server.sent["/slow"] < 40  # about 10 bytes arrived in half a second


def test_a_server_that_never_answers_times_out(server: Server) -> None:
    url = server.add("/mute", lambda h: time.sleep(3))
    started = time.monotonic()
    with pytest.raises(mb.FetchTimeoutError) as info:
        fetch(url, LOCAL.replace(timeout=0.3))
    assert time.monotonic() - started < 1.0
    assert isinstance(info.value, TimeoutError)


def test_gzip_is_decoded_within_the_limit(server: Server) -> None:
    png = make_png((20, 20))
    url = server.add(
        "/gz", serve(gzip.compress(png), "image/png", headers={"Content-Encoding": "gzip"})
    )
    assert fetch(url, LOCAL).data == png
    deflated = server.add("/df", serve(zlib.compress(png), headers={"Content-Encoding": "deflate"}))
    assert fetch(deflated, LOCAL).data == png
    packer = zlib.compressobj(wbits=-15)  # raw deflate, as some servers send it
    raw = packer.compress(png) + packer.flush()
    raw_url = server.add("/raw", serve(raw, headers={"Content-Encoding": "deflate"}))
    assert fetch(raw_url, LOCAL).data == png
    members = gzip.compress(png[:50]) + gzip.compress(png[50:])  # a multi-member gzip file
    members_url = server.add("/members", serve(members, headers={"Content-Encoding": "gzip"}))
    assert fetch(members_url, LOCAL).data == png
    # A decompression bomb: 20 MB of zeros in about 20 kB on the wire.
    bomb = gzip.compress(b"\x00" * (20 * 1024 * 1024))
    assert len(bomb) < 64 * 1024
    url = server.add("/bomb", serve(bomb, headers={"Content-Encoding": "gzip"}))
    with pytest.raises(mb.TooLargeError) as info:
        fetch(url, LOCAL.replace(max_bytes=100_000))
    assert info.value.size is not None
    assert info.value.size <= 100_001
    truncated = server.add(
        "/cut", serve(gzip.compress(png)[:-20], headers={"Content-Encoding": "gzip"})
    )
    with pytest.raises(mb.FetchError, match="truncated"):
        fetch(truncated, LOCAL)
    brotli = server.add("/br", serve(b"....", headers={"Content-Encoding": "br"}))
    with pytest.raises(mb.FetchError, match="Content-Encoding"):
        fetch(brotli, LOCAL)


# -- policies: scoped, injected -----------------------------------------------------------------


def test_use_policy_sets_the_default_for_a_scope(server: Server) -> None:
    url = server.add("/s", serve(b"scoped"))
    with pytest.raises(mb.BlockedURLError):
        fetch(url)
    with mb.use_policy(LOCAL):
        assert fetch(url).data == b"scoped"
        with pytest.raises(mb.BlockedURLError):
            fetch(url, mb.FetchPolicy())  # per call wins over the scope


class CountingTransport(httpx.BaseTransport):
    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.urls: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def test_an_injected_transport_still_gets_the_guard_and_limits(server: Server) -> None:
    transport = CountingTransport()
    png = make_png()
    url = server.add("/t", serve(png, "text/plain"))
    policy = LOCAL.replace(transport=transport)
    assert fetch(url, policy).mime_type == "image/png"
    with pytest.raises(mb.BlockedURLError):
        fetch(f"http://10.0.0.1:{server.port}/t", policy.replace(allow_private=False))
    start = server.add("/to-metadata", redirect("http://169.254.169.254/"))
    with pytest.raises(mb.BlockedURLError):
        fetch(start, policy)
    big = server.add("/big", endless())
    with pytest.raises(mb.TooLargeError):
        fetch(big, policy.replace(max_bytes=10_000))
    assert transport.urls == [url, start, big]
    transport.close()


def test_an_injected_client_is_used_with_the_guard(server: Server) -> None:
    transport = CountingTransport()
    with httpx.Client(transport=transport, follow_redirects=True) as client:
        server.add("/final", serve(b"via client"))
        start = server.add("/hop", redirect("/final"))
        result = fetch(start, LOCAL.replace(client=client, max_redirects=1))
        assert result.data == b"via client"
        assert result.redirects == (start,)
        with pytest.raises(mb.BlockedURLError):
            fetch("http://[::1]/", mb.FetchPolicy(client=client))
    assert transport.urls == [start, server.base + "/final"]


# -- blocks read once -------------------------------------------------------------------------


def test_a_url_block_downloads_once_however_often_it_is_encoded(server: Server) -> None:
    png = make_png((3, 3))
    url = server.add("/once.png", serve(png, "text/plain"))
    block = mb.ImageBlock.from_url(url)
    assert server.seen == []  # lazy
    assert block.read(LOCAL) == png
    assert block.read(LOCAL) == png
    b64, mime = block.to_base64(LOCAL)
    assert base64.b64decode(b64) == png
    assert mime == "image/png"
    assert block.to_data_uri(LOCAL).startswith("data:image/png;base64,")
    assert block.mime_type == "image/png"
    assert server.paths() == ["/once.png"]


def test_a_url_block_refused_by_the_default_policy(server: Server) -> None:
    url = server.add("/nope.png", serve(make_png()))
    block = mb.ImageBlock.from_url(url)
    with pytest.raises(mb.BlockedURLError):
        block.read()
    assert server.seen == []
    assert not block.loaded


# -- async --------------------------------------------------------------------------------------


async def test_async_fetch_detects_and_follows(server: Server) -> None:
    png = make_png((4, 4))
    server.add("/a.png", serve(png, "text/plain"))
    start = server.add("/a-hop", redirect("/a.png"))
    result = await afetch(start, LOCAL)
    assert result.data == png
    assert result.mime_type == "image/png"
    assert result.redirects == (start,)
    too_far = server.add("/a-loop", redirect("/a-loop"))
    with pytest.raises(mb.FetchError, match="redirects"):
        await afetch(too_far, LOCAL)


@pytest.mark.parametrize("template", SPELLINGS[:30:3])
async def test_async_refuses_private_spellings_without_connecting(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS, template: str
) -> None:
    dns.set("loopback-alias.test", ["127.0.0.1"])
    dns.set("xn--bcher-kva.test", ["127.0.0.1"])
    with pytest.raises(mb.BlockedURLError):
        await afetch(template.format(port=server.port), mb.FetchPolicy(timeout=2.0))
    assert connects == []
    assert server.seen == []


async def test_async_redirect_to_metadata_is_refused(
    server: Server, connects: list[tuple[str, int]], dns: FakeDNS
) -> None:
    dns.set("rebind.test", ["127.0.0.1"], ["169.254.169.254"])
    start = server.add("/a-meta", redirect("http://169.254.169.254/latest/"))
    with pytest.raises(mb.BlockedURLError, match="allow_metadata=True"):
        await afetch(start, LOCAL)
    server.add("/a-p", serve(b"pinned"))
    assert (await afetch(f"http://rebind.test:{server.port}/a-p", LOCAL)).data == b"pinned"
    _only_loopback_to(server, connects)


async def test_async_limits(server: Server) -> None:
    huge = server.add("/a-huge", endless())
    with pytest.raises(mb.TooLargeError):
        await afetch(huge, LOCAL.replace(max_bytes=64 * 1024))
    assert server.done["/a-huge"].wait(5)
    assert server.sent["/a-huge"] < 32 * 1024 * 1024
    slow = server.add("/a-slow", trickle(0.05))
    started = time.monotonic()
    with pytest.raises(mb.FetchTimeoutError):
        await afetch(slow, LOCAL.replace(timeout=0.5))
    assert 0.45 <= time.monotonic() - started < 1.5
    long = server.add("/a-long", serve(b"abc", length=50))
    with pytest.raises(mb.FetchError, match="cannot fetch"):
        await afetch(long, LOCAL)


async def test_async_block_reads_once(server: Server) -> None:
    wav = make_wav()
    url = server.add("/a.wav", serve(wav, "application/octet-stream"))
    block = mb.AudioBlock.from_url(url)
    assert await block.aread(LOCAL) == wav
    assert await block.aread(LOCAL) == wav
    assert block.read(LOCAL) == wav
    assert server.paths() == ["/a.wav"]


async def test_async_injected_transport(server: Server) -> None:
    class Counting(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()
            self.urls: list[str] = []

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.urls.append(str(request.url))
            return await self.inner.handle_async_request(request)

    transport = Counting()
    url = server.add("/a-t", serve(b"through yours"))
    policy = LOCAL.replace(async_transport=transport)
    assert (await afetch(url, policy)).data == b"through yours"
    with pytest.raises(mb.BlockedURLError):
        await afetch("http://metadata.google.internal/", policy)
    assert transport.urls == [url]
    await transport.inner.aclose()


# -- local files ----------------------------------------------------------------------------------


def test_allowed_roots_confine_path_reads(tmp_path: Path) -> None:
    png = make_png()
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "in.png").write_bytes(png)
    (root / "sub" / "link-in.png").symlink_to(root / "in.png")
    secret = tmp_path / "secret.png"
    secret.write_bytes(png)
    (root / "escape.png").symlink_to(secret)
    (root / "escape-dir").symlink_to(tmp_path)
    policy = mb.FetchPolicy(allowed_roots=[str(root)])

    assert mb.ImageBlock.from_path(root / "in.png").read(policy) == png
    assert mb.ImageBlock.from_path(root / "sub" / "link-in.png").read(policy) == png
    for outside in (
        root / "escape.png",
        root / "escape-dir" / "secret.png",
        secret,
    ):
        with pytest.raises(mb.PathNotAllowedError, match="allowed_roots"):
            mb.ImageBlock.from_path(outside).read(policy)
    # '..' is judged by where it leads: out of the root is refused, within it is fine.
    with pytest.raises(mb.PathNotAllowedError, match="allowed_roots"):
        mb.ImageBlock.from_path(f"{root}/sub/../../secret.png").read(policy)
    assert mb.ImageBlock.from_path(f"{root}/sub/../in.png").read(policy) == png
    # Without allowed_roots, from_path reads what the caller named explicitly.
    assert mb.ImageBlock.from_path(root / "escape.png").read() == png


def test_the_module_exports() -> None:
    assert set(fetch_module.__all__) == {"FetchResult", "FetchStatusError", "afetch", "fetch"}
