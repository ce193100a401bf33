"""LangChain v1 standard content blocks (plain dicts) to mediablocks blocks and back.

No LangChain import: the standard blocks are ``TypedDict`` shapes, so `mb.decode(..., "auto")`
reads them without the package. What a standard block carries beyond mediablocks' fields (its
``id``, ``index``, ``extras``, a text's ``annotations``, a document's ``title`` and ``context``)
rides in the block's ``provider_data["langchain"]``, which no provider translator reads, and comes
back on the way out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._base import BlockBase
from ..blocks import RawBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ..errors import DecodeError, UnsupportedBlockError
from ..media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ..sources import FileIdSource, URLSource
from ._common import media_of_kind

__all__ = [
    "LANGCHAIN",
    "MEDIA_TYPES",
    "PROVIDERS_FROM_LANGCHAIN",
    "block_from_standard",
    "block_to_standard",
    "langchain_provider",
    "mediablocks_provider",
]

LANGCHAIN = "langchain"
"""The ``provider_data`` key and `RawBlock` provider of what came from LangChain as it was."""

MEDIA_TYPES = {"image": "image", "audio": "audio", "video": "video", "file": "file"}
"""Standard media block type -> block kind."""

_KEPT = ("id", "index", "extras")
_WRAPPED = ("reasoning", "tool_call", "invalid_tool_call")
"""Standard types no provider uses natively: found inside ``non_standard``, they are read."""
_DOCUMENT_NOTES = ("title", "context")

PROVIDERS_FROM_LANGCHAIN = {
    "anthropic": "anthropic",
    "openai": "openai-chat",
    "azure_openai": "azure-openai",
    "google_genai": "gemini",
    "google_vertexai": "gemini",
    "google": "gemini",
    "bedrock_converse": "bedrock",
    "bedrock": "bedrock",
    "amazon_bedrock": "bedrock",
    "mistralai": "mistral",
    "ollama": "ollama",
    "cohere": "cohere",
    "groq": "groq",
    "xai": "xai",
    "deepseek": "deepseek",
    "openrouter": "openrouter",
}
"""LangChain's ``model_provider`` (``ls_provider``) names -> mediablocks provider names."""

_TO_LANGCHAIN = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "azure-openai": "azure_openai",
    "gemini": "google_genai",
    "bedrock": "bedrock_converse",
    "mistral": "mistralai",
    "anthropic-bedrock": "anthropic",
    "anthropic-vertex": "anthropic",
}


def mediablocks_provider(name: Any) -> str | None:
    """The mediablocks provider for a LangChain provider name, or None when unknown."""
    return PROVIDERS_FROM_LANGCHAIN.get(name) if isinstance(name, str) else None


def langchain_provider(name: str | None) -> str | None:
    """LangChain's name (``model_provider``) for a mediablocks provider."""
    if name is None:
        return None
    return _TO_LANGCHAIN.get(name, name)


