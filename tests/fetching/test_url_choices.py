"""Per-item choices about URLs: `FetchPolicy.url_hook` (auth headers, refusing, forcing), a
block's own ``url_media`` hint, and `FetchPolicy.max_total_bytes` across one call."""

from __future__ import annotations

import pytest

import mediablocks as mb
from mediablocks.fetching.policy import URLDecision
from tests.conftest import image_bytes, make_pdf, serve

PNG = image_bytes("PNG", size=(20, 20))


def _local(**changes: object) -> mb.FetchPolicy:
    return mb.FetchPolicy(allow_private=True, timeout=5.0, **changes)  # type: ignore[arg-type]


def test_the_hook_is_asked_about_each_url() -> None:
    seen: list[str] = []

    def hook(url: str) -> URLDecision | None:
        seen.append(url)
        if "/private/" in url:
            return URLDecision(headers={"Authorization": "Bearer secret", "Accept-Encoding": "br"})
        return None

    with serve() as (url, handler):
        handler.routes["/private/cat.png"] = ("image/png", PNG)
        handler.routes["/public/cat.png"] = ("image/png", PNG)
        policy = _local(url_hook=hook)
        assert mb.fetch(url + "/private/cat.png", policy).data == PNG
        mb.fetch(url + "/public/cat.png", policy)
    assert seen == [url + "/private/cat.png", url + "/public/cat.png"]


def test_headers_reach_the_server_and_never_the_next_origin() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    got: list[tuple[str, str | None]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            got.append((self.path, self.headers.get("Authorization")))
            if self.path == "/hop":
                self.send_response(302)
                self.send_header(
                    "Location", f"http://localhost:{self.server.server_address[1]}/img"
                )
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(PNG)))
            self.end_headers()
            self.wfile.write(PNG)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}"

        def hook(url: str) -> URLDecision | None:
            return (
                URLDecision(headers={"Authorization": "Bearer s"}) if "127.0.0.1" in url else None
            )

        assert mb.fetch(base + "/hop", _local(url_hook=hook)).data == PNG
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert got == [("/hop", "Bearer s"), ("/img", None)]


def test_the_hook_refuses_a_url_before_anything_connects() -> None:
    with serve() as (url, handler):
        handler.routes["/x.png"] = ("image/png", PNG)
        policy = _local(url_hook=lambda u: URLDecision(refuse="not ours"))
        with pytest.raises(mb.BlockedURLError, match=r"refused by FetchPolicy\.url_hook: not ours"):
            mb.fetch(url + "/x.png", policy)
        assert handler.hits == []
        block = mb.ImageBlock.from_url(url + "/x.png")
        with pytest.raises(mb.BlockedURLError):
            mb.encode([mb.UserMessage(content=[block])], "openai", policy=policy)


def test_a_hook_that_fails_or_answers_nonsense_is_an_option_error() -> None:
    def broken(url: str) -> URLDecision:
        raise KeyError(url)

    with pytest.raises(mb.InvalidOptionError, match="url_hook failed"):
        mb.fetch("http://127.0.0.1:9/x", _local(url_hook=broken))
    with pytest.raises(mb.InvalidOptionError, match="returned a str"):
        mb.fetch("http://127.0.0.1:9/x", _local(url_hook=lambda u: "yes"))  # type: ignore[arg-type,return-value]
    with pytest.raises(mb.InvalidOptionError, match="headers"):
        URLDecision(headers={"X": "a\r\nInjected: 1"})


def test_the_hook_forces_a_download_or_the_url() -> None:
    with serve() as (url, handler):
        handler.routes["/cat.png"] = ("image/png", PNG)
        inline = _local(url_hook=lambda u: URLDecision(fetch="inline"))
        block = mb.ImageBlock.from_url(url + "/cat.png")
        fields = mb.encode([mb.UserMessage(content=[block])], "openai", policy=inline)
        assert fields["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/png")
        keep = _local(url_hook=lambda u: URLDecision(fetch="url"))
        block = mb.ImageBlock.from_url(url + "/cat.png", url_media="inline")
        fields = mb.encode([mb.UserMessage(content=[block])], "openai", policy=keep)
        assert fields["messages"][0]["content"][0]["image_url"]["url"] == url + "/cat.png"


def test_a_block_hint_overrides_the_call() -> None:
    with serve() as (url, handler):
        handler.routes["/cat.png"] = ("image/png", PNG)
        hinted = mb.ImageBlock.from_url(url + "/cat.png", url_media="inline")
        plain = mb.ImageBlock.from_url(url + "/cat.png")
        fields = mb.encode([mb.UserMessage(content=[hinted, plain])], "anthropic", policy=_local())
        first, second = fields["messages"][0]["content"]
        assert first["source"]["type"] == "base64"
        assert second["source"] == {"type": "url", "url": url + "/cat.png"}
        back = mb.load_messages(mb.dump_messages([mb.UserMessage(content=[hinted])]))
        assert back[0].content[0].url_media == "inline"


def test_max_total_bytes_spans_every_fetch_of_one_call() -> None:
    pdf = make_pdf()
    with serve() as (url, handler):
        for name in ("a", "b", "c"):
            handler.routes[f"/{name}.png"] = ("image/png", PNG)
        handler.routes["/d.pdf"] = ("application/pdf", pdf)
        policy = _local(max_total_bytes=len(PNG) * 2 + 10)
        blocks = [mb.ImageBlock.from_url(f"{url}/{n}.png") for n in ("a", "b", "c")]
        with pytest.raises(mb.DownloadTooLargeError, match="max_total_bytes") as caught:
            mb.encode([mb.UserMessage(content=blocks)], "openai", url_media="inline", policy=policy)
        assert isinstance(caught.value, mb.FetchError)
        # each call has its own budget: two images fit in a new call
        two = [mb.ImageBlock.from_url(f"{url}/{n}.png") for n in ("a", "b")]
        mb.encode([mb.UserMessage(content=two)], "openai", url_media="inline", policy=policy)
        three = [mb.ImageBlock.from_url(f"{url}/{n}.png") for n in ("a", "b", "c")]
        # prepare lists every block it could not read: the third is over the call's total
        with pytest.raises(mb.DoesNotFitError, match=r"block 2: .*max_total_bytes=") as listed:
            mb.prepare([mb.UserMessage(content=three)], "openai", read_urls=True, policy=policy)
        assert len(listed.value.problems) == 1
        alone = _local(max_total_bytes=len(pdf) - 1)
        with pytest.raises(mb.DownloadTooLargeError, match="max_total_bytes"):
            mb.fetch(url + "/d.pdf", alone)


def test_max_total_bytes_is_checked_when_built() -> None:
    with pytest.raises(mb.InvalidOptionError, match="max_total_bytes"):
        mb.FetchPolicy(max_total_bytes=0)
    with pytest.raises(mb.InvalidOptionError, match="url_hook"):
        mb.FetchPolicy(url_hook="hook")  # type: ignore[arg-type]
