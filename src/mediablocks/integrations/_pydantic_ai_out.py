"""mediablocks messages to pydantic-ai's ``ModelRequest``/``ModelResponse`` (`to_pydantic_ai`).

Messages are built as pydantic-ai's python-mode dicts and validated by its own
``ModelMessagesTypeAdapter``, so what `from_pydantic_ai` kept (every field of each part and
message) goes back as it was. Consecutive system, user and tool messages form one request; a
message that began a request when read begins one again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .._base import BlockBase
from ..blocks import RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..errors import DecodeError, UnsupportedBlockError
from ..media import AudioBlock, ImageBlock, MediaBlock, VideoBlock
from ..message_input import as_messages
from ..messages import (
    AssistantMessage,
    CustomMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..sources import FileIdSource, URLSource
from ._common import require

__all__ = ["KEY", "META", "to_pydantic_ai"]

KEY = "pydantic-ai"
"""The ``metadata``/``provider_data`` key and `RawBlock` provider of what pydantic-ai had."""
META = "message"
"""Under ``metadata[KEY]``: the pydantic-ai message's own fields, on its first message."""

_PROVIDER_NAMES = {
    "anthropic": "anthropic",
    "anthropic-bedrock": "anthropic",
    "anthropic-vertex": "anthropic",
    "openai-chat": "openai",
    "openai-responses": "openai",
    "azure-openai": "azure",
    "gemini": "google-gla",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "groq": "groq",
    "cohere": "cohere",
    "deepseek": "deepseek",
    "xai": "grok",
    "openrouter": "openrouter",
    "ollama": "ollama",
}
_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_call",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "error": "error",
}
_URL_KINDS = {ImageBlock: "image-url", AudioBlock: "audio-url", VideoBlock: "video-url"}


def to_pydantic_ai(messages: Message | Sequence[Message]) -> list[Any]:
    """pydantic-ai messages (``ModelRequest``/``ModelResponse``) for mediablocks messages.

    System, user and tool messages become the parts of a ``ModelRequest`` (a system message read
    from ``instructions`` goes back there); an assistant message a ``ModelResponse`` (text,
    thinking with its signature, tool calls, media as ``FilePart``). Media are ``BinaryContent``,
    URL media ``ImageUrl``/``AudioUrl``/``VideoUrl``/``DocumentUrl``, file ids ``UploadedFile``.
    A tool result's tool name comes from the result or the call it answers. Raises
    `UnsupportedBlockError` for what pydantic-ai cannot carry there (media in a system message,
    another provider's raw block, a tool result with no tool name). Needs ``pydantic-ai``.
    """
    module = require("pydantic_ai.messages", "pydantic-ai", "to_pydantic_ai")
    builder = _Builder()
    for index, message in enumerate(as_messages(messages, "to_pydantic_ai")):
        builder.add(message, f"message {index} ({message.role})")
    try:
        built: list[Any] = module.ModelMessagesTypeAdapter.validate_python(builder.done())
    except (ValueError, TypeError) as exc:
        raise DecodeError(f"pydantic-ai refused the messages: {str(exc)[:300]}") from None
    return built


