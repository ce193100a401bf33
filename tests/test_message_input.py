"""Message-like input: one reading (`mediablocks.message_input`) for every public entry point.

The property at the end is the contract: for every entry point and every input shape the docs
name (and hostile values besides), the result is the documented one or a `MediaBlocksError`
with a code, never ``TypeError``, ``AttributeError`` or a pydantic error.
"""

from __future__ import annotations

import json
import re
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.errors import HTTP_STATUS
from mediablocks.message_input import as_messages

SHAPES: dict[str, Any] = {
    "string": "hi",
    "message": mb.UserMessage.text("hi"),
    "dict": {"role": "user", "content": "hi"},
    "pair": ("user", "hi"),
    "alias pair": ("human", "hi"),
    "pairs": [("system", "be brief"), ("user", "hi")],
    "messages": [mb.SystemMessage.text("be brief"), mb.UserMessage.text("hi")],
    "dicts": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
    "strings": ["hi", "there"],
    "mixed": [
        "hi",
        ("assistant", "yes"),
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
    ],
    "generator": (m for m in [mb.UserMessage.text("hi")]),
}


def _roles(messages: list[mb.Message]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]  # type: ignore[union-attr]


def _expected(shape: str) -> list[tuple[str, str]]:
    return {
        "string": [("user", "hi")],
        "message": [("user", "hi")],
        "dict": [("user", "hi")],
        "pair": [("user", "hi")],
        "alias pair": [("user", "hi")],
        "pairs": [("system", "be brief"), ("user", "hi")],
        "messages": [("system", "be brief"), ("user", "hi")],
        "dicts": [("system", "be brief"), ("user", "hi")],
        "strings": [("user", "hi"), ("user", "there")],
        "mixed": [("user", "hi"), ("assistant", "yes"), ("user", "q")],
        "generator": [("user", "hi")],
    }[shape]


def _fresh(shape: str) -> Any:
    value = SHAPES[shape]
    return (m for m in [mb.UserMessage.text("hi")]) if shape == "generator" else value


ENTRY_POINTS: dict[str, Callable[[Any], list[mb.Message]]] = {
    "encode": lambda m: mb.decode(mb.encode(m, "openai"), "openai"),
    "encode_json": lambda m: mb.decode(
        json.loads(mb.encode_json(m, "openai", model="gpt-4.1")), "openai"
    ),
    "Request": lambda m: mb.Request(messages=m).messages,
    "prepare": lambda m: mb.prepare(m, "anthropic"),
    "prepare_with_report": lambda m: mb.prepare_with_report(m, "gemini")[0],
    "normalize/regroup": lambda m: mb.regroup_messages(mb.normalize_messages(m)),
    "regroup_messages": lambda m: mb.regroup_messages(m),
    "dump/load": lambda m: mb.load_messages(mb.dump_messages(m)),
    "load_messages": lambda m: mb.load_messages(m if not isinstance(m, str) else [m]),
    "merge_consecutive": lambda m: list(mb.merge_consecutive(m)),
    "filter_messages": lambda m: mb.filter_messages(m),
    "trim_messages": lambda m: mb.trim_messages(m, 10_000),
    "redacted": lambda m: mb.load_messages(mb.redacted(m)),
    "upload": lambda m: mb.upload(m, "openai", object()),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_takes_every_shape(entry: str, shape: str) -> None:
    got = ENTRY_POINTS[entry](_fresh(shape))
    expected = _expected(shape)
    if entry in ("merge_consecutive",) and shape == "strings":
        expected = [("user", "hi\nthere")]
    assert _roles(got) == expected


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_counting_validating_and_printing_take_every_shape(shape: str) -> None:
    assert mb.validate(_fresh(shape)) == []
    assert mb.estimate_tokens(_fresh(shape), "anthropic") > 0
    assert mb.count_tokens(_fresh(shape)) == mb.count_tokens(as_messages(_fresh(shape))) > 0
    assert "hi" in mb.pretty(_fresh(shape))


def test_pairs_and_strings_write_a_checkpoint_load_messages_reads(tmp_path: Path) -> None:
    # Once a pydantic warning and a document nobody could read back; now the same messages.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for shape in SHAPES:
            text = mb.dump_messages(_fresh(shape))
            assert _roles(mb.load_messages(text)) == _expected(shape)
            path = tmp_path / f"{len(shape)}.json"
            mb.save_history(_fresh(shape), path)
            assert _roles(mb.load_history(path)) == _expected(shape)


def test_dump_refuses_what_it_cannot_write_loadably() -> None:
    custom = mb.CustomMessage(custom_type="note", data={"handle": object()})
    with pytest.raises(mb.DecodeError, match=r"message 1 \(custom\)") as caught:
        mb.dump_messages(["hi", custom])
    assert caught.value.code == "decode_error"
    with pytest.raises(mb.InvalidTextError):
        mb.dump_messages([("user", "broken \ud83d")])


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (5, "not a int"),
        (None, "not a NoneType"),
        (b"hi", "not a bytes"),
        ([3], "message 0 is a int"),
        (["hi", [("user", "x")]], "message 1 is a list"),
        ([("wizard", "x")], "'wizard' is not a role"),
        (("user", 3), "not a (role, content) pair"),
        ([{"content": "no role"}], "message 0 is not a valid message"),
        (mb.TextBlock(text="a block"), "not a TextBlock"),
    ],
)
def test_what_is_not_messages_is_named_by_every_entry_point(value: Any, named: str) -> None:
    for entry, call in ENTRY_POINTS.items():
        if entry == "load_messages" and isinstance(value, bytes):
            continue  # bytes are a JSON document there
        with pytest.raises(mb.DecodeError, match=re.escape(named)):
            call(value)
    for call in (mb.validate, mb.pretty, mb.count_tokens):
        with pytest.raises(mb.DecodeError, match=re.escape(named)):
            call(value)


