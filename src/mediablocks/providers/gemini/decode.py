"""Gemini decoding: `from_gemini` reads requests, content lists and ``GenerateContentResponse``s.

See ``translate`` for what maps to what; both spellings (snake_case from the SDK's dumps, camelCase
from the REST API) are accepted everywhere.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any
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
from ...errors import DecodeError, MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    Usage,
)
from ...mime import normalize_mime
from ...sources import URLSource
from .._common import (
    synthetic_call_id,
    usage_count,
    user_turns,
)
from .._payload import decode_payload, wire_object
from ._envelope import _FINISH_REASONS, _RESPONSE_FIELDS, _envelope_notes
from ._wire import (
    _AS_FILE_URI,
    _EMPTY_PART,
    _FILE_API_HOST,
    _NO_ARGS,
    _NO_TYPE,
    _RESPONSE_JSON,
    _SENT_TYPE,
    _SYNTHETIC_ID,
    _YOUTUBE_HOSTS,
    NEW_CONTENT,
    NO_ROLE,
    PROVIDER,
    _camel_key,
    _gemini_reads,
    _get,
    _guess,
    _json_safe,
    _Media,
    _plain,
    _respell,
    _snake_key,
    _wire_mime,
    documented_type,
)

# -- decode -----------------------------------------------------------------------------------


def from_gemini(payload: Any) -> list[Message]:
    """Messages from a Gemini request (REST body or SDK kwargs), a contents list, or a response.

    Accepts dicts in either spelling (REST camelCase, SDK snake_case dumps), the SDK's own
    objects (``GenerateContentResponse``, ``Content``, ``Part``) and base64 text or raw bytes for
    inline data. Function responses become `ToolMessage`s named and linked to their calls (by
    ``id``, or by name for models that send no ids).
    """
    return decode_payload(
        payload,
        "a Gemini payload",
        lambda items: _Decoder().contents(items),
        ("a response with 'candidates'", _is_response, lambda data: _Decoder().response(data)),
        request=("a request with 'contents'", _is_request, _request_from_gemini),
        item=("a content with 'parts'", lambda data: "parts" in data or "role" in data),
        plain=_plain,
        item_types=(list, str),
    )


def _is_response(data: dict[str, Any]) -> bool:
    return any(_get(data, key) is not None for key in _RESPONSE_KEYS)


def _is_request(data: dict[str, Any]) -> bool:
    return _get(data, "contents") is not None


def _request_from_gemini(data: dict[str, Any]) -> list[Message]:
    decoder = _Decoder()
    out: list[Message] = []
    config = _plain(_get(data, "config"))
    instruction = _get(data, "system_instruction") or _get(config, "system_instruction")
    if instruction is not None:
        out.append(decoder.system(instruction))
    out.extend(decoder.contents(_get(data, "contents")))
    return out


_RESPONSE_KEYS = ("candidates", "usage_metadata", "prompt_feedback", "response_id")


class _Decoder:
    """One decoding pass: tool calls waiting for their response, to name and link results."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, str]] = []
        """(call id, tool name) of calls not answered yet, in order."""

    # -- payload shapes ---------------------------------------------------------------------

    def response(self, data: dict[str, Any]) -> AssistantMessage:
        sent = _plain(_get(data, "candidates"))
        candidates = sent or []
        if not isinstance(candidates, list):
            raise DecodeError("Gemini response: 'candidates' is not a list")
        candidate = _plain(candidates[0]) if candidates else {}
        if not isinstance(candidate, dict):
            raise DecodeError("Gemini response: candidate 0 is not an object")
        content = _plain(_get(candidate, "content")) or {}
        parts = _get(content, "parts") or []
        blocks = self.blocks(parts, "Gemini response")
        shape = _envelope_notes(sent, candidate, content)
        reason = _enum_text(_get(candidate, "finish_reason"))
        normal = _FINISH_REASONS.get(reason or "")
        feedback = _plain(_get(data, "prompt_feedback"))
        if reason is None and isinstance(feedback, dict):
            reason = _enum_text(_get(feedback, "block_reason"))
            if reason is not None:  # the prompt itself was blocked
                normal = "refusal" if reason == "JAILBREAK" else "content_filter"
        notes = {
            key: _json_safe(_respell(_plain(value), _snake_key))
            for key in _CANDIDATE_NOTES
            if (value := _get(candidate, key)) is not None
        }
        if feedback is not None:
            notes["prompt_feedback"] = _json_safe(_respell(feedback, _snake_key))
        notes.update(shape)
        other = {
            key: value
            for key, value in data.items()
            if _snake_key(key) not in _RESPONSE_FIELDS and value is not None
        }
        if other:  # createTime (Vertex AI) and whatever comes next, as sent
            notes["response_fields"] = _json_safe(_plain(other))
        model = _get(data, "model_version")
        response_id = _get(data, "response_id")
        return AssistantMessage(
            content=blocks,
            provider=PROVIDER,
            usage=_usage(_get(data, "usage_metadata")),
            stop_reason=normal or reason,
            provider_stop_reason=reason if normal else None,
            model=model if isinstance(model, str) and model else None,
            response_id=response_id if isinstance(response_id, str) and response_id else None,
            metadata={PROVIDER: notes} if notes else {},
        )

    def system(self, value: Any) -> SystemMessage:
        value = _plain(value)
        if isinstance(value, str):
            return SystemMessage(content=[TextBlock(text=value)])
        role = None
        if isinstance(value, dict):
            is_content = "parts" in value or "role" in value
            parts = (value.get("parts") or []) if is_content else [value]
            role = _enum_text(value.get("role")) if is_content else None
        elif isinstance(value, list):
            parts = value
        else:
            raise DecodeError("Gemini system instruction is not text, a content or parts")
        blocks = self.blocks(parts, "Gemini system instruction")
        # google-genai names the instruction's role (user): it goes back as it came
        return SystemMessage(content=blocks, metadata={PROVIDER: {"role": role}} if role else {})

    def contents(self, items: Any) -> list[Message]:
        out: list[Message] = []
        previous: str | None = None
        for position, (role, parts, named) in enumerate(_contents_list(items)):
            where = f"Gemini content {position}"
            made: list[Message]
            if role == "model":
                blocks = self.blocks(parts, where)
                self.pending.extend((b.id, b.name) for b in blocks if isinstance(b, ToolCallBlock))
                made = [AssistantMessage(content=blocks, provider=PROVIDER)]
            elif role in ("user", "function", "tool"):
                made = user_turns(self.blocks(parts, where))
            elif role == "system":
                made = [SystemMessage(content=self.blocks(parts, where))]
            else:
                raise DecodeError(f"{where} has role {role!r}, not user or model")
            notes: dict[str, Any] = {}
            if role == previous and role in ("user", "model"):
                notes[NEW_CONTENT] = True  # two contents of one role in a row: kept apart
            if not named:
                notes[NO_ROLE] = True
            elif role in ("function", "tool"):
                notes["role"] = role  # legacy names of a user turn of function responses
            if notes and made:
                made[0] = made[0].model_copy(update={"metadata": {PROVIDER: notes}})
            out.extend(made)
            previous = role
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
        no_args = args is None
        if args is None:
            args = {}
        elif not isinstance(args, dict):
            args, raw_args = {}, json.dumps(_json_safe(args))
        stored = _stored(part, signature, function_call=call)
        if no_args:
            stored.setdefault(PROVIDER, {})[_NO_ARGS] = True  # goes back without args
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
        value = wire_object(raw, where, "a part object", _plain)
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


