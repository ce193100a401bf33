"""`mb.decode`: a provider's payload, or with ``"auto"`` a message list whose parts come from
several formats, read part by part by the markers each format has.

A response envelope (``choices``, ``candidates``, ``type: message``...) names its format and is
decoded whole. Otherwise each message is read by what it is: a mediablocks message, a LangChain
or pydantic-ai message (object or dict), a Gemini content (``parts``), an OpenAI Responses item,
an Ollama message (``images``, ``tool_name``); and a ``role`` + ``content`` message part by part,
each part decoded by the translator of the format its markers name (consecutive parts of one
format together). Message fields (``tool_calls``, ``tool_call_id``, ``reasoning_content``) are
OpenAI Chat's. Every message says what it read in ``metadata["decoded_as"]``: one entry per part
(``{"part": 2, "format": "anthropic"}``), with ``"also"`` listing the other formats that share
the part's shape where it is ambiguous, decided by the rule in ``docs/integrations/mixed.md``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from .._depth import check_depth, loads
from ..blocks import RawBlock, TextBlock, ToolResultBlock, parse_block
from ..errors import DecodeError, MediaBlocksError
from ..fetching.policy import FetchPolicy
from ..message_input import message_of
from ..messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
    normalize_role,
)
from ..providers import _sniff
from ..providers._common import as_dict
from ..providers.registry import provider_entry

__all__ = ["decode", "decode_auto", "part_format"]

_MESSAGE_LISTS = ("messages", "contents", "input")
_ROLES = {"user", "assistant", "system", "developer", "model", "human", "ai", "tool"}
_RESPONSES_ITEMS = {"message", "function_call", "function_call_output", "reasoning"}
_BEDROCK_KEYS = {"toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent"}
_GEMINI_KEYS = {
    "inline_data", "inlineData", "file_data", "fileData", "function_call", "functionCall",
    "function_response", "functionResponse", "thought", "thought_signature", "thoughtSignature",
    "executable_code", "executableCode", "code_execution_result", "codeExecutionResult",
}  # fmt: skip
_ANTHROPIC_TYPES = {
    "tool_use", "tool_result", "redacted_thinking", "server_tool_use", "search_result",
    "web_search_tool_result", "container_upload", "mcp_tool_use", "mcp_tool_result",
}  # fmt: skip
_LANGCHAIN_TYPES = {
    "audio", "video", "text-plain", "reasoning", "tool_call", "tool_call_chunk",
    "invalid_tool_call", "non_standard", "server_tool_call", "server_tool_result",
}  # fmt: skip
_RESPONSES_TYPES = {"input_text", "input_image", "input_file", "output_text"}
_MCP_TYPES = {"resource", "resource_link"}
_OWN_KEYS = {"provider_data", "metadata", "declared_mime", "strict", "redacted_data", "provider"}
_OPENAI_MESSAGE_KEYS = ("tool_calls", "reasoning_content", "reasoning", "refusal", "audio")
_KNOWN_MESSAGE_KEYS = {"role", "content", "name", "id", "tool_call_id", *_OPENAI_MESSAGE_KEYS}
_ALL_TEXT = ("openai-chat", "openai-responses", "anthropic", "mistral", "cohere", "langchain")


def decode_auto(payload: Any) -> list[Message]:
    """Messages from a payload mixing formats (see the module docstring); `DecodeError` names
    the message and part that no format reads."""
    if isinstance(payload, (str, bytes, bytearray, memoryview)):
        text = payload if isinstance(payload, str) else bytes(payload)
        payload = loads(text, "auto payload", "is not JSON")
    elif isinstance(payload, (dict, list)):
        check_depth(payload, "auto payload")
    if isinstance(payload, dict):
        return _body(payload)
    if isinstance(payload, (list, tuple)):
        return [m for i, item in enumerate(payload) for m in _item(item, i)]
    return _item(payload, 0)


def _body(payload: dict[str, Any]) -> list[Message]:
    formats = _sniff.response_formats(payload)
    if formats:
        name = min(formats)
        if formats == {"openai-chat", "mistral"}:
            mistral_parts = _sniff._part_types(payload) & {"document_url", "thinking", "reference"}
            name = "mistral" if mistral_parts else "openai-chat"
        return [_noted(m, [{"part": None, "format": name, "also": sorted(formats - {name})}])
                for m in _translated(name, payload, "response")]  # fmt: skip
    lists = [key for key in _MESSAGE_LISTS if key in payload]
    if not lists:
        return _item(payload, 0)
    out = _system_fields(payload)
    items = payload[lists[0]]
    if isinstance(items, str):
        return [*out, message_of(items, "decode", None)]
    if not isinstance(items, list):
        raise DecodeError(f"auto payload: {lists[0]!r} is not a list")
    return out + [m for i, item in enumerate(items) for m in _item(item, i)]


def _system_fields(payload: dict[str, Any]) -> list[Message]:
    """A request body's system prompt, wherever its format keeps it."""
    out: list[Message] = []
    system = payload.get("system")
    if isinstance(system, str):
        out.append(SystemMessage.text(system))
    elif isinstance(system, list):
        out.extend(_role_message({"role": "system", "content": system}, "system prompt"))
    instruction = payload.get("system_instruction", payload.get("systemInstruction"))
    config = payload.get("config")
    if instruction is None and isinstance(config, dict):
        instruction = config.get("system_instruction")
    if isinstance(instruction, str):
        out.append(SystemMessage.text(instruction))
    elif isinstance(instruction, dict):
        out.extend(_as_system(_translated("gemini", [instruction], "system instruction")))
    if isinstance(payload.get("instructions"), str):
        out.append(SystemMessage.text(payload["instructions"]))
    return out


