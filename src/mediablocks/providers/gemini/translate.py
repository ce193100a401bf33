"""Google Gemini: `to_gemini` builds ``client.models.generate_content`` fields, `from_gemini` reads
requests, content lists and ``GenerateContentResponse``s back.

What maps to what (details and examples in ``docs/providers/gemini.md``):

- system messages -> ``config.system_instruction`` (SDK) or ``systemInstruction`` (REST JSON).
- user -> ``user`` turns, assistant -> ``model`` turns; text -> ``{"text": ...}``.
- images (PNG, JPEG, WebP, HEIC, HEIF), audio (WAV, MP3, AIFF, AAC, Ogg, FLAC), video (MP4,
  MPEG, MOV, AVI, FLV, MPG, WebM, WMV, 3GPP), PDF and ``text/*`` documents -> ``inline_data``
  (raw ``bytes`` for the SDK, base64 for JSON); Gemini file URIs, ``gs://`` URIs and YouTube
  links -> ``file_data``. Other http(s) URLs are downloaded and inlined unless
  ``url_media="url"``, except those Gemini itself sent as ``file_data``, which go back as
  ``file_data`` (unless ``url_media="inline"``). Any other type raises `UnsupportedBlockError`.
- thinking -> ``{"text": ..., "thought": true}`` parts, replayed only when Gemini produced them.
  A ``thought_signature`` goes back on the very part that carried it, whatever its kind: on a
  `ThinkingBlock` it is ``signature``, on any other block ``provider_data["gemini"]
  ["thought_signature"]`` (base64 text here, bytes for the SDK).
- tool calls -> ``function_call`` (with ``id``); results -> ``function_response`` parts first in
  a user turn, named after their call. Images, PDF and plain text in a result go in the
  response's own ``parts`` (Gemini 3); other media follow ``options.tool_result_media``.
- parts mediablocks does not model (``executable_code``, ``code_execution_result``...) decode to
  `RawBlock` and go back out verbatim; unmodelled fields of known parts (``video_metadata``,
  ``media_resolution``...) live in ``provider_data["gemini"]`` and go back on the same part.

The SDK's pydantic dumps spell fields in snake_case and the REST API in camelCase: decoding
accepts both everywhere; encoding writes snake_case for the SDK and camelCase for JSON.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Sequence
from datetime import date, datetime
from enum import Enum
from typing import Any, Union
from urllib.parse import urlsplit

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
from ...errors import DecodeError, MediaBlocksError, UnknownProviderError, UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
)
from ...mime import normalize_mime
from ...sources import FileIdSource, URLSource
from .._common import (
    as_dict,
    bytes_or_base64,
    file_id_of,
    group_turns,
    is_own_thinking,
    object_args,
    results_first,
    synthetic_call_id,
    tool_results,
    unsupported,
    usage_count,
    user_turns,
)
from .._options import EncodeOptions, canonical_provider

__all__ = ["from_gemini", "to_gemini"]

PROVIDER = "gemini"
_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})
AUDIO_TYPES = frozenset(
    {"audio/wav", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
)
VIDEO_TYPES = frozenset(
    {
        "video/mp4",
        "video/mpeg",
        "video/mpg",
        "video/quicktime",
        "video/mov",
        "video/x-msvideo",
        "video/avi",
        "video/x-flv",
        "video/webm",
        "video/x-ms-wmv",
        "video/wmv",
        "video/3gpp",
    }
)
DOCUMENT_TYPES = frozenset(
    {"application/pdf", "application/x-javascript", "application/x-python"}
)  # and every text/* type
TOOL_RESULT_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}
)
"""What Gemini 3 takes inside ``function_response.parts``; other media in a tool result follow
``options.tool_result_media``."""

# Spellings some detectors give, sent as the type Gemini documents.
_WIRE_MIME = {
    "audio/x-wav": "audio/wav",
    "audio/x-aiff": "audio/aiff",
    "audio/x-aac": "audio/aac",
    "audio/x-flac": "audio/flac",
    "audio/mp3": "audio/mpeg",
}
# Markers mediablocks keeps in ``provider_data["gemini"]`` that are not Gemini fields.
_SYNTHETIC_ID = "synthetic_id"
_RESPONSE_JSON = "response_json"
_AS_FILE_URI = "as_file_uri"
"""Marks an http(s) URL that Gemini sent as ``file_data``: it goes back as ``file_data``."""
_MARKERS = frozenset({_SYNTHETIC_ID, _RESPONSE_JSON, _AS_FILE_URI})
# Values whose keys belong to the caller (tool arguments and results): never respelled.
_FREE_FORM = frozenset({"args", "response", "part_metadata"})
_YOUTUBE_HOSTS = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be"})
_FILE_API_HOST = "generativelanguage.googleapis.com"
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


# -- spelling ---------------------------------------------------------------------------------


def _snake_key(key: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", key).lower() if not key.islower() else key


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _respell(value: Any, spell: Any) -> Any:
    """``value`` with every dict key respelled by ``spell``, except inside free-form fields.

    Null fields are dropped on the way (the SDK's ``model_dump()`` writes every unset field as
    None; the API reads null as unset).
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue
            name = spell(key) if isinstance(key, str) else key
            out[name] = item if _snake_key(str(key)) in _FREE_FORM else _respell(item, spell)
        return out
    if isinstance(value, list):
        return [_respell(item, spell) for item in value]
    return value


