"""Real MCP tool results, from a real MCP server over stdio, through mediablocks to all 17
providers: every item read, every body valid for the provider's SDK types, nothing dropped
silently and nothing over the provider's documented limits.

The server is ``mcp_media_server.py`` beside this file (the ``mcp`` package's own server); the
client is the ``mcp`` package's ``ClientSession``. Each tool is called once per module.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from PIL import Image

import mediablocks as mb
from mediablocks.providers import PROVIDERS
from tests.conftest import TESTDATA
from tests.providers.kit import assert_sdk_types

SERVER = Path(__file__).with_name("mcp_media_server.py")
TOOLS = ("screenshot", "animation", "chart", "speech", "report", "photo_link", "weather", "failing")
KIND_LIMITS = {"image": "image_types", "audio": "audio_types", "video": "video_types"}


async def _call_every_tool() -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    found: dict[str, Any] = {"raw": {}, "blocks": {}}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name in (*TOOLS, "fitted_screenshot"):
            raw = await session.call_tool(name, {})
            found["raw"][name] = raw
            found["blocks"][name] = await mb.afrom_mcp(
                raw, tool_call_id=f"call_{name}", read_resource=session.read_resource, name=name
            )
        # The synchronous reader cannot await the session inside its own running loop: it says
        # which function to use instead of deadlocking.
        try:
            mb.from_mcp(
                found["raw"]["photo_link"],
                tool_call_id="call_sync",
                read_resource=session.read_resource,
            )
        except mb.InvalidOptionError as exc:
            found["sync_in_loop"] = str(exc)
    return found


@pytest.fixture(scope="module")
def served() -> dict[str, Any]:
    return asyncio.run(_call_every_tool())


def _history(block: mb.ToolResultBlock) -> list[mb.Message]:
    call = mb.ToolCallBlock(id=block.tool_call_id, name=block.name or "tool", args={})
    return [
        mb.UserMessage.text("Use the tool, then tell me what you see."),
        mb.AssistantMessage(content=[call]),
        mb.ToolMessage(content=[block]),
    ]


def _media(messages: list[mb.Message]) -> list[mb.MediaBlock]:
    found: list[mb.MediaBlock] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, mb.MediaBlock):
                found.append(block)
            elif isinstance(block, mb.ToolResultBlock):
                found.extend(block.media)
    return found


def _texts(messages: list[mb.Message]) -> str:
    parts: list[str] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, (mb.TextBlock, mb.ToolResultBlock)):
                parts.append(block.text)
    return "\n".join(parts)


# -- what each item became -------------------------------------------------------------------


def test_the_screenshot_is_an_image_block_over_the_servers_png(served: dict[str, Any]) -> None:
    block = served["blocks"]["screenshot"]
    text, image = block.content
    assert text.text == "Screenshot of https://example.org/long"
    assert isinstance(image, mb.ImageBlock)
    assert image.mime_type == "image/png"
    assert Image.open(io.BytesIO(image.read())).size == (1280, 10000)
    assert block.name == "screenshot"
    assert block.tool_call_id == "call_screenshot"


@pytest.mark.parametrize(
    ("tool", "kind", "mime", "source"),
    [
        ("animation", mb.ImageBlock, "image/gif", "image/animated.gif"),
        ("chart", mb.ImageBlock, "image/svg+xml", "image/with-xml-declaration.svg"),
        ("speech", mb.AudioBlock, "audio/wav", "audio/pcm16.wav"),
        ("report", mb.FileBlock, "application/pdf", "document/report.pdf"),
        ("photo_link", mb.ImageBlock, "image/jpeg", "image/photo.jpg"),
    ],
)
def test_each_media_item_keeps_its_bytes_and_type(
    served: dict[str, Any], tool: str, kind: type[mb.MediaBlock], mime: str, source: str
) -> None:
    (media,) = served["blocks"][tool].media
    assert isinstance(media, kind)
    assert media.mime_type == mime
    assert media.read() == (TESTDATA / source).read_bytes()


def test_a_resource_keeps_its_uri_annotations_and_meta(served: dict[str, Any]) -> None:
    (pdf,) = served["blocks"]["report"].content
    kept = pdf.for_provider("mcp")
    assert kept["uri"] == "file:///reports/report.pdf"
    assert kept["annotations"] == {"audience": ["assistant"], "priority": 0.9}
    assert kept["_meta"] == {"pages": 1}
    assert pdf.filename == "report.pdf"


def test_a_link_is_read_through_the_session_and_the_user_note_is_kept_out(
    served: dict[str, Any],
) -> None:
    block = served["blocks"]["photo_link"]
    assert [type(b) for b in block.content] == [mb.ImageBlock]  # the note is not for the model
    info = block.metadata["mcp"]
    (note,) = info["user_only"]
    assert note["index"] == 1
    assert note["item"]["text"] == "Shown to the user in the host's UI"
    actions = {entry["action"]: entry["item"] for entry in info["report"]}
    assert actions == {"user_only": 1, "link_read": 0}


def test_the_sync_reader_refuses_an_async_callback_inside_a_running_loop(
    served: dict[str, Any],
) -> None:
    assert "afrom_mcp" in served["sync_in_loop"]


def test_structured_content_and_errors_come_through(served: dict[str, Any]) -> None:
    weather = served["blocks"]["weather"]
    assert weather.metadata["mcp"]["structuredContent"] == {"temperature": 21.5}
    assert weather.text == '{"temperature": 21.5}'
    failing = served["blocks"]["failing"]
    assert failing.is_error
    assert failing.text == "page did not load"


def test_results_go_back_to_mcp_as_they_came(served: dict[str, Any]) -> None:
    for tool in ("screenshot", "speech", "report", "weather", "failing"):
        again = mb.to_mcp(served["blocks"][tool])
        original = served["raw"][tool].model_dump(by_alias=True, exclude_none=True)
        assert again.model_dump(by_alias=True, exclude_none=True) == original, tool


def test_a_server_fits_its_screenshot_for_claude_before_returning_it(
    served: dict[str, Any],
) -> None:
    (image,) = served["blocks"]["fitted_screenshot"].media
    width, height = Image.open(io.BytesIO(image.read())).size
    limits = mb.limits_for("anthropic")
    assert limits.max_image_side is not None
    assert height <= limits.max_image_side < 10000
    assert width * 10000 // height in range(1270, 1290)  # scaled, not cropped


# -- every tool result x every provider ---------------------------------------------------


def _within_limits(provider: str, media: list[mb.MediaBlock]) -> None:
    limits = mb.limits_for(provider)
    for block in media:
        kind = block.type if block.type != "file" else "document"
        allowed = getattr(limits, KIND_LIMITS.get(kind, "document_types"))
        assert block.mime_type in allowed, (provider, block.describe())
        size = len(block.read())
        if isinstance(block, mb.ImageBlock):
            side = max(Image.open(io.BytesIO(block.read())).size)
            assert limits.max_image_side is None or side <= limits.max_image_side
            assert limits.max_image_bytes is None or size <= limits.max_image_bytes
        if isinstance(block, mb.AudioBlock):
            assert limits.max_audio_bytes is None or size <= limits.max_audio_bytes
        if isinstance(block, mb.FileBlock):
            assert limits.max_document_bytes is None or size <= limits.max_document_bytes


def _refused_loudly(provider: str, block: mb.ToolResultBlock, error: mb.MediaBlocksError) -> None:
    """A refusal must name the item and be one the provider's documented limits explain."""
    # prepare without model= fits to the provider's most restrictive current model
    from mediablocks.providers.registry import provider_entry

    limits = mb.limits_for(provider, provider_entry(provider).assumed_model())
    message = str(error)
    assert "message 2" in message, message
    kinds = {m.type for m in block.media}
    if isinstance(error, mb.DoesNotFitError):
        assert any(not getattr(limits, KIND_LIMITS.get(k, "document_types")) for k in kinds)
        # The drop the caller may choose instead is reported, never silent.
        _, report = mb.prepare_with_report(_history(block), provider, unsupported="drop")
        assert report.dropped
    else:
        assert isinstance(error, mb.UnsupportedBlockError)
        assert "tool result" in message


