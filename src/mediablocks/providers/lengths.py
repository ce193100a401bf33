"""The longest string and tool call id each provider takes, configurable per provider.

`encode` (through `check_sendable`) and `validate` refuse a text, thinking or tool-result string
longer than ``max_string`` characters and a tool call id longer than ``max_call_id``, before the
provider answers 400. The defaults are the documented ones; a provider without a documented
limit has none. `set_length_limits` sets either cap for any provider name (a profile such as
``groq`` or ``vllm`` included: a server with a smaller context, a gateway with its own rule).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Final

from ..errors import InvalidOptionError

__all__ = ["DEFAULT_LENGTH_LIMITS", "LengthLimits", "length_limits", "set_length_limits"]


@dataclass(frozen=True)
class LengthLimits:
    """The longest string (characters, in one text, thinking or tool-result field) and the
    longest tool call id a provider takes; None: no cap."""

    max_string: int | None = None
    max_call_id: int | None = None


DEFAULT_LENGTH_LIMITS: Final[dict[str, LengthLimits]] = {
    # "string too long. Expected a string with maximum length 10485760": the OpenAPI spec's
    # maxLength on message content and function_call_output.output; Responses call_id: 64.
    "openai-chat": LengthLimits(max_string=10_485_760),
    "openai-responses": LengthLimits(max_string=10_485_760, max_call_id=64),
    # Converse toolUseId: 1-64 characters, [a-zA-Z0-9_-]+ (AWS API reference).
    "bedrock": LengthLimits(max_call_id=64),
}
"""The documented caps, by provider (a profile without its own entry takes its base's)."""


class _Keep:
    """The value of an argument left out of `set_length_limits`."""


_KEEP: Final = _Keep()
NO_CAPS: Final = LengthLimits()
_overrides: dict[str, LengthLimits] = {}
_lock = threading.Lock()


def length_limits(provider: str) -> LengthLimits:
    """The caps in force for ``provider`` (any name or alias `encode` takes)."""
    from ..providers._options import canonical_provider
    from ..providers.registry import provider_entry

    name = canonical_provider(provider)
    profile = provider_entry(name).profile
    return caps_for(name, profile.base if profile is not None else name)


def caps_for(canonical: str | None, wire: str | None) -> LengthLimits:
    """The caps for a canonical provider name speaking ``wire``: the caller's own first (for the
    name, then its wire format), then the documented ones."""
    for name in (canonical, wire):
        if name is not None and name in _overrides:
            return _overrides[name]
    for name in (canonical, wire):
        if name is not None and name in DEFAULT_LENGTH_LIMITS:
            return DEFAULT_LENGTH_LIMITS[name]
    return NO_CAPS


def set_length_limits(
    provider: str,
    *,
    max_string: int | _Keep | None = _KEEP,
    max_call_id: int | _Keep | None = _KEEP,
) -> LengthLimits:
    """Set ``provider``'s caps (either may be left out: it keeps its value; None removes it) for
    every later `encode` and `validate`; returns the caps that were in force before."""
    from ..providers._options import canonical_provider

    name = canonical_provider(provider)
    with _lock:
        before = length_limits(name)
        chosen = LengthLimits(
            max_string=before.max_string if max_string is _KEEP else _cap("max_string", max_string),
            max_call_id=(
                before.max_call_id if max_call_id is _KEEP else _cap("max_call_id", max_call_id)
            ),
        )
        _overrides[name] = chosen
    return before


def _cap(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidOptionError(
            f"set_length_limits: {name} must be a whole number of at least 1, or None, "
            f"not {value!r}"
        )
    return value