def _as_system(messages: list[Message]) -> list[Message]:
    return [SystemMessage(content=list(m.content)) for m in messages]


# -- one message --------------------------------------------------------------------------


def _item(item: Any, index: int) -> list[Message]:
    where = f"message {index}"
    module = type(item).__module__
    if isinstance(item, BaseModel) and module.startswith("mediablocks."):
        return [item]  # type: ignore[list-item]
    if module.startswith("langchain_core."):
        return _framework("langchain", [item], where)
    if module.startswith("pydantic_ai."):
        return _framework("pydantic-ai", [item], where)
    item = as_dict(item)
    if isinstance(item, str):
        return [message_of(item, "decode", None)]
    if not isinstance(item, dict):
        raise DecodeError(f"{where} is a {type(item).__name__}, not a message")
    if item.get("kind") in ("request", "response") and isinstance(item.get("parts"), list):
        return _framework("pydantic-ai", [item], where)
    if item.get("type") in ("human", "ai", "system", "tool", "chat") and "role" not in item:
        return _framework("langchain", [item], where)
    whole = _whole_format(item)
    if whole is not None:
        decoded = _translated(whole, [item], where)
        return [_noted(m, [{"part": None, "format": whole}]) for m in decoded]
    if not isinstance(item.get("role"), str) or item["role"] not in _ROLES:
        raise DecodeError(f"{where}: no format has a message like this (no known role)")
    return _role_message(item, where)


def _whole_format(item: dict[str, Any]) -> str | None:
    """The format a message is in as a whole, when its own fields say so."""
    if isinstance(item.get("parts"), list) or item.get("role") == "model":
        return "gemini"
    if item.get("type") in _RESPONSES_ITEMS:
        return "openai-responses"
    if isinstance(item.get("images"), list) or "tool_name" in item:
        return "ollama"
    if isinstance(item.get("thinking"), str) and isinstance(item.get("content"), str):
        return "ollama"
    calls = item.get("tool_calls")
    if isinstance(calls, list) and calls and all(
        isinstance(c, dict) and "type" not in c and isinstance(c.get("function"), dict)
        and isinstance(c["function"].get("arguments"), dict) for c in calls
    ):  # fmt: skip
        return "ollama"
    return None


def _framework(name: str, items: list[Any], where: str) -> list[Message]:
    if name == "langchain":
        from .langchain import from_langchain

        read = from_langchain(items)
    else:
        from .pydantic_ai import from_pydantic_ai

        read = from_pydantic_ai(items)
    return [_noted(m, [{"part": None, "format": name}]) for m in read]


def _role_message(item: dict[str, Any], where: str) -> list[Message]:
    role = normalize_role(item["role"]) if item["role"] not in ("human", "ai") else (
        "user" if item["role"] == "human" else "assistant"
    )  # fmt: skip
    content = item.get("content")
    notes: list[dict[str, Any]] = []
    parts: list[Any]
    if content is None:
        parts = []
    elif isinstance(content, str):
        parts = [{"type": "text", "text": content}] if content else []
    elif isinstance(content, list):
        parts = content
    else:
        raise DecodeError(f"{where}: 'content' is neither text nor a list of parts")
    if role == "tool":
        return [_tool_message(item, parts, where)]
    out = _parts(parts, role, where, notes)
    extras = {k: item[k] for k in _OPENAI_MESSAGE_KEYS if item.get(k) is not None}
    if extras and role == "assistant":
        calls = _translated(
            "openai-chat", [{"role": "assistant", "content": None, **extras}], where
        )
        out.extend(calls)
        notes.append({"part": None, "format": "openai-chat", "fields": sorted(extras)})
    ignored = sorted(set(item) - _KNOWN_MESSAGE_KEYS)
    if ignored:
        notes.append({"part": None, "ignored": ignored})
    merged = _merged(out, role)
    if not merged:
        merged = [_message(role, [])]
    if role == "user" and isinstance(item.get("name"), str):
        merged[0] = merged[0].model_copy(update={"name": item["name"]})
    merged[0] = _noted(merged[0], notes)
    return merged


