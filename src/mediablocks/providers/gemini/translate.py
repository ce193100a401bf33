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
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from typing_extensions import assert_never

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...datauri import b64decode
from ...errors import MediaBlocksError, UnknownProviderError, UnsupportedBlockError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    Message,
    SystemMessage,
)
from ...sources import FileIdSource, URLSource
from .._common import (
    SystemBlock,
    bytes_or_base64,
    file_id_of,
    group_turns,
    is_own_thinking,
    object_args,
    results_first,
    system_parts,
    tool_results,
    unsupported,
)
from .._options import EncodeOptions, canonical_provider
from .._report import drop_or_raise
from ._wire import (
    _AS_FILE_URI,
    _MARKERS,
    _NO_ARGS,
    _NO_TYPE,
    _RESPONSE_JSON,
    _SENT_TYPE,
    _SYNTHETIC_ID,
    NEW_CONTENT,
    NO_ROLE,
    PROVIDER,
    TOOL_RESULT_TYPES,
    _camel_key,
    _gemini_reads,
    _guess,
    _Media,
    _respell,
    _snake_key,
    _wire_mime,
    documented_type,
)
from .decode import from_gemini

__all__ = ["from_gemini", "to_gemini"]

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
            starts_turn=lambda message: bool(_content_note(message, NEW_CONTENT)),
            role_for=_role_for,
        )
        contents = [
            {
                **({"role": role} if role else {}),
                "parts": results_first(parts, _is_response) if role != "model" else parts,
            }
            for role, parts in turns
        ]
        out: dict[str, Any] = {"contents": self._spelled(contents)}
        if system:
            role = _system_role(messages)
            instruction = self._spelled({**({"role": role} if role else {}), "parts": system})
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
        why = "Gemini system instructions take text only"
        return system_parts(PROVIDER, blocks, index, self._system_part, why)

    def _system_part(self, block: SystemBlock, index: int, position: int) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return self._text(block)
        if isinstance(block, ThinkingBlock):
            return self._thinking(block, replay=False)
        return self._raw(block, index, position)

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
        if isinstance(block, (ThinkingBlock, ToolCallBlock, ToolResultBlock)):
            raise unsupported(PROVIDER, block, index, position, "not allowed here")
        assert_never(block)

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
        if not args and block.for_provider(PROVIDER).get(_NO_ARGS):
            del call["args"]
        if not synthetic and block.id:  # Gemini matches by name: an empty id is left out
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
        if not synthetic and block.tool_call_id:
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
        title = block.for_provider("anthropic").get("title")
        if isinstance(title, str) and title:
            # A document's title is text the model reads; Gemini has no field for it (a
            # document's filename goes as the blob's display_name, a label only).
            drop_or_raise(
                self.options,
                PROVIDER,
                f"the anthropic document title {title!r} of {block.describe()}",
                "gemini has no field for a document's title",
                message=index,
                position=position,
                error=UnsupportedBlockError,
            )
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
        if isinstance(block, FileBlock) and block.filename not in (None, title):
            blob["display_name"] = block.filename  # google-genai's Blob.display_name
        return {"inline_data": blob}

    def _file_data(self, block: _Media, uri: str, index: int, position: int) -> dict[str, Any]:
        mime = None if block.for_provider(PROVIDER).get(_NO_TYPE) else _known_mime(block)
        file_data: dict[str, Any] = {"file_uri": uri}
        if isinstance(block, FileBlock) and block.filename not in (None, _file_name(uri)):
            file_data["display_name"] = block.filename
        if mime is not None:
            if not _from_gemini(block):  # what Gemini itself sent back is its to judge
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
        if self.options.url_media == "auto":
            return _gemini_reads(url)
        assert_never(self.options.url_media)


def _role_for(message: Message, role: str) -> str:
    """The role a decoded content had: none, or one Gemini takes besides user and model (the
    legacy ``function`` role of function responses)."""
    if _content_note(message, NO_ROLE):
        return ""
    named = _content_note(message, "role")
    return named if isinstance(named, str) and named and role == "user" else role


def _content_note(message: Message, name: str) -> Any:
    """A note the decoder left on a message about the content it came from."""
    notes = message.metadata.get(PROVIDER) if isinstance(message.metadata, dict) else None
    return notes.get(name) if isinstance(notes, dict) else None


def _system_role(messages: Sequence[Message]) -> str | None:
    """The role a decoded system instruction named (google-genai sends ``user``), if any."""
    for message in messages:
        if isinstance(message, SystemMessage):
            role = _content_note(message, "role")
            return role if isinstance(role, str) else None
    return None


def _file_name(uri: str) -> str:
    """The last segment of a URI's path: the name a file id block is given by default."""
    return urlsplit(uri).path.rsplit("/", 1)[-1]


def _from_gemini(block: _Media) -> bool:
    """True for a file URI Gemini itself sent with a type its docs do not list."""
    return block.for_provider(PROVIDER).get(_SENT_TYPE) == _known_mime(block)


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


def _accepted(mime: str) -> bool:
    return documented_type(mime)


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
