"""``parse_blocks(..., unknown="raw")`` keeps a malformed Claude-native block verbatim instead
of failing the whole list (parsing.py); the default still raises, naming the block."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.errors import DecodeError, MediaBlocksError

BAD_CLAUDE = [
    {"type": "tool_use", "name": "f", "input": {}},  # no id
    {"type": "tool_use", "id": 5, "name": "f", "input": {}},  # an id that is no string
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "!!!"}},
    {"type": "document", "source": "nope"},
]


@pytest.mark.parametrize("bad", BAD_CLAUDE)
def test_a_malformed_claude_block_becomes_raw_and_the_list_loads(bad: dict[str, object]) -> None:
    items = [{"type": "text", "text": "before"}, bad, {"type": "text", "text": "after"}]
    blocks = mb.parse_blocks(items, unknown="raw")
    assert [type(b).__name__ for b in blocks] == ["TextBlock", "RawBlock", "TextBlock"]
    raw = blocks[1]
    assert isinstance(raw, mb.RawBlock)
    assert (raw.provider, raw.data) == ("unknown", bad)
    with pytest.raises(DecodeError, match="block 1"):
        mb.parse_blocks(items)


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(["tool_use", "image", "document", "redacted_thinking", "tool_result"]),
    fields=st.dictionaries(
        st.sampled_from(["id", "name", "input", "source", "data", "tool_use_id", "content"]),
        _JSONISH,
        max_size=4,
    ),
)
def test_raw_mode_never_fails_on_a_claude_shaped_block(
    kind: str, fields: dict[str, object]
) -> None:
    item = {**fields, "type": kind}
    if kind == "tool_result":
        item["tool_use_id"] = fields.get("tool_use_id", "t")
    try:
        blocks = mb.parse_blocks([item], unknown="raw")
    except MediaBlocksError as exc:  # pragma: no cover - the property says this does not happen
        raise AssertionError(f"unknown='raw' raised {exc!r} for {item!r}") from None
    assert len(blocks) == 1
