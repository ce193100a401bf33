"""`from_mcp` / `afrom_mcp` / `to_mcp` on MCP results built in the test: every item type, links
and their callbacks, what is reported, round trips (a property test), and hostile results."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from tests.conftest import TESTDATA, make_png

types = pytest.importorskip("mcp.types")

PNG = make_png((16, 12))
WAV = (TESTDATA / "audio" / "pcm16.wav").read_bytes()
PDF = (TESTDATA / "document" / "report.pdf").read_bytes()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def wire(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True)
    return dumped


# -- items ---------------------------------------------------------------------------------


def test_every_item_type_becomes_its_block() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="hello"),
            types.ImageContent(type="image", data=b64(PNG), mimeType="image/png"),
            types.AudioContent(type="audio", data=b64(WAV), mimeType="audio/wav"),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="file:///r/report.pdf", mimeType="application/pdf", blob=b64(PDF)
                ),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="notes://1", text="a note"),
            ),
        ]
    )
    block = mb.from_mcp(result, tool_call_id="c1", name="look")
    kinds = [type(b) for b in block.content]
    assert kinds == [mb.TextBlock, mb.ImageBlock, mb.AudioBlock, mb.FileBlock, mb.TextBlock]
    assert [b.read() for b in block.media] == [PNG, WAV, PDF]
    assert block.content[3].filename == "report.pdf"
    assert block.content[4].text == "a note"
    assert block.content[4].for_provider("mcp")["uri"] == "notes://1"
    assert block.metadata["mcp"]["report"] == []


def test_the_bytes_decide_the_type_over_the_declared_one() -> None:
    result = {"content": [{"type": "image", "data": b64(PNG), "mimeType": "image/jpeg"}]}
    (image,) = mb.from_mcp(result, tool_call_id="c1").media
    assert image.mime_type == "image/png"


def test_a_data_uri_pasted_into_text_is_sent_as_the_media_it_holds() -> None:
    uri = f"data:image/png;base64,{b64(PNG)}"
    block = mb.from_mcp({"content": [{"type": "text", "text": uri}]}, tool_call_id="c1")
    (image,) = block.media
    assert image.read() == PNG
    assert [e["action"] for e in block.metadata["mcp"]["report"]] == ["data_uri"]
    plain = mb.from_mcp(
        {"content": [{"type": "text", "text": "data:text/plain,hi"}]}, tool_call_id="c1"
    )
    assert plain.text == "data:text/plain,hi"  # a text data URI stays text


def test_items_for_the_user_only_are_kept_out_and_put_back() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="for the model"),
            types.ImageContent(
                type="image",
                data=b64(PNG),
                mimeType="image/png",
                annotations=types.Annotations(audience=["user"], priority=0.2),
            ),
            types.TextContent(
                type="text",
                text="for both",
                annotations=types.Annotations(audience=["user", "assistant"]),
            ),
        ]
    )
    block = mb.from_mcp(result, tool_call_id="c1")
    assert block.text == "for the model\nfor both"
    assert not block.media
    assert block.metadata["mcp"]["user_only"][0]["index"] == 1
    assert wire(mb.to_mcp(block)) == wire(result)


def test_structured_content_alone_is_sent_as_json_text() -> None:
    block = mb.from_mcp({"content": [], "structuredContent": {"a": [1, 2]}}, tool_call_id="c1")
    assert json.loads(block.text) == {"a": [1, 2]}
    assert block.metadata["mcp"]["report"][0]["action"] == "structured_as_text"
    again = wire(mb.to_mcp(block))
    assert again["content"] == []
    assert again["structuredContent"] == {"a": [1, 2]}


def test_python_field_names_read_like_the_wire_names() -> None:
    dumped = types.CallToolResult(
        content=[types.ImageContent(type="image", data=b64(PNG), mimeType="image/png")],
        isError=True,
    ).model_dump()  # mime_type, is_error: the Python names
    block = mb.from_mcp(dumped, tool_call_id="c1")
    assert block.is_error
    assert block.media[0].declared_mime == "image/png"


def test_an_unknown_item_is_raw_reported_and_refused_by_providers() -> None:
    block = mb.from_mcp({"content": [{"type": "hologram", "x": 1}]}, tool_call_id="c1")
    (raw,) = block.content
    assert isinstance(raw, mb.RawBlock)
    assert raw.provider == "mcp"
    assert block.metadata["mcp"]["report"][0]["action"] == "raw"
    history = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="t")]),
        mb.ToolMessage(content=[block]),
    ]
    with pytest.raises(mb.UnsupportedBlockError):
        mb.encode(history, "anthropic")


# -- links ----------------------------------------------------------------------------------


def _link(uri: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "resource_link", "uri": uri, "name": "thing", **extra}]}


def test_a_link_is_read_through_a_sync_callback() -> None:
    asked: list[str] = []

    def read(uri: str) -> Any:
        asked.append(uri)
        return types.ReadResourceResult(
            contents=[types.BlobResourceContents(uri=uri, mimeType="image/png", blob=b64(PNG))]
        )

    block = mb.from_mcp(_link("shots://1"), tool_call_id="c1", read_resource=read)
    assert asked == ["shots://1"]
    assert block.media[0].read() == PNG
    assert block.metadata["mcp"]["report"][0]["action"] == "link_read"


def test_an_async_callback_is_awaited_outside_a_loop_and_by_afrom_mcp() -> None:
    async def read(uri: str) -> bytes:
        return WAV

    assert mb.from_mcp(_link("a://1"), tool_call_id="c1", read_resource=read).media[0].read() == WAV
    block = asyncio.run(mb.afrom_mcp(_link("a://1"), tool_call_id="c1", read_resource=read))
    assert isinstance(block.media[0], mb.AudioBlock)

    async def inside_a_loop() -> None:
        with pytest.raises(mb.InvalidOptionError, match="afrom_mcp"):
            mb.from_mcp(_link("a://1"), tool_call_id="c1", read_resource=read)

    asyncio.run(inside_a_loop())


def test_a_failing_callback_is_a_source_error_naming_the_link() -> None:
    def read(uri: str) -> Any:
        raise KeyError(uri)

    with pytest.raises(mb.SourceError, match="a://gone"):
        mb.from_mcp(_link("a://gone"), tool_call_id="c1", read_resource=read)
    with pytest.raises(mb.SourceError, match="no contents"):
        mb.from_mcp(_link("a://1"), tool_call_id="c1", read_resource=lambda uri: [])


def test_without_a_callback_a_web_link_is_a_lazy_url_block_and_others_a_line() -> None:
    block = mb.from_mcp(_link("https://example.org/a.png", mimeType="image/png"), tool_call_id="c1")
    (image,) = block.media
    assert isinstance(image, mb.ImageBlock)
    assert not image.loaded
    assert block.metadata["mcp"]["report"][0]["action"] == "link_url"
    line = mb.from_mcp(_link("file:///etc/passwd", description="secrets"), tool_call_id="c1")
    assert line.text == "[resource link] thing: file:///etc/passwd - secrets"  # never read
    assert line.metadata["mcp"]["report"][0]["action"] == "link_text"
    assert (
        wire(mb.to_mcp(line))["content"]
        == _link("file:///etc/passwd", description="secrets")["content"]
    )


def test_a_web_link_to_a_private_address_is_refused_when_read() -> None:
    block = mb.from_mcp(_link("http://127.0.0.1:9/a.png"), tool_call_id="c1")
    with pytest.raises(mb.BlockedURLError):
        block.media[0].read()


# -- to_mcp --------------------------------------------------------------------------------


def test_to_mcp_gives_items_for_blocks_and_a_result_for_a_result() -> None:
    video = mb.VideoBlock.from_path(TESTDATA / "video" / "h264-aac.mp4")
    items = mb.to_mcp(["hi", mb.ImageBlock.from_bytes(PNG), mb.AudioBlock.from_bytes(WAV), video])
    assert [item.type for item in items] == ["text", "image", "audio", "resource"]
    assert items[3].resource.uri == "mediablocks:video/3/h264-aac.mp4"
    result = mb.to_mcp(mb.ToolResultBlock(tool_call_id="c", content="boom", is_error=True))
    assert isinstance(result, types.CallToolResult)
    assert wire(result)["isError"] is True
    link = mb.to_mcp(mb.ImageBlock.from_url("https://example.org/p.png"))
    assert wire(link[0]) == {
        "type": "resource_link",
        "uri": "https://example.org/p.png",
        "name": "p.png",
    }


def test_to_mcp_refuses_what_mcp_cannot_carry() -> None:
    for block in (
        mb.ThinkingBlock(thinking="hm"),
        mb.ToolCallBlock(id="1", name="t"),
        mb.RawBlock(provider="anthropic", data={"type": "server_tool_use"}),
        mb.ImageBlock.from_file_id("file-abc", "image/png"),
    ):
        with pytest.raises(mb.UnsupportedBlockError):
            mb.to_mcp([block])
    with pytest.raises(mb.InvalidOptionError):
        mb.to_mcp(42)  # type: ignore[arg-type]


def test_to_mcp_for_a_provider_fits_the_media_or_says_why_not() -> None:
    bmp = mb.ImageBlock.from_path(TESTDATA / "image" / "sample.bmp")  # Claude takes no BMP
    (fitted,) = mb.to_mcp([bmp], provider="anthropic", model="claude-sonnet-4-5")
    item = wire(fitted)
    assert item["type"] == "image"
    assert item["mimeType"] == "image/png"
    assert base64.b64decode(item["data"]).startswith(b"\x89PNG")
    with pytest.raises(mb.DoesNotFitError, match="audio"):
        mb.to_mcp([mb.AudioBlock.from_bytes(WAV)], provider="anthropic")


# -- properties ------------------------------------------------------------------------------

_IMAGES = [PNG, (TESTDATA / "image" / "still.gif").read_bytes()]
_annotations = st.one_of(
    st.none(),
    st.builds(
        lambda audience, priority: {
            k: v for k, v in (("audience", audience), ("priority", priority)) if v is not None
        },
        st.sampled_from([None, ["assistant"], ["user", "assistant"]]),
        st.one_of(st.none(), st.floats(0, 1)),
    ),
)
_meta = st.one_of(st.none(), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


def _item(kind: str, text: str, image: bytes, annotations: Any, meta: Any) -> dict[str, Any]:
    item: dict[str, Any]
    if kind == "text":
        item = {"type": "text", "text": text}
    elif kind == "image":
        item = {"type": "image", "data": b64(image), "mimeType": mb.detect_mime(image)}
    elif kind == "blob":
        contents = {"uri": f"r://{len(text)}", "mimeType": "audio/wav", "blob": b64(WAV)}
        item = {"type": "resource", "resource": contents}
    elif kind == "text_resource":
        item = {"type": "resource", "resource": {"uri": "t://x", "text": text}}
    else:
        item = {"type": "resource_link", "uri": f"x-app://{len(text)}", "name": "n"}
    if annotations:
        item["annotations"] = annotations
    if meta is not None:
        item["_meta"] = meta
    return item


_items = st.builds(
    _item,
    st.sampled_from(["text", "image", "blob", "text_resource", "link"]),
    st.text(max_size=20).filter(lambda t: not t.strip().startswith("data:")),
    st.sampled_from(_IMAGES),
    _annotations,
    _meta,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(_items, max_size=5),
    is_error=st.booleans(),
    structured=st.one_of(st.none(), st.dictionaries(st.text(max_size=4), st.integers())),
)
def test_a_result_read_and_written_again_is_the_same_result(
    items: list[dict[str, Any]], is_error: bool, structured: Any
) -> None:
    raw: dict[str, Any] = {"content": items, "isError": is_error}
    if structured is not None:
        raw["structuredContent"] = structured
    original = wire(types.CallToolResult.model_validate(raw))
    block = mb.from_mcp(original, tool_call_id="c1")
    assert wire(mb.to_mcp(block)) == original
    stored = mb.ToolResultBlock.model_validate_json(block.model_dump_json())
    assert wire(mb.to_mcp(stored)) == original  # the JSON round trip keeps everything too


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
_near_items = st.dictionaries(
    st.sampled_from(["type", "text", "data", "mimeType", "resource", "uri", "annotations"]),
    st.one_of(_json, st.sampled_from(["text", "image", "audio", "resource", "resource_link"])),
)


@settings(max_examples=200, deadline=None)
@given(payload=st.one_of(_json, st.builds(lambda items: {"content": items}, st.lists(_near_items))))
def test_any_json_gives_a_tool_result_or_a_mediablocks_error(payload: Any) -> None:
    try:
        block = mb.from_mcp(payload, tool_call_id="c1")
    except mb.MediaBlocksError:
        return
    assert isinstance(block, mb.ToolResultBlock)


def test_a_deeply_nested_result_is_refused() -> None:
    deep: Any = {}
    for _ in range(10_000):
        deep = {"x": deep}
    with pytest.raises(mb.DecodeError, match="deep"):
        mb.from_mcp({"content": [{"type": "text", "text": "a", "_meta": deep}]}, tool_call_id="c")
    with pytest.raises(mb.DecodeError):
        mb.from_mcp("[" * 100_000, tool_call_id="c")


def test_the_tool_call_id_is_required() -> None:
    with pytest.raises(mb.InvalidOptionError):
        mb.from_mcp({"content": []}, tool_call_id="")
