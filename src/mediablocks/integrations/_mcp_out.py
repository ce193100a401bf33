"""MCP tool results out: `to_mcp` turns blocks (or a whole `ToolResultBlock`) into the ``mcp``
package's content, fitted first for the client's model when a provider is named.

What `from_mcp` kept in a block's ``provider_data["mcp"]`` (item type, annotations, ``_meta``,
resource URI) and in the result's ``metadata["mcp"]`` (``structuredContent``, ``_meta``, the items
for the user only) is given back, so a result read and written again keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._base import BlockBase
from ..blocks import RawBlock, TextBlock, ToolResultBlock
from ..errors import InvalidOptionError, UnsupportedBlockError
from ..media import AudioBlock, ImageBlock, MediaBlock, VideoBlock
from ..sources import FileIdSource, URLSource
from ._common import require

__all__ = ["to_mcp"]

_ITEM_KEYS = ("annotations", "_meta")
_LINK_KEYS = ("name", "title", "description", "mimeType", "size", "icons")
_PREPARED_ID = "mcp"
"""The tool call id of the one-result message `to_mcp` prepares (it never leaves)."""


def to_mcp(
    blocks: ToolResultBlock | BlockBase | str | Sequence[BlockBase | str],
    *,
    provider: str | None = None,
    model: str | None = None,
    **prepare_options: Any,
) -> Any:
    """MCP content for a tool server to return: a ``CallToolResult`` for a `ToolResultBlock`,
    otherwise a list of content items (``TextContent``, ``ImageContent``, ``AudioContent``,
    ``EmbeddedResource``, ``ResourceLink``) for a block or a list of them.

    With ``provider`` (and ``model``), the media are first fitted for that model with `prepare`
    (``prepare_options`` are its options), so a client sending the result on unchanged sends
    what the model takes: screenshots scaled, formats converted, documents as the provider takes
    them, or `DoesNotFitError` naming what cannot fit. Images and audio become image and audio
    items, other media embedded blob resources, URL media resource links. Thinking, tool calls
    and other providers' raw blocks raise `UnsupportedBlockError`. Needs the ``mcp`` extra.
    """
    types = require("mcp.types", "mcp", "to_mcp")
    result = _as_result(blocks)
    if provider is not None:
        result = _prepared(result, provider, model, prepare_options)
    items = _items(result)
    if not isinstance(blocks, ToolResultBlock):
        return types.CallToolResult.model_validate({"content": items}).content
    info = result.metadata.get("mcp", {})
    wire: dict[str, Any] = {"content": _with_user_items(items, info.get("user_only", ()))}
    for key in ("structuredContent", "_meta"):
        if key in info:
            wire[key] = info[key]
    if result.is_error:
        wire["isError"] = True
    return types.CallToolResult.model_validate(wire)


def _as_result(blocks: Any) -> ToolResultBlock:
    if isinstance(blocks, ToolResultBlock):
        return blocks
    if isinstance(blocks, (str, BlockBase)):
        blocks = [blocks]
    if not isinstance(blocks, Sequence):
        raise InvalidOptionError(
            f"to_mcp takes a ToolResultBlock, a block or a list of blocks, not a "
            f"{type(blocks).__name__}"
        )
    content = [TextBlock(text=b) if isinstance(b, str) else b for b in blocks]
    for position, block in enumerate(content):
        if not isinstance(block, (TextBlock, MediaBlock, RawBlock)):
            raise UnsupportedBlockError(
                f"to_mcp: block {position} is a {type(block).__name__}; an MCP tool result "
                "carries text, media and resources only"
            )
    return ToolResultBlock(tool_call_id=_PREPARED_ID, content=content)


def _prepared(
    result: ToolResultBlock, provider: str, model: str | None, options: dict[str, Any]
) -> ToolResultBlock:
    """The result with its media fitted for ``provider``'s ``model``, by `prepare`."""
    from ..messages import ToolMessage
    from ..preparing import prepare

    prepared = prepare([ToolMessage(content=[result])], provider, model=model, **options)
    (block,) = prepared[0].content
    assert isinstance(block, ToolResultBlock)
    return block