class _Builder:
    def __init__(self) -> None:
        self.out: list[dict[str, Any]] = []
        self.request: dict[str, Any] | None = None
        self.tool_names: dict[str, str] = {}

    def done(self) -> list[dict[str, Any]]:
        self._close()
        return self.out

    def _close(self) -> None:
        if self.request is not None:
            self.out.append(self.request)
            self.request = None

    def _open(self, message: Message) -> dict[str, Any]:
        kept = message.metadata.get(KEY, {})
        if self.request is None or META in kept:
            self._close()
            fields = dict(kept.get(META, {}))
            fields.pop("parts", None)
            self.request = {**fields, "kind": "request", "parts": []}
        return self.request

    def add(self, message: Message, where: str) -> None:
        kept = message.metadata.get(KEY, {})
        if isinstance(message, AssistantMessage):
            self._close()
            self.out.append(self._response(message, kept, where))
            return
        request = self._open(message)
        if isinstance(message, SystemMessage):
            text = _text_only(message.content, where)
            if kept.get("instructions"):
                request["instructions"] = text
            else:
                request["parts"].append(
                    {**kept.get("part", {}), "part_kind": "system-prompt", "content": text}
                )
        elif isinstance(message, UserMessage):
            request["parts"].append(self._user_part(message, kept, where))
        elif isinstance(message, ToolMessage):
            for position, result in enumerate(message.results):
                request["parts"].append(self._tool_return(result, f"{where}, result {position}"))
        elif isinstance(message, CustomMessage) and message.custom_type == KEY:
            if "part" in message.data:
                request["parts"].append(dict(message.data["part"]))
        else:
            raise UnsupportedBlockError(f"{where}: pydantic-ai has no {type(message).__name__}")

    def _user_part(self, message: UserMessage, kept: dict[str, Any], where: str) -> dict[str, Any]:
        part = dict(kept.get("part", {}))
        cache_points = part.pop("cache_points", [])
        text_content = part.pop("text_content", False)
        blocks = message.content
        if (text_content or not part) and len(blocks) == 1 and _plain_text(blocks[0]):
            content: Any = blocks[0].text  # type: ignore[union-attr]
        else:
            content = [_item_out(b, f"{where}, block {i}") for i, b in enumerate(blocks)]
            for point in sorted(cache_points, key=lambda p: p["index"]):
                content.insert(min(point["index"], len(content)), dict(point["item"]))
        return {**part, "part_kind": "user-prompt", "content": content}

    def _tool_return(self, result: ToolResultBlock, where: str) -> dict[str, Any]:
        part = dict(result.metadata.get(KEY, {}).get("part", {}))
        name = result.name or self.tool_names.get(result.tool_call_id)
        if not name:
            raise UnsupportedBlockError(
                f"{where}: pydantic-ai needs the tool's name on a tool return; set "
                "ToolResultBlock(name=...) or keep the call it answers in the history"
            )
        fields = {"tool_call_id": result.tool_call_id, "tool_name": name}
        if part.get("part_kind") == "retry-prompt":
            return {**part, **fields}
        if isinstance(result.content, str):
            content: Any = result.content
        elif len(result.content) == 1 and "json" in result.content[0].for_provider(KEY):
            content = result.content[0].for_provider(KEY)["json"]
        else:
            content = [_item_out(b, f"{where}, item {i}") for i, b in enumerate(result.content)]
        if result.is_error and "outcome" not in part:
            part["outcome"] = "failed"
        return {**part, "part_kind": "tool-return", **fields, "content": content}

    def _response(
        self, message: AssistantMessage, kept: dict[str, Any], where: str
    ) -> dict[str, Any]:
        fields = dict(kept.get(META, {}))
        fields.pop("parts", None)
        if not fields:
            fields = {
                "model_name": message.model,
                "provider_name": _PROVIDER_NAMES.get(message.provider or ""),
                "provider_response_id": message.response_id,
                "finish_reason": _FINISH.get(message.stop_reason or ""),
            }
            if message.usage is not None:
                fields["usage"] = {
                    "input_tokens": message.usage.input_tokens,
                    "output_tokens": message.usage.output_tokens,
                    "cache_read_tokens": message.usage.cache_read_tokens,
                    "cache_write_tokens": message.usage.cache_write_tokens,
                }
        parts = [
            self._response_part(b, f"{where}, block {i}") for i, b in enumerate(message.content)
        ]
        return {**fields, "kind": "response", "parts": parts}

    def _response_part(self, block: BlockBase, where: str) -> dict[str, Any]:
        kept = dict(block.for_provider(KEY))
        if isinstance(block, TextBlock):
            return {**kept, "part_kind": "text", "content": block.text}
        if isinstance(block, ThinkingBlock):
            if block.redacted:
                raise UnsupportedBlockError(f"{where}: pydantic-ai has no redacted thinking part")
            part = {
                **kept,
                "part_kind": "thinking",
                "content": block.thinking,
                "signature": block.signature,
            }
            if block.provider and "provider_name" not in kept:
                part["provider_name"] = _PROVIDER_NAMES.get(block.provider, block.provider)
            return part
        if isinstance(block, ToolCallBlock):
            self.tool_names[block.id] = block.name
            original = kept.pop("args", None)
            args: Any = block.raw_args if block.raw_args is not None else block.args
            if isinstance(original, str) and _same_json(original, block.args):
                args = original
            kept.pop("args_text", None)
            return {
                **kept,
                "part_kind": "tool-call",
                "tool_name": block.name,
                "args": args,
                "tool_call_id": block.id,
            }
        if isinstance(block, MediaBlock):
            part = dict(kept.pop("part", {}))
            return {**part, "part_kind": "file", "content": _item_out(block, where)}
        if isinstance(block, RawBlock) and block.provider == KEY:
            return dict(block.data)
        raise UnsupportedBlockError(f"{where}: pydantic-ai has no part for a {_describe(block)}")


