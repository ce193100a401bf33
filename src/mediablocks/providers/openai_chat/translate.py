"""OpenAI Chat Completions: `to_openai_chat` builds ``client.chat.completions.create`` fields,
`from_openai_chat` reads requests, message lists and responses back.

What maps to what (details and examples in ``docs/providers/openai-chat.md``):

- system messages -> ``system`` messages; ``developer`` messages decode to `SystemMessage` with
  ``metadata["openai-chat"]["role"] == "developer"`` and go back out as ``developer``.
- text -> ``text`` parts; a message holding exactly one text block is sent as a plain string.
- images -> ``image_url`` parts: the URL itself (OpenAI fetches images) or a data URI, with
  ``ImageBlock.detail``. PNG, JPEG, WebP and GIF only.
- audio -> ``input_audio`` parts, format ``wav`` or ``mp3`` from the bytes (other audio raises:
  ``prepare()`` can transcode it).
- PDF files -> ``file`` parts: ``file_data`` (a data URI) with a filename, or an OpenAI
  ``file_id``. Video raises.
- tool calls -> ``tool_calls`` with JSON-text arguments; tool results -> ``tool`` messages holding
  text; media in tool results follow ``options.tool_result_media``.
- thinking: Chat Completions has no replayable reasoning, so all thinking follows
  ``options.thinking`` (dropped, or sent as text). ``reasoning_content`` / ``reasoning`` fields
  that OpenAI-compatible servers return decode to `ThinkingBlock`.
- assistant refusals decode to `TextBlock` marked in ``provider_data``; assistant audio to an
  `AudioBlock` that goes back out as ``audio: {"id": ...}``; unknown parts to `RawBlock`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, TypeVar, Union

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...datauri import b64decode
from ...errors import DecodeError, MediaBlocksError
from ...media import AudioBlock, FileBlock, ImageBlock, MediaBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    Usage,
    UserMessage,
)
from ...mime import detect_mime
from ...sources import URLSource
from .._common import (
    add_tool_result,
    as_dict,
    base64_data,
    blocks_from_content,
    data_uri,
    default_filename,
    dump_args,
    file_id_of,
    inline_mime,
    media_from_reference,
    sendable,
    tool_args,
    tool_result_content,
    unsupported,
    usage_count,
    use_url,
)
from .._options import EncodeOptions

_NOTHING_SAID = {"role": "assistant", "content": ""}
"""An assistant message left with nothing to send: not sent, as for every provider."""

__all__ = ["FILE_STORE", "PROVIDER", "from_openai_chat", "to_openai_chat"]

PROVIDER = "openai-chat"
FILE_STORE = "openai"
"""``FileIdSource.provider`` of decoded OpenAI file ids: the Chat and Responses APIs share one
file store, so ids marked ``openai``, ``openai-chat`` or ``openai-responses`` all go out."""
OPENAI_STORES = frozenset({"openai", "openai-chat", "openai-responses"})
"""``FileIdSource.provider`` values whose ids both OpenAI APIs take (no provider is taken too)."""
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
_IMAGE_DETAILS = ("auto", "low", "high")
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}
_FORMAT_MIMES = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_PDF = "application/pdf"
_REASONING_FIELDS = ("reasoning_content", "reasoning")

_Media = Union[ImageBlock, AudioBlock, VideoBlock, FileBlock]
_M = TypeVar("_M", bound=MediaBlock)

# The keys of each part type that mediablocks models; any other key (``prompt_cache_breakpoint``
# and whatever OpenAI adds next) is kept in ``provider_data["openai-chat"]["extra"]`` and sent back.
_KNOWN_KEYS = {
    "text": frozenset({"type", "text"}),
    "image_url": frozenset({"type", "image_url"}),
    "input_audio": frozenset({"type", "input_audio"}),
    "file": frozenset({"type", "file"}),
    "refusal": frozenset({"type", "refusal"}),
}


# -- encode -----------------------------------------------------------------------------------


def to_openai_chat(
    messages: Sequence[Message], options: EncodeOptions | None = None
) -> dict[str, Any]:
    """The ``messages`` field of ``client.chat.completions.create(model=..., **fields)``.

    The JSON target is the same: OpenAI's SDK and HTTP API both take base64 text and data URIs.
    """
    encoder = _Encoder(options or EncodeOptions())
    return {"messages": encoder.run(messages)}


class _Encoder:
    """One encoding pass: the messages so far and media moved out of tool results."""

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.out: list[dict[str, Any]] = []
        self.moved: list[dict[str, Any]] = []
        """Parts for the user message that follows a run of tool messages."""

    def run(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        for index, message in sendable(messages):
            if isinstance(message, ToolMessage):
                for position, block in enumerate(message.content):
                    if not isinstance(block, ToolResultBlock):
                        self._tool_message_extra(block, index, position)
                        continue
                    self.out.append(self._tool_result(block, index, position))
            elif isinstance(message, UserMessage):
                self._user(message, index)
            elif isinstance(message, SystemMessage):
                self._flush_moved()
                system = self._system(message.content, index)
                if _is_developer(message):
                    system["role"] = "developer"
                self.out.append(system)
            elif isinstance(message, AssistantMessage):
                self._flush_moved()
                reply = self._assistant(message.content, index)
                if reply != _NOTHING_SAID:  # every block dropped (say, foreign thinking)
                    self.out.append(reply)
        self._flush_moved()
        return self.out

    def _flush_moved(self) -> None:
        if self.moved:
            self.out.append({"role": "user", "content": self.moved})
            self.moved = []

    def _tool_message_extra(self, block: Block, index: int, position: int) -> None:
        """A verbatim OpenAI message kept in a tool message (a legacy ``function`` message)."""
        if isinstance(block, RawBlock) and block.provider == PROVIDER and _slot(block) == "message":
            self.out.append(dict(block.data))
            return
        raise unsupported(PROVIDER, block, index, position, "a tool message holds tool results")

    # -- roles ------------------------------------------------------------------------------

    def _system(self, blocks: Sequence[Block], index: int) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(blocks):
            if isinstance(block, (TextBlock, ThinkingBlock, RawBlock)):
                part = self._part(block, index, position)
                if part is not None:
                    parts.append(part)
            else:
                raise unsupported(
                    PROVIDER, block, index, position, "OpenAI system messages take text only"
                )
        return {"role": "system", "content": _content_value(parts)}

    def _user(self, message: UserMessage, index: int) -> None:
        """Tool results in a user message go out first as tool messages, then the rest."""
        parts: list[dict[str, Any]] = []
        has_results = False
        for position, block in enumerate(message.content):
            if isinstance(block, ToolResultBlock):
                has_results = True
                self.out.append(self._tool_result(block, index, position))
            elif isinstance(block, ToolCallBlock):
                raise unsupported(
                    PROVIDER, block, index, position, "tool calls belong in assistant messages"
                )
            else:
                part = self._part(block, index, position)
                if part is not None:
                    parts.append(part)
        self._flush_moved()
        if parts or not has_results:
            out: dict[str, Any] = {"role": "user", "content": _content_value(parts)}
            if message.name:
                out["name"] = message.name
            self.out.append(out)

    def _assistant(self, blocks: Sequence[Block], index: int) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        refusals: list[str] = []
        calls: list[dict[str, Any]] = []
        message: dict[str, Any] = {"role": "assistant"}
        for position, block in enumerate(blocks):
            if isinstance(block, ToolCallBlock):
                calls.append(_tool_call_to_openai_chat(block))
            elif isinstance(block, TextBlock) and _refusal_form(block) == "field":
                refusals.append(block.text)
            elif isinstance(block, AudioBlock):
                if "audio" in message:
                    raise unsupported(
                        PROVIDER, block, index, position, "an assistant message has one audio"
                    )
                message["audio"] = _assistant_audio_to_openai_chat(block, index, position)
            elif isinstance(block, RawBlock) and block.provider == PROVIDER:
                slot = _slot(block)
                if slot == "tool_calls":
                    calls.append(dict(block.data))
                elif slot == "function_call":
                    message["function_call"] = dict(block.data)
                elif slot == "part":
                    parts.append(dict(block.data))
                else:
                    raise unsupported(
                        PROVIDER, block, index, position, "a whole message inside a message"
                    )
            elif isinstance(block, (TextBlock, ThinkingBlock, RawBlock)):
                part = self._part(block, index, position)
                if part is not None:
                    parts.append(part)
            else:
                raise unsupported(
                    PROVIDER,
                    block,
                    index,
                    position,
                    "OpenAI assistant messages carry text, refusals, tool calls and earlier "
                    "audio replies by id",
                )
        if parts:
            message["content"] = _content_value(parts)
        elif calls or "audio" in message or "function_call" in message or refusals:
            message["content"] = None
        else:
            message["content"] = ""
        if refusals:
            message["refusal"] = "\n".join(refusals)
        if calls:
            message["tool_calls"] = calls
        return message

    # -- parts ------------------------------------------------------------------------------

    def _part(self, block: Block, index: int, position: int) -> dict[str, Any] | None:
        """One content part (None when the block is dropped by a documented option)."""
        if isinstance(block, TextBlock):
            return _text_to_openai_chat(block)
        if isinstance(block, ThinkingBlock):
            return _thinking_to_openai_chat(block, self.options)
        if isinstance(block, RawBlock):
            return _raw_to_openai_chat(block, index, position)
        if isinstance(block, ImageBlock):
            return _image_to_openai_chat(block, index, position, self.options)
        if isinstance(block, AudioBlock):
            return _audio_to_openai_chat(block, index, position, self.options)
        if isinstance(block, FileBlock):
            return _file_to_openai_chat(block, index, position, self.options)
        if isinstance(block, VideoBlock):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "OpenAI Chat Completions takes no video; send frames as images",
            )
        raise unsupported(PROVIDER, block, index, position, "not allowed here")

    def _tool_result(self, result: ToolResultBlock, index: int, position: int) -> dict[str, Any]:
        """A ``tool`` message: text parts only; media move out per ``tool_result_media``."""
        content: str | list[dict[str, Any]]
        if isinstance(result.content, str):
            content = result.content
        else:
            parts: list[dict[str, Any]] = []
            media: list[_Media] = []
            for block in result.content:
                if isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
                    media.append(block)
                elif isinstance(block, TextBlock):
                    parts.append(_text_to_openai_chat(block))
                else:
                    parts.append(_raw_to_openai_chat(block, index, position))
            if media:
                self._move_media(media, result.tool_call_id, index, position)
            content = _content_value(parts)
        return {"role": "tool", "tool_call_id": result.tool_call_id, "content": content}

    def _move_media(self, media: list[_Media], call_id: str, index: int, position: int) -> None:
        if self.options.tool_result_media == "error":
            raise unsupported(
                PROVIDER,
                media[0],
                index,
                position,
                "OpenAI tool messages carry text only (media in a tool result); "
                "tool_result_media='user_message' moves the media into a user message",
            )
        self.moved.append({"type": "text", "text": f"Media returned by tool call {call_id}:"})
        for block in media:
            part = self._part(block, index, position)
            if part is not None:
                self.moved.append(part)


def _content_value(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A lone plain text part goes out as a string (the form every OpenAI-compatible API takes)."""
    if not parts:
        return ""
    if len(parts) == 1 and parts[0].get("type") == "text" and set(parts[0]) == {"type", "text"}:
        text: str = parts[0]["text"]
        return text
    return parts