def _tool_message(item: dict[str, Any], parts: list[Any], where: str) -> Message:
    """An OpenAI Chat tool message whose content parts may be in any format."""
    call_id = item.get("tool_call_id")
    if not isinstance(call_id, str):
        raise DecodeError(f"{where}: a tool message without a 'tool_call_id'")
    notes: list[dict[str, Any]] = []
    blocks = [b for m in _parts(parts, "user", where, notes) for b in m.content]
    content: Any = blocks
    if isinstance(item.get("content"), str):
        content = item["content"]
    result = ToolResultBlock(
        tool_call_id=call_id,
        name=item.get("name") if isinstance(item.get("name"), str) else None,
        content=content,
    )
    notes.insert(0, {"part": None, "format": "openai-chat", "fields": ["tool_call_id"]})
    return _noted(ToolMessage(content=[result]), notes)


def _parts(parts: list[Any], role: str, where: str, notes: list[dict[str, Any]]) -> list[Message]:
    """The messages the parts decode to, consecutive parts of one format decoded together."""
    out: list[Message] = []
    group: list[Any] = []
    current: str | None = None
    for index, part in enumerate(parts):
        name, also = part_format(part)
        note: dict[str, Any] = {"part": index, "format": name}
        if also:
            note["also"] = list(also)
        notes.append(note)
        if name != current and group:
            out.extend(_group(current, group, role, where))
            group = []
        current = name
        group.append(part)
    if group:
        out.extend(_group(current, group, role, where))
    return out


def part_format(part: Any) -> tuple[str, tuple[str, ...]]:
    """The format one content part is in, and the others sharing its shape (the rule is in
    ``docs/integrations/mixed.md``)."""
    if isinstance(part, str):
        return "text", _ALL_TEXT
    if not isinstance(part, dict):
        raise DecodeError(f"a content part is a {type(part).__name__}, not an object")
    kind = part.get("type")
    if kind is None:
        keys = set(part)
        if keys & _BEDROCK_KEYS or _bedrock_media(part):
            return "bedrock", ()
        if keys & _GEMINI_KEYS:
            return "gemini", ()
        if keys == {"text"}:
            return "text", ("bedrock", "gemini")
        return "unknown", ()
    if not isinstance(kind, str):
        return "unknown", ()
    if keys_own(part):
        return "mediablocks", ()
    if kind == "text":
        if "citations" in part or "cache_control" in part:
            return "anthropic", ()
        if {"annotations", "extras", "id", "index"} & set(part):
            return "langchain", ()
        if "_meta" in part or "annotations" in part:
            return "mcp", ()
        return "text", _ALL_TEXT
    if kind == "image_url":
        return ("mistral", ()) if isinstance(part.get("image_url"), str) else (
            "openai-chat", ("mistral", "cohere")
        )  # fmt: skip
    if kind in ("input_audio", "refusal") or (
        kind == "file" and isinstance(part.get("file"), dict)
    ):
        return "openai-chat", ("mistral",) if kind == "file" else ()
    if kind in _RESPONSES_TYPES:
        return "openai-responses", ()
    if (
        kind in ("image", "audio")
        and "data" in part
        and ("mimeType" in part or "mime_type" not in part)
    ):
        return "mcp", ()
    if kind in ("image", "document") and isinstance(part.get("source"), dict):
        if "kind" in part["source"]:
            return "mediablocks", ()
        return "anthropic", ("bedrock",) if kind == "document" else ()
    if kind == "document" and isinstance(part.get("document"), dict):
        return "cohere", ()
    if kind in _ANTHROPIC_TYPES:
        return "anthropic", ()
    if kind == "thinking":
        if isinstance(part.get("thinking"), list):
            return "mistral", ()
        return "anthropic", ("cohere",)
    if kind in ("document_url", "reference"):
        return "mistral", ()
    if kind in _MCP_TYPES:
        return "mcp", ()
    if kind in _LANGCHAIN_TYPES or kind in ("image", "file"):
        return "langchain", ("mistral",) if kind == "file" else ()
    return "unknown", ()


def keys_own(part: dict[str, Any]) -> bool:
    """True for mediablocks' own block dicts (fields no wire format has)."""
    if part.get("type") in ("tool_result",) and "tool_call_id" in part:
        return True
    if part.get("type") == "raw" and "provider" in part:
        return True
    return bool(_OWN_KEYS & set(part)) and "source_type" not in part