def _describe(block: BlockBase) -> str:
    if isinstance(block, RawBlock):
        return f"{block.provider} raw block"
    return type(block).__name__


def _same_json(text: str, args: dict[str, Any]) -> bool:
    try:
        return bool(json.loads(text) == args)
    except (ValueError, RecursionError):
        return False


def _plain_text(block: BlockBase) -> bool:
    return isinstance(block, TextBlock) and not block.provider_data


def _text_only(blocks: Sequence[BlockBase], where: str) -> str:
    for position, block in enumerate(blocks):
        if not isinstance(block, TextBlock):
            raise UnsupportedBlockError(
                f"{where}, block {position}: a pydantic-ai system prompt is text, not a "
                f"{type(block).__name__}"
            )
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _item_out(block: BlockBase, where: str) -> Any:
    """A user or tool-return content item for a block."""
    kept = dict(block.for_provider(KEY))
    if isinstance(block, TextBlock):
        if "json" in kept:
            return kept["json"]
        if kept.get("kind") == "text-content":
            return {**kept, "content": block.text}
        return block.text
    if isinstance(block, MediaBlock):
        return _media_out(block, kept)
    if isinstance(block, RawBlock) and block.provider == KEY:
        return dict(block.data)
    raise UnsupportedBlockError(
        f"{where}: pydantic-ai content has no item for a {_describe(block)}"
    )


def _media_out(block: MediaBlock, kept: dict[str, Any]) -> dict[str, Any]:
    vendor = dict(kept.get("vendor_metadata") or {})
    if isinstance(block, ImageBlock) and block.detail:
        vendor["detail"] = block.detail
    extra: dict[str, Any] = {"vendor_metadata": vendor or None}
    if kept.get("identifier"):
        extra["identifier"] = kept["identifier"]
    source = block.source
    if isinstance(source, URLSource):
        kind = _URL_KINDS.get(type(block), "document-url")
        item = {
            "kind": kind,
            "url": source.url,
            "force_download": kept.get("force_download", False),
            **extra,
        }
        if block.declared_mime:
            item["media_type"] = block.declared_mime
        return item
    if isinstance(source, FileIdSource):
        provider = kept.get("provider_name") or _PROVIDER_NAMES.get(source.provider or "")
        if not provider:
            raise UnsupportedBlockError(
                f"{block.describe()}: pydantic-ai's UploadedFile needs the provider the file is at"
            )
        item = {
            "kind": "uploaded-file",
            "file_id": source.file_id,
            "provider_name": provider,
            **extra,
        }
        if block.declared_mime:
            item["media_type"] = block.declared_mime
        return item
    return {"kind": "binary", "data": block.read(), "media_type": block.mime_type, **extra}