def _extra(block: Block) -> dict[str, Any]:
    """The part's unmodelled OpenAI keys, as decoded (``prompt_cache_breakpoint``...)."""
    extra = block.for_provider(PROVIDER).get("extra")
    return dict(extra) if isinstance(extra, dict) else {}


def _stored(part: dict[str, Any], kind: str, **marks: Any) -> dict[str, dict[str, Any]]:
    """``provider_data`` for a decoded part: its unmodelled keys and our own marks."""
    known = _KNOWN_KEYS.get(kind, frozenset({"type"}))
    data: dict[str, Any] = {key: value for key, value in marks.items() if value is not None}
    extra = {key: value for key, value in part.items() if key not in known}
    if extra:
        data["extra"] = extra
    return {PROVIDER: data} if data else {}


# -- text, refusals and thinking ----------------------------------------------------------


def _refusal_form(block: TextBlock) -> str | None:
    """``"field"`` or ``"part"`` for a decoded refusal, None for ordinary text."""
    form = block.for_provider(PROVIDER).get("refusal")
    return form if form in ("field", "part") else None


def _text_to_openai_chat(block: TextBlock) -> dict[str, Any]:
    if _refusal_form(block) == "part":
        return {**_extra(block), "type": "refusal", "refusal": block.text}
    return {**_extra(block), "type": "text", "text": block.text}