def _kept(block: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """The standard block's own fields mediablocks does not model, for the way back."""
    kept = {k: block[k] for k in (*_KEPT, *names) if block.get(k) is not None}
    return {LANGCHAIN: kept} if kept else {}


def block_from_standard(block: Any, where: str, provider: str | None = None) -> BlockBase:
    """The mediablocks block for one LangChain standard content block.

    ``provider`` is the mediablocks provider of the message it came from (a signed reasoning
    block is that provider's; a ``non_standard`` block goes back to it verbatim).
    Raises `DecodeError` for a block that is not a standard block's shape.
    """
    if isinstance(block, str):
        return TextBlock(text=block)
    if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
        raise DecodeError(f"{where} is not a LangChain content block (a dict with a 'type')")
    kind: str = block["type"]
    if kind == "text":
        return _text(block, where, provider)
    if kind in MEDIA_TYPES:
        return _media(block, MEDIA_TYPES[kind], where, provider)
    if kind == "text-plain":
        return _plain_text(block, where, provider)
    if kind == "reasoning":
        return _reasoning(block, where, provider)
    if kind in ("tool_call", "tool_call_chunk", "invalid_tool_call"):
        return _tool_call(block, where, provider)
    if kind == "refusal":
        text = _string(block, "refusal", where)
        return TextBlock(text=text, provider_data={LANGCHAIN: {"type": "refusal", **_ids(block)}})
    if kind == "non_standard":
        value = block.get("value")
        if not isinstance(value, Mapping):
            raise DecodeError(f"{where}: a non_standard block's 'value' is not an object")
        if value.get("type") in _WRAPPED:  # a standard block a provider's translator wrapped
            return block_from_standard(value, where, provider)
        if provider is not None:
            return RawBlock(provider=provider, data=dict(value), provider_data=_kept(block))
        return RawBlock(provider=LANGCHAIN, data=dict(block))
    # server_tool_call, server_tool_result and anything newer: kept whole, refused when encoded
    return RawBlock(provider=LANGCHAIN, data=dict(block))


def _ids(block: Mapping[str, Any]) -> dict[str, Any]:
    return {k: block[k] for k in _KEPT if block.get(k) is not None}


def _string(block: Mapping[str, Any], key: str, where: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise DecodeError(f"{where}: {block.get('type')} block's {key!r} is not a string")
    return value


def _text(block: Mapping[str, Any], where: str, provider: str | None) -> TextBlock:
    data: dict[str, Any] = _kept(block, "annotations")
    extras = block.get("extras")
    if provider == "gemini" and isinstance(extras, Mapping) and extras.get("signature"):
        data["gemini"] = {"thought_signature": extras["signature"]}
    return TextBlock(text=_string(block, "text", where), provider_data=data)


def _media(
    block: Mapping[str, Any], kind: str, where: str, provider: str | None = None
) -> MediaBlock:
    cls = media_of_kind(kind)
    mime = block.get("mime_type")
    if mime is not None and not isinstance(mime, str):
        raise DecodeError(f"{where}: 'mime_type' is not a string")
    extras = block.get("extras")
    filename = extras.get("filename") if isinstance(extras, Mapping) else None
    if not isinstance(filename, str):
        filename = block.get("filename") if isinstance(block.get("filename"), str) else None
    media: MediaBlock
    if isinstance(block.get("base64"), str):
        media = cls.from_base64(block["base64"], mime, filename=filename)
    elif isinstance(block.get("url"), str):
        url: str = block["url"]
        if url.startswith("data:"):
            media = cls.from_data_uri(url, mime, filename=filename)
        else:
            media = cls.from_url(url, mime, filename=filename)
    elif isinstance(block.get("file_id"), str):
        media = cls.from_file_id(block["file_id"], mime, provider=provider, filename=filename)
    else:
        raise DecodeError(f"{where}: a {block['type']} block needs 'base64', 'url' or 'file_id'")
    update: dict[str, Any] = {"provider_data": _kept(block, *_DOCUMENT_NOTES)}
    detail = extras.get("detail") if isinstance(extras, Mapping) else None
    if isinstance(media, ImageBlock) and detail in ("auto", "low", "high"):
        update["detail"] = detail
    return media.model_copy(update=update)


def _plain_text(block: Mapping[str, Any], where: str, provider: str | None) -> MediaBlock:
    """A ``text-plain`` document: a text/plain `FileBlock` (its text, or its source)."""
    document: MediaBlock
    if isinstance(block.get("text"), str):
        document = FileBlock.from_bytes(block["text"].encode("utf-8"), "text/plain")
    else:
        document = _media({**block, "type": "file"}, "file", where, provider)
    data = _kept(block, *_DOCUMENT_NOTES)
    data.setdefault(LANGCHAIN, {})["type"] = "text-plain"
    return document.model_copy(update={"provider_data": data})


def _reasoning(block: Mapping[str, Any], where: str, provider: str | None) -> ThinkingBlock:
    text = block.get("reasoning", "")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: the reasoning is not a string")
    extras: Mapping[str, Any] = block["extras"] if isinstance(block.get("extras"), Mapping) else {}
    signature = extras.get("signature") if isinstance(extras.get("signature"), str) else None
    return ThinkingBlock(
        thinking=text,
        signature=signature,
        provider=provider if signature else None,
        provider_data=_kept(block),
    )


def _tool_call(block: Mapping[str, Any], where: str, provider: str | None) -> ToolCallBlock:
    call_id = block.get("id") or ""
    name = block.get("name") or ""
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise DecodeError(f"{where}: a tool call's 'id' and 'name' are strings")
    args = block.get("args")
    data: dict[str, Any] = {k: block[k] for k in ("index", "extras") if block.get(k) is not None}
    if block["type"] != "tool_call":
        data["type"] = block["type"]
    if block.get("error") is not None:
        data["error"] = block["error"]
    extras = block.get("extras")
    kept: dict[str, Any] = {LANGCHAIN: data} if data else {}
    if provider == "gemini" and isinstance(extras, Mapping) and extras.get("signature"):
        kept["gemini"] = {"thought_signature": extras["signature"]}
    if isinstance(args, Mapping):
        return ToolCallBlock(id=call_id, name=name, args=dict(args), provider_data=kept)
    if args is None or args == "":
        return ToolCallBlock(id=call_id, name=name, provider_data=kept)
    if not isinstance(args, str):
        raise DecodeError(f"{where}: a tool call's 'args' is neither an object nor text")
    try:
        parsed = json.loads(args)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        return ToolCallBlock(id=call_id, name=name, args=parsed, provider_data=kept)
    return ToolCallBlock(id=call_id, name=name, raw_args=args, provider_data=kept)


# -- out ------------------------------------------------------------------------------------


def block_to_standard(block: BlockBase, where: str) -> dict[str, Any]:
    """The LangChain standard content block for a mediablocks block (not a tool call or tool
    result: those are message fields in LangChain). Raises `UnsupportedBlockError` for another
    provider's raw block."""
    kept = dict(block.for_provider(LANGCHAIN))
    if isinstance(block, TextBlock):
        if kept.pop("type", None) == "refusal":
            return {"type": "refusal", "refusal": block.text, **kept}
        out: dict[str, Any] = {"type": "text", "text": block.text, **kept}
        signature = block.for_provider("gemini").get("thought_signature")
        if signature:
            out["extras"] = {**out.get("extras", {}), "signature": signature}
        return out
    if isinstance(block, ThinkingBlock):
        if block.redacted:
            value = {"type": "redacted_thinking", "data": block.redacted_data or ""}
            return {"type": "non_standard", "value": value}
        out = {"type": "reasoning", "reasoning": block.thinking, **kept}
        if block.signature:
            out["extras"] = {**out.get("extras", {}), "signature": block.signature}
        return out
    if isinstance(block, MediaBlock):
        return _media_out(block, kept)
    if isinstance(block, RawBlock):
        if block.provider == LANGCHAIN:
            return dict(block.data)
        return {"type": "non_standard", "value": dict(block.data), **kept}
    raise UnsupportedBlockError(f"{where}: a {type(block).__name__} has no LangChain content block")


def _media_out(block: MediaBlock, kept: dict[str, Any]) -> dict[str, Any]:
    plain_text = kept.pop("type", None) == "text-plain"
    kind = _KINDS.get(type(block), "file")
    out: dict[str, Any] = {"type": "text-plain" if plain_text else kind}
    source = block.source
    if isinstance(source, URLSource):
        out["url"] = source.url
        if block.declared_mime:
            out["mime_type"] = block.declared_mime
    elif isinstance(source, FileIdSource):
        out["file_id"] = source.file_id
        if block.declared_mime:
            out["mime_type"] = block.declared_mime
    elif plain_text and block.mime_type == "text/plain":
        out["text"] = block.read().decode("utf-8", errors="replace")
        out["mime_type"] = "text/plain"
    else:
        data, mime = block.to_base64()
        out["base64"] = data
        out["mime_type"] = mime
    if block.filename and kind == "file":
        extras = dict(kept.get("extras", {}))
        extras.setdefault("filename", block.filename)
        kept["extras"] = extras
    if isinstance(block, ImageBlock) and block.detail:
        kept["extras"] = {**kept.get("extras", {}), "detail": block.detail}
    if kept.get("extras") == {}:
        del kept["extras"]
    return {**out, **kept}


_KINDS: dict[type[MediaBlock], str] = {
    ImageBlock: "image",
    AudioBlock: "audio",
    VideoBlock: "video",
    FileBlock: "file",
}
