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

from collections.abc import Sequence
from functools import partial
from typing import Any

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from ...messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from .._args import dump_args
from .._chat_completions import NOTHING_SAID, ChatEncoder, Reply
from .._chat_envelope import ABSENT
from .._common import (
    base64_data,
    data_uri,
    default_filename,
    file_id_of,
    inline_mime,
    unsupported,
    use_url,
)
from .._options import EncodeOptions
from ._wire import (
    FILE_STORE,
    PROVIDER,
)
from ._wire import (
    OPENAI_STORES as OPENAI_STORES,
)
from .decode import from_openai_chat

__all__ = ["FILE_STORE", "PROVIDER", "from_openai_chat", "to_openai_chat"]


_IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}
_PDF = "application/pdf"


def to_openai_chat(
    messages: Sequence[Message], options: EncodeOptions | None = None, *, video_url: bool = False
) -> dict[str, Any]:
    """The ``messages`` field of ``client.chat.completions.create(model=..., **fields)``.

    The JSON target is the same: OpenAI's SDK and HTTP API both take base64 text and data URIs.
    ``video_url``: video goes out as ``video_url`` parts (the URL, or a data URI), the form
    vLLM, OpenRouter and other OpenAI-compatible servers read; OpenAI itself takes no video.
    """
    encoder = _Encoder(options or EncodeOptions(), video_url=video_url)
    return {"messages": encoder.run(messages)}


class _Encoder(ChatEncoder):
    """One encoding pass: the messages so far and media moved out of tool results."""

    provider = PROVIDER
    system_only = "OpenAI system messages take text only"
    tool_media_refusal = "OpenAI tool messages carry text only (media in a tool result)"
    media_refusal = "OpenAI Chat Completions takes no video; send frames as images"
    foreign_raw = "it holds {provider} content verbatim"
    place_url_errors = False

    def __init__(self, options: EncodeOptions, *, video_url: bool = False) -> None:
        super().__init__(options)
        self.video_url = video_url
        self.own = False
        """Whether the assistant message being encoded came from the endpoint encoded for:
        its reasoning field and its tool calls' own fields go back to it only."""
        self.refusals: list[str] = []

    def tool_message_extra(self, block: Block, index: int, position: int) -> None:
        """A verbatim OpenAI message kept in a tool message (a legacy ``function`` message)."""
        if isinstance(block, RawBlock) and block.provider == PROVIDER and _slot(block) == "message":
            self.out.append(dict(block.data))
            return
        super().tool_message_extra(block, index, position)

    # -- roles ------------------------------------------------------------------------------

    def system(self, message: SystemMessage, index: int) -> None:
        system = {
            "role": "system",
            "content": self.content_value(self.system_parts(message.content, index)),
        }
        if _is_developer(message):
            system["role"] = "developer"
        self.out.append(with_message_fields(system, message))

    def user(self, message: UserMessage, index: int) -> None:
        """Tool results in a user message go out first as tool messages, then the rest."""
        parts, has_results = self.user_parts(message.content, index)
        self.flush_moved()
        if parts or not has_results:
            out: dict[str, Any] = {"role": "user", "content": self.content_value(parts)}
            if message.name:
                out["name"] = message.name
            self.out.append(with_message_fields(out, message))

    def assistant(self, message: AssistantMessage, index: int) -> None:
        self.own = message.provider == (self.options.endpoint or PROVIDER)
        reply = self.reply(message, index)
        if reply != NOTHING_SAID:  # every block dropped (say, foreign thinking)
            self.out.append(with_message_fields(reply, message) if self.own else reply)

    def reply(self, message: AssistantMessage, index: int) -> dict[str, Any]:
        self.refusals = []
        reply = self.gather_reply(message.content, index)
        out, refusals = reply.fields, self.refusals
        if reply.parts:
            out["content"] = self.content_value(reply.parts)
        elif reply.calls or "audio" in out or "function_call" in out or refusals:
            out["content"] = None
        else:
            out["content"] = ""
        if refusals:
            out["refusal"] = "\n".join(refusals)
        if reply.calls:
            out["tool_calls"] = reply.calls
        return out

    def reply_block(self, block: Block, index: int, position: int, reply: Reply) -> bool:
        """Reasoning back in its field, refusals, an earlier audio reply, verbatim calls."""
        out = reply.fields
        if isinstance(block, ThinkingBlock) and self.own and (field := _reasoning_field(block)):
            # reasoning an OpenAI-compatible server returned goes back to it in its field
            # (DeepSeek and Z.ai require it after tool calls in thinking mode)
            before = out.get(field)
            out[field] = f"{before}{block.thinking}" if before else block.thinking
        elif (
            isinstance(block, TextBlock) and block.provider_data and _refusal_form(block) == "field"
        ):
            self.refusals.append(block.text)
        elif isinstance(block, AudioBlock):
            if "audio" in out:
                why = "an assistant message has one audio"
                raise unsupported(PROVIDER, block, index, position, why)
            out["audio"] = _assistant_audio_to_openai_chat(block, index, position)
        elif isinstance(block, RawBlock) and block.provider == PROVIDER:
            slot = _slot(block)
            if slot == "tool_calls":
                reply.calls.append(dict(block.data))
            elif slot == "function_call":
                out["function_call"] = dict(block.data)
            elif slot == "part":
                reply.parts.append(dict(block.data))
            else:
                why = "a whole message inside a message"
                raise unsupported(PROVIDER, block, index, position, why)
        elif not isinstance(block, (TextBlock, ThinkingBlock, RawBlock)):
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "OpenAI assistant messages carry text, refusals, tool calls and earlier "
                "audio replies by id",
            )
        else:
            return False
        return True

    def tool_call(self, block: ToolCallBlock) -> dict[str, Any]:
        return _tool_call_to_openai_chat(block, own=self.own)

    def result_value(self, parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
        return self.content_value(parts)

    # -- parts ------------------------------------------------------------------------------

    def text_part(self, block: TextBlock) -> dict[str, Any]:
        if not block.provider_data:  # most text: no refusal, no extra keys to send back
            return {"type": "text", "text": block.text}
        if _refusal_form(block) == "part":
            return {**_extra(block), "type": "refusal", "refusal": block.text}
        return {**_extra(block), "type": "text", "text": block.text}

    def raw_part(self, block: RawBlock, index: int, position: int) -> dict[str, Any]:
        part = super().raw_part(block, index, position)
        if _slot(block) != "part":
            raise unsupported(
                PROVIDER, block, index, position, f"a verbatim {_slot(block)} is not a content part"
            )
        return part

    def image_part(self, block: ImageBlock, index: int, position: int) -> dict[str, Any]:
        if file_id_of(block) is not None:
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "Chat Completions takes images by URL or inline, not by file id "
                "(the Responses API takes file ids)",
            )
        check = partial(check_inline_image, PROVIDER, block, index, position, self.options)
        image_url: dict[str, Any] = {"url": self.url_or_data_uri(block, index, position, check)}
        detail = block.detail or block.for_provider(PROVIDER).get("detail")
        if detail:
            image_url["detail"] = detail
        return {**_extra(block), "type": "image_url", "image_url": image_url}

    def audio_part(self, block: AudioBlock, index: int, position: int) -> dict[str, Any]:
        return _audio_to_openai_chat(block, index, position, self.options)

    def file_part(self, block: FileBlock, index: int, position: int) -> dict[str, Any]:
        return _file_to_openai_chat(block, index, position, self.options)

    def video_part(self, block: VideoBlock, index: int, position: int) -> dict[str, Any] | None:
        """A ``video_url`` part (vLLM, OpenRouter): the URL where the server fetches it, else a
        ``data:video/...;base64`` URI."""
        if not self.video_url:
            return super().video_part(block, index, position)
        if file_id_of(block) is not None:
            raise unsupported(
                PROVIDER,
                block,
                index,
                position,
                "video_url parts take a URL or data, not a file id",
            )
        url = self.url_or_data_uri(
            block, index, position, partial(inline_mime, block, self.options)
        )
        return {**_extra(block), "type": "video_url", "video_url": {"url": url}}