def _text_from_openai_chat(part: dict[str, Any], where: str) -> TextBlock:
    text = part.get("text")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: text part has no text string")
    return TextBlock(text=text, provider_data=_stored(part, "text"))


def _refusal_from_openai_chat(part: dict[str, Any], where: str) -> TextBlock:
    text = part.get("refusal")
    if not isinstance(text, str):
        raise DecodeError(f"{where}: refusal part has no refusal string")
    return TextBlock(text=text, provider_data=_stored(part, "refusal", refusal="part"))


def _thinking_to_openai_chat(block: ThinkingBlock, options: EncodeOptions) -> dict[str, Any] | None:
    """Chat Completions cannot replay reasoning (not even its own): drop it, or send it as text."""
    if options.thinking == "text" and block.thinking:
        return {"type": "text", "text": block.thinking}
    return None


def _thinking_from_openai_chat(text: str, field: str) -> ThinkingBlock:
    """The ``reasoning_content`` (or ``reasoning``) text OpenAI-compatible servers return."""
    return ThinkingBlock(
        thinking=text, provider=PROVIDER, provider_data={PROVIDER: {"reasoning_field": field}}
    )


def _raw_to_openai_chat(block: RawBlock, index: int, position: int) -> dict[str, Any]:
    if block.provider != PROVIDER:
        raise unsupported(
            PROVIDER, block, index, position, f"it holds {block.provider} content verbatim"
        )
    if _slot(block) != "part":
        raise unsupported(
            PROVIDER, block, index, position, f"a verbatim {_slot(block)} is not a content part"
        )
    return dict(block.data)


