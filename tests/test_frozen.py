"""Blocks and messages are frozen all the way down: no container inside one can change in place,
so nothing done to a block after it was built reaches `encode`'s output."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks._frozen import FrozenDict, FrozenList, freeze_json


def _call() -> mb.ToolCallBlock:
    return mb.ToolCallBlock(
        id="c1",
        name="zoom",
        args={"box": [1, 2, {"unit": "px"}], "tags": ("a", "b")},
        provider_data={"gemini": {"thought_signature": "sig", "parts": [{"x": 1}]}},
    )


def _history() -> list[mb.Message]:
    return [
        mb.UserMessage(
            content=[mb.TextBlock(text="hi", annotations=[{"type": "cite", "spans": [[0, 2]]}])],
            metadata={"session": {"ids": [1]}},
        ),
        mb.AssistantMessage(
            content=[_call(), mb.RawBlock(provider="bedrock", data={"x": {"list": [1]}})],
            usage=mb.Usage(input_tokens=1, raw={"usage": {"details": [1]}}),
        ),
        mb.ToolMessage(
            content=[
                mb.ToolResultBlock(
                    tool_call_id="c1", content=[mb.TextBlock(text="ok")], metadata={"t": [1]}
                )
            ]
        ),
    ]


CHANGES: dict[str, Callable[[list[mb.Message]], Any]] = {
    "args value": lambda h: h[1].content[0].args.__setitem__("extra", 1),
    "nested args list": lambda h: h[1].content[0].args["box"].append(3),
    "nested args dict": lambda h: h[1].content[0].args["box"][2].update(unit="cm"),
    "provider_data": lambda h: (
        h[1].content[0].provider_data["gemini"].update(thought_signature="x")
    ),
    "provider_data list": lambda h: h[1].content[0].provider_data["gemini"]["parts"].clear(),
    "annotations": lambda h: h[0].content[0].annotations.append({"type": "x"}),
    "annotation inside": lambda h: h[0].content[0].annotations[0]["spans"].pop(),
    "raw data": lambda h: h[1].content[1].data["x"]["list"].append(2),
    "usage.raw": lambda h: h[1].usage.raw["usage"]["details"].append(2),
    "message metadata nested": lambda h: h[0].metadata["session"]["ids"].append(2),
    "tool result content": lambda h: h[2].content[0].content.append(mb.TextBlock(text="!")),
    "tool result metadata": lambda h: h[2].content[0].metadata["t"].insert(0, 0),
    "content": lambda h: h[0].content.__iadd__((mb.TextBlock(text="x"),)),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_no_container_changes_in_place_and_encode_output_stays_the_same(change: str) -> None:
    history = _history()
    before = {
        p: json.dumps(mb.encode(history, p, target="json"), sort_keys=True) for p in ("bedrock",)
    }
    dumped = mb.dump_messages(history)
    with pytest.raises((TypeError, AttributeError)):
        CHANGES[change](history)
    for provider, body in before.items():
        assert json.dumps(mb.encode(history, provider, target="json"), sort_keys=True) == body
    assert mb.dump_messages(history) == dumped


def test_frozen_containers_still_compare_serialise_and_pickle_as_before() -> None:
    call = _call()
    assert call.args == {"box": [1, 2, {"unit": "px"}], "tags": ("a", "b")}
    assert mb.ToolCallBlock(id="c", name="f", args={"s": {1}}).args["s"] == frozenset({1})
    assert isinstance(call.args, dict)
    assert isinstance(call.args["box"], list)
    assert json.loads(json.dumps(call.args["box"])) == [1, 2, {"unit": "px"}]
    assert pickle.loads(pickle.dumps(call)) == call
    history = _history()
    loaded = mb.load_messages(mb.dump_messages(history))
    assert loaded[1].content[0].args["tags"] == ["a", "b"]  # JSON has lists, not tuples
    assert loaded[0] == history[0]
    assert loaded[2] == history[2]
    dumped = call.model_dump()
    dumped["args"]["box"].append(3)  # a dump is the caller's own copy
    assert call.args["box"] == [1, 2, {"unit": "px"}]


def test_copies_made_to_change_are_plain_and_models_stay_frozen() -> None:
    call = _call()
    thawed = copy.deepcopy(call.args)
    thawed["box"].append(3)
    assert type(thawed) is dict
    assert type(thawed["box"]) is list
    assert {**call.args, "more": 1}["more"] == 1
    deep = call.model_copy(deep=True)
    assert type(deep.args) is FrozenDict
    assert type(deep.args["box"]) is FrozenList
    changed = call.model_copy(update={"args": {"box": [9]}})
    with pytest.raises(TypeError):
        changed.args["box"].append(1)
    message = mb.AssistantMessage(content=[call]).model_copy(deep=True)
    assert type(message.content[0].provider_data["gemini"]) is FrozenDict
    fields = copy.deepcopy(mb.encode([mb.AssistantMessage(content=[call])], "anthropic"))
    fields["messages"][0]["content"][0]["input"]["box"].append(3)  # copied output is the caller's
    assert call.args["box"] == [1, 2, {"unit": "px"}]


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        | st.tuples(inner, inner)
    ),
    max_leaves=12,
)


def _mutable_inside(value: Any) -> bool:
    if type(value) in (dict, list, set, bytearray):
        return True
    if isinstance(value, dict):
        return any(_mutable_inside(v) for v in value.values())
    if isinstance(value, (list, tuple, frozenset)):
        return any(_mutable_inside(v) for v in value)
    return False


@settings(max_examples=200, deadline=None)
@given(_json)
def test_freezing_any_json_value_keeps_it_equal_and_leaves_nothing_mutable(value: Any) -> None:
    frozen = freeze_json(value)
    assert frozen == value
    assert not _mutable_inside(frozen)
    assert json.dumps(frozen) == json.dumps(value)
    call = mb.ToolCallBlock(id="c", name="f", args={"v": value})
    assert not _mutable_inside(call.args)
    assert mb.parse_block(call.model_dump_json()).args == json.loads(json.dumps({"v": value}))
