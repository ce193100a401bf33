"""`load_messages` from JSON text takes pydantic-core's own path for the stored form; every other
form (aliases, shorthands, old stop reasons) still loads exactly as the Python path does."""

from __future__ import annotations

import gc
import json
from collections.abc import Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import mediablocks as mb
from mediablocks._depth import MAX_DEPTH


def _document(*messages: dict[str, Any]) -> str:
    return json.dumps({"format": "mediablocks.messages", "version": 1, "messages": list(messages)})


@pytest.mark.parametrize(
    ("role", "kind"),
    [("human", mb.UserMessage), (" Model ", mb.AssistantMessage), ("developer", mb.SystemMessage)],
)
def test_an_aliased_role_in_stored_text_loads_as_its_canonical_message(
    role: str, kind: type[mb.Message]
) -> None:
    (loaded,) = mb.load_messages(_document({"role": role, "content": "hi"}))
    assert type(loaded) is kind
    assert loaded.role == kind.model_fields["role"].default
    assert loaded.text == "hi"


def test_a_role_alias_given_to_one_message_class_is_made_canonical() -> None:
    message = mb.UserMessage.model_validate_json('{"role": "Human", "content": []}')
    assert message.role == "user"
    with pytest.raises(ValueError, match="user"):
        mb.UserMessage.model_validate({"role": "assistant"})


@pytest.mark.parametrize(
    ("content", "texts"),
    [
        ("hi", ["hi"]),
        (None, []),
        ({"type": "text", "text": "one"}, ["one"]),
        (["a", "b"], ["a", "b"]),
    ],
)
def test_content_shorthands_load_from_json_text_as_from_python(
    content: Any, texts: list[str]
) -> None:
    stamp = "2026-01-02T03:04:05Z"
    text = _document({"role": "user", "id": "m1", "timestamp": stamp, "content": content})
    (loaded,) = mb.load_messages(text)
    (from_python,) = mb.load_messages(json.loads(text))
    assert [b.text for b in loaded.content] == texts
    assert loaded == from_python
    assert isinstance(loaded.content, tuple)
    direct = mb.UserMessage.model_validate_json(json.dumps({"content": content}))
    assert [b.text for b in direct.content] == texts


def test_a_stored_provider_stop_reason_is_normalised_on_load() -> None:
    old = {"role": "assistant", "content": [], "stop_reason": "STOP", "provider": "gemini"}
    raw_only = {"role": "assistant", "provider_stop_reason": "length", "provider": "openai"}
    call = {"type": "tool_call", "id": "c", "name": "f", "args": {}}
    with_call = {"role": "assistant", "content": [call], "provider_stop_reason": "stop"}
    first, second, third = mb.load_messages(_document(old, raw_only, with_call))
    assert (first.stop_reason, first.provider_stop_reason) == ("end_turn", "STOP")
    assert (second.stop_reason, second.provider_stop_reason) == ("max_tokens", "length")
    assert third.stop_reason == "tool_use"
    assert {"stop_reason", "provider_stop_reason"} <= first.model_fields_set
    again = mb.load_messages(mb.dump_messages([first, second, third]))
    assert again == [first, second, third]


def test_a_stop_reason_that_is_not_a_string_is_still_refused() -> None:
    with pytest.raises(mb.DecodeError, match="stop_reason"):
        mb.load_messages(_document({"role": "assistant", "stop_reason": 3}))


def _nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("levels", [MAX_DEPTH - 6, MAX_DEPTH - 5, MAX_DEPTH - 4])
def test_the_depth_limit_counts_levels_inside_the_content_tuple(levels: int) -> None:
    # document, messages list, message, content, block, args: 6 levels above the args' value.
    call = {"type": "tool_call", "id": "c", "name": "f", "args": {"x": _nested(levels)}}
    text = _document({"role": "assistant", "content": [call]})
    if levels + 5 <= MAX_DEPTH:
        (loaded,) = mb.load_messages(text)
        assert loaded.tool_calls[0].args["x"] == _nested(levels)
    else:
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.load_messages(text)


@pytest.mark.parametrize("levels", [MAX_DEPTH - 5, MAX_DEPTH - 4])
def test_the_depth_limit_counts_from_a_bare_list_of_messages_one_level_less(levels: int) -> None:
    # messages list, message, content, block, args: 5 levels above the args' value.
    call = {"type": "tool_call", "id": "c", "name": "f", "args": {"x": _nested(levels)}}
    message = {"role": "assistant", "id": "m1", "timestamp": "2026-01-02T03:04:05Z"}
    text = json.dumps([{**message, "content": [call]}])
    if levels + 4 <= MAX_DEPTH:
        (loaded,) = mb.load_messages(text)
        assert loaded.tool_calls[0].args["x"] == _nested(levels)
        assert mb.load_messages(json.loads(text)) == [loaded]
    else:
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.load_messages(text)
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.load_messages(json.loads(text))  # the checked path draws the line at one place


