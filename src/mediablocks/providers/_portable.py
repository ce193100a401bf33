"""Request fields outside `Settings` that most providers share, moved between their spellings.

A decoded request keeps what mediablocks does not model in ``Request.extra``, under its
provider's names; sent to another provider those names mean nothing (or something else), so
they raise. A few of them are the same request in every API that has them: whether to stream,
the end user, request metadata, the service tier, log probabilities, several candidates,
storing the completion, a predicted output. `portable_extra` moves each of those to the
target's own field, or, where the target documents no such field, says so:

- a field whose absence does not change the reply (``stream`` where streaming is another call,
  ``stream_options.include_usage`` where usage always comes, ``user``, ``metadata``,
  ``service_tier``, ``store``, ``prediction``) is left out and reported (`EncodeReport`, or a
  `DroppedWarning`), never raised;
- one that would change the reply (several candidates, log probabilities) raises
  `UnsupportedSettingError` unless the caller chose ``unsupported="drop"``.

Each target's spelling, or the documentation saying it has none, is in `SPELLINGS`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._options import EncodeOptions
from ._report import Dropped, DroppedWarning, drop_or_raise

__all__ = ["SPELLINGS", "portable_extra"]


@dataclass(frozen=True)
class Absent:
    """The target documents no field for it: why, and whether leaving it out changes the reply
    (then it raises unless the caller allowed drops)."""

    reason: str
    changes_reply: bool = False


Path = tuple[str, ...]
"""Where a field sits in a request body (``("generationConfig", "candidateCount")``)."""

_CHAT = "openai-chat"
_STREAM_CALL = Absent("streaming is another call (generate_content_stream / ConverseStream)")
_USAGE_ALWAYS = Absent("its streams always carry the usage")
_NO_USER = Absent("its API reference has no end-user field")
_NO_METADATA = Absent("its API reference has no request metadata field")
_NO_TIER = Absent("its API reference has no service tier")
_NO_STORE = Absent("it stores no completions to list later")
_NO_PREDICTION = Absent("it takes no predicted output (a latency hint only)")
_NO_LOGPROBS = Absent("its API returns no log probabilities", changes_reply=True)
_NO_CANDIDATES = Absent("it returns one reply per request", changes_reply=True)

SPELLINGS: dict[str, dict[str, Path | Absent]] = {
    "stream": {
        _CHAT: ("stream",),
        "openai-responses": ("stream",),
        "anthropic": ("stream",),
        "mistral": ("stream",),
        "ollama": ("stream",),
        "cohere": ("stream",),
        "gemini": _STREAM_CALL,
        "bedrock": _STREAM_CALL,
    },
    "include_usage": {
        _CHAT: ("stream_options", "include_usage"),
        "openai-responses": _USAGE_ALWAYS,
        "anthropic": _USAGE_ALWAYS,
        "mistral": _USAGE_ALWAYS,
        "ollama": _USAGE_ALWAYS,
        "cohere": _USAGE_ALWAYS,
        "gemini": _USAGE_ALWAYS,
        "bedrock": _USAGE_ALWAYS,
    },
    "user": {
        _CHAT: ("user",),
        "openai-responses": ("user",),
        "anthropic": ("metadata", "user_id"),
        "mistral": _NO_USER,
        "ollama": _NO_USER,
        "cohere": _NO_USER,
        "gemini": _NO_USER,
        "bedrock": _NO_USER,
    },
    "metadata": {
        _CHAT: ("metadata",),
        "openai-responses": ("metadata",),
        "bedrock": ("requestMetadata",),
        "anthropic": Absent("its metadata holds user_id only"),
        "mistral": _NO_METADATA,
        "ollama": _NO_METADATA,
        "cohere": _NO_METADATA,
        "gemini": _NO_METADATA,
    },
    "service_tier": {
        _CHAT: ("service_tier",),
        "openai-responses": ("service_tier",),
        "anthropic": ("service_tier",),
        "gemini": ("serviceTier",),
        "mistral": _NO_TIER,
        "ollama": _NO_TIER,
        "cohere": _NO_TIER,
        "bedrock": Absent("its service tier is chosen by the model id (a priority/flex profile)"),
    },
    "store": {
        _CHAT: ("store",),
        "openai-responses": ("store",),
        "anthropic": _NO_STORE,
        "mistral": _NO_STORE,
        "ollama": _NO_STORE,
        "cohere": _NO_STORE,
        "gemini": _NO_STORE,
        "bedrock": _NO_STORE,
    },
    "prediction": {
        _CHAT: ("prediction",),
        "mistral": ("prediction",),
        "openai-responses": _NO_PREDICTION,
        "anthropic": _NO_PREDICTION,
        "ollama": _NO_PREDICTION,
        "cohere": _NO_PREDICTION,
        "gemini": _NO_PREDICTION,
        "bedrock": _NO_PREDICTION,
    },
    "logprobs": {
        _CHAT: ("logprobs",),
        "ollama": ("logprobs",),
        "cohere": ("logprobs",),
        "gemini": ("generationConfig", "responseLogprobs"),
        "openai-responses": Absent(
            "it asks for log probabilities with include=['message.output_text.logprobs']",
            changes_reply=True,
        ),
        "anthropic": _NO_LOGPROBS,
        "mistral": _NO_LOGPROBS,
        "bedrock": _NO_LOGPROBS,
    },
    "top_logprobs": {
        _CHAT: ("top_logprobs",),
        "openai-responses": ("top_logprobs",),
        "ollama": ("top_logprobs",),
        "gemini": ("generationConfig", "logprobs"),
        "anthropic": _NO_LOGPROBS,
        "mistral": _NO_LOGPROBS,
        "cohere": _NO_LOGPROBS,
        "bedrock": _NO_LOGPROBS,
    },
    "n": {
        _CHAT: ("n",),
        "mistral": ("n",),
        "gemini": ("generationConfig", "candidateCount"),
        "openai-responses": _NO_CANDIDATES,
        "anthropic": _NO_CANDIDATES,
        "ollama": _NO_CANDIDATES,
        "cohere": _NO_CANDIDATES,
        "bedrock": _NO_CANDIDATES,
    },
}
"""Each portable field: the path it has in each wire format's request body, or why it has none
(Chat Completions, Responses, Messages, Gemini, Converse, Mistral, Ollama and Cohere API
references). OpenAI-compatible endpoints use OpenAI Chat's spelling."""

