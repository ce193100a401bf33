"""Every decoding entry point refuses a deeply nested body with `DecodeError`, whatever the
provider: a 2 KB body nested 1,000 levels deep never reaches anything recursive."""

from __future__ import annotations

from typing import Any

import pytest

import mediablocks as mb
from mediablocks.providers.registry import REGISTRY

PROVIDERS = [entry.name for entry in REGISTRY]
DEPTH = 1000


def _nested_lists() -> str:
    return '{"messages":' + "[" * DEPTH + "]" * DEPTH + "}"


def _nested_objects(key: str) -> dict[str, Any]:
    value: Any = "x"
    for _ in range(DEPTH):
        value = {"a": value}
    return {key: [value]} if key in ("messages", "contents", "tools", "input") else {key: value}


def _bodies() -> list[Any]:
    lists = _nested_lists()
    objects = '{"messages":[' + '{"a":' * DEPTH + "1" + "}" * DEPTH + "]}"
    return [
        lists,
        lists.encode(),
        objects,
        *(_nested_objects(key) for key in ("messages", "contents", "tools", "input", "extra")),
    ]


def test_the_bodies_are_what_the_reproducer_sent() -> None:
    assert len(_nested_lists()) < 2100  # about 2 KB


def test_every_provider_is_covered() -> None:
    assert len(PROVIDERS) == 17


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "entry",
    [mb.decode, mb.decode_request, mb.decode_response],
    ids=["decode", "decode_request", "decode_response"],
)
def test_deep_bodies_raise_decode_error(provider: str, entry: Any) -> None:
    for body in _bodies():
        with pytest.raises(mb.DecodeError):
            entry(body, provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_deep_stream_events_raise_decode_error(provider: str) -> None:
    value: Any = "x"
    for _ in range(DEPTH):
        value = {"delta": value}
    events = [{"type": "content_block_delta", "index": 0, "delta": value}]
    with pytest.raises(mb.DecodeError):
        mb.from_stream(events, provider)