def test_a_role_and_a_block_dict_is_a_pair_for_batch_too(tmp_path: Path) -> None:
    out = tmp_path / "batch.jsonl"
    mb.write_batch(
        [("user", {"type": "text", "text": "hi"}), ("hi", {"model": "gpt-4o"})],
        "openai",
        out,
        model="gpt-4.1",
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["body"]["messages"] for line in lines] == [[{"role": "user", "content": "hi"}]] * 2
    assert [line["body"]["model"] for line in lines] == ["gpt-4.1", "gpt-4o"]


def test_the_one_reading_is_one_pass_over_a_generator() -> None:
    seen: list[int] = []

    def messages() -> Any:
        for number in range(3):
            seen.append(number)
            yield ("user", f"m{number}")

    assert [m.text for m in mb.prepare(messages(), "anthropic")] == ["m0", "m1", "m2"]  # type: ignore[union-attr]
    assert seen == [0, 1, 2]


def test_unknown_blocks_in_dicts_are_kept_verbatim_then_refused_by_name() -> None:
    raw = {"role": "user", "content": [{"type": "hologram", "id": 7}]}
    [message] = as_messages(raw)
    assert message.content[0] == mb.RawBlock(provider="unknown", data={"type": "hologram", "id": 7})
    with pytest.raises(mb.DecodeError, match=r"message 0, block 0 .*'hologram'.*mb\.decode"):
        mb.encode(raw, "anthropic")


# -- the property ---------------------------------------------------------------------------------

_roles_st = st.sampled_from(["user", "assistant", "system", "human", "ai", "wizard", "", "USER"])
_text = st.text(max_size=12)
_content = st.one_of(
    _text,
    st.lists(st.one_of(_text, st.builds(mb.TextBlock, text=_text)), max_size=3),
    st.integers(),
    st.none(),
    st.dictionaries(st.sampled_from(["type", "text"]), _text, max_size=2),
)
_message_like = st.one_of(
    _text,
    st.builds(mb.UserMessage.text, _text),
    st.builds(mb.AssistantMessage.text, _text),
    st.builds(lambda r, c: {"role": r, "content": c}, _roles_st, _content),
    st.tuples(_roles_st, _content),
    st.integers(),
    st.none(),
    st.binary(max_size=4),
    st.builds(mb.TextBlock, text=_text),
    st.dictionaries(_text, _text, max_size=2),
)
_input = st.one_of(
    _message_like,
    st.lists(_message_like, max_size=4),
    st.lists(st.lists(_message_like, max_size=2), max_size=2),
    st.tuples(_message_like, _message_like, _message_like),
)


def _write_batch(messages: Any) -> list[mb.Message]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch.jsonl"
        mb.write_batch([(messages, {})], "anthropic", path, model="claude-x", max_tokens=10)
        [line] = path.read_text(encoding="utf-8").rstrip("\n").split("\n")  # JSONL: "\n" only
    return mb.decode(json.loads(line)["params"], "anthropic")


_PROPERTY_CALLS: dict[str, Callable[[Any], Any]] = {
    **ENTRY_POINTS,
    "write_batch": _write_batch,
    "save_history": lambda m: mb.load_messages(mb.save_history(m)),
    "encode_request": lambda m: mb.encode_request(mb.Request(messages=m), "bedrock"),
    "encode anthropic": lambda m: mb.encode(m, "anthropic"),
    "encode gemini": lambda m: mb.encode(m, "gemini"),
    "validate": mb.validate,
    "validate bedrock": lambda m: mb.validate(m, "bedrock"),
    "pretty": mb.pretty,
    "estimate_tokens": lambda m: mb.estimate_tokens(m, "openai"),
    "count_tokens": mb.count_tokens,
    "normalize_messages": mb.normalize_messages,
}


def _outcome(call: Callable[[Any], Any], value: Any) -> tuple[Any, mb.MediaBlocksError | None]:
    """``(result, None)`` or ``(None, the library error)``; any other exception (or a warning)
    fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return call(value), None
        except mb.MediaBlocksError as exc:
            return None, exc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_input, entry=st.sampled_from(sorted(_PROPERTY_CALLS)))
def test_every_entry_point_gives_the_documented_result_or_a_coded_error(
    value: Any, entry: str
) -> None:
    if entry == "estimate_tokens":  # it counts blocks too, alone or listed with messages
        if isinstance(value, mb.TextBlock):
            assert mb.estimate_tokens(value, "openai") >= 0
            return
        if isinstance(value, (list, tuple)):  # a tuple that is not a (role, content) pair too
            value = type(value)(item for item in value if not isinstance(item, mb.TextBlock))
    expected, refused = _outcome(as_messages, value)
    result, error = _outcome(_PROPERTY_CALLS[entry], value)
    for raised in (refused, error):
        assert raised is None or raised.code in HTTP_STATUS
    if error is not None:
        assert expected is not None or isinstance(error, mb.DecodeError)  # not messages, said so
        return
    assert expected is not None, f"{entry} took {value!r}, which is not messages"
    if entry in (
        "dump/load",
        "Request",
        "normalize/regroup",
        "regroup_messages",
        "redacted",
        "save_history",
    ):
        assert [m.model_dump(exclude={"id", "timestamp"}) for m in result] == [
            m.model_dump(exclude={"id", "timestamp"}) for m in expected
        ]
    elif entry in ("estimate_tokens", "count_tokens"):
        assert isinstance(result, int)
        assert result >= 0
    elif entry == "pretty":
        assert result.count("── ") == len(expected)
    elif entry == "normalize_messages":
        assert len({item.message_id for item in result}) == len(expected)