# -- the cyclic collector waits while a history is built -------------------------------------


def test_the_collector_is_off_inside_and_back_on_after_even_on_error() -> None:
    from mediablocks._loading import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    from mediablocks._loading import collector_paused

    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
        mb.load_messages(_document({"role": "user", "content": "hi"}))
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("loader", [mb.load_messages, mb.load_history])
@pytest.mark.parametrize(
    ("text", "fails"),
    [
        (_document({"role": "user", "content": [{"type": "text", "text": "hi"}]}), False),
        (_document({"role": "nobody", "content": []}), True),  # refused on the checked path
        ("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5), True),  # nested too deep
    ],
)
def test_loading_turns_the_collector_off_then_on_again(
    monkeypatch: pytest.MonkeyPatch, loader: Any, text: str, fails: bool
) -> None:
    seen: list[bool] = []
    original = gc.disable

    def disable() -> None:
        seen.append(gc.isenabled())
        original()

    monkeypatch.setattr(gc, "disable", disable)
    if fails:
        with pytest.raises(mb.DecodeError):
            loader(text)
    else:
        assert [m.text for m in loader(text)] == ["hi"]
    assert seen == [True]  # once, around the whole load
    assert gc.isenabled()


def _young_ids() -> set[int]:
    return {id(item) for generation in (0, 1) for item in gc.get_objects(generation)}


def test_a_loaded_history_goes_straight_to_the_oldest_generation() -> None:
    text = _document({"role": "user", "content": [{"type": "text", "text": "hi"}]})
    gc.collect()
    (message,) = mb.load_messages(text)
    young = _young_ids()
    assert id(message) not in young  # promoted without a collection walking it
    assert id(message.content[0]) not in young
    assert gc.is_tracked(message)
    assert gc.get_freeze_count() == 0


def test_objects_the_program_froze_stay_frozen_across_a_load() -> None:
    gc.collect()
    kept = [[index] for index in range(10)]
    gc.freeze()
    try:
        assert gc.get_freeze_count() >= len(kept)
        (message,) = mb.load_messages(_document({"role": "user", "content": "hi"}))
        assert message.text == "hi"
        collected = {id(item) for item in gc.get_objects()}  # every generation, not the frozen
        assert not any(id(item) in collected for item in kept)  # still frozen after the load
        assert id(message) in collected
        assert gc.isenabled()
    finally:
        gc.unfreeze()


# -- property: the walk after pydantic-core's path agrees with the checked path ----------------

_LEAF = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
_FREE = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def _deep(value: Any, levels: int) -> Any:
    """``value`` inside ``levels`` more lists and dicts, alternating."""
    for index in range(levels):
        value = {"k": value} if index % 2 else [value]
    return value


def _mutable_inside(value: Any) -> bool:
    """Whether a plain (changeable) dict or list is anywhere inside ``value``."""
    if isinstance(value, BaseModel):
        return any(_mutable_inside(v) for v in value.__dict__.values())
    if type(value) in (dict, list):
        return True
    if isinstance(value, dict):
        return any(_mutable_inside(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_mutable_inside(v) for v in value)
    return False


@settings(max_examples=150, deadline=None)
@given(
    free=st.lists(_FREE, min_size=6, max_size=6),
    levels=st.integers(min_value=0, max_value=MAX_DEPTH),
    where=st.integers(min_value=0, max_value=5),
)
def test_loading_text_freezes_and_limits_depth_as_loading_parsed_json_does(
    free: list[Any], levels: int, where: int
) -> None:
    # Free-form values in every place a history holds them, one of them nested ``levels`` deeper.
    free[where] = _deep(free[where], levels)
    args, metadata, provider, annotation, result_meta, raw = free
    blocks = [
        {
            "type": "text",
            "text": "t",
            "annotations": [{"a": annotation}],
            "provider_data": {"p": {"x": provider}},
        },
        {"type": "tool_call", "id": "c", "name": "f", "args": {"v": args}, "metadata": {}},
        {"type": "text", "text": "u", "annotations": [], "provider_data": {}},  # as dumped
        {"type": "raw", "provider": "x", "data": {"v": raw}},
        {
            "type": "tool_result",
            "tool_call_id": "c",
            "content": [{"type": "image", "source": {"kind": "url", "url": "https://x/y.png"}}],
            "metadata": {"m": result_meta},
        },
    ]
    message = {"role": "assistant", "id": "m1", "timestamp": "2026-01-02T03:04:05Z"}
    messages = [{**message, "content": blocks, "metadata": {"m": metadata}}]
    text = json.dumps({"format": "mediablocks.messages", "version": 1, "messages": messages})
    try:
        checked = mb.load_messages(json.loads(text))  # parsed JSON: the checked, Python path
    except mb.DecodeError:
        with pytest.raises(mb.DecodeError, match="levels deep"):
            mb.load_messages(text)
        with pytest.raises(mb.DecodeError, match="levels deep"):
            mb.load_history(text)
        return
    fast = mb.load_messages(text)
    assert fast == checked
    assert mb.load_history(text) == checked  # no stored media: the same pydantic-core path
    assert not any(_mutable_inside(message) for message in fast)  # the list itself is the caller's
    assert not any(_mutable_inside(message) for message in checked)


# -- the depth walk runs only when a free-form value nests close to the limit ------------------


def _levels_above_free_form(annotation: Any, metadata: Sequence[Any] = ()) -> int:
    """The most levels of lists, tuples, dicts and models a value typed ``annotation`` (its own
    level counted) puts above the first level of a free-form value inside it; -1 for none."""
    from mediablocks._frozen import FROZEN

    if get_origin(annotation) is Annotated:
        inner, *extra = get_args(annotation)
        return _levels_above_free_form(inner, [*metadata, *extra])
    free = 0 if any(item is FROZEN for item in metadata) else -1
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        inside = [
            _levels_above_free_form(field.annotation, field.metadata)
            for field in annotation.model_fields.values()
        ]
        below = max(inside, default=-1)
        return max(free, below + 1 if below >= 0 else -1)
    origin = get_origin(annotation)
    args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
    below = max((_levels_above_free_form(arg) for arg in args), default=-1)
    if origin in (Union, UnionType):
        return max(free, below)
    if origin is not None and below >= 0:  # a list, tuple or dict of values holding one
        return max(free, below + 1)
    return free


def test_models_hold_free_form_values_at_most_model_levels_below_the_message_list() -> None:
    from mediablocks._loading import MODEL_LEVELS

    # The message list, then a message: the deepest known place is a media block's metadata in
    # a tool result (list, message, content, tool result, its content, the block: six).
    levels = 1 + _levels_above_free_form(mb.Message)
    assert 6 <= levels <= MODEL_LEVELS


@pytest.mark.parametrize("levels", [MAX_DEPTH - 8, MAX_DEPTH - 7, MAX_DEPTH - 6])
def test_the_depth_limit_holds_at_the_deepest_place_a_history_holds_a_free_form_value(
    levels: int,
) -> None:
    # document, messages, message, content, tool result, its content, image: 7 levels above the
    # image's metadata, whose value holds ``levels - 1`` lists.
    image = {"type": "image", "source": {"kind": "url", "url": "https://x/y.png"}}
    image["metadata"] = {"m": _nested(levels)}
    result = {"type": "tool_result", "tool_call_id": "c", "content": [image]}
    stamp = "2026-01-02T03:04:05Z"
    text = _document({"role": "tool", "id": "m1", "timestamp": stamp, "content": [result]})
    if 7 + levels <= MAX_DEPTH:
        (loaded,) = mb.load_messages(text)
        stored = loaded.content[0].content[0].metadata["m"]
        assert stored == _nested(levels)
        assert mb.load_messages(json.loads(text)) == [loaded]
        assert not _mutable_inside(loaded)
    else:
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.load_messages(text)
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.load_messages(json.loads(text))


def test_only_a_history_nested_close_to_the_limit_is_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mediablocks import _loading

    walked: list[str] = []
    original = _loading.check_loaded_depth

    def spy(value: Any, what: str, above: int = 0) -> None:
        walked.append(what)
        original(value, what, above)

    monkeypatch.setattr(_loading, "check_loaded_depth", spy)
    call = {"type": "tool_call", "id": "c", "name": "f", "args": {"x": _nested(20)}}
    mb.load_messages(_document({"role": "assistant", "content": [call]}))
    assert walked == []
    call["args"] = {"x": _nested(MAX_DEPTH - 10)}
    mb.load_messages(_document({"role": "assistant", "content": [call]}))
    assert walked == ["message history"]


@pytest.mark.parametrize("parse", [mb.ToolCallBlock.model_validate_json, mb.parse_block])
def test_a_block_validated_from_json_text_is_read_only_all_the_way_down(parse: Any) -> None:
    text = json.dumps(
        {"type": "tool_call", "id": "c", "name": "f", "args": {"box": [1, {"k": []}]}}
    )
    call = parse(text)
    assert call.args == {"box": [1, {"k": []}]}
    assert not _mutable_inside(call)
    with pytest.raises(TypeError, match="read-only"):
        call.args["box"].append(3)
    with pytest.raises(TypeError, match="read-only"):
        call.metadata["note"] = 1  # the usual empty mapping, read-only too
