"""``video_url`` parts for vLLM and OpenRouter: what `prepare` leaves as video goes out as a
``video_url`` part (the URL where the server fetches it, else a data URI) and decodes back to a
`VideoBlock`; OpenAI itself still takes no video, and every other endpoint gets frames."""

from __future__ import annotations

import base64

import pytest
from tests.conftest import TESTDATA, serve

import mediablocks as mb

pytest.importorskip("av")

MP4 = (TESTDATA / "video" / "h264-aac.mp4").read_bytes()


@pytest.mark.parametrize("provider", ["vllm", "openrouter"])
def test_video_goes_as_a_video_url_part_and_back(provider: str) -> None:
    video = mb.VideoBlock.from_bytes(MP4, filename="clip.mp4")
    prepared = mb.prepare([mb.UserMessage(content=["what happens?", video])], provider)
    assert prepared[0].content[1] is video  # H.264 MP4: taken as it is
    fields = mb.encode(prepared, provider)
    part = fields["messages"][0]["content"][1]
    assert part["type"] == "video_url"
    prefix, data = part["video_url"]["url"].split(",", 1)
    assert prefix == "data:video/mp4;base64"
    assert base64.b64decode(data) == MP4
    back = mb.decode(fields, provider)[0].content[1]
    assert isinstance(back, mb.VideoBlock)
    assert back.read() == MP4


def test_a_url_video_is_sent_as_its_url_where_the_server_fetches_it() -> None:
    video = mb.VideoBlock.from_url("https://example.com/clip.mp4")
    fields = mb.encode([mb.UserMessage(content=[video])], "openrouter")
    assert fields["messages"][0]["content"][0] == {
        "type": "video_url",
        "video_url": {"url": "https://example.com/clip.mp4"},
    }
    with serve() as (url, handler):
        handler.routes["/clip.mp4"] = ("video/mp4", MP4)
        local = mb.VideoBlock.from_url(url + "/clip.mp4")
        inlined = mb.encode(
            [mb.UserMessage(content=[local])],
            "vllm",
            url_media="inline",
            policy=mb.FetchPolicy(allow_private=True),
        )
    assert inlined["messages"][0]["content"][0]["video_url"]["url"].startswith("data:video/mp4")


def test_other_video_is_transcoded_to_mp4_for_vllm() -> None:
    webm = mb.VideoBlock.from_path(TESTDATA / "video" / "theora-vorbis.ogv")
    prepared, report = mb.prepare_with_report([mb.UserMessage(content=[webm])], "vllm")
    (block,) = prepared[0].content
    assert isinstance(block, mb.VideoBlock)
    assert block.mime_type == "video/mp4"
    assert report.blocks[0].changes[0].kind == "transcoded"


def test_openai_itself_and_other_endpoints_take_no_video_parts() -> None:
    video = mb.VideoBlock.from_bytes(MP4)
    with pytest.raises(mb.UnsupportedBlockError, match="takes no video"):
        mb.encode([mb.UserMessage(content=[video])], "openai")
    with pytest.raises(mb.UnsupportedBlockError, match="groq"):
        mb.encode([mb.UserMessage(content=[video])], "groq")
    frames = mb.prepare([mb.UserMessage(content=[video])], "groq", max_frames=2)
    assert all(not isinstance(b, mb.VideoBlock) for b in frames[0].content)


def test_the_capability_matrix_says_so() -> None:
    rows = {line.split("|")[1].strip(): line for line in mb.capability_matrix().splitlines()[2:]}
    assert "`video_url`" in rows["vllm"]
    assert "`video_url`" in rows["openrouter"]
    assert "`video_url`" not in rows["openai-chat"]
