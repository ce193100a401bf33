"""Provider names and the options every translator takes."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from pydantic import ValidationError

from ..blocks import summarize_validation_error
from ..errors import InvalidOptionError
from ..fetching.policy import FetchPolicy
from ..settings import Settings
from ..tools import Tool, check_tool_choice
from ._report import EncodeReport
from .registry import ALIASES, PROVIDERS, canonical_provider

__all__ = [
    "ALIASES",
    "PROVIDERS",
    "EncodeOptions",
    "InvalidOptionError",
    "MediaSink",
    "ProviderName",
    "canonical_provider",
]

ProviderName = Literal[
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
    "cohere",
    "azure-openai",
    "deepseek",
    "xai",
    "groq",
    "openrouter",
    "vllm",
    "llama-cpp",
    "anthropic-bedrock",
    "anthropic-vertex",
]


class MediaSink:
    """Collects media payloads as placeholders so `encode_json` can stream their base64 later.

    A translator asks for a media field through the helpers in ``_common``; when a sink is set, it
    gets back a unique placeholder string instead of the base64 text.

    A placeholder is ``<token><index>\\ue001``. The token starts with the private-use character
    U+E000 and holds a random nonce made when the sink is, so no text that existed before the sink
    (every message being encoded) can contain it; `encode_json` also checks that each placeholder
    it finds was issued exactly once.
    """

    def __init__(self) -> None:
        self.token = f"\ue000mediablocks-media-{secrets.token_hex(12)}-"
        self.items: list[tuple[Any, str]] = []

    def add(self, block: Any, form: Literal["base64", "data_uri"]) -> str:
        index = len(self.items)
        self.items.append((block, form))
        return f"{self.token}{index}\ue001"


_OPTION_VALUES: dict[str, Any] = {
    "target": Literal["sdk", "json"],
    "url_media": Literal["auto", "url", "inline"],
    "thinking": Literal["drop", "text"],
    "tool_result_media": Literal["error", "user_message"],
    "unsupported": Literal["error", "drop"],
    "compaction": Literal["skip", "user"],
}


@dataclass(frozen=True)
class EncodeOptions:
    """How a translator turns messages into a provider's request fields.

    Everything has a documented default; `mb.encode` builds this from its keyword arguments.
    """

    target: Literal["sdk", "json"] = "sdk"
    """``sdk``: what the official Python SDK accepts (raw bytes where boto3 and google-genai
    take bytes).
    ``json``: the HTTP API's JSON (base64 strings, the REST field names)."""
    url_media: Literal["auto", "url", "inline"] = "auto"
    """Who fetches URL media. ``url``: pass the URL, the provider fetches it (raise
    `UnsupportedBlockError` where it cannot). ``inline``: we fetch under ``policy`` and send bytes.
    ``auto``: the provider's documented default (URL where it fetches that kind, else inline)."""
    policy: FetchPolicy | None = None
    """Fetch policy for URL media we inline (defaults to the scope's, see `use_policy`)."""
    thinking: Literal["drop", "text"] = "drop"
    """Thinking the target cannot replay (another provider's, or a kind it has no place for):
    ``drop`` it (default), or send it as ``text``."""
    tool_result_media: Literal["error", "user_message"] = "user_message"
    """Media inside tool results for a provider that cannot put media there (OpenAI Chat,
    Mistral, Ollama): ``user_message`` moves it into a user message right after the tool
    results, saying which call it belongs to; ``error`` raises `UnsupportedBlockError`."""
    tools: tuple[Tool, ...] = ()
    """Tools the model may call, translated to the provider's own tool definitions."""
    tool_choice: str | tuple[str, ...] | None = None
    """``auto``, ``none``, ``required``, a tool's name, or several tools' names (one of them
    must be called); ``None`` leaves the provider's default."""
    settings: Settings | None = None
    """Output limit, sampling, stop sequences, reasoning effort, structured output."""
    unsupported: Literal["error", "drop"] = "error"
    """A setting, tool schema keyword or tool choice the provider cannot honour, or another
    provider's server-side tool block: ``error`` raises `UnsupportedSettingError` (or
    `UnsupportedBlockError` for blocks) naming it; ``drop`` leaves it out and reports it (see
    `mb.encode_with_report`)."""
    compaction: Literal["skip", "user"] = "skip"
    """`CompactionSummaryMessage` entries: ``skip`` them (default), or send each summary as a
    user message in its place, so the model sees the compacted context."""
    media_store: Any = field(default=None, compare=False, repr=False)
    """A `MediaStore` holding the bytes of uploaded media, for a provider whose file store has
    no copy of them (they are then sent inline); see docs/uploads.md."""
    uploader: Any = field(default=None, compare=False, repr=False)
    """An `Uploader`: media the provider's file store has no copy of are uploaded first."""
    media_sink: MediaSink | None = field(default=None, compare=False, repr=False)
    """Set by `encode_json` only."""
    endpoint: str | None = field(default=None, compare=False)
    """The profile a shared translator encodes for (``"deepseek"``, ``"openrouter"``...), set
    by the profile's wrapper; None is the translator's own provider. Fields only the endpoint
    that sent them reads (DeepSeek's ``reasoning_content``, OpenRouter's ``reasoning_details``)
    go back to that endpoint only."""
    report: EncodeReport | None = field(default=None, compare=False, repr=False)
    """Where drops are recorded (set by `mb.encode_with_report`)."""

    def __post_init__(self) -> None:
        if self.tools or self.tool_choice is not None:
            object.__setattr__(self, "tools", tuple(_as_tools(self.tools)))
            choice = check_tool_choice(self.tool_choice, list(self.tools))
            object.__setattr__(
                self, "tool_choice", tuple(choice) if isinstance(choice, list) else choice
            )
        if self.settings is not None and not isinstance(self.settings, Settings):
            object.__setattr__(self, "settings", _as_settings(self.settings))
        for name in (
            "target",
            "url_media",
            "thinking",
            "tool_result_media",
            "unsupported",
            "compaction",
        ):
            allowed = get_args(_OPTION_VALUES[name])
            value = getattr(self, name)
            if value not in allowed:
                choices = ", ".join(repr(a) for a in allowed)
                raise InvalidOptionError(f"{name}={value!r} is not one of {choices}")
        if self.policy is not None and not isinstance(self.policy, FetchPolicy):
            raise InvalidOptionError(
                f"policy must be a FetchPolicy or None, not a {type(self.policy).__name__}"
            )
        if self.media_store is not None and not callable(getattr(self.media_store, "get", None)):
            raise InvalidOptionError(f"media_store must be a MediaStore, got {self.media_store!r}")
        if self.uploader is not None and not callable(self.uploader):
            raise InvalidOptionError(f"uploader must be an mb.Uploader, got {self.uploader!r}")

    def replace(self, **changes: Any) -> EncodeOptions:
        """A copy with some options changed."""
        return replace(self, **changes)


def _as_tools(tools: Any) -> list[Tool]:
    """Tools from `Tool` objects or dicts of its fields."""
    if isinstance(tools, (Tool, dict)) or not hasattr(tools, "__iter__"):
        raise InvalidOptionError(f"tools must be a list of mb.Tool, not {type(tools).__name__}")
    out: list[Tool] = []
    for item in tools:
        if isinstance(item, Tool):
            out.append(item)
            continue
        try:
            out.append(Tool.model_validate(item))
        except ValidationError as exc:
            raise InvalidOptionError(
                f"not a tool ({summarize_validation_error(exc)}): {item!r:.80}"
            ) from None
    names = [tool.name for tool in out]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InvalidOptionError(f"tool names must be unique: {', '.join(twice)} given twice")
    return out


def _as_settings(value: Any) -> Settings:
    try:
        return Settings.model_validate(value)
    except ValidationError as exc:
        raise InvalidOptionError(f"invalid settings: {summarize_validation_error(exc)}") from None
