"""Claude on Bedrock and Vertex: both platforms refuse URL sources ("URL content sources are not
yet supported"), so URL images and PDFs are downloaded under the fetch policy and inlined."""

from __future__ import annotations

import pytest
from tests.conftest import image_bytes, make_pdf, serve

import mediablocks as mb

PLATFORMS = ["anthropic-bedrock", "anthropic-vertex"]


@pytest.mark.parametrize("provider", PLATFORMS)
def test_url_media_is_inlined_by_default(provider: str) -> None:
    png, pdf = image_bytes("PNG"), make_pdf()
    with serve() as (url, handler):
        handler.routes["/cat.png"] = ("image/png", png)
        handler.routes["/doc.pdf"] = ("application/pdf", pdf)
        blocks = [mb.ImageBlock.from_url(url + "/cat.png"), mb.FileBlock.from_url(url + "/doc.pdf")]
        fields = mb.encode(
            [mb.UserMessage(content=blocks)], provider, policy=mb.FetchPolicy(allow_private=True)
        )
        assert sorted(handler.hits) == ["/cat.png", "/doc.pdf"]
    image, document = fields["messages"][0]["content"]
    assert image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert document["source"]["type"] == "base64"
    # Anthropic's own API still gets the URL: it fetches images and PDFs itself
    direct = mb.encode([mb.UserMessage(content=blocks)], "anthropic")
    assert direct["messages"][0]["content"][0]["source"]["type"] == "url"


@pytest.mark.parametrize("provider", PLATFORMS)
def test_asking_for_the_url_is_refused_naming_the_platform(provider: str) -> None:
    block = mb.ImageBlock.from_url("https://example.com/cat.png")
    with pytest.raises(mb.UnsupportedBlockError, match=f"{provider} takes no URL sources"):
        mb.encode([mb.UserMessage(content=[block])], provider, url_media="url")
    hinted = mb.ImageBlock.from_url("https://example.com/cat.png", url_media="url")
    with pytest.raises(mb.UnsupportedBlockError, match="refuses URL sources"):
        mb.encode([mb.UserMessage(content=[hinted])], provider)


def test_the_default_private_address_guard_still_applies() -> None:
    with serve() as (url, handler):
        handler.routes["/cat.png"] = ("image/png", image_bytes("PNG"))
        block = mb.ImageBlock.from_url(url + "/cat.png")
        with pytest.raises(mb.BlockedURLError):
            mb.encode([mb.UserMessage(content=[block])], "anthropic-bedrock")
        assert handler.hits == []
