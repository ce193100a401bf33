"""MCP tool results in: `from_mcp` and `afrom_mcp` turn a ``CallToolResult`` into a
`ToolResultBlock`.

The result is read in its wire shape (``mimeType``, ``isError``, ``_meta``), so a result from the
official ``mcp`` package (1.x or 2.x), its ``model_dump`` or the JSON a server sent all read the
same, and nothing here imports ``mcp``. Every item becomes blocks, is kept in the metadata, or
raises; what each item was on the MCP side (its type, annotations, ``_meta``, resource URI) rides
along in the block's ``provider_data["mcp"]``, which no provider translator reads, so `to_mcp`
can give the same item back. What happened to items the model is not sent as they came is listed
in ``metadata["mcp"]["report"]``.

Rules (``docs/integrations/mcp.md``):

- ``text`` is a `TextBlock`; a text that is nothing but a data URI of media is that media block.
- ``image`` and ``audio`` are media blocks over their base64 (decoded lazily); the bytes decide
  the class and type, the declared ``mimeType`` is a hint.
- ``resource`` (embedded): a blob is a media block of the class its bytes say; a text is a
  `TextBlock` (an SVG text resource is an image).
- ``resource_link``: read through ``read_resource(uri)`` when given (sync or async); without it an
  http(s) link is a lazy URL block (fetched later under `FetchPolicy`, or sent as a URL where the
  provider takes one), and any other link is a text line naming it. Each is reported.
- an item whose ``annotations.audience`` is ``["user"]`` is not for the model: it is kept in
  ``metadata["mcp"]["user_only"]`` and reported.
- ``structuredContent`` and the result's ``_meta`` are kept in the metadata; a result with no
  content sends its structured content to the model as JSON text (reported).
- an item of a type this module does not know is a ``RawBlock(provider="mcp")``, reported, and
  refused by every provider when encoded.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from ..blocks import ContentBlock, RawBlock, TextBlock, ToolResultBlock
from ..datauri import is_data_uri
from ..errors import DecodeError, InvalidOptionError, MediaBlocksError, SourceError
from ..media import ImageBlock, MediaBlock
from ..media_input import media_block
from ..mime import mime_kind, normalize_mime
from ._common import as_content, media_from_base64, plain
from ._mcp_out import to_mcp

__all__ = ["ReadResource", "afrom_mcp", "from_mcp", "to_mcp"]

ReadResource = Callable[[str], Any]
"""``read_resource(uri)``: a ``ReadResourceResult``, its ``contents`` (a list or one), bytes or
text; or an awaitable of one of these (``ClientSession.read_resource`` is such a callback)."""

_SNAKE = {
    "mime_type": "mimeType",
    "is_error": "isError",
    "structured_content": "structuredContent",
    "meta": "_meta",
    "last_modified": "lastModified",
    "result_type": "resultType",
}
"""Python field names some dumps use, and the wire names read here."""

_URL_SCHEMES = ("http", "https")


def from_mcp(
    result: Any,
    *,
    tool_call_id: str,
    read_resource: ReadResource | None = None,
    name: str | None = None,
) -> ToolResultBlock:
    """The `ToolResultBlock` for an MCP tool result (``CallToolResult``, its dict or JSON, or its
    ``content`` list), ready for `prepare`, `encode` and `estimate_tokens` like any tool result.

    ``tool_call_id`` is the id of the model's tool call this answers; ``name`` the tool's name
    (Gemini needs it on the result). ``read_resource`` resolves ``resource_link`` items: called
    with the link's URI, it returns what the server's ``resources/read`` gives. An async
    callback (``session.read_resource``) inside a running event loop needs `afrom_mcp`.
    Raises `DecodeError` for a result that is not MCP's shape, `SourceError` when
    ``read_resource`` fails on a link.
    """
    reader = _sync_reader(read_resource) if read_resource is not None else None
    plan = _Plan.of(result, tool_call_id, name)
    for index, item in plan.links():
        plan.resolve(index, item, reader(item["uri"]) if reader else None, reader is not None)
    return plan.block()


async def afrom_mcp(
    result: Any,
    *,
    tool_call_id: str,
    read_resource: ReadResource | None = None,
    name: str | None = None,
) -> ToolResultBlock:
    """`from_mcp` for async code: ``read_resource`` may be a coroutine function (such as
    ``ClientSession.read_resource``) and is awaited in the running loop."""
    plan = _Plan.of(result, tool_call_id, name)
    for index, item in plan.links():
        contents = None
        if read_resource is not None:
            contents = await _read_async(read_resource, item["uri"])
        plan.resolve(index, item, contents, read_resource is not None)
    return plan.block()


# -- reading links ----------------------------------------------------------------------------


def _sync_reader(read_resource: ReadResource) -> Callable[[str], Any]:
    if not callable(read_resource):
        raise InvalidOptionError(
            f"read_resource must be a callable taking a URI, not a {type(read_resource).__name__}"
        )

    def read(uri: str) -> Any:
        value = _call(read_resource, uri)
        if not inspect.isawaitable(value):
            return value
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(_awaited(value))
        _close(value)
        raise InvalidOptionError(
            "read_resource is async and an event loop is running: use "
            "`await mb.afrom_mcp(result, tool_call_id=..., read_resource=...)` instead"
        )

    return read


async def _read_async(read_resource: ReadResource, uri: str) -> Any:
    if not callable(read_resource):
        raise InvalidOptionError(
            f"read_resource must be a callable taking a URI, not a {type(read_resource).__name__}"
        )
    value = _call(read_resource, uri)
    if inspect.isawaitable(value):
        try:
            value = await value
        except MediaBlocksError:
            raise
        except Exception as exc:
            raise SourceError(f"read_resource({uri!r}) failed: {exc}") from exc
    return value


def _call(read_resource: ReadResource, uri: str) -> Any:
    try:
        return read_resource(uri)
    except MediaBlocksError:
        raise
    except Exception as exc:  # the caller's callback: whatever it raises, named
        raise SourceError(f"read_resource({uri!r}) failed: {exc}") from exc


async def _awaited(value: Awaitable[Any]) -> Any:
    try:
        return await value
    except MediaBlocksError:
        raise
    except Exception as exc:
        raise SourceError(f"read_resource failed: {exc}") from exc


def _close(value: Any) -> None:
    close = getattr(value, "close", None)
    if callable(close):
        close()


# -- the plan: items read, links resolved, one block out ---------------------------------------


class _Plan:
    """One result being read: the blocks of each item (links filled in later) and the report."""

    def __init__(self, wire: dict[str, Any], tool_call_id: str, name: str | None) -> None:
        self.wire = wire
        self.tool_call_id = tool_call_id
        self.name = name
        self.items: list[dict[str, Any]] = wire["content"]
        self.blocks: list[list[ContentBlock]] = []
        self.user_only: list[dict[str, Any]] = []
        self.report: list[dict[str, Any]] = []
        for index, item in enumerate(self.items):
            self.blocks.append(self._read_item(index, item))

    @classmethod
    def of(cls, result: Any, tool_call_id: str, name: str | None) -> _Plan:
        if not isinstance(tool_call_id, str) or not tool_call_id:
            raise InvalidOptionError("from_mcp needs the tool_call_id this result answers")
        return cls(_wire_result(result), tool_call_id, name)

    def links(self) -> list[tuple[int, dict[str, Any]]]:
        """The ``resource_link`` items the model is sent, in order."""
        return [
            (index, item)
            for index, item in enumerate(self.items)
            if item.get("type") == "resource_link" and not _user_only(item)
        ]

    def note(self, index: int | None, action: str, detail: str) -> None:
        self.report.append({"item": index, "action": action, "detail": detail})

    def _read_item(self, index: int, item: dict[str, Any]) -> list[ContentBlock]:
        kind = item.get("type")
        what = f"MCP result item {index} ({kind})"
        if _user_only(item):
            self.user_only.append({"index": index, "item": item})
            self.note(index, "user_only", f"{kind} item for the user only: not sent to the model")
            return []
        mcp = _item_data(item)
        if kind == "text":
            return [self._text(index, item, mcp, what)]
        if kind in ("image", "audio"):
            block = media_from_base64(item.get("data"), _mime(item, what), None, what).model_copy(
                update={"provider_data": {"mcp": mcp}}
            )
            return [as_content(block)]
        if kind == "resource":
            contents = item.get("resource")
            if not isinstance(contents, dict):
                raise DecodeError(f"{what}: 'resource' is not an object")
            return [_resource_block(contents, mcp, what)]
        if kind == "resource_link":
            if not isinstance(item.get("uri"), str):
                raise DecodeError(f"{what}: the link has no 'uri' string")
            return []  # resolved by `resolve`
        self.note(index, "raw", f"unknown MCP content type {kind!r}: kept as a raw block")
        return [RawBlock(provider="mcp", data=item)]

    def _text(
        self, index: int, item: dict[str, Any], mcp: dict[str, Any], what: str
    ) -> ContentBlock:
        text = item.get("text")
        if not isinstance(text, str):
            raise DecodeError(f"{what}: 'text' is not a string")
        stripped = text.strip()
        if is_data_uri(stripped):
            block = _media_in_text(stripped)
            if block is not None:
                self.note(
                    index,
                    "data_uri",
                    f"a text holding a {block.mime_type} data URI: sent as that media",
                )
                return as_content(
                    block.model_copy(update={"provider_data": {"mcp": {**mcp, "text": True}}})
                )
        return TextBlock(text=text, provider_data={"mcp": mcp})

    def resolve(self, index: int, item: dict[str, Any], contents: Any, was_read: bool) -> None:
        """Fill in the blocks of link ``index`` from what ``read_resource`` gave (``was_read``),
        or, without a reader, as a lazy URL block or a text line."""
        uri: str = item["uri"]
        what = f"MCP result item {index} (resource link {uri!r})"
        mcp = _item_data(item)
        if was_read:
            listed = _contents_list(contents, what)
            self.blocks[index] = [
                _resource_block({"uri": uri, **entry}, {**mcp, "link": True}, what)
                for entry in listed
            ]
            self.note(index, "link_read", f"{uri} read through read_resource")
            return
        if urlsplit(uri).scheme.lower() in _URL_SCHEMES:
            block = media_block(uri, _declared(item.get("mimeType")), filename=_name(uri))
            self.blocks[index] = [
                as_content(block.model_copy(update={"provider_data": {"mcp": mcp}}))
            ]
            self.note(
                index,
                "link_url",
                f"{uri} kept as a URL: fetched when read, under the "
                "fetch policy, or sent as a URL where the provider takes one",
            )
            return
        self.blocks[index] = [TextBlock(text=_link_line(item), provider_data={"mcp": mcp})]
        self.note(
            index,
            "link_text",
            f"{uri} not read (no read_resource): the model is sent a line naming it",
        )

    def block(self) -> ToolResultBlock:
        content: list[ContentBlock] = [block for blocks in self.blocks for block in blocks]
        structured = self.wire.get("structuredContent")
        if not content and structured is not None:
            text = json.dumps(structured, ensure_ascii=False)
            content = [TextBlock(text=text, provider_data={"mcp": {"type": "structured"}})]
            self.note(
                None,
                "structured_as_text",
                "no content: the structured content is sent as JSON text",
            )
        info: dict[str, Any] = {
            key: self.wire[key]
            for key in ("structuredContent", "_meta", "resultType")
            if key in self.wire
        }
        if self.user_only:
            info["user_only"] = self.user_only
        info["report"] = self.report
        is_error = self.wire.get("isError", False)
        if not isinstance(is_error, bool):
            raise DecodeError(f"MCP result: isError is a {type(is_error).__name__}, not a bool")
        return ToolResultBlock(
            tool_call_id=self.tool_call_id,
            name=self.name,
            content=content,
            is_error=is_error,
            metadata={"mcp": info},
        )


# -- shapes ---------------------------------------------------------------------------------


def _wire_result(result: Any) -> dict[str, Any]:
    """The result as its wire dict with a ``content`` list of item dicts."""
    if isinstance(result, (str, bytes, bytearray)):
        try:
            result = json.loads(result)
        except (ValueError, RecursionError) as exc:
            raise DecodeError(f"MCP result is not JSON: {exc}") from None
    if isinstance(result, Sequence) and not isinstance(result, (str, bytes, bytearray)):
        result = {"content": list(result)}
    value = _wire_keys(plain(result, "MCP result"))
    if not isinstance(value, dict):
        raise DecodeError(f"MCP result is a {type(result).__name__}, not a CallToolResult")
    if value.get("resultType", "complete") not in ("complete", None):
        raise DecodeError(
            f"MCP result is not complete (resultType {value['resultType']!r}): answer the "
            "server's input request first"
        )
    content = value.get("content", [])
    if not isinstance(content, list):
        raise DecodeError("MCP result: 'content' is not a list")
    items = [_wire_keys(plain(item, f"MCP result item {i}")) for i, item in enumerate(content)]
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise DecodeError(f"MCP result item {index} is not a content object with a 'type'")
    return {**value, "content": items}


def _wire_keys(value: Any) -> Any:
    """A dict with Python field names (``mime_type``) renamed to the wire's (``mimeType``), one
    level down into ``resource`` and ``annotations`` too."""
    if not isinstance(value, dict):
        return value
    out = {_SNAKE.get(key, key): item for key, item in value.items()}
    for key in ("resource", "annotations"):
        if isinstance(out.get(key), dict):
            out[key] = {_SNAKE.get(k, k): v for k, v in out[key].items()}
    return out


def _user_only(item: dict[str, Any]) -> bool:
    annotations = item.get("annotations")
    audience = annotations.get("audience") if isinstance(annotations, dict) else None
    return isinstance(audience, list) and bool(audience) and "assistant" not in audience


def _item_data(item: dict[str, Any]) -> dict[str, Any]:
    """What an item was on the MCP side, kept in ``provider_data["mcp"]`` for `to_mcp`."""
    kept = {"type": item["type"]}
    for key in ("annotations", "_meta", "uri", "name", "title", "description", "size", "icons"):
        if key in item and item[key] is not None:
            kept[key] = item[key]
    if item["type"] == "resource_link" and item.get("mimeType"):
        kept["mimeType"] = item["mimeType"]
    return kept


def _mime(item: dict[str, Any], what: str) -> str | None:
    mime = item.get("mimeType")
    if mime is None:
        return None
    if not isinstance(mime, str):
        raise DecodeError(f"{what}: mimeType is not a string")
    return _declared(mime)


def _declared(mime: Any) -> str | None:
    """A declared type as a hint: None when absent or not a MIME type at all."""
    if not isinstance(mime, str) or "/" not in mime:
        return None
    try:
        return normalize_mime(mime)
    except ValueError:
        return None


def _resource_block(contents: dict[str, Any], mcp: dict[str, Any], what: str) -> ContentBlock:
    """The block for one ``TextResourceContents`` or ``BlobResourceContents``."""
    contents = _wire_keys(contents)
    uri = contents.get("uri")
    if not isinstance(uri, str):
        raise DecodeError(f"{what}: the resource has no 'uri' string")
    mime = _declared(contents.get("mimeType"))
    data = {**mcp, "uri": uri}
    if contents.get("_meta") is not None:
        data["resource_meta"] = contents["_meta"]
    if contents.get("mimeType") is not None:
        data["mimeType"] = contents["mimeType"]
    if "blob" in contents:
        block: MediaBlock = media_from_base64(contents["blob"], mime, _name(uri), what)
        return as_content(block.model_copy(update={"provider_data": {"mcp": data}}))
    text = contents.get("text")
    if not isinstance(text, str):
        raise DecodeError(f"{what}: the resource has neither 'blob' nor 'text'")
    if mime == "image/svg+xml":
        image = ImageBlock.from_bytes(text.encode("utf-8"), mime, filename=_name(uri))
        return image.model_copy(update={"provider_data": {"mcp": {**data, "text": True}}})
    return TextBlock(text=text, provider_data={"mcp": data})


def _contents_list(contents: Any, what: str) -> list[dict[str, Any]]:
    """What ``read_resource`` returned, as a list of resource contents dicts."""
    if isinstance(contents, (bytes, bytearray, memoryview)):
        from base64 import b64encode

        return [{"blob": b64encode(bytes(contents)).decode("ascii")}]
    if isinstance(contents, str):
        return [{"text": contents}]
    value = plain(contents, what)
    if isinstance(value, dict) and "contents" in value:
        value = value["contents"]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not value:
        raise SourceError(f"{what}: read_resource returned no contents")
    for entry in value:
        if not isinstance(entry, dict):
            raise DecodeError(f"{what}: read_resource returned a {type(entry).__name__}")
    return [_wire_keys(entry) for entry in value]


def _media_in_text(text: str) -> MediaBlock | None:
    """The media a text item holds as a data URI (a server that pasted base64 into text), when
    it is image, audio, video or PDF; None for anything else (the text stays text)."""
    try:
        block = media_block(text)
    except MediaBlocksError:
        return None
    if mime_kind(block.mime_type) != "file" or block.mime_type == "application/pdf":
        return block
    return None


def _name(uri: str) -> str | None:
    """The last path segment of a URI, as a filename hint."""
    path = urlsplit(uri).path or uri
    last = unquote(path.rstrip("/").rsplit("/", 1)[-1])
    return last or None


def _link_line(item: Mapping[str, Any]) -> str:
    """The text the model is sent for a link nothing read: what MCP says of it."""
    parts = [
        f"[resource link] {item.get('title') or item.get('name') or item['uri']}: {item['uri']}"
    ]
    if item.get("mimeType"):
        parts.append(f"({item['mimeType']})")
    if item.get("description"):
        parts.append(f"- {item['description']}")
    return " ".join(parts)
