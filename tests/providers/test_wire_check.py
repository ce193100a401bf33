"""`check_payload`: the depth check and the wrongly-typed-field check in one walk must raise
exactly what `check_depth` then `wrong_typed_field` raise, for any payload."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks._depth import MAX_DEPTH, check_depth
from mediablocks.errors import DecodeError
from mediablocks.providers import _wire_check
from mediablocks.providers._wire_check import check_payload, wrong_typed_field

_KEYS = st.sampled_from(["type", "role", "content", "input", "args", "text", "parts", "x"])
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3))
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=4),
    ),
    max_leaves=30,
)


def _two_walks(payload: Any, what: str) -> str | None:
    """What the two separate checks raise (their message), or None."""
    try:
        check_depth(payload, what)
        if isinstance(payload, (dict, list)):
            wrong = wrong_typed_field(payload)
            if wrong is not None:
                raise DecodeError(f"{what}: {wrong}")
    except DecodeError as exc:
        return str(exc)
    return None


def _one_walk(payload: Any, what: str) -> str | None:
    try:
        check_payload(payload, what)
    except DecodeError as exc:
        return str(exc)
    return None


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = {"content": value} if level % 2 else [value]  # one level each
    return value


@settings(max_examples=400, deadline=None)
@given(payload=_VALUES)
def test_one_walk_raises_what_the_two_checks_raise(payload: Any) -> None:
    assert _one_walk(payload, "p") == _two_walks(payload, "p")


@settings(max_examples=50, deadline=None)
@given(depth=st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3), bad=st.booleans(), free=st.booleans())
def test_depth_is_reported_before_a_wrong_type(depth: int, bad: bool, free: bool) -> None:
    leaf = {"type": ["not a string"]} if bad else {"type": "text"}
    payload: Any = {"messages": [{"role": 1}, _nested(depth, leaf)]}
    if free:
        payload = {"input": payload}  # the caller's own JSON: no types checked inside
    levels = free + 2 + depth + 1 + bad  # (input), body, its list, the nesting, leaf (, list)
    found = _one_walk(payload, "p")
    assert found == _two_walks(payload, "p")
    if levels > MAX_DEPTH:
        assert found == f"p is nested more than {MAX_DEPTH} levels deep"
    elif not free:
        assert found == "p: messages[0].role is a number, not a string"
    else:
        assert found is None


def test_the_first_wrong_field_is_named_by_its_path() -> None:
    payload = {"messages": [{"role": "user", "content": [{"type": "text"}, {"type": {}}]}]}
    assert _one_walk(payload, "p") == "p: messages[0].content[1].type is an object, not a string"
    assert _one_walk({"tools": [{"type": 1}]}, "p") is None  # tools are the caller's own


def test_past_its_budget_the_two_checks_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_wire_check, "_ONE_WALK_BUDGET", 5)
    shared: list[Any] = [{"type": "text"}]
    wide = {"messages": [shared] * 20 + [{"content": [{"role": 7}]}]}
    assert (
        _one_walk(wide, "p")
        == _two_walks(wide, "p")
        == "p: messages[20].content[0].role is a number, not a string"
    )
    deep = {"messages": [_nested(MAX_DEPTH + 1, 1)] + [shared] * 20}
    assert _one_walk(deep, "p") == f"p is nested more than {MAX_DEPTH} levels deep"
    assert _one_walk({"messages": [shared] * 20}, "p") is None


def test_decode_refuses_as_before() -> None:
    with pytest.raises(DecodeError, match=r"anthropic payload: messages\[0\].role is a list"):
        mb.decode({"messages": [{"role": ["user"], "content": "hi"}]}, "anthropic")
    with pytest.raises(DecodeError, match="nested more than"):
        mb.decode({"messages": [_nested(MAX_DEPTH + 5, "x")]}, "anthropic")