# -- media ----------------------------------------------------------------------------------


def check_inline_image(
    provider: str, block: ImageBlock, index: int, position: int, options: EncodeOptions
) -> None:
    """Raise unless the image, sent inline, is a type OpenAI takes (PNG, JPEG, WebP, GIF)."""
    mime = inline_mime(block, options)
    if mime not in _IMAGE_TYPES:
        raise unsupported(
            provider,
            block,
            index,
            position,
            f"OpenAI takes PNG, JPEG, WebP and GIF images, this is {mime}; prepare() can "
            "convert it",
        )


def _image_to_openai_chat(
    block: ImageBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    if file_id_of(block) is not None:
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            "Chat Completions takes images by URL or inline, not by file id "
            "(the Responses API takes file ids)",
        )
    if use_url(block, True, options):
        assert isinstance(block.source, URLSource)
        url = block.source.url
    else:
        check_inline_image(PROVIDER, block, index, position, options)
        url = data_uri(block, options)
    image_url: dict[str, Any] = {"url": url}
    detail = block.detail or block.for_provider(PROVIDER).get("detail")
    if detail:
        image_url["detail"] = detail
    return {**_extra(block), "type": "image_url", "image_url": image_url}


def _image_from_openai_chat(part: dict[str, Any], where: str) -> ImageBlock:
    value = as_dict(part.get("image_url"))
    detail: Any = None
    if isinstance(value, dict):
        detail = value.get("detail")
        value = value.get("url")
    if not isinstance(value, str) or not value:
        raise DecodeError(f"{where}: image_url part has no URL string")
    block = media_from_reference(ImageBlock, value, None, None, where)
    marks: dict[str, Any] = {}
    if isinstance(detail, str) and detail not in _IMAGE_DETAILS:
        marks["detail"] = detail  # a level newer than ImageBlock.detail knows ("original"...)
    update: dict[str, Any] = {"provider_data": _stored(part, "image_url", **marks)}
    if detail in _IMAGE_DETAILS:
        update["detail"] = detail
    return block.model_copy(update=update)


def _audio_to_openai_chat(
    block: AudioBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    if file_id_of(block) is not None:
        raise unsupported(
            PROVIDER, block, index, position, "OpenAI takes input audio inline, not by file id"
        )
    use_url(block, False, options)  # URL audio is downloaded (or refused for url_media="url")
    mime = inline_mime(block, options)
    audio_format = _AUDIO_FORMATS.get(mime)
    if audio_format is None:
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            f"OpenAI input audio is WAV or MP3, this is {mime}; prepare() can transcode it",
        )
    return {
        **_extra(block),
        "type": "input_audio",
        "input_audio": {"data": base64_data(block, options), "format": audio_format},
    }