def _bedrock_media(part: dict[str, Any]) -> bool:
    return any(
        isinstance(part.get(k), dict) and "format" in part[k]
        for k in ("image", "document", "video", "audio")
    )


def _group(name: str | None, parts: list[Any], role: str, where: str) -> list[Message]:
    """The messages one run of same-format parts decodes to."""
    if name == "text":
        blocks: list[Any] = [
            TextBlock(text=p if isinstance(p, str) else str(p.get("text", ""))) for p in parts
        ]
        return [_message(role, blocks)]
    if name == "unknown":
        raws = [RawBlock(provider="unknown", data=p) for p in parts]
        return [_message(role, raws)]
    if name == "mediablocks":
        return [_message(role, [parse_block(p) for p in parts])]
    if name == "langchain":
        from ._langchain_blocks import block_from_standard

        made = [block_from_standard(p, f"{where}, part") for p in parts]
        return [_message(role, made)]
    if name == "mcp":
        from .mcp import from_mcp

        result = from_mcp({"content": parts}, tool_call_id="auto")
        content = result.content if isinstance(result.content, list) else [result.content]
        return [_message(role, list(content))]
    assert name is not None
    wire_role = role if role in ("user", "assistant") else "user"
    if name == "gemini":
        message = {"role": "model" if wire_role == "assistant" else "user", "parts": parts}
    elif name in ("openai-chat", "openai-responses", "mistral", "cohere"):
        message = {"role": role if role != "system" else "system", "content": parts}
    else:
        message = {"role": wire_role, "content": parts}
    decoded = _translated(name, [message], where)
    return _as_system(decoded) if role == "system" else decoded


def _translated(name: str, payload: Any, where: str) -> list[Message]:
    """``payload`` decoded by ``name``'s translator (no foreign-format checks: the parts were
    chosen by their markers); any failure is a `DecodeError` naming the part's format."""
    entry = provider_entry(name)
    decoder = getattr(entry.part("translate"), entry.decoder)
    try:
        decoded: list[Message] = decoder(payload)
    except MediaBlocksError as exc:
        raise type(exc)(f"{where}, read as {name}: {exc}") from None
    except (TypeError, AttributeError, KeyError, ValueError, IndexError, RecursionError) as exc:
        raise DecodeError(f"{where}, read as {name}: {type(exc).__name__}: {exc}") from None
    return decoded


def _merged(messages: list[Message], role: str) -> list[Message]:
    """Consecutive messages of ``role`` joined into one (parts of one message stay one)."""
    out: list[Message] = []
    for message in messages:
        if out and out[-1].role == message.role == role:
            joined = [*out[-1].content, *message.content]
            out[-1] = out[-1].model_copy(update={"content": tuple(joined)})
        else:
            out.append(message)
    return out


def _noted(message: Message, notes: list[dict[str, Any]]) -> Message:
    if not notes:
        return message
    listed = [*message.metadata.get("decoded_as", ()), *notes]
    return message.model_copy(update={"metadata": {**message.metadata, "decoded_as": listed}})


def _message(role: str, blocks: list[Any]) -> Message:
    """A message of ``role`` holding ``blocks``."""
    kinds: dict[str, Any] = {
        "user": UserMessage,
        "assistant": AssistantMessage,
        "system": SystemMessage,
    }
    return kinds.get(role, UserMessage)(content=blocks)  # type: ignore[no-any-return]


def decode(
    payload: Any,
    provider: str,
    *,
    allow_paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    policy: FetchPolicy | None = None,
) -> list[Message]:
    """`mediablocks.providers.decode` for one provider's request, message list or response; with
    ``provider="auto"``, a list mixing formats (several providers' parts, LangChain and
    pydantic-ai messages, MCP content), read part by part by each format's markers. Each message's
    ``metadata["decoded_as"]`` then says which format each part was read as
    (``docs/integrations/mixed.md``).

    A payload is untrusted either way: paths and URLs it names are read only under
    ``allow_paths`` / ``policy`` (docs/history.md).

    Kept on the top floor with the integrations: "auto" reads the frameworks' shapes, which the
    translators below know nothing of.
    """
    from ..providers import decode as decode_provider
    from ..providers import normalized_stop_reason
    from ..sources._trust import loading

    if isinstance(provider, str) and provider.strip().lower() == "auto":
        with loading("a decoded mixed payload", "decode", allow_paths, policy):
            return [
                normalized_stop_reason(m, getattr(m, "provider", None) or "")
                for m in decode_auto(payload)
            ]
    return decode_provider(payload, provider, allow_paths=allow_paths, policy=policy)
