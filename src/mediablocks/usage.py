"""Token counts and cost of a model response: `Usage`, and `Cost` worked out from your `Prices`.

Every provider's usage record is read into one `Usage` (its own numbers kept in ``raw``); nothing
in a response says what it cost at your rates, so `Usage.priced` fills ``cost`` from prices the
caller gives.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._frozen import EMPTY, FROZEN, refreeze

__all__ = ["Cost", "Prices", "Usage"]


class Prices(BaseModel):
    """What a model costs, in your currency per million tokens, for `Usage.priced`.

    Cache reads and writes cost the input price unless given (providers price them apart:
    Anthropic writes at 1.25x and reads at 0.1x, OpenAI reads at 0.1-0.5x...). Reasoning tokens
    are output tokens.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)


class Cost(BaseModel):
    """The cost of one response, by part: uncached input, cache reads, cache writes, output.

    ``total`` is their sum when computed by `Usage.priced`; a provider that reports only a total
    (OpenRouter's ``usage.cost``) fills ``total`` alone.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0

    def __float__(self) -> float:
        return self.total

    def __eq__(self, other: object) -> bool:
        # ``usage.cost == 0.25`` compares the total, as when cost was one number
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return self.total == other
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            total=self.total + other.total,
        )


class Usage(BaseModel):
    """Token counts and cost of one model response, the same way for every provider.

    ``input_tokens`` is every input token, cache reads and writes included (providers that count
    them apart, Anthropic and Bedrock, are added up); ``uncached_input_tokens`` is the input
    without them. ``reasoning_tokens`` are part of ``output_tokens``. ``raw`` keeps the
    provider's own usage numbers verbatim, under its own names. ``cost`` is None until priced:
    ``usage.priced(Prices(input=3, output=15))`` fills it from the counts.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: Cost | None = None
    raw: Annotated[dict[str, Any], FROZEN] = Field(default_factory=lambda: EMPTY)
    """The provider's own usage record, read-only all the way down."""

    @field_validator("cost", mode="before")
    @classmethod
    def _total_only(cls, value: Any) -> Any:
        # a bare number (older documents, a provider's reported total) is the total
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Cost(total=float(value))
        return value

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Usage:
        return refreeze(super().__deepcopy__(memo))  # type: ignore[no-any-return]

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens (cache reads and writes are part of the input)."""
        return self.input_tokens + self.output_tokens

    @property
    def uncached_input_tokens(self) -> int:
        """Input tokens neither read from nor written to the provider's prompt cache."""
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)

    def priced(self, prices: Prices) -> Usage:
        """This usage with ``cost`` worked out from its token counts and ``prices`` (per million
        tokens): uncached input, cache reads, cache writes and output, and their total."""
        per = 1_000_000
        read = prices.input if prices.cache_read is None else prices.cache_read
        write = prices.input if prices.cache_write is None else prices.cache_write
        parts = {
            "input": self.uncached_input_tokens * prices.input / per,
            "cache_read": self.cache_read_tokens * read / per,
            "cache_write": self.cache_write_tokens * write / per,
            "output": self.output_tokens * prices.output / per,
        }
        return self.model_copy(update={"cost": Cost(**parts, total=sum(parts.values()))})

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost is None and other.cost is None
            else (self.cost or Cost()) + (other.cost or Cost())
        )
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cost=cost,
            raw=_add_raw(self.raw, other.raw),
        )


def _add_raw(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two raw usage records added key by key (numbers summed, other values from the second)."""
    out = dict(first)
    for key, value in second.items():
        before = out.get(key)
        if _number(before) and _number(value):  # token counts, and seconds of audio billed
            out[key] = before + value
        elif isinstance(before, dict) and isinstance(value, dict):
            out[key] = _add_raw(before, value)
        else:
            out[key] = value
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