def _audio_from_openai_chat(part: dict[str, Any], where: str) -> AudioBlock:
    value = as_dict(part.get("input_audio"))
    if not isinstance(value, dict) or not isinstance(value.get("data"), str):
        raise DecodeError(f"{where}: input_audio part has no base64 data")
    audio_format = value.get("format")
    mime = None
    if isinstance(audio_format, str) and audio_format:
        mime = _FORMAT_MIMES.get(audio_format.lower(), f"audio/{audio_format.lower()}")
    block = media_from_reference(AudioBlock, value["data"], mime, None, where)
    return block.model_copy(update={"provider_data": _stored(part, "input_audio")})


def _assistant_audio_to_openai_chat(block: AudioBlock, index: int, position: int) -> dict[str, Any]:
    """An earlier audio reply is referred to by its id (OpenAI keeps the audio for a while)."""
    source = file_id_of(block)
    audio_id = block.for_provider(PROVIDER).get("audio", {}).get("id")
    if audio_id is None and source is not None and source.provider == PROVIDER:
        audio_id = source.file_id
    if not isinstance(audio_id, str):
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            "an assistant message can only refer to an earlier OpenAI audio reply by its id",
        )
    return {"id": audio_id}


def _assistant_audio_from_openai_chat(value: dict[str, Any], where: str) -> AudioBlock:
    """A response's ``audio`` (bytes, transcript, expiry) or a request's ``{"id": ...}``."""
    audio_id = value.get("id")
    if not isinstance(audio_id, str) or not audio_id:
        raise DecodeError(f"{where}: audio has no id")
    marks = {key: value[key] for key in ("id", "expires_at", "transcript") if key in value}
    data = value.get("data")
    if not isinstance(data, str) or not data:
        block = AudioBlock.from_file_id(audio_id, provider=PROVIDER)
    else:
        raw = _b64(data, where)
        # pcm16 replies have no header to detect: say what they are.
        mime = None if detect_mime(raw) else "audio/pcm"
        try:
            block = AudioBlock.from_bytes(raw, mime)
        except MediaBlocksError as exc:
            raise DecodeError(f"{where}: {exc}") from exc
    return block.model_copy(update={"provider_data": {PROVIDER: {"audio": marks}}})


def _file_to_openai_chat(
    block: FileBlock, index: int, position: int, options: EncodeOptions
) -> dict[str, Any]:
    source = file_id_of(block)
    if source is not None:
        if source.provider is not None and source.provider not in OPENAI_STORES:
            raise unsupported(PROVIDER, block, index, position, f"it is a {source.provider} file")
        return {**_extra(block), "type": "file", "file": {"file_id": source.file_id}}
    use_url(block, False, options)  # Chat Completions has no file URLs: download and inline
    mime = inline_mime(block, options)
    if mime != _PDF:
        raise unsupported(
            PROVIDER,
            block,
            index,
            position,
            f"Chat Completions reads PDF files only, this is {mime}; send text files as text, "
            "or use the Responses API",
        )
    file: dict[str, Any] = {
        "file_data": data_uri(block, options),
        "filename": block.filename or default_filename(mime),
    }
    return {**_extra(block), "type": "file", "file": file}


def _file_from_openai_chat(part: dict[str, Any], where: str) -> FileBlock:
    value = as_dict(part.get("file"))
    if not isinstance(value, dict):
        raise DecodeError(f"{where}: file part has no 'file' object")
    filename = value.get("filename") if isinstance(value.get("filename"), str) else None
    file_id = value.get("file_id")
    file_data = value.get("file_data")
    if isinstance(file_data, str) and file_data:
        block = media_from_reference(FileBlock, file_data, None, filename, where)
    elif isinstance(file_id, str) and file_id:
        block = FileBlock.from_file_id(file_id, provider=FILE_STORE, filename=filename)
    else:
        raise DecodeError(f"{where}: file part has neither file_data nor file_id")
    return block.model_copy(update={"provider_data": _stored(part, "file")})


def _b64(data: str, where: str) -> bytes:
    return b64decode(data, what=f"{where}: base64 data")


# -- tool calls ---------------------------------------------------------------------------


def _tool_call_to_openai_chat(block: ToolCallBlock) -> dict[str, Any]:
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": dump_args(block)},
    }


def _slot(block: RawBlock) -> str:
    """Where a verbatim OpenAI item goes: a content ``part`` (the default), a ``tool_calls``
    entry (custom tool calls), the deprecated ``function_call`` field, or a whole ``message``."""
    slot = block.for_provider(PROVIDER).get("slot")
    return slot if slot in ("tool_calls", "function_call", "message") else "part"