def _items(result: ToolResultBlock) -> list[dict[str, Any]]:
    if isinstance(result.content, str):
        return [{"type": "text", "text": result.content}] if result.content else []
    structured = "structuredContent" in result.metadata.get("mcp", {})
    items: list[dict[str, Any]] = []
    for position, block in enumerate(result.content):
        mcp = block.for_provider("mcp")
        if structured and mcp.get("type") == "structured":
            continue  # the JSON text from_mcp made from structuredContent, which goes back as is
        items.append(_item(block, mcp, position))
    return items


def _item(block: Any, mcp: dict[str, Any], position: int) -> dict[str, Any]:
    kind = mcp.get("type")
    if isinstance(block, RawBlock):
        if block.provider != "mcp":
            raise UnsupportedBlockError(
                f"to_mcp: block {position} is a {block.provider} raw block, which MCP cannot carry"
            )
        return dict(block.data)
    if isinstance(block, TextBlock):
        if kind == "resource" or (kind == "resource_link" and mcp.get("link")):
            return _extras(_resource(mcp, {"text": block.text}), mcp)
        if kind == "resource_link":
            return _link(mcp["uri"], mcp)
        return _extras({"type": "text", "text": block.text}, mcp)
    assert isinstance(block, MediaBlock)
    return _media_item(block, mcp, position)


def _media_item(block: MediaBlock, mcp: dict[str, Any], position: int) -> dict[str, Any]:
    kind = mcp.get("type")
    if isinstance(block.source, URLSource):
        return _link(
            block.source.url,
            mcp
            if kind == "resource_link"
            else {
                "name": block.filename or block.source.url,
                "mimeType": block.declared_mime,
                **mcp,
            },
        )
    if isinstance(block.source, FileIdSource):
        raise UnsupportedBlockError(
            f"to_mcp: {block.describe()} (block {position}) is a provider file id, which an MCP "
            "client cannot read; pass the bytes"
        )
    data, mime = block.to_base64()
    if kind in ("resource", "resource_link"):
        if mcp.get("text") and mime == "image/svg+xml":
            return _extras(_resource(mcp, {"text": block.read().decode("utf-8")}, mime), mcp)
        return _extras(_resource(mcp, {"blob": data}, mime), mcp)
    if isinstance(block, ImageBlock):
        return _extras({"type": "image", "data": data, "mimeType": mime}, mcp)
    if isinstance(block, AudioBlock):
        return _extras({"type": "audio", "data": data, "mimeType": mime}, mcp)
    kind_name = "video" if isinstance(block, VideoBlock) else "file"
    uri = f"mediablocks:{kind_name}/{position}" + (f"/{block.filename}" if block.filename else "")
    return _extras(_resource({"uri": uri}, {"blob": data}, mime), mcp)


def _resource(mcp: dict[str, Any], body: dict[str, Any], mime: str | None = None) -> dict[str, Any]:
    """An embedded resource item: the URI and type of the resource it was, with ``body``."""
    contents: dict[str, Any] = {"uri": mcp.get("uri") or "mediablocks:resource", **body}
    declared = mime or mcp.get("mimeType")
    if declared:
        contents["mimeType"] = declared
    if mcp.get("resource_meta") is not None:
        contents["_meta"] = mcp["resource_meta"]
    return {"type": "resource", "resource": contents}


def _link(uri: str, mcp: dict[str, Any]) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "resource_link", "uri": uri, "name": mcp.get("name") or uri}
    for key in _LINK_KEYS:
        if key != "name" and mcp.get(key) is not None:
            item[key] = mcp[key]
    return _extras(item, mcp)


def _extras(item: dict[str, Any], mcp: dict[str, Any]) -> dict[str, Any]:
    for key in _ITEM_KEYS:
        if mcp.get(key) is not None:
            item[key] = mcp[key]
    return item


def _with_user_items(items: list[dict[str, Any]], user_only: Any) -> list[dict[str, Any]]:
    """The items for the user only, put back where they were in the result."""
    out = list(items)
    for entry in sorted(user_only, key=lambda e: e["index"]):
        out.insert(min(entry["index"], len(out)), dict(entry["item"]))
    return out
