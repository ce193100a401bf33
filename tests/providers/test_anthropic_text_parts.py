"""The Anthropic decoder's shortcut for plain text parts gives exactly the block the general path
gives, and every other text part (citations, unmodelled keys, a wrong type) still goes the
general way, with its checks and errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.errors import DecodeError
from mediablocks.providers.anthropic.decode import _blocks_from_anthropic, _part_from_anthropic


def _state(block: Any) -> Any:
    return (type(block), list(block.__dict__), block.__dict__, block.model_fields_set)


_VALUES = st.one_of(
    st.text(max_size=8),
    st.none(),
    st.integers(),
    st.lists(st.dictionaries(st.sampled_from(["type", "cited_text"]), st.text(max_size=4))),
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
)
_PARTS = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "text", "image", "Text"]), "text": _VALUES},
    optional={"citations": _VALUES, "cache_control": st.just({"type": "ephemeral"})},
)


def _general(part: Any) -> Any:
    try:
        return _state(_part_from_anthropic(part, "Anthropic message 0, block 0", {}))
    except DecodeError as exc:
        return str(exc)


def _shortcut_or_general(part: Any) -> Any:
    try:
        return _state(_blocks_from_anthropic([part], "Anthropic message 0", {})[0])
    except DecodeError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(part=_PARTS)
def test_every_text_part_decodes_as_the_general_path_decodes_it(part: dict[str, Any]) -> None:
    assert _shortcut_or_general(part) == _general(part)


def test_plain_text_and_what_is_kept_beside_it() -> None:
    plain = _blocks_from_anthropic([{"type": "text", "text": "hi"}], "m", {})[0]
    assert plain == mb.TextBlock(text="hi")
    assert plain.model_fields_set == {"text", "annotations", "provider_data"}
    cached = {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    kept = _blocks_from_anthropic([cached], "m", {})[0]
    assert kept.provider_data == {"anthropic": {"cache_control": {"type": "ephemeral"}}}
    with pytest.raises(DecodeError, match="message 0, block 0: text block has no text string"):
        mb.decode(
            {"messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]}, "anthropic"
        )