def with_message_fields(
    out: dict[str, Any], message: Message, provider: str = PROVIDER
) -> dict[str, Any]:
    """The encoded message with the fields its decoded original had beside what mediablocks
    models (``name`` on a system message, ``refusal: null``...), when it came from OpenAI Chat
    (or an endpoint speaking it); a field it did not have is left out where encoding adds it
    by default (``content: null`` beside tool calls)."""
    notes = message.metadata.get(provider) if isinstance(message.metadata, dict) else None
    kept = notes.get("message_fields") if isinstance(notes, dict) else None
    if not isinstance(kept, dict):
        return out
    for key, value in kept.items():
        if value == ABSENT:
            if key != "content" or out.get(key) in (None, ""):
                out.pop(key, None)
        elif key not in out or (key == "content" and out[key] is None):
            out[key] = value
    return out


def _extra(block: Block) -> dict[str, Any]:
    """The part's unmodelled OpenAI keys, as decoded (``prompt_cache_breakpoint``...)."""
    extra = block.for_provider(PROVIDER).get("extra")
    return dict(extra) if isinstance(extra, dict) else {}


# -- text, refusals and thinking ----------------------------------------------------------


def _refusal_form(block: TextBlock) -> str | None:
    """``"field"`` or ``"part"`` for a decoded refusal, None for ordinary text."""
    form = block.for_provider(PROVIDER).get("refusal")
    return form if form in ("field", "part") else None


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


# -- tool calls ---------------------------------------------------------------------------


def _tool_call_to_openai_chat(block: ToolCallBlock, *, own: bool = False) -> dict[str, Any]:
    """A ``tool_calls`` entry; to the endpoint that made the call, with the fields it had
    beside ``id``, ``type`` and ``function`` (Gemini's thought signature in ``extra_content``)."""
    stored = block.for_provider(PROVIDER) if own else {}
    function = {
        **(stored.get("function") or {}),
        "name": block.name,
        "arguments": dump_args(block),
    }
    return {**(stored.get("call") or {}), "id": block.id, "type": "function", "function": function}


def _reasoning_field(block: ThinkingBlock) -> str | None:
    """The field an OpenAI-compatible server sent this reasoning in (``reasoning_content``,
    ``reasoning``), or None for any other thinking."""
    if block.provider != PROVIDER:
        return None
    field = block.for_provider(PROVIDER).get("reasoning_field")
    return field if field in ("reasoning_content", "reasoning") else None


def _slot(block: RawBlock) -> str:
    """Where a verbatim OpenAI item goes: a content ``part`` (the default), a ``tool_calls``
    entry (custom tool calls), the deprecated ``function_call`` field, or a whole ``message``."""
    slot = block.for_provider(PROVIDER).get("slot")
    return slot if slot in ("tool_calls", "function_call", "message") else "part"


def _is_developer(message: SystemMessage) -> bool:
    """A system message that came in as OpenAI's ``developer`` role (Chat or Responses)."""
    return any(
        isinstance(notes := message.metadata.get(name), dict) and notes.get("role") == "developer"
        for name in (PROVIDER, "openai-responses")
    )