def _raw(data: Any, slot: str | None = None) -> RawBlock:
    marks = {PROVIDER: {"slot": slot}} if slot else {}
    return RawBlock(provider=PROVIDER, data=_json_safe(data), provider_data=marks)


def _tool_call_from_openai_chat(raw: Any, where: str) -> Block:
    call = as_dict(raw)
    if not isinstance(call, dict):
        raise DecodeError(f"{where} is a {type(raw).__name__}, not a tool call object")
    kind = call.get("type", "function")
    if kind != "function":
        return _raw(call, "tool_calls")  # custom tool calls and newer kinds
    function = as_dict(call.get("function"))
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise DecodeError(f"{where}: tool call has no function name")
    arguments = function.get("arguments")
    args, raw_args = tool_args(arguments)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        call_id = "call_" + uuid.uuid4().hex[:24]
    return ToolCallBlock(id=call_id, name=function["name"], args=args, raw_args=raw_args)


def _json_safe(value: Any) -> Any:
    """A plain JSON-safe copy of SDK objects nested in a verbatim part."""
    value = as_dict(value)
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


# -- decode -----------------------------------------------------------------------------------


def from_openai_chat(payload: Any) -> list[Message]:
    """Messages from a Chat Completions request body, a message list, or a response.

    The SDK's objects (``ChatCompletion``, ``ChatCompletionMessage``) are read like dicts. A
    response gives one `AssistantMessage` per choice (usually one), the usage on the first.
    """
    data = as_dict(payload)
    if isinstance(data, dict):
        if "choices" in data:
            return _response_from_openai_chat(data)
        if "messages" in data:
            return _messages_from_openai_chat(data["messages"])
        if "role" in data:
            return _messages_from_openai_chat([data])
        raise DecodeError(
            "not an OpenAI Chat payload: expected a request with 'messages', a response with "
            "'choices', or a message with 'role'"
        )
    if isinstance(data, list):
        return _messages_from_openai_chat(data)
    raise DecodeError(f"not an OpenAI Chat payload: a {type(payload).__name__}")


def _response_from_openai_chat(data: dict[str, Any]) -> list[Message]:
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise DecodeError("OpenAI Chat response: 'choices' is not a list")
    usage = _usage_from_openai_chat(data.get("usage"))
    model = data.get("model") if isinstance(data.get("model"), str) else None
    response_id = data.get("id") if isinstance(data.get("id"), str) else None
    out: list[Message] = []
    for number, raw in enumerate(choices):
        choice = as_dict(raw)
        where = f"OpenAI Chat response choice {number}"
        if not isinstance(choice, dict):
            raise DecodeError(f"{where} is not an object")
        message = as_dict(choice.get("message")) or {"role": "assistant"}
        if not isinstance(message, dict):
            raise DecodeError(f"{where}: message is not an object")
        reason = choice.get("finish_reason")
        out.append(
            _assistant_from_openai_chat(
                message,
                where,
                usage=usage if number == 0 else None,
                stop_reason=reason if isinstance(reason, str) else None,
                model=model or None,
                response_id=response_id or None,
            )
        )
    return out


def _usage_from_openai_chat(value: Any) -> Usage | None:
    usage = as_dict(value)
    if not isinstance(usage, dict):
        return None
    prompt = as_dict(usage.get("prompt_tokens_details")) or {}
    completion = as_dict(usage.get("completion_tokens_details")) or {}
    return Usage(
        input_tokens=usage_count(usage.get("prompt_tokens")),
        output_tokens=usage_count(usage.get("completion_tokens")),
        cache_read_tokens=usage_count(prompt.get("cached_tokens")),
        reasoning_tokens=usage_count(completion.get("reasoning_tokens")),
        raw=usage,
    )