def _get(data: Any, name: str) -> Any:
    """A field by its snake_case name, or its camelCase spelling (None when absent)."""
    if not isinstance(data, dict):
        return None
    value = data.get(name)
    return value if value is not None else data.get(_camel_key(name))


# -- encode -----------------------------------------------------------------------------------


def to_gemini(messages: Sequence[Message], options: EncodeOptions | None = None) -> dict[str, Any]:
    """The ``contents`` (and system instruction) of ``client.models.generate_content(...)``.

    ``target="sdk"``: ``{"contents": [...], "config": {"system_instruction": ...}}`` in the SDK's
    snake_case with raw bytes; ``config`` only when there is a system instruction. ``target=
    "json"``: the REST body ``{"contents": [...], "systemInstruction": {...}}`` in camelCase with
    base64. Consecutive turns of one role are merged and function responses lead their user
    turn (Gemini matches them to the calls of the turn before). A turn with no parts is not sent.
    """
    return _Encoder(options or EncodeOptions()).run(messages)


class _Encoder:
    """One encoding pass: the options and the tool calls seen so far (results need the name)."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.sdk = options.target == "sdk"
        self.calls: dict[str, tuple[str, bool]] = {}
        """Call id -> (tool name, whether the id was made up by mediablocks)."""

    def run(self, messages: Sequence[Message]) -> dict[str, Any]:
        system, turns = group_turns(
            messages,
            system=self._system,
            assistant=self._model,
            tool=self._tool_message,
            user=self._user,
            assistant_role="model",
        )
        contents = [
            {"role": role, "parts": results_first(parts, _is_response) if role == "user" else parts}
            for role, parts in turns
        ]
        out: dict[str, Any] = {"contents": self._spelled(contents)}
        if system:
            instruction = self._spelled({"parts": system})
            if self.sdk:
                out["config"] = {"system_instruction": instruction}
            else:
                out["systemInstruction"] = instruction
        return out

    def _spelled(self, value: Any) -> Any:
        """Parts are built in the SDK's snake_case; the REST JSON wants camelCase."""
        return value if self.sdk else _respell(value, _camel_key)

    # -- roles ------------------------------------------------------------------------------

    def _system(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            part: dict[str, Any] | None
            if isinstance(block, TextBlock):
                part = self._text(block)
            elif isinstance(block, ThinkingBlock):
                part = self._thinking(block, replay=False)
            elif isinstance(block, RawBlock):
                part = self._raw(block, index, position)
            else:
                raise unsupported(
                    PROVIDER, block, index, position, "Gemini system instructions take text only"
                )
            if part is not None:
                parts.append(part)
        return parts

    def _user(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            if isinstance(block, ToolResultBlock):
                parts.extend(self._tool_result(block, index, position))
                continue
            part: dict[str, Any] | None
            if isinstance(block, ToolCallBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool calls belong in assistant messages"
                )
            if isinstance(block, ThinkingBlock):
                part = self._thinking(block, replay=False)
            else:
                part = self._content(block, index, position)
            if part is not None:
                parts.append(part)
        return parts

    def _model(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            part: dict[str, Any] | None
            if isinstance(block, ToolCallBlock):
                part = self._tool_call(block, index, position)
            elif isinstance(block, ThinkingBlock):
                part = self._thinking(block, replay=True)
            elif isinstance(block, ToolResultBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool results belong in tool or user messages"
                )
            else:
                part = self._content(block, index, position)
            if part is not None:
                parts.append(part)
        return parts

    def _tool_message(self, blocks: Sequence[Block], index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, block in tool_results(PROVIDER, blocks, index):
            parts.extend(self._tool_result(block, index, position))
        return parts

    # -- blocks -----------------------------------------------------------------------------

    def _finish(self, block: Block, part: dict[str, Any]) -> dict[str, Any]:
        """The built part with the block's stored Gemini fields (and thought signature) merged."""
        stored = {k: v for k, v in block.for_provider(PROVIDER).items() if k not in _MARKERS}
        if stored:
            part = _merged(part, stored)
        signature = part.get("thought_signature")
        if isinstance(signature, str) and self.sdk:
            part["thought_signature"] = b64decode(signature, what="Gemini thought_signature")
        return part

    def _content(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return self._text(block)
        if isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
            return self._finish(block, self._media(block, index, position))
        if isinstance(block, RawBlock):
            return self._raw(block, index, position)
        raise unsupported(PROVIDER, block, index, position, "not allowed here")

    def _text(self, block: TextBlock) -> dict[str, Any] | None:
        """Empty text is sent only when it carries Gemini data (a thought signature)."""
        if not block.text and not block.for_provider(PROVIDER):
            return None
        return self._finish(block, {"text": block.text})

    def _thinking(self, block: ThinkingBlock, *, replay: bool) -> dict[str, Any] | None:
        """Gemini's own thoughts are replayed in model turns with their signature; other
        thinking follows ``options.thinking``."""
        if replay and is_own_thinking(block, PROVIDER) and not block.redacted:
            if not (block.thinking or block.signature or block.for_provider(PROVIDER)):
                return None  # an empty thought carries nothing
            part: dict[str, Any] = {"text": block.thinking, "thought": True}
            if block.signature:
                part["thought_signature"] = block.signature
            return self._finish(block, part)
        if self.options.thinking == "text" and block.thinking:
            return {"text": block.thinking}
        return None

    def _raw(self, block: RawBlock, index: int, position: int) -> dict[str, Any]:
        """Stored in REST spelling; the SDK target gets it in snake_case (both parse alike)."""
        if block.provider != PROVIDER:
            raise unsupported(
                PROVIDER, block, index, position, f"it holds {block.provider} content, not Gemini's"
            )
        data: dict[str, Any] = _respell(block.data, _snake_key)
        signature = data.get("thought_signature")
        if isinstance(signature, str) and self.sdk:
            data["thought_signature"] = b64decode(signature, what="Gemini thought_signature")
        return data

    def _tool_call(self, block: ToolCallBlock, index: int, position: int) -> dict[str, Any]:
        """``args`` must be an object: arguments the model sent as invalid JSON raise."""
        args = object_args(PROVIDER, "Gemini", block, index, position)
        synthetic = bool(block.for_provider(PROVIDER).get(_SYNTHETIC_ID))
        self.calls[block.id] = (block.name, synthetic)
        call: dict[str, Any] = {"name": block.name, "args": args}
        if not synthetic:
            call["id"] = block.id
        return self._finish(block, {"function_call": call})

    def _tool_result(
        self, block: ToolResultBlock, index: int, position: int
    ) -> list[dict[str, Any]]:
        """The ``function_response`` part, then media moved out of it (`TOOL_RESULT_TYPES`)."""
        known = self.calls.get(block.tool_call_id)
        name = block.name or (known[0] if known else None)
        if not name:
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                f"Gemini needs the tool's name on the result of call {block.tool_call_id!r}; set "
                "ToolResultBlock.name or keep the assistant message that made the call",
            )
        stored = block.for_provider(PROVIDER)
        response: dict[str, Any] = {"name": name, "response": _response_object(block)}
        synthetic = stored.get(_SYNTHETIC_ID) or (known is not None and known[1])
        if not synthetic:
            response["id"] = block.tool_call_id
        inner: list[dict[str, Any]] = []
        moved: list[_Media] = []
        for inner_block in [] if isinstance(block.content, str) else block.content:
            try:
                if isinstance(inner_block, RawBlock):
                    inner.append(self._raw(inner_block, index, position))
                elif isinstance(inner_block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
                    if self._fits_tool_result(inner_block):
                        part = self._media(inner_block, index, position)
                        inner.append(self._finish(inner_block, part))
                    else:
                        moved.append(inner_block)
            except UnsupportedBlockError as exc:
                raise UnsupportedBlockError(
                    f"{exc} (inside the result of tool call {block.tool_call_id!r})"
                ) from None
        if inner:
            response["parts"] = inner
        out = [self._finish(block, {"function_response": response})]
        if moved:
            out.extend(self._moved(moved, block.tool_call_id, index, position))
        return out

    def _fits_tool_result(self, block: _Media) -> bool:
        if file_id_of(block) is not None or isinstance(block.source, URLSource):
            return _known_mime(block) in TOOL_RESULT_TYPES
        return _wire_mime(block.mime_type) in TOOL_RESULT_TYPES

    def _moved(
        self, media: list[_Media], call_id: str, index: int, position: int
    ) -> list[dict[str, Any]]:
        if self.options.tool_result_media == "error":
            raise unsupported(
                PROVIDER,
                media[0],
                index,
                position,
                "Gemini function responses carry images, PDF and plain text only "
                f"(inside the result of tool call {call_id!r}); tool_result_media='user_message' "
                "moves other media into the user turn",
            )
        parts: list[dict[str, Any]] = [{"text": f"Media returned by tool call {call_id}:"}]
        for block in media:
            parts.append(self._finish(block, self._media(block, index, position)))
        return parts

    # -- media ------------------------------------------------------------------------------

    def _media(self, block: _Media, index: int, position: int) -> dict[str, Any]:
        """``inline_data`` (bytes or base64) or ``file_data`` (a URI Gemini reads itself)."""
        file_id = file_id_of(block)
        if file_id is not None:
            _check_file_store(block, file_id, index, position)
            return self._file_data(block, file_id.file_id, index, position)
        if isinstance(block.source, URLSource):
            came_as_uri = bool(block.for_provider(PROVIDER).get(_AS_FILE_URI))
            if (came_as_uri and self.options.url_media != "inline") or self._url_goes_as_uri(
                block.source.url
            ):
                return self._file_data(block, block.source.url, index, position)
            try:
                block.read(self.options.policy)  # the exact MIME type comes from the bytes
            except MediaBlocksError as exc:
                raise unsupported(PROVIDER, block, index, position, str(exc)) from None
        exact = block.for_provider(PROVIDER).get("inline_data", {}).get("mime_type")
        mime = _wire_mime(block.mime_type)
        if exact is None:
            _check_mime(block, mime, index, position)
        blob = {"mime_type": mime, "data": bytes_or_base64(block, self.options)}
        return {"inline_data": blob}

    def _file_data(self, block: _Media, uri: str, index: int, position: int) -> dict[str, Any]:
        mime = _known_mime(block)
        file_data: dict[str, Any] = {"file_uri": uri}
        if mime is not None:
            _check_mime(block, mime, index, position)
            file_data["mime_type"] = mime
        return {"file_data": file_data}

    def _url_goes_as_uri(self, url: str) -> bool:
        """gs:// and other non-http URIs always; http(s) per ``url_media`` (see the module doc)."""
        if urlsplit(url).scheme.lower() not in ("http", "https"):
            return True
        if self.options.url_media == "url":
            return True
        if self.options.url_media == "inline":
            return False
        return _gemini_reads(url)


def _is_response(part: dict[str, Any]) -> bool:
    """Function responses lead a user turn (Gemini matches them to the calls before)."""
    return "function_response" in part


def _merged(built: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """``built`` with ``stored`` laid over it, nested objects merged key by key."""
    out = dict(built)
    for key, value in stored.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def _response_object(block: ToolResultBlock) -> dict[str, Any]:
    """``{"output": text}``, ``{"error": text}``, or the JSON object a decoded result held."""
    text = block.text
    if block.for_provider(PROVIDER).get(_RESPONSE_JSON):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {"error": text} if block.is_error else {"output": text}


def _wire_mime(mime: str) -> str:
    return _WIRE_MIME.get(mime, mime)


def _known_mime(block: _Media) -> str | None:
    """The type of a block Gemini reads by URI: declared, else guessed from the name; or None."""
    mime = block.mime_type
    if mime != "application/octet-stream":
        return _wire_mime(mime)
    names = [block.filename]
    if isinstance(block.source, (FileIdSource, URLSource)):
        names.append(_uri_of(block))
    for name in names:
        guessed = _guess(name)
        if guessed is not None:
            return guessed
    return None


def _uri_of(block: MediaBlock) -> str:
    source = block.source
    if isinstance(source, FileIdSource):
        return source.file_id
    if isinstance(source, URLSource):
        return source.url
    return ""  # pragma: no cover - only called for file ids and URLs


def _guess(name: str | None) -> str | None:
    if not name:
        return None
    guessed = mimetypes.guess_type(urlsplit(name).path or name)[0]
    if guessed is None:
        return None
    try:
        return _wire_mime(normalize_mime(guessed))
    except ValueError:  # pragma: no cover - mimetypes gives well-formed types
        return None


def _accepted(mime: str) -> bool:
    return (
        mime in IMAGE_TYPES
        or mime in AUDIO_TYPES
        or mime in VIDEO_TYPES
        or mime in DOCUMENT_TYPES
        or mime.startswith("text/")
    )


def _check_mime(block: _Media, mime: str, index: int, position: int) -> None:
    if _accepted(mime):
        return
    hint = ""
    if isinstance(block, ImageBlock):
        kinds = "PNG, JPEG, WebP, HEIC and HEIF images"
        hint = "; mb.prepare(messages, 'gemini') converts it"
    elif isinstance(block, AudioBlock):
        kinds = "WAV, MP3, AIFF, AAC, Ogg and FLAC audio"
    elif isinstance(block, VideoBlock):
        kinds = "MP4, MPEG, MOV, AVI, FLV, MPG, WebM, WMV and 3GPP video"
    else:
        kinds = "PDF and text documents (and the media types above)"
    raise unsupported(
        PROVIDER, block, index, position, f"Gemini reads {kinds}, this is {mime}{hint}"
    )


def _check_file_store(block: _Media, source: FileIdSource, index: int, position: int) -> None:
    if source.provider is None or _is_gemini(source.provider):
        return
    raise unsupported(
        PROVIDER,
        block,
        index,
        position,
        f"it is a {source.provider} file id; upload the file to the Gemini File API (or give "
        "a gs:// URI) and use its URI",
    )


def _is_gemini(name: str) -> bool:
    try:
        return canonical_provider(name) == PROVIDER
    except UnknownProviderError:
        return name.lower() in ("vertex", "vertex-ai", "vertexai")


def _gemini_reads(url: str) -> bool:
    """URLs Gemini fetches itself by default: YouTube videos and Gemini File API URIs."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in _YOUTUBE_HOSTS:
        return True
    return host == _FILE_API_HOST and "/files/" in parts.path


# -- decode -----------------------------------------------------------------------------------


def from_gemini(payload: Any) -> list[Message]:
    """Messages from a Gemini request (REST body or SDK kwargs), a contents list, or a response.

    Accepts dicts in either spelling (REST camelCase, SDK snake_case dumps), the SDK's own
    objects (``GenerateContentResponse``, ``Content``, ``Part``) and base64 text or raw bytes for
    inline data. Function responses become `ToolMessage`s named and linked to their calls (by
    ``id``, or by name for models that send no ids).
    """
    data = _plain(payload)
    if isinstance(data, dict):
        if any(_get(data, key) is not None for key in _RESPONSE_KEYS):
            return [_Decoder().response(data)]
        contents = _get(data, "contents")
        if contents is not None:
            decoder = _Decoder()
            out: list[Message] = []
            config = _plain(_get(data, "config"))
            instruction = _get(data, "system_instruction") or _get(config, "system_instruction")
            if instruction is not None:
                out.append(decoder.system(instruction))
            out.extend(decoder.contents(contents))
            return out
        if "parts" in data or "role" in data:
            return _Decoder().contents([data])
        raise DecodeError(
            "not a Gemini payload: expected a request with 'contents', a response with "
            "'candidates', or a content with 'parts'"
        )
    if isinstance(data, (list, str)):
        return _Decoder().contents(data)
    raise DecodeError(f"not a Gemini payload: a {type(payload).__name__}")


_RESPONSE_KEYS = ("candidates", "usage_metadata", "prompt_feedback", "response_id")


def _plain(value: Any) -> Any:
    """A dict for an SDK object (the SDK dumps snake_case, bytes kept), or the value as is."""
    if isinstance(value, (dict, list, str, bytes)) or value is None:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="python", exclude_none=True)
        except TypeError:
            return as_dict(value)
    return as_dict(value)


class _Decoder:
    """One decoding pass: tool calls waiting for their response, to name and link results."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, str]] = []
        """(call id, tool name) of calls not answered yet, in order."""

    # -- payload shapes ---------------------------------------------------------------------

    def response(self, data: dict[str, Any]) -> AssistantMessage:
        candidates = _plain(_get(data, "candidates")) or []
        if not isinstance(candidates, list):
            raise DecodeError("Gemini response: 'candidates' is not a list")
        candidate = _plain(candidates[0]) if candidates else {}
        if not isinstance(candidate, dict):
            raise DecodeError("Gemini response: candidate 0 is not an object")
        content = _plain(_get(candidate, "content")) or {}
        parts = _get(content, "parts") or []
        blocks = self.blocks(parts, "Gemini response")
        reason = _enum_text(_get(candidate, "finish_reason"))
        feedback = _plain(_get(data, "prompt_feedback"))
        if reason is None and isinstance(feedback, dict):
            reason = _enum_text(_get(feedback, "block_reason"))
        notes = {
            key: _json_safe(_respell(_plain(value), _snake_key))
            for key in _CANDIDATE_NOTES
            if (value := _get(candidate, key)) is not None
        }
        if feedback:
            notes["prompt_feedback"] = _json_safe(_respell(feedback, _snake_key))
        model = _get(data, "model_version")
        response_id = _get(data, "response_id")
        return AssistantMessage(
            content=blocks,
            provider=PROVIDER,
            usage=_usage(_get(data, "usage_metadata")),
            stop_reason=reason,
            model=model if isinstance(model, str) and model else None,
            response_id=response_id if isinstance(response_id, str) and response_id else None,
            metadata={PROVIDER: notes} if notes else {},
        )

    def system(self, value: Any) -> SystemMessage:
        value = _plain(value)
        if isinstance(value, str):
            return SystemMessage(content=[TextBlock(text=value)])
        if isinstance(value, dict):
            is_content = "parts" in value or "role" in value
            parts = (value.get("parts") or []) if is_content else [value]
        elif isinstance(value, list):
            parts = value
        else:
            raise DecodeError("Gemini system instruction is not text, a content or parts")
        return SystemMessage(content=self.blocks(parts, "Gemini system instruction"))

    def contents(self, items: Any) -> list[Message]:
        out: list[Message] = []
        for position, (role, parts) in enumerate(_contents_list(items)):
            where = f"Gemini content {position}"
            if role == "model":
                blocks = self.blocks(parts, where)
                self.pending.extend((b.id, b.name) for b in blocks if isinstance(b, ToolCallBlock))
                out.append(AssistantMessage(content=blocks, provider=PROVIDER))
            elif role in ("user", "function", "tool"):
                out.extend(user_turns(self.blocks(parts, where)))
            elif role == "system":
                out.append(SystemMessage(content=self.blocks(parts, where)))
            else:
                raise DecodeError(f"{where} has role {role!r}, not user or model")
        return out

    def blocks(self, parts: Any, where: str) -> list[Block]:
        parts = _plain(parts)
        if isinstance(parts, (str, dict)):
            parts = [parts]
        if not isinstance(parts, list):
            raise DecodeError(f"{where}: parts is a {type(parts).__name__}, not a list")
        return [self.part(raw, f"{where}, part {number}") for number, raw in enumerate(parts)]

    # -- parts ------------------------------------------------------------------------------

    def part(self, raw: Any, where: str) -> Block:
        value = _plain(raw)
        if isinstance(value, str):
            return TextBlock(text=value)
        if not isinstance(value, dict):
            raise DecodeError(f"{where} is a {type(raw).__name__}, not a part object")
        part: dict[str, Any] = _respell(value, _snake_key)
        signature = _signature(part.pop("thought_signature", None), where)
        if isinstance(part.get("function_call"), dict):
            return self._tool_call(part, signature, where)
        if isinstance(part.get("function_response"), dict):
            return self._tool_result(part, signature, where)
        if isinstance(part.get("text"), str):
            return _text_part(part, signature)
        if isinstance(part.get("inline_data"), dict) or isinstance(part.get("file_data"), dict):
            block = _media_part(part, signature, where)
            if block is not None:
                return block
        if signature is not None:
            part["thought_signature"] = signature
        return RawBlock(provider=PROVIDER, data=_json_safe(_respell(part, _camel_key)))

    def _tool_call(self, part: dict[str, Any], signature: str | None, where: str) -> Block:
        call = dict(part.pop("function_call"))
        name = call.pop("name", None)
        if not isinstance(name, str) or not name:
            raise DecodeError(f"{where}: function_call has no name")
        call_id = call.pop("id", None)
        args = call.pop("args", None)
        raw_args: str | None = None
        if args is None:
            args = {}
        elif not isinstance(args, dict):
            args, raw_args = {}, json.dumps(_json_safe(args))
        stored = _stored(part, signature, function_call=call)
        if not isinstance(call_id, str) or not call_id:
            call_id = synthetic_call_id("gemini_call_", name, args, where)
            stored.setdefault(PROVIDER, {})[_SYNTHETIC_ID] = True
        return ToolCallBlock(
            id=call_id, name=name, args=args, raw_args=raw_args, provider_data=stored
        )

    def _tool_result(self, part: dict[str, Any], signature: str | None, where: str) -> Block:
        body = dict(part.pop("function_response"))
        name = body.pop("name", None)
        call_id = body.pop("id", None)
        response = body.pop("response", None)
        inner = body.pop("parts", None) or []
        if not isinstance(inner, list):
            raise DecodeError(f"{where}: function_response parts is not a list")
        marks: dict[str, Any] = {}
        if isinstance(call_id, str) and call_id:
            self._answer(lambda pending: pending[0] == call_id)
        else:
            found = self._answer(lambda pending: pending[1] == name)
            call_id = found[0] if found else synthetic_call_id("gemini_call_", name, None, where)
            marks[_SYNTHETIC_ID] = True
        text, is_error, as_json = _response_text(response, where)
        if as_json:
            marks[_RESPONSE_JSON] = True
        content: list[ContentBlock] = [TextBlock(text=text)] if text and inner else []
        for number, item in enumerate(inner):
            content.append(self._response_part(item, f"{where}, response part {number}"))
        stored = _stored(part, signature, function_response=body)
        if marks:
            stored.setdefault(PROVIDER, {}).update(marks)
        return ToolResultBlock(
            tool_call_id=call_id,
            content=content or text,
            is_error=is_error,
            name=name if isinstance(name, str) and name else None,
            provider_data=stored,
        )

    def _response_part(self, raw: Any, where: str) -> ContentBlock:
        value = _plain(raw)
        if not isinstance(value, dict):
            raise DecodeError(f"{where} is a {type(raw).__name__}, not a part object")
        part: dict[str, Any] = _respell(value, _snake_key)
        block = _media_part(part, None, where)
        if block is None:
            return RawBlock(provider=PROVIDER, data=_json_safe(_respell(part, _camel_key)))
        return block

    def _answer(self, matches: Any) -> tuple[str, str] | None:
        for number, pending in enumerate(self.pending):
            if matches(pending):
                return self.pending.pop(number)
        return None


_CANDIDATE_NOTES = (
    "finish_message",
    "citation_metadata",
    "grounding_metadata",
    "url_context_metadata",
    "safety_ratings",
    "avg_logprobs",
    "logprobs_result",
)


def _contents_list(items: Any) -> list[tuple[str, Any]]:
    """``(role, parts)`` pairs: a list of contents, one content, text, or bare parts (which the
    SDK groups into one user content, as here)."""
    items = _plain(items)
    if isinstance(items, (str, dict)):
        items = [items]
    if not isinstance(items, list):
        raise DecodeError(f"Gemini contents is a {type(items).__name__}, not a list")
    out: list[tuple[str, Any]] = []
    loose: list[Any] = []
    for raw in items:
        item = _plain(raw)
        if isinstance(item, dict) and ("parts" in item or "role" in item):
            if loose:
                out.append(("user", loose))
                loose = []
            role = item.get("role") or "user"
            out.append((_enum_text(role) or "user", item.get("parts") or []))
        elif isinstance(item, (dict, str)):
            loose.append(item)
        else:
            raise DecodeError(f"Gemini contents holds a {type(raw).__name__}, not a content")
    if loose:
        out.append(("user", loose))
    return out


def _signature(value: Any, where: str) -> str | None:
    """A thought signature as base64 text: SDK bytes are encoded, JSON text is checked."""
    if value is None or value in (b"", ""):
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b64encode(value)
    if isinstance(value, str):
        b64decode(value, what=f"{where}: thought_signature")
        return value
    raise DecodeError(f"{where}: thought_signature is a {type(value).__name__}, not bytes")


def _stored(
    part: dict[str, Any], signature: str | None, **inner: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """``provider_data`` holding what mediablocks does not model: the part's other fields, the
    unmodelled fields of its inner object, and the thought signature."""
    extras: dict[str, Any] = {
        key: value for key, value in part.items() if key not in inner and value is not None
    }
    for key, value in inner.items():
        if value:
            extras[key] = value
    if signature is not None:
        extras["thought_signature"] = signature
    return {PROVIDER: _json_safe(extras)} if extras else {}


def _text_part(part: dict[str, Any], signature: str | None) -> Block:
    text: str = part.pop("text")
    if part.get("thought") is True:
        del part["thought"]
        return ThinkingBlock(
            thinking=text,
            signature=signature,
            provider=PROVIDER,
            provider_data=_stored(part, None),
        )
    return TextBlock(text=text, provider_data=_stored(part, signature))


_CLASSES: dict[str, type[_Media]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
}


def _class_for(mime: str | None, uri: str | None = None) -> type[_Media]:
    if mime is None and uri is not None:
        if (urlsplit(uri).hostname or "").lower() in _YOUTUBE_HOSTS:
            return VideoBlock
        mime = _guess(uri)
    kind = mime.split("/", 1)[0] if mime else ""
    return _CLASSES.get(kind, FileBlock)


def _media_part(part: dict[str, Any], signature: str | None, where: str) -> _Media | None:
    """A media block from an ``inline_data`` or ``file_data`` part; None for a shape we do not
    know (kept as a raw part by the caller)."""
    part = dict(part)
    inline = part.pop("inline_data", None)
    file_data = part.pop("file_data", None) if inline is None else None
    try:
        if isinstance(inline, dict):
            inline = dict(inline)
            mime = inline.pop("mime_type", None)
            data = inline.pop("data", None)
            if not isinstance(mime, str) or data is None:
                raise DecodeError(f"{where}: inline_data needs mime_type and data")
            raw = data if isinstance(data, bytes) else _blob(data, where)
            block: _Media = _class_for(normalize_mime(mime)).from_bytes(raw, mime)
            if _wire_mime(block.mime_type) != mime and normalize_mime(mime) == block.mime_type:
                inline["mime_type"] = mime  # an exact spelling (say, audio/L16;rate=24000)
            stored = _stored(part, signature, inline_data=inline)
        elif isinstance(file_data, dict):
            file_data = dict(file_data)
            uri = file_data.pop("file_uri", None)
            mime = file_data.pop("mime_type", None)
            if not isinstance(uri, str) or not uri:
                raise DecodeError(f"{where}: file_data has no file_uri")
            if mime is not None and not isinstance(mime, str):
                raise DecodeError(f"{where}: file_data mime_type is not text")
            block = _file_block(uri, mime)
            stored = _stored(part, signature, file_data=file_data)
            if isinstance(block.source, URLSource) and not _Encoder(
                EncodeOptions()
            )._url_goes_as_uri(uri):  # a URL the default would download: remember the URI form
                stored.setdefault(PROVIDER, {})[_AS_FILE_URI] = True
        else:
            return None
    except DecodeError:
        raise
    except MediaBlocksError as exc:
        raise DecodeError(f"{where}: {exc}") from exc
    if stored:
        block = block.model_copy(update={"provider_data": stored})
    return block


def _file_block(uri: str, mime: str | None) -> _Media:
    """A URL block for a plain http(s) URL, else a Gemini file id (File API URI, gs://...).

    The declared type is left out when it is what the URI's extension says anyway, so a block
    encoded and decoded again is equal to the original.
    """
    cls = _class_for(normalize_mime(mime) if mime else None, uri)
    declared = None if mime is None or _guess(uri) == mime else mime
    scheme = urlsplit(uri).scheme.lower()
    if scheme in ("http", "https") and not _is_file_api(uri):
        return cls.from_url(uri, declared)
    return cls.from_file_id(uri, declared, provider=PROVIDER)


def _is_file_api(uri: str) -> bool:
    parts = urlsplit(uri)
    return (parts.hostname or "").lower() == _FILE_API_HOST and "/files/" in parts.path


def _blob(data: Any, where: str) -> bytes:
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        return b64decode(data, what=f"{where}: inline_data")
    raise DecodeError(f"{where}: inline_data data is a {type(data).__name__}, not bytes")


def _response_text(response: Any, where: str) -> tuple[str, bool, bool]:
    """``(text, is_error, is_json)`` of a function response object."""
    if response is None:
        return "", False, False
    if not isinstance(response, dict):
        raise DecodeError(f"{where}: function_response response is not an object")
    if len(response) == 1:
        key, value = next(iter(response.items()))
        if key in ("output", "error") and isinstance(value, str):
            return value, key == "error", False
    return json.dumps(_json_safe(response), ensure_ascii=False), False, True


def _usage(value: Any) -> Usage | None:
    """Token counts. ``input_tokens`` is the prompt (cached part included) plus tool-use prompt
    tokens; ``output_tokens`` the candidates plus thoughts, which Gemini bills as output."""
    usage = _plain(value)
    if not isinstance(usage, dict):
        return None
    thoughts = usage_count(_get(usage, "thoughts_token_count"))
    return Usage(
        input_tokens=usage_count(_get(usage, "prompt_token_count"))
        + usage_count(_get(usage, "tool_use_prompt_token_count")),
        output_tokens=usage_count(_get(usage, "candidates_token_count")) + thoughts,
        cache_read_tokens=usage_count(_get(usage, "cached_content_token_count")),
        reasoning_tokens=thoughts,
        raw=_json_safe(usage),
    )


def _enum_text(value: Any) -> str | None:
    """``STOP`` from ``"STOP"``, ``FinishReason.STOP`` or the enum itself."""
    if isinstance(value, Enum):
        value = value.value
    if not isinstance(value, str) or not value:
        return None
    return (
        value.rsplit(".", 1)[-1] if value.startswith(("FinishReason.", "BlockedReason.")) else value
    )


def _json_safe(value: Any) -> Any:
    """Bytes as base64 (the REST spelling), enums as their value, datetimes as ISO text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b64encode(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value
