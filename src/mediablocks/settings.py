"""Sampling and output settings, defined once and translated for every provider.

`Settings` holds what most requests set beside the messages: the output token limit,
temperature, top-p, top-k, stop sequences, reasoning effort, seed, frequency and presence
penalties, parallel tool calls, JSON-object mode and a JSON schema for structured output; each
one is a field two or more providers share. A field only one provider has stays in that
provider's ``Request.extra``.
Each translator maps them to its own fields (``max_completion_tokens``, ``inferenceConfig``,
Gemini's ``config``...); a setting a provider cannot honour raises `UnsupportedSettingError`
unless the caller chose ``unsupported="drop"``, which drops it and says so in the report.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from .blocks import summarize_validation_error
from .errors import InvalidOptionError

__all__ = ["REASONING_EFFORTS", "ReasoningEffort", "Settings"]

ReasoningEffort = Literal["low", "medium", "high"]
REASONING_EFFORTS: tuple[str, ...] = ("low", "medium", "high")


class Settings(BaseModel):
    """What to ask of the model besides the messages; ``None`` leaves the provider's default.

    ``stop`` takes one string or a list. ``reasoning_effort`` is an effort level where the
    provider takes one and a thinking budget where that is its API (see ``docs/tools.md``).
    ``response_schema`` is a JSON schema (or a pydantic model class) the reply must follow;
    ``json_mode=True`` asks for a JSON object without a schema (the two exclude each other).
    ``top_k`` samples from the k likeliest tokens; ``parallel_tool_calls=False`` asks for at most
    one tool call per turn.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: list[str] | None = None
    reasoning_effort: ReasoningEffort | None = None
    response_schema: dict[str, Any] | None = None
    seed: int | None = None
    top_k: int | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    parallel_tool_calls: bool | None = None
    json_mode: bool | None = None
    provider_data: dict[str, dict[str, Any]] = {}
    """How a provider's request spelled these settings, where it has more than one way
    (OpenAI's legacy ``max_tokens``, a response format's ``name`` and ``strict``, Gemini's
    OpenAPI ``responseSchema``), by provider: `decode_request` fills it, and it goes back to
    that provider only."""

    def __init__(self, **fields: Any) -> None:
        try:
            super().__init__(**fields)
        except ValidationError as exc:
            raise InvalidOptionError(
                f"invalid settings: {summarize_validation_error(exc)}"
            ) from None

    @field_validator("stop", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("json_mode")
    @classmethod
    def _json_or_default(cls, value: bool | None) -> bool | None:
        return True if value else None  # False is the default: no field carries it

    @field_validator("response_schema", mode="before")
    @classmethod
    def _model_schema(cls, value: Any) -> Any:
        if isinstance(value, type) and issubclass(value, BaseModel):
            return value.model_json_schema()
        return value

    @field_validator("max_tokens", "top_k")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("max_tokens and top_k must be at least 1")
        return value

    def model_post_init(self, context: Any, /) -> None:
        if self.json_mode and self.response_schema is not None:
            raise InvalidOptionError(
                "invalid settings: json_mode and response_schema exclude each other "
                "(a response schema already asks for JSON)"
            )

    def given(self) -> dict[str, Any]:
        """The settings that were set (not ``None``), by name."""
        dumped = self.model_dump(exclude={"provider_data"})
        return {k: v for k, v in dumped.items() if v is not None}

    def for_provider(self, provider: str) -> dict[str, Any]:
        """``provider_data[provider]``, or an empty dict."""
        return dict(self.provider_data.get(provider, {}))

    def schema_name(self) -> str:
        """A name for ``response_schema`` where a provider needs one: its title, or
        ``response``."""
        title = (self.response_schema or {}).get("title")
        if isinstance(title, str) and title.replace("_", "").replace("-", "").isalnum():
            return title[:64]
        return "response"
