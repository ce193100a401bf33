"""A real MCP server (the ``mcp`` package's own) whose tools return media, run over stdio by
``test_mcp_server.py``: a full-page screenshot 10000 px tall (past Claude's 8000), a GIF, an SVG,
a WAV, a PDF resource, a link to a resource, a result for the user only and a structured result;
and one tool that fits its screenshot for Claude with ``mb.to_mcp(..., provider="anthropic")``
before returning it, as a tool server would.

Run as a script: ``python tests/integrations/mcp_media_server.py`` speaks MCP on stdin/stdout.
"""

from __future__ import annotations

import base64
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "src"))

import mcp.types as types  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

import mediablocks as mb  # noqa: E402

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x calls it FastMCP
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef]

TESTDATA = ROOT / "testdata"
SCREENSHOT_SIZE = (1280, 10000)

server = Server("mediablocks-test-media")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def screenshot_png() -> bytes:
    """A full-page browser screenshot: white page, a header bar and text lines all the way down."""
    page = Image.new("RGB", SCREENSHOT_SIZE, "white")
    draw = ImageDraw.Draw(page)
    draw.rectangle((0, 0, SCREENSHOT_SIZE[0], 120), fill=(32, 64, 160))
    for y in range(200, SCREENSHOT_SIZE[1], 48):
        draw.rectangle((80, y, 80 + (y * 7) % 900 + 200, y + 18), fill=(60, 60, 60))
    out = io.BytesIO()
    page.save(out, "PNG")
    return out.getvalue()


def _read(relative: str) -> bytes:
    return (TESTDATA / relative).read_bytes()


@server.tool()
def screenshot() -> types.CallToolResult:
    """A full-page screenshot of a long page."""
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text="Screenshot of https://example.org/long"),
            types.ImageContent(type="image", data=_b64(screenshot_png()), mimeType="image/png"),
        ]
    )


@server.tool()
def animation() -> types.CallToolResult:
    """An animated GIF."""
    data = _b64(_read("image/animated.gif"))
    return types.CallToolResult(
        content=[types.ImageContent(type="image", data=data, mimeType="image/gif")]
    )


@server.tool()
def chart() -> types.CallToolResult:
    """A chart drawn as SVG."""
    data = _b64(_read("image/with-xml-declaration.svg"))
    return types.CallToolResult(
        content=[types.ImageContent(type="image", data=data, mimeType="image/svg+xml")]
    )


@server.tool()
def speech() -> types.CallToolResult:
    """A WAV recording."""
    data = _b64(_read("audio/pcm16.wav"))
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text="Recording of the meeting"),
            types.AudioContent(type="audio", data=data, mimeType="audio/wav"),
        ]
    )


@server.tool()
def report() -> types.CallToolResult:
    """A PDF report, embedded as a resource, with annotations and _meta."""
    contents = types.BlobResourceContents(
        uri="file:///reports/report.pdf",
        mimeType="application/pdf",
        blob=_b64(_read("document/report.pdf")),
    )
    return types.CallToolResult(
        content=[
            types.EmbeddedResource(
                type="resource",
                resource=contents,
                annotations=types.Annotations(audience=["assistant"], priority=0.9),
                _meta={"pages": 1},
            )
        ]
    )


@server.resource("media://photo.jpg", mime_type="image/jpeg")
def photo() -> bytes:
    """A photo the link tool points at."""
    return _read("image/photo.jpg")


@server.tool()
def photo_link() -> types.CallToolResult:
    """A link to a resource, and a note for the user only."""
    return types.CallToolResult(
        content=[
            types.ResourceLink(
                type="resource_link",
                uri="media://photo.jpg",
                name="photo.jpg",
                mimeType="image/jpeg",
            ),
            types.TextContent(
                type="text",
                text="Shown to the user in the host's UI",
                annotations=types.Annotations(audience=["user"]),
            ),
        ]
    )


@server.tool()
def weather() -> types.CallToolResult:
    """A structured result with its JSON mirrored in text, as the spec asks."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text='{"temperature": 21.5}')],
        structuredContent={"temperature": 21.5},
    )


@server.tool()
def failing() -> types.CallToolResult:
    """A tool that reports an error."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="page did not load")], isError=True
    )


@server.tool()
def fitted_screenshot() -> types.CallToolResult:
    """The screenshot, fitted for Claude by the server before it leaves."""
    image = mb.ImageBlock.from_bytes(screenshot_png())
    result = mb.ToolResultBlock(tool_call_id="call", content=[image])
    fitted: types.CallToolResult = mb.to_mcp(result, provider="anthropic")
    return fitted


if __name__ == "__main__":
    server.run()