def _messages_from_openai_chat(items: Any) -> list[Message]:
    if not isinstance(items, list):
        raise DecodeError("OpenAI Chat 'messages' is not a list")
    out: list[Message] = []
    names: dict[str, str] = {}  # tool name by call id, for the results' ``name``
    previous_was_tool = False
    for position, raw in enumerate(items):
        item = as_dict(raw)
        where = f"OpenAI Chat message {position}"
        if not isinstance(item, dict):
            raise DecodeError(f"{where} is a {type(raw).__name__}, not a message object")
        role = item.get("role")
        if role in ("tool", "function"):
            block: Block = (
                _tool_result_from_openai_chat(item, where, names)
                if role == "tool"
                else _raw(item, "message")  # a legacy function result, kept verbatim
            )
            add_tool_result(out, block, join=previous_was_tool)
            previous_was_tool = True
            continue
        previous_was_tool = False
        if role in ("system", "developer"):
            content = _content_from_openai_chat(item.get("content"), where)
            notes = {PROVIDER: {"role": "developer"}} if role == "developer" else {}
            out.append(SystemMessage(content=content, metadata=notes))
        elif role == "user":
            name = item.get("name") if isinstance(item.get("name"), str) else None
            content = _content_from_openai_chat(item.get("content"), where)
            out.append(UserMessage(content=content, name=name))
        elif role == "assistant":
            assistant = _assistant_from_openai_chat(item, where)
            names.update({call.id: call.name for call in assistant.tool_calls})
            out.append(assistant)
        else:
            raise DecodeError(
                f"{where} has role {role!r}, not system, developer, user, assistant or tool"
            )
    return out


def _is_developer(message: SystemMessage) -> bool:
    """A system message that came in as OpenAI's ``developer`` role (Chat or Responses)."""
    return any(
        isinstance(notes := message.metadata.get(name), dict) and notes.get("role") == "developer"
        for name in (PROVIDER, "openai-responses")
    )


def _assistant_from_openai_chat(
    item: dict[str, Any], where: str, **fields: Any
) -> AssistantMessage:
    blocks: list[Block] = []
    for field in _REASONING_FIELDS:
        reasoning = item.get(field)
        if isinstance(reasoning, str) and reasoning:
            blocks.append(_thinking_from_openai_chat(reasoning, field))
            break
    content = _content_from_openai_chat(item.get("content"), where)
    annotations = item.get("annotations")
    if annotations and len(content) == 1 and isinstance(content[0], TextBlock):
        # Message-level citations index into the content text: kept with that text.
        text = content[0]
        stored = {**text.for_provider(PROVIDER), "annotations": _json_safe(annotations)}
        content = [text.model_copy(update={"provider_data": {PROVIDER: stored}})]
    blocks.extend(content)
    refusal = item.get("refusal")
    if isinstance(refusal, str) and refusal:
        blocks.append(TextBlock(text=refusal, provider_data={PROVIDER: {"refusal": "field"}}))
    audio = as_dict(item.get("audio"))
    if isinstance(audio, dict):
        blocks.append(_assistant_audio_from_openai_chat(audio, f"{where}, audio"))
    calls = item.get("tool_calls") or []
    if not isinstance(calls, list):
        raise DecodeError(f"{where}: tool_calls is not a list")
    for number, call in enumerate(calls):
        blocks.append(_tool_call_from_openai_chat(call, f"{where}, tool call {number}"))
    function_call = item.get("function_call")
    if function_call:  # the deprecated single call, kept verbatim
        blocks.append(_raw(function_call, "function_call"))
    return AssistantMessage(content=blocks, provider=PROVIDER, **fields)


def _content_from_openai_chat(content: Any, where: str) -> list[Block]:
    return blocks_from_content(content, where, _part_from_openai_chat, "part")


def _part_from_openai_chat(raw: Any, where: str) -> Block:
    part = as_dict(raw)
    if not isinstance(part, dict):
        raise DecodeError(f"{where} is a {type(raw).__name__}, not a content part object")
    kind = part.get("type")
    if kind == "text":
        return _text_from_openai_chat(part, where)
    if kind == "image_url":
        return _image_from_openai_chat(part, where)
    if kind == "input_audio":
        return _audio_from_openai_chat(part, where)
    if kind == "file":
        return _file_from_openai_chat(part, where)
    if kind == "refusal":
        return _refusal_from_openai_chat(part, where)
    return _raw(part)


def _tool_result_from_openai_chat(
    item: dict[str, Any], where: str, names: dict[str, str]
) -> ToolResultBlock:
    call_id = item.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise DecodeError(f"{where}: tool message has no tool_call_id")
    result = tool_result_content(
        item.get("content"), where, _part_from_openai_chat, "content", "part"
    )
    return ToolResultBlock(tool_call_id=call_id, content=result, name=names.get(call_id))
