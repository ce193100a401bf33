"""The Chat Completions response envelope, read and written back whole (OpenAI Chat and the
endpoints speaking it, Mistral).

A response says more than its message: when it was created, ``system_fingerprint``,
``service_tier``, each choice's ``logprobs``... mediablocks models the message, the usage, the
model, the id and the stop reason; `envelope_notes` keeps the rest in the reply's metadata
(``created`` becomes its ``timestamp``), and `write_envelope` puts it back, so a reply from an
endpoint goes back to it as it came.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from ..errors import DecodeError
from ..messages import AssistantMessage

__all__ = ["ABSENT", "envelope_notes", "response_choices", "write_envelope"]

ABSENT = "<absent>"
"""Stands for a field a message or response did not have, where writing it is the default."""

_RESPONSE_KEYS = frozenset({"id", "object", "created", "model", "choices", "usage"})
_CHOICE_KEYS = frozenset({"index", "message", "finish_reason"})


def _plain(value: Any) -> Any:
    """A JSON copy (SDK objects as dicts)."""
    from ._common import as_dict

    value = as_dict(value)
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def response_choices(
    data: dict[str, Any], label: str, *, empty_is_absent: bool
) -> Iterator[tuple[int, dict[str, Any], dict[str, Any], str]]:
    """``(number, choice, message, where)`` for each choice of a response (``label`` names the
    format in errors, ``where`` the choice). A choice without a message holds an empty
    assistant one; ``empty_is_absent``: so does one whose message is empty (``{}``, ``""``).
    The ``choices`` list is checked at once, each choice as it comes."""
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise DecodeError(f"{label} response: 'choices' is not a list")
    return _each_choice(choices, label, empty_is_absent)


def _each_choice(
    choices: list[Any], label: str, empty_is_absent: bool
) -> Iterator[tuple[int, dict[str, Any], dict[str, Any], str]]:
    from ._common import as_dict

    for number, raw in enumerate(choices):
        where = f"{label} response choice {number}"
        choice = as_dict(raw)
        if not isinstance(choice, dict):
            raise DecodeError(f"{where} is not an object")
        sent = choice.get("message")
        if empty_is_absent:
            message = as_dict(sent) or {"role": "assistant"}
        else:
            message = as_dict(sent) if sent is not None else {"role": "assistant"}
        if not isinstance(message, dict):
            raise DecodeError(f"{where}: message is not an object")
        yield number, choice, message, where


def envelope_notes(
    reply: AssistantMessage,
    data: dict[str, Any],
    choice: dict[str, Any],
    number: int,
    provider: str,
    default_choice: dict[str, Any],
) -> AssistantMessage:
    """``reply`` with the response's and its choice's unmodelled fields in
    ``metadata[provider]`` and ``created`` as its timestamp. ``default_choice`` holds what
    `write_envelope` writes in a choice when nothing was kept (OpenAI Chat's ``logprobs:
    null``)."""
    notes = dict(reply.metadata.get(provider, {}))
    envelope = {k: _plain(v) for k, v in data.items() if k not in _RESPONSE_KEYS}
    if data.get("object", "chat.completion") != "chat.completion":
        envelope["object"] = data["object"]
    choice_fields = {k: _plain(v) for k, v in choice.items() if k not in _CHOICE_KEYS}
    for key in default_choice:
        if key not in choice:
            choice_fields[key] = ABSENT
    if choice.get("index", number) != number or "index" not in choice:
        choice_fields["index"] = choice.get("index", ABSENT)
    for key, value in (("response_fields", envelope), ("choice_fields", choice_fields)):
        if value:
            notes[key] = value
    if "created" not in data:
        notes["created"] = ABSENT
    update: dict[str, Any] = {"metadata": {**reply.metadata, provider: notes}} if notes else {}
    created = data.get("created")
    if isinstance(created, int) and not isinstance(created, bool) and 0 <= created < 2**40:
        update["timestamp"] = datetime.fromtimestamp(created, tz=timezone.utc)
    return reply.model_copy(update=update) if update else reply


def write_envelope(
    body: dict[str, Any], notes: dict[str, Any], default_choice: dict[str, Any]
) -> dict[str, Any]:
    """``body`` (a response with one choice) with the fields `envelope_notes` kept."""
    choice = body["choices"][0]
    choice.update(default_choice)
    choice.update(notes.get("choice_fields") or {})
    for key in [k for k, v in choice.items() if v == ABSENT]:
        del choice[key]
    if notes.get("created") == ABSENT:
        body.pop("created", None)
    body.update(notes.get("response_fields") or {})
    return body
