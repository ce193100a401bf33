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
import unicodedata
from collections.abc import Sequence
from typing import Any

from typing_extensions import assert_never

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...errors import MediaBlocksError, UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    Message,
)
from ...mime import normalize_mime
from ...mime.encodings import utf8_text
from ...sources import URLSource
from .._common import (
    SystemBlock,
    bytes_or_base64,
    file_id_of,
    group_turns,
    is_own_thinking,
    object_args,
    results_first,
    strict_b64decode,
    system_parts,
    tool_results,
    unsupported,
    use_url,
)
from .._options import EncodeOptions
from ._wire import (
    _NAME_DISALLOWED,
    _NAME_LIMIT,
    _WHITESPACE,
    AUDIO_FORMATS,
    BYTES_MARKER,
    DOCUMENT_FORMATS,
    IMAGE_FORMATS,
    PROVIDER,
    VIDEO_FORMATS,
    _Media,
)
from .decode import from_bedrock

__all__ = ["BYTES_MARKER", "bedrock_document_name", "from_bedrock", "to_bedrock"]

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
        self.moved: list[dict[str, Any]] = []
        """Parts moved out of tool results (audio: the tool channel refuses it), for the user
        turn that carries the results, after them (``tool_result_media="user_message"``)."""

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
        why = "Bedrock system prompts take text only"
        return system_parts(PROVIDER, blocks, index, self._system_part, why)

    def _system_part(self, block: SystemBlock, index: int, position: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return _text_to_bedrock(block)
        if isinstance(block, ThinkingBlock):
            return self._thinking(block, replay=False)
        return self._raw(block, index, position)

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
        return self._with_moved(parts)

    def _with_moved(self, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        moved, self.moved = self.moved, []
        return parts + moved

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
        return self._with_moved(
            [
                self._tool_result(block, index, position)
                for position, block in tool_results(PROVIDER, blocks, index)
            ]
        )

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
        if isinstance(block, (ThinkingBlock, ToolCallBlock, ToolResultBlock)):
            raise unsupported(PROVIDER, block, index, position, "not allowed here")
        assert_never(block)

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
            return strict_b64decode(base64_text, "stored Bedrock bytes")
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
            audio = [inner for inner in block.content if isinstance(inner, AudioBlock)]
            if audio and self.options.tool_result_media == "user_message":
                self._move(audio, block.tool_call_id, index, position)
            for inner in block.content:
                if isinstance(inner, AudioBlock) and self.options.tool_result_media != "error":
                    continue
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

    def _move(self, media: list[AudioBlock], call_id: str, index: int, position: int) -> None:
        """Audio a tool returned, into the user turn after the results, saying whose it is."""
        self.moved.append({"text": f"Media returned by tool call {call_id}:"})
        for block in media:
            part = self._content(block, index, position)
            if part is not None:
                self.moved.append(part)

    def _tool_result_part(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock) and block.for_provider(PROVIDER).get("json"):
            try:
                return {"json": json.loads(block.text)}
            except ValueError:
                return {"text": block.text}  # edited into something that is not JSON: as text
        if isinstance(block, AudioBlock):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "Bedrock tool results carry no audio; tool_result_media='user_message' moves "
                "it into the user turn after the results",
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
            text = utf8_text(block.read(self.options.policy))
            source = {"text": text} if text is not None else self._source(block, index, position)
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