def _contents_list(items: Any) -> list[tuple[str, Any, bool]]:
    """``(role, parts, whether the role was named)``: a list of contents, one content, text, or
    bare parts (which the SDK groups into one user content, as here)."""
    items = _plain(items)
    if isinstance(items, (str, dict)):
        items = [items]
    if not isinstance(items, list):
        raise DecodeError(f"Gemini contents is a {type(items).__name__}, not a list")
    out: list[tuple[str, Any, bool]] = []
    loose: list[Any] = []
    for raw in items:
        item = _plain(raw)
        if isinstance(item, dict) and ("parts" in item or "role" in item):
            if loose:
                out.append(("user", loose, True))
                loose = []
            role = _enum_text(item.get("role"))
            out.append((role or "user", item.get("parts") or [], role is not None))
        elif isinstance(item, (dict, str)):
            loose.append(item)
        else:
            raise DecodeError(f"Gemini contents holds a {type(raw).__name__}, not a content")
    if loose:
        out.append(("user", loose, True))
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
    stored = _stored(part, signature)
    if not text and not stored:
        stored = {PROVIDER: {_EMPTY_PART: True}}  # an empty part the reply had goes back
    return TextBlock(text=text, provider_data=stored)


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
            cls = _class_for(normalize_mime(mime))
            name = _display_name(inline, where) if cls is FileBlock else None
            block: _Media = cls.from_bytes(raw, mime, filename=name)
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
            name = _display_name(file_data, where) if isinstance(block, FileBlock) else None
            if name is not None:
                block = block.model_copy(update={"filename": name})
            stored = _stored(part, signature, file_data=file_data)
            if mime is not None and not documented_type(_wire_mime(mime)):
                stored.setdefault(PROVIDER, {})[_SENT_TYPE] = _wire_mime(mime)
            elif mime is None and _guess(uri) is not None:
                stored.setdefault(PROVIDER, {})[_NO_TYPE] = True  # not to be guessed back in
            if isinstance(block.source, URLSource) and not _gemini_reads(uri):
                # an http(s) URL the default would download: remember it came as file_data
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


def _display_name(blob: dict[str, Any], where: str) -> str | None:
    """A document blob's ``display_name`` (google-genai's ``Blob.display_name``, "a label or
    filename"), popped: it is the `FileBlock`'s ``filename``. Other media keep theirs as an
    unmodelled field (a photo's file name is not content the model reads)."""
    name = blob.pop("display_name", None)
    if name is not None and not isinstance(name, str):
        raise DecodeError(f"{where}: display_name is not text")
    return name or None


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