OUTCOMES: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("tool", TOOLS)
def test_every_result_reaches_every_provider_whole_or_is_refused_loudly(
    served: dict[str, Any], tool: str, provider: str
) -> None:
    block = served["blocks"][tool]
    history = _history(block)
    try:
        prepared, report = mb.prepare_with_report(history, provider)
        body = assert_sdk_types(provider, prepared)  # the SDK's own types, no unknown keys
    except (mb.DoesNotFitError, mb.UnsupportedBlockError) as exc:
        _refused_loudly(provider, block, exc)
        OUTCOMES[(tool, provider)] = "refused"
        return
    assert body
    sent = mb.decode(json.loads(json.dumps(mb.encode(prepared, provider, target="json"))), provider)
    # Nothing dropped: every media item has its line in the report (kept, converted, or
    # replaced by pages or text), every media block prepared is in the body, and every text.
    assert not report.dropped
    items = {i for i, item in enumerate(block.content) if isinstance(item, mb.MediaBlock)}
    assert items <= {b.item_index for b in report.blocks if b.message_index == 2}
    assert len(_media(sent)) == len(_media(prepared))
    for line in block.text.splitlines():
        assert line in _texts(sent)
    _within_limits(provider, _media(sent))
    if provider == "bedrock" and _media(sent) and isinstance(_media(sent)[0], mb.AudioBlock):
        # Bedrock takes audio (Nova) but publishes no token rule for it: said, not guessed.
        with pytest.raises(mb.UnsupportedBlockError, match="publishes no token rule for it"):
            mb.estimate_tokens(prepared, provider)
    else:
        with_media = mb.estimate_tokens(prepared, provider)
        assert with_media > mb.estimate_tokens(history[:2], provider)
    OUTCOMES[(tool, provider)] = "sent"


def test_a_pdf_page_image_and_a_fitted_screenshot_differ_by_provider(
    served: dict[str, Any],
) -> None:
    # Ollama takes no PDF: it gets the report as page images (or text); Claude as a document.
    report = served["blocks"]["report"]
    for_ollama = _media(mb.prepare(_history(report), "ollama"))
    assert for_ollama
    assert all(m.mime_type in ("image/png", "image/jpeg") for m in for_ollama)
    for_claude = _media(mb.prepare(_history(report), "anthropic"))
    assert [m.mime_type for m in for_claude] == ["application/pdf"]
    shot = _media(mb.prepare(_history(served["blocks"]["screenshot"]), "anthropic"))
    assert max(Image.open(io.BytesIO(shot[0].read())).size) <= 8000


def test_claude_gets_the_svg_as_a_png_in_its_tool_result(served: dict[str, Any]) -> None:
    prepared = mb.prepare(_history(served["blocks"]["chart"]), "anthropic")
    body = mb.encode(prepared, "anthropic", target="json")
    result = body["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    (image,) = [part for part in result["content"] if part["type"] == "image"]
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]).startswith(b"\x89PNG")