_DEFAULTS: dict[str, Any] = {"stream": False, "n": 1, "store": False, "logprobs": False}
_SHARED_VALUES: dict[str, frozenset[Any]] = {"service_tier": frozenset({"auto"})}
"""Fields whose values are named differently by each provider (OpenAI's ``flex``, Anthropic's
``standard_only``): only these values mean the same everywhere and move; others are reported."""
"""Values that ask for nothing beyond the default: left out silently where there is no field."""

_SDK_SPELLING: dict[Path, Path] = {
    ("generationConfig", "responseLogprobs"): ("config", "response_logprobs"),
    ("generationConfig", "logprobs"): ("config", "logprobs"),
    ("generationConfig", "candidateCount"): ("config", "candidate_count"),
    ("serviceTier",): ("config", "service_tier"),
}
"""google-genai's SDK takes Gemini's generation fields in ``config``, snake_case."""


def _spelled(path: Path, provider: str, target: str) -> Path:
    if provider == "gemini" and target == "sdk":
        return _SDK_SPELLING.get(path, path)
    return path


def _source_spellings(path: Path, provider: str) -> list[Path]:
    """Where a decoded request may hold the field: Gemini's REST body (camelCase or
    snake_case) or google-genai's ``config``."""
    if provider != "gemini":
        return [path]
    snake = tuple(_snake(key) for key in path)
    return [path, snake, _SDK_SPELLING.get(path, path)]


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _take(body: dict[str, Any], path: Path) -> tuple[bool, Any]:
    """Remove the value at ``path`` from ``body`` (emptied parents too): ``(found, value)``."""
    node: Any = body
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or path[-1] not in node:
        return False, None
    value = node.pop(path[-1])
    for depth in range(len(path) - 1, 0, -1):
        parent: Any = body
        for key in path[: depth - 1]:
            parent = parent[key]
        if parent[path[depth - 1]] == {}:
            del parent[path[depth - 1]]
    return True, value


def _put(body: dict[str, Any], path: Path, value: Any) -> None:
    node = body
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _base(name: str) -> str:
    from .registry import provider_entry

    entry = provider_entry(name)
    return entry.profile.base if entry.profile is not None else entry.name


def portable_extra(
    extra: dict[str, Any],
    source: str,
    target: str,
    options: EncodeOptions,
    rest: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """``extra`` of a request decoded from ``source``, with its portable fields moved to
    ``target``'s spelling (for ``options.target``); fields with no place there are reported or
    raised (see the module doc). What is not portable is handed to ``rest`` (which raises or
    drops it as another provider's field)."""
    left = _copy(extra)
    if "tools" in left and left["tools"] in ([], None):
        del left["tools"]  # no tools (ollama-python sends [], DeepSeek's example null)
    out: dict[str, Any] = {}
    source_base, target_base = _base(source), _base(target)
    for name, spellings in SPELLINGS.items():
        path = spellings.get(source_base)
        if not isinstance(path, tuple):
            continue
        found, value = False, None
        for spelling in _source_spellings(path, source_base):
            found, value = _take(left, spelling)
            if found:
                break
        if not found:
            continue
        where = spellings.get(target_base)
        shared = _SHARED_VALUES.get(name)
        foreign = not isinstance(value, str) or value not in (shared or ())
        if shared is not None and foreign and source_base != target_base:
            where = Absent(f"its {name} values are its own ({', '.join(sorted(shared))} is shared)")
        if isinstance(where, tuple):
            _put(out, _spelled(where, target_base, options.target), value)
        elif isinstance(where, Absent):
            _absent(options, target, source, ".".join(path), value, where, name)
    rest(left)
    return out


def _absent(
    options: EncodeOptions,
    target: str,
    source: str,
    field: str,
    value: Any,
    why: Absent,
    name: str,
) -> None:
    if _DEFAULTS.get(name, object()) == value:
        return  # asks for what the target does anyway
    what = f"{source} request field {field}={value!r}"
    if why.changes_reply:
        drop_or_raise(options, target, what, f"{target} has no such field: {why.reason}")
        return
    dropped = Dropped(what, f"{target} has no such field: {why.reason}")
    if options.report is not None:
        options.report.dropped.append(dropped)
    else:
        warnings.warn(f"{target}: dropped {dropped}", DroppedWarning, stacklevel=5)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    return value
