"""Amazon Bedrock Converse: `to_bedrock` builds ``bedrock_runtime.converse`` fields, `from_bedrock`
reads requests, message lists and Converse responses back.

What maps to what (details and examples in ``docs/providers/bedrock.md``):

- system messages -> the top-level ``system`` list of ``{"text": ...}`` blocks.
- text -> ``{"text": ...}``.
- images (PNG, JPEG, GIF, WebP), documents (PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, TXT, MD), video
  and audio -> ``image`` / ``document`` / ``video`` / ``audio`` blocks holding the bytes (raw
  ``bytes`` for boto3, base64 text for the JSON target), or an ``s3Location`` for a file id that
  is an ``s3://`` URI. Bedrock fetches no http URLs: URL media are downloaded and inlined.
- document names are made from the filename to Bedrock's rules and unique within the request.
- thinking -> ``reasoningContent`` (``reasoningText`` with its signature, or ``redactedContent``),
  replayed only when Bedrock produced it; other thinking follows ``options.thinking``.
- tool calls -> ``toolUse``; results -> ``toolResult`` blocks first in a user turn.
- ``cachePoint``, ``guardContent`` and anything unknown decode to `RawBlock` (bytes inside kept as
  base64 under a marker) and go back out verbatim.
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
import unicodedata
from collections.abc import Sequence
from typing import Any, TypeVar, Union

from ...blocks import (
    Block,
    ContentBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...datauri import b64decode, b64encode
from ...errors import DecodeError, MediaBlocksError, UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
)
from ...mime import normalize_mime
from ...sources import URLSource
from .._common import (
    as_dict,
    bytes_or_base64,
    file_id_of,
    group_turns,
    is_own_thinking,
    object_args,
    results_first,
    tool_args,
    tool_results,
    unsupported,
    usage_count,
    use_url,
    user_turns,
)
from .._options import EncodeOptions

__all__ = ["BYTES_MARKER", "bedrock_document_name", "from_bedrock", "to_bedrock"]

PROVIDER = "bedrock"
BYTES_MARKER = "__mediablocks_bytes__"
"""In a `RawBlock` from Bedrock, bytes are stored as ``{BYTES_MARKER: "<base64>"}`` so the block
stays JSON-safe; encoding turns the marker back into bytes (boto3) or base64 text (JSON)."""

_M = TypeVar("_M", bound=MediaBlock)
_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]

IMAGE_FORMATS: dict[str, str] = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
DOCUMENT_FORMATS: dict[str, str] = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
VIDEO_FORMATS: dict[str, str] = {
    "video/x-matroska": "mkv",
    "video/quicktime": "mov",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "video/x-flv": "flv",
    "video/mpeg": "mpeg",
    "video/x-ms-wmv": "wmv",
    "video/3gpp": "three_gp",
}
AUDIO_FORMATS: dict[str, str] = {
    "audio/mpeg": "mp3",
    "audio/opus": "opus",
    "audio/wav": "wav",
    "audio/aac": "aac",
    "audio/flac": "flac",
    "audio/mp4": "m4a",
    "audio/x-m4a": "m4a",
    "audio/ogg": "ogg",
    "audio/x-matroska": "mka",
    "audio/webm": "webm",
    "audio/pcm": "pcm",
}
_FORMAT_MIMES: dict[str, dict[str, str]] = {
    "image": {fmt: mime for mime, fmt in IMAGE_FORMATS.items()},
    "document": {fmt: mime for mime, fmt in DOCUMENT_FORMATS.items()},
    "video": {**{fmt: mime for mime, fmt in VIDEO_FORMATS.items()}, "mpg": "video/mpeg"},
    "audio": {
        **{fmt: mime for mime, fmt in AUDIO_FORMATS.items() if mime != "audio/x-m4a"},
        "mp4": "audio/mp4",
        "x-aac": "audio/aac",
        "mkv": "audio/x-matroska",
        "mpeg": "audio/mpeg",
        "mpga": "audio/mpeg",
    },
}
_MEDIA_CLASSES: dict[str, type[_Media]] = {
    "image": ImageBlock,
    "document": FileBlock,
    "video": VideoBlock,
    "audio": AudioBlock,
}
_DOCUMENT_EXTENSIONS = {fmt: fmt for fmt in DOCUMENT_FORMATS.values()}

_NAME_LIMIT = 200
_NAME_DISALLOWED = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")
_WHITESPACE = re.compile(r"\s+")

# The keys of a toolUse / toolResult / document that mediablocks models; others are kept in
# ``provider_data["bedrock"]`` and sent back with the block.
_TOOL_USE_KEYS = frozenset({"toolUseId", "name", "input"})
_TOOL_RESULT_KEYS = frozenset({"toolUseId", "content", "status"})
_DOCUMENT_KEYS = frozenset({"format", "name", "source"})
_MEDIA_KEYS = frozenset({"format", "source"})


# -- encode -----------------------------------------------------------------------------------


def to_bedrock(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
    """The ``messages`` (and ``system``) fields of ``bedrock_runtime.converse(modelId=..., ...)``.

    System messages are lifted, in order, into ``system``. Consecutive turns of the same role are
    merged (Bedrock wants user and assistant to alternate) and in each user turn the
    ``toolResult`` blocks come first. A turn left with no blocks is not sent. With
    ``target="json"`` media bytes are base64 text, as the HTTP API wants; field names are the
    same.
    """
    return _Encoder(options or EncodeOptions()).run(messages)


def bedrock_document_name(filename: str | None, fmt: str) -> str:
    """A document name Bedrock accepts, from a filename (its extension dropped) or the format.

    Bedrock allows letters and digits, single whitespace characters, hyphens, parentheses and
    square brackets, up to 200 characters. Accented letters lose their accents, every other
    character becomes a space. With no usable filename the name is ``"<format> document"``.
    """
    stem = os.path.splitext(filename)[0] if filename else ""
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    cleaned = _WHITESPACE.sub(" ", _NAME_DISALLOWED.sub(" ", ascii_stem)).strip()
    return cleaned[:_NAME_LIMIT].strip() or f"{fmt} document"


class _Encoder:
    """One encoding pass: the options and the document names used so far (they must differ)."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.names: set[str] = set()

    def run(self, messages: Sequence[Message]) -> dict[str, Any]:
        system, turns = group_turns(
            messages,
            system=self._system,
            assistant=self._assistant,
            tool=self._tool_message,
            user=self._user,
        )
        out: dict[str, Any] = {
            "messages": [
                {
                    "role": role,
                    "content": results_first(parts, _is_result) if role == "user" else parts,
                }
                for role, parts in turns
            ]
        }
        if system:
            out["system"] = system
        return out

    # -- roles ------------------------------------------------------------------------------

    def _system(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            part: dict[str, Any] | None
            if isinstance(block, TextBlock):
                part = _text_to_bedrock(block)
            elif isinstance(block, ThinkingBlock):
                part = self._thinking(block, replay=False)
            elif isinstance(block, RawBlock):
                part = self._raw(block, index, position)
            else:
                raise unsupported(
                    PROVIDER, block, index, position, "Bedrock system prompts take text only"
                )
            if part is not None:
                parts.append(part)
        return parts

    def _user(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            part: dict[str, Any] | None
            if isinstance(block, ToolResultBlock):
                part = self._tool_result(block, index, position)
            elif isinstance(block, ToolCallBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool calls belong in assistant messages"
                )
            elif isinstance(block, ThinkingBlock):
                part = self._thinking(block, replay=False)
            else:
                part = self._content(block, index, position)
            if part is not None:
                parts.append(part)
        return parts

    def _assistant(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            part: dict[str, Any] | None
            if isinstance(block, ToolCallBlock):
                part = _tool_call_to_bedrock(block, index, position)
            elif isinstance(block, ThinkingBlock):
                part = self._thinking(block, replay=True)
            elif isinstance(block, ToolResultBlock):
                if not block.for_provider(PROVIDER).get("type"):
                    raise unsupported(
                        PROVIDER,
                        block,
                        index,
                        position,
                        "tool results belong in tool or user messages (only a server tool's "
                        "result, with its Bedrock type, stands in an assistant turn)",
                    )
                part = self._tool_result(block, index, position)
            else:
                part = self._content(block, index, position)
            if part is not None:
                parts.append(part)
        return parts

    def _tool_message(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        return [
            self._tool_result(block, index, position)
            for position, block in tool_results(PROVIDER, blocks, index)
        ]

    # -- blocks -----------------------------------------------------------------------------

    def _content(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        """Text, media or a raw block (None: dropped by a documented rule)."""
        if isinstance(block, TextBlock):
            return _text_to_bedrock(block)
        if isinstance(block, ImageBlock):
            return self._image(block, index, position)
        if isinstance(block, FileBlock):
            return self._document(block, index, position)
        if isinstance(block, VideoBlock):
            return self._video(block, index, position)
        if isinstance(block, AudioBlock):
            return self._audio(block, index, position)
        if isinstance(block, RawBlock):
            return self._raw(block, index, position)
        raise unsupported(PROVIDER, block, index, position, "not allowed here")

    def _thinking(self, block: ThinkingBlock, *, replay: bool) -> dict[str, Any] | None:
        """Bedrock's own reasoning is replayed in assistant turns (with its signature when it
        has one); other thinking follows ``options.thinking``."""
        if replay and is_own_thinking(block, PROVIDER):
            if block.redacted and block.redacted_data:
                return {"reasoningContent": {"redactedContent": self._blob(block.redacted_data)}}
            if not block.redacted:
                reasoning: dict[str, Any] = {"text": block.thinking}
                if block.signature:
                    reasoning["signature"] = block.signature
                return {"reasoningContent": {"reasoningText": reasoning}}
        if self.options.thinking == "text" and block.thinking:
            return {"text": block.thinking}
        return None

    def _blob(self, base64_text: str) -> bytes | str:
        """Stored base64 as the target wants it: bytes for boto3, the text itself for JSON."""
        if self.options.target == "sdk":
            return b64decode(base64_text, what="stored Bedrock bytes")
        return base64_text

    def _raw(self, block: RawBlock, index: int, position: int) -> dict[str, Any]:
        if block.provider != PROVIDER:
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                f"it holds {block.provider} content, not Bedrock's",
            )
        restored = self._restore(block.data)
        assert isinstance(restored, dict)
        return restored

    def _restore(self, value: Any) -> Any:
        """Undo `_json_safe`: byte markers become bytes (boto3) or base64 text (JSON)."""
        if isinstance(value, dict):
            if set(value) == {BYTES_MARKER} and isinstance(value[BYTES_MARKER], str):
                return self._blob(value[BYTES_MARKER])
            return {key: self._restore(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._restore(item) for item in value]
        return value

    def _tool_result(self, block: ToolResultBlock, index: int, position: int) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if isinstance(block.content, str):
            content.append({"text": block.content})
        else:
            for inner in block.content:
                try:
                    part = self._tool_result_part(inner, index, position)
                except UnsupportedBlockError as exc:
                    raise UnsupportedBlockError(
                        f"{exc} (inside the result of tool call {block.tool_call_id!r})"
                    ) from None
                if part is not None:
                    content.append(part)
            if not content:
                content.append({"text": ""})
        result: dict[str, Any] = {
            **block.for_provider(PROVIDER),
            "toolUseId": block.tool_call_id,
            "content": content,
        }
        if block.is_error:
            result["status"] = "error"
        return {"toolResult": result}

    def _tool_result_part(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock) and block.for_provider(PROVIDER).get("json"):
            try:
                return {"json": json.loads(block.text)}
            except ValueError:
                return {"text": block.text}  # edited into something that is not JSON: as text
        if isinstance(block, AudioBlock):
            raise unsupported(
                PROVIDER, block, index, position, "Bedrock tool results carry no audio"
            )
        if isinstance(block, TextBlock):
            return {"text": block.text}  # empty text is a valid (empty) result here
        return self._content(block, index, position)

    # -- media ------------------------------------------------------------------------------

    def _inline(self, block: _Media, index: int, position: int) -> None:
        """Bedrock fetches no http URLs: a URL block is downloaded now (or raises for 'url')."""
        try:
            use_url(block, False, self.options)
        except MediaBlocksError as exc:
            raise unsupported(PROVIDER, block, index, position, str(exc)) from None
        if isinstance(block.source, URLSource):
            block.read(self.options.policy)

    def _source(self, block: _Media, index: int, position: int) -> dict[str, Any]:
        """``{"bytes": ...}`` or ``{"s3Location": {...}}``; other file ids raise."""
        file_id = file_id_of(block)
        if file_id is None:
            return {"bytes": bytes_or_base64(block, self.options)}
        if not file_id.file_id.startswith("s3://"):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "Bedrock reads files by s3:// URI only; this file id belongs to "
                f"{file_id.provider or 'another provider'}",
            )
        location: dict[str, Any] = {"uri": file_id.file_id}
        owner = block.for_provider(PROVIDER).get("bucketOwner")
        if isinstance(owner, str):
            location["bucketOwner"] = owner
        return {"s3Location": location}

    def _format(
        self, block: _Media, formats: dict[str, str], index: int, position: int, kind: str
    ) -> str:
        self._inline(block, index, position)
        mime = _mime_of(block)
        fmt = formats.get(mime)
        if fmt is None:
            accepted = ", ".join(sorted(set(formats.values())))
            hint = "; mb.prepare(messages, 'bedrock') converts it" if kind == "image" else ""
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                f"Bedrock {kind} formats are {accepted}, this is {mime}{hint}",
            )
        return fmt

    def _image(self, block: ImageBlock, index: int, position: int) -> dict[str, Any]:
        fmt = self._format(block, IMAGE_FORMATS, index, position, "image")
        return {"image": {"format": fmt, "source": self._source(block, index, position)}}

    def _video(self, block: VideoBlock, index: int, position: int) -> dict[str, Any]:
        fmt = self._format(block, VIDEO_FORMATS, index, position, "video")
        return {"video": {"format": fmt, "source": self._source(block, index, position)}}

    def _audio(self, block: AudioBlock, index: int, position: int) -> dict[str, Any]:
        fmt = self._format(block, AUDIO_FORMATS, index, position, "audio")
        return {"audio": {"format": fmt, "source": self._source(block, index, position)}}

    def _document(self, block: FileBlock, index: int, position: int) -> dict[str, Any]:
        fmt = self._format(block, DOCUMENT_FORMATS, index, position, "document")
        stored = dict(block.for_provider(PROVIDER))
        as_text = stored.pop("text_source", False)
        stored.pop("bucketOwner", None)
        source: dict[str, Any]
        if as_text and file_id_of(block) is None:
            try:
                source = {"text": block.read(self.options.policy).decode("utf-8")}
            except UnicodeDecodeError:
                source = self._source(block, index, position)
        else:
            source = self._source(block, index, position)
        document = {
            **stored,
            "format": fmt,
            "name": self._unique_name(bedrock_document_name(block.filename, fmt)),
            "source": source,
        }
        return {"document": document}

    def _unique_name(self, name: str) -> str:
        """Bedrock rejects two documents of one name in a request: later ones get ``(2)``..."""
        candidate = name
        number = 1
        while candidate.lower() in self.names:
            number += 1
            suffix = f" ({number})"
            candidate = name[: _NAME_LIMIT - len(suffix)].rstrip() + suffix
        self.names.add(candidate.lower())
        return candidate


def _is_result(part: dict[str, Any]) -> bool:
    return "toolResult" in part


def _mime_of(block: MediaBlock) -> str:
    """The block's MIME type; for an s3 file id, the declared type or the key's extension."""
    mime = block.mime_type
    source = file_id_of(block)
    if source is not None and mime == "application/octet-stream":
        for name in (block.filename, source.file_id):
            guessed = mimetypes.guess_type(name)[0] if name else None
            if guessed:
                return _normalized(guessed)
    return mime


def _normalized(mime: str) -> str:
    try:
        return normalize_mime(mime)
    except ValueError:
        return mime


def _text_to_bedrock(block: TextBlock) -> dict[str, Any] | None:
    """Empty text is not sent: Bedrock rejects blank text blocks."""
    if not block.text:
        return None
    return {"text": block.text}


def _tool_call_to_bedrock(block: ToolCallBlock, index: int, position: int) -> dict[str, Any]:
    """``input`` is the argument object; arguments that were not a JSON object raise."""
    tool_use = {
        **block.for_provider(PROVIDER),
        "toolUseId": block.id,
        "name": block.name,
        "input": object_args(PROVIDER, "Bedrock", block, index, position),
    }
    return {"toolUse": tool_use}


# -- decode -----------------------------------------------------------------------------------


def from_bedrock(payload: Any) -> list[Message]:
    """Messages from a Converse request body, a message list, or a Converse response.

    Bytes may be raw (boto3) or base64 text (the HTTP API's JSON). Tool results, which Bedrock
    carries in user turns, become `ToolMessage`s, each result named after the call it answers.
    """
    data = as_dict(payload)
    if isinstance(data, dict):
        if "output" in data:
            return [_response_from_bedrock(data)]
        if "messages" in data:
            out: list[Message] = []
            if data.get("system"):
                out.append(_system_from_bedrock(data["system"]))
            out.extend(_messages_from_bedrock(data["messages"]))
            return out
        if "role" in data:
            return _messages_from_bedrock([data])
        raise DecodeError(
            "not a Bedrock Converse payload: expected a request with 'messages', a response "
            "with 'output', or a message with 'role'"
        )
    if isinstance(data, list):
        return _messages_from_bedrock(data)
    raise DecodeError(f"not a Bedrock Converse payload: a {type(payload).__name__}")


def _response_from_bedrock(data: dict[str, Any]) -> AssistantMessage:
    output = as_dict(data.get("output"))
    message = as_dict(output.get("message")) if isinstance(output, dict) else None
    if not isinstance(message, dict):
        raise DecodeError("Bedrock response: 'output' holds no 'message'")
    decoded = _assistant_from_bedrock(message.get("content"), "Bedrock response", {})
    reason = data.get("stopReason")
    request_id = (data.get("ResponseMetadata") or {}).get("RequestId")
    notes = {
        key: _json_safe(data[key])
        for key in ("metrics", "additionalModelResponseFields", "trace", "serviceTier")
        if data.get(key) is not None
    }
    return decoded.model_copy(
        update={
            "usage": _usage_from_bedrock(data.get("usage")),
            "stop_reason": reason if isinstance(reason, str) and reason else None,
            "response_id": request_id if isinstance(request_id, str) else None,
            "metadata": {PROVIDER: notes} if notes else {},
        }
    )


def _usage_from_bedrock(value: Any) -> Usage | None:
    """Token counts; ``input_tokens`` includes cache reads and writes, as `Usage` defines it."""
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    read = usage_count(usage.get("cacheReadInputTokens"))
    write = usage_count(usage.get("cacheWriteInputTokens"))
    return Usage(
        input_tokens=usage_count(usage.get("inputTokens")) + read + write,
        output_tokens=usage_count(usage.get("outputTokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
        raw=usage,
    )


def _system_from_bedrock(value: Any) -> SystemMessage:
    if isinstance(value, str):  # lenient: a bare string
        return SystemMessage(content=[TextBlock(text=value)])
    if not isinstance(value, list):
        raise DecodeError("Bedrock 'system' is not a list of blocks")
    blocks: list[Block] = []
    for number, raw in enumerate(value):
        where = f"Bedrock system block {number}"
        key, body = _union(raw, where)
        if key == "text" and isinstance(body, str):
            blocks.append(TextBlock(text=body))
        else:
            blocks.append(RawBlock(provider=PROVIDER, data=_raw_data(key, body)))
    return SystemMessage(content=blocks)


def _messages_from_bedrock(items: Any) -> list[Message]:
    if not isinstance(items, list):
        raise DecodeError("Bedrock 'messages' is not a list")
    out: list[Message] = []
    names: dict[str, str] = {}
    for position, raw in enumerate(items):
        item = as_dict(raw)
        where = f"Bedrock message {position}"
        if not isinstance(item, dict):
            raise DecodeError(f"{where} is a {type(raw).__name__}, not a message object")
        role = item.get("role")
        if role == "assistant":
            message = _assistant_from_bedrock(item.get("content"), where, names)
            names.update({call.id: call.name for call in message.tool_calls})
            out.append(message)
        elif role == "user":
            out.extend(_user_from_bedrock(item.get("content"), where, names))
        else:
            raise DecodeError(f"{where} has role {role!r}, not user or assistant")
    return out


def _assistant_from_bedrock(content: Any, where: str, names: dict[str, str]) -> AssistantMessage:
    return AssistantMessage(content=_blocks_from_bedrock(content, where, names), provider=PROVIDER)


def _user_from_bedrock(content: Any, where: str, names: dict[str, str]) -> list[Message]:
    """Runs of tool results become `ToolMessage`s, other runs `UserMessage`s, in order."""
    return user_turns(_blocks_from_bedrock(content, where, names))


def _blocks_from_bedrock(content: Any, where: str, names: dict[str, str]) -> list[Block]:
    if content is None:
        return []
    if not isinstance(content, list):
        raise DecodeError(f"{where}: content is a {type(content).__name__}, not a list of blocks")
    return [
        _block_from_bedrock(raw, f"{where}, block {number}", names)
        for number, raw in enumerate(content)
    ]


def _union(raw: Any, where: str) -> tuple[str, Any]:
    """The one member a Bedrock union block sets: ``{"image": {...}}`` -> ``("image", {...})``."""
    part = as_dict(raw)
    if not isinstance(part, dict):
        raise DecodeError(f"{where} is a {type(raw).__name__}, not a content block object")
    present = [key for key, value in part.items() if value is not None]
    if len(present) != 1:
        raise DecodeError(
            f"{where} sets {len(present)} members ({', '.join(present) or 'none'}); a Bedrock "
            "content block sets exactly one"
        )
    return present[0], part[present[0]]


def _block_from_bedrock(raw: Any, where: str, names: dict[str, str]) -> Block:
    key, body = _union(raw, where)
    if key == "text" and isinstance(body, str):
        return TextBlock(text=body)
    if key in ("image", "document", "video", "audio") and isinstance(body, dict):
        return _media_from_bedrock(key, body, where)
    if key == "toolUse" and isinstance(body, dict):
        return _tool_call_from_bedrock(body, where)
    if key == "toolResult" and isinstance(body, dict):
        return _tool_result_from_bedrock(body, where, names)
    if key == "reasoningContent" and isinstance(body, dict):
        thinking = _thinking_from_bedrock(body, where)
        if thinking is not None:
            return thinking
    return RawBlock(provider=PROVIDER, data=_raw_data(key, body))


def _raw_data(key: str, body: Any) -> dict[str, Any]:
    """A block kept verbatim, JSON-safe: bytes (and the known base64 blob of a guardContent
    image in a JSON payload) are stored under `BYTES_MARKER`."""
    if key == "guardContent" and isinstance(body, dict):
        body = _guard_image_bytes(body)
    safe = _json_safe({key: body})
    assert isinstance(safe, dict)
    return safe


def _guard_image_bytes(body: dict[str, Any]) -> dict[str, Any]:
    """A guardContent image whose bytes came as base64 text (JSON) with the bytes decoded."""
    image = body.get("image")
    if not isinstance(image, dict):
        return body
    source = image.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("bytes"), str):
        return body
    data = b64decode(source["bytes"], what="Bedrock guardContent image bytes")
    return {**body, "image": {**image, "source": {**source, "bytes": data}}}


def _json_safe(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {BYTES_MARKER: b64encode(value)}
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


def _thinking_from_bedrock(body: dict[str, Any], where: str) -> ThinkingBlock | None:
    text_part = body.get("reasoningText")
    redacted = body.get("redactedContent")
    if isinstance(text_part, dict):
        text = text_part.get("text")
        signature = text_part.get("signature")
        if not isinstance(text, str):
            raise DecodeError(f"{where}: reasoningText has no text string")
        return ThinkingBlock(
            thinking=text,
            signature=signature if isinstance(signature, str) and signature else None,
            provider=PROVIDER,
        )
    if isinstance(redacted, (bytes, bytearray)):
        return ThinkingBlock(redacted=True, redacted_data=b64encode(redacted), provider=PROVIDER)
    if isinstance(redacted, str):
        b64decode(redacted, what=f"{where}: redactedContent")  # checked, kept as sent
        return ThinkingBlock(redacted=True, redacted_data=redacted, provider=PROVIDER)
    return None


def _media_from_bedrock(kind: str, body: dict[str, Any], where: str) -> Block:
    source = as_dict(body.get("source"))
    fmt = body.get("format")
    if not isinstance(source, dict):
        raise DecodeError(f"{where}: {kind} block has no source object")
    mime = _FORMAT_MIMES[kind].get(fmt) if isinstance(fmt, str) else None
    if isinstance(fmt, str) and mime is None:
        return RawBlock(provider=PROVIDER, data=_raw_data(kind, body))  # a format newer than us
    cls = _MEDIA_CLASSES[kind]
    filename = _document_filename(body, fmt) if kind == "document" else None
    stored: dict[str, Any] = {
        key: _json_safe(value)
        for key, value in body.items()
        if key not in (_DOCUMENT_KEYS if kind == "document" else _MEDIA_KEYS)
    }
    block: _Media
    try:
        if "bytes" in source and source["bytes"] is not None:
            block = _from_blob(cls, source["bytes"], mime, filename, where)
        elif isinstance(source.get("s3Location"), dict):
            location = source["s3Location"]
            uri = location.get("uri")
            if not isinstance(uri, str):
                raise DecodeError(f"{where}: s3Location has no uri")
            block = cls.from_file_id(uri, mime, provider=PROVIDER, filename=filename)
            if isinstance(location.get("bucketOwner"), str):
                stored["bucketOwner"] = location["bucketOwner"]
        elif kind == "document" and isinstance(source.get("text"), str):
            block = cls.from_bytes(
                source["text"].encode("utf-8"), mime or "text/plain", filename=filename
            )
            stored["text_source"] = True
        else:  # a "content" document source, or a source kind newer than us
            return RawBlock(provider=PROVIDER, data=_raw_data(kind, body))
    except DecodeError:
        raise
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc
    if stored:
        block = block.model_copy(update={"provider_data": {PROVIDER: stored}})
    return block


def _from_blob(cls: type[_M], data: Any, mime: str | None, filename: str | None, where: str) -> _M:
    """A block from raw bytes (boto3) or base64 text (JSON), the format's type checked."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return cls.from_bytes(data, mime, filename=filename)
    if isinstance(data, str):
        raw = b64decode(data, what=f"{where}: source bytes")
        return cls.from_bytes(raw, mime, filename=filename)
    raise DecodeError(f"{where}: source bytes are a {type(data).__name__}, not bytes or base64")


def _document_filename(body: dict[str, Any], fmt: Any) -> str | None:
    """``name`` plus the format's extension: ``{"name": "report", "format": "pdf"}`` ->
    ``report.pdf``."""
    name = body.get("name")
    if not isinstance(name, str) or not name:
        return None
    extension = _DOCUMENT_EXTENSIONS.get(fmt) if isinstance(fmt, str) else None
    return f"{name}.{extension}" if extension else name


def _tool_call_from_bedrock(body: dict[str, Any], where: str) -> ToolCallBlock:
    call_id = body.get("toolUseId")
    name = body.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise DecodeError(f"{where}: toolUse needs a toolUseId and a name")
    args, raw_args = tool_args(body.get("input"))
    extras = {key: _json_safe(v) for key, v in body.items() if key not in _TOOL_USE_KEYS}
    return ToolCallBlock(
        id=call_id,
        name=name,
        args=args,
        raw_args=raw_args,
        provider_data={PROVIDER: extras} if extras else {},
    )


def _tool_result_from_bedrock(
    body: dict[str, Any], where: str, names: dict[str, str]
) -> ToolResultBlock:
    call_id = body.get("toolUseId")
    if not isinstance(call_id, str):
        raise DecodeError(f"{where}: toolResult has no toolUseId")
    raw = body.get("content") or []
    if not isinstance(raw, list):
        raise DecodeError(f"{where}: toolResult content is not a list")
    blocks: list[ContentBlock] = []
    for number, item in enumerate(raw):
        inner = f"{where}, result content {number}"
        key, value = _union(item, inner)
        if key == "json":
            text = json.dumps(value, ensure_ascii=False)
            blocks.append(TextBlock(text=text, provider_data={PROVIDER: {"json": True}}))
            continue
        block = _block_from_bedrock(item, inner, names)
        if not isinstance(block, (TextBlock, ImageBlock, AudioBlock, VideoBlock, FileBlock)):
            block = RawBlock(provider=PROVIDER, data=_raw_data(key, value))
        blocks.append(block)
    content: str | list[ContentBlock] = blocks
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not blocks[0].provider_data:
        content = blocks[0].text
    elif not blocks:
        content = ""
    extras = {key: _json_safe(v) for key, v in body.items() if key not in _TOOL_RESULT_KEYS}
    return ToolResultBlock(
        tool_call_id=call_id,
        content=content,
        is_error=body.get("status") == "error",
        name=names.get(call_id),
        provider_data={PROVIDER: extras} if extras else {},
    )
