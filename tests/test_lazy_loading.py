"""Loading a history from JSON text and estimating tokens after `decode` stay lazy and bounded.

`load_messages` on text validates straight from JSON and keeps the depth limit; header facts of
base64 media come from the few 4-character groups that hold them, never the whole text.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks._depth import MAX_DEPTH, check_depth
from mediablocks.sources import Base64Source


def _nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels - 1):
        value = [value]
    return value


def _history() -> list[mb.Message]:
    call = mb.ToolCallBlock(id="c1", name="f", args={"a": [1, {"b": None}]})
    return [
        mb.UserMessage.text("hello"),
        mb.AssistantMessage(content=[mb.TextBlock(text="hi"), call], metadata={"k": [1, 2]}),
        mb.ToolMessage.from_results([mb.ToolResultBlock(tool_call_id="c1", content="42")]),
    ]


def test_text_and_parsed_documents_load_to_the_same_messages() -> None:
    text = mb.dump_messages(_history())
    from_text = mb.load_messages(text)
    assert from_text == mb.load_messages(json.loads(text)) == _history_loaded(text)
    assert mb.load_messages(text.encode()) == from_text
    assert [type(m) for m in from_text] == [mb.UserMessage, mb.AssistantMessage, mb.ToolMessage]
    bare = json.dumps(json.loads(text)["messages"])
    assert mb.load_messages(bare) == from_text


def _history_loaded(text: str) -> list[mb.Message]:
    return mb.load_messages(json.loads(text)["messages"])


@pytest.mark.parametrize("levels", [*range(MAX_DEPTH - 6, MAX_DEPTH), 150, 250, 10_000])
def test_the_depth_limit_holds_when_loading_from_text(levels: int) -> None:
    message = {"role": "user", "content": [], "metadata": {"deep": _nested(levels)}}
    document = {"format": "mediablocks.messages", "version": 1, "messages": [message]}
    text = json.dumps(document) if levels < 900 else _dump_deep(document, levels)
    try:  # the reference: the parsed document walked by the depth check every input passes
        check_depth(json.loads(text), "document")
        too_deep = False
    except (mb.DecodeError, RecursionError):
        too_deep = True
    if not too_deep:
        (loaded,) = mb.load_messages(text)
        assert loaded.metadata["deep"] == _nested(levels)
    else:
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            mb.load_messages(text)


def _dump_deep(document: dict[str, Any], levels: int) -> str:
    """JSON text for a document too deep for ``json.dumps`` (written by hand)."""
    marker = "__DEEP__"
    document["messages"][0]["metadata"]["deep"] = marker
    return json.dumps(document).replace(
        f'"{marker}"', "[" * (levels - 1) + '"bottom"' + "]" * (levels - 1)
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "other", "version": 1, "messages": []}', "not a mediablocks message"),
        ('{"format": "mediablocks.messages", "version": 99, "messages": []}', "version 99"),
        ('{"format": "mediablocks.messages", "version": 1, "messages": [{"role": 1}]}', "invalid"),
        ("[1, 2", "not valid JSON"),
        ('"just text"', "JSON list of messages"),
    ],
)
def test_documents_the_fast_path_cannot_take_get_the_checked_paths_errors(
    text: str, message: str
) -> None:
    with pytest.raises(mb.DecodeError, match=message):
        mb.load_messages(text)


def test_role_aliases_and_string_content_still_load_from_text() -> None:
    (message,) = mb.load_messages('[{"role": "developer", "content": "be brief"}]')
    assert isinstance(message, mb.SystemMessage)
    assert message.text == "be brief"


# -- base64 media: header facts from a prefix -----------------------------------------------


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


@settings(max_examples=200, deadline=None)
@given(data=st.binary(min_size=1, max_size=200), offset=st.integers(0, 220), n=st.integers(1, 80))
def test_decoded_range_is_the_slice_of_the_whole_decode(data: bytes, offset: int, n: int) -> None:
    source = Base64Source(data=base64.b64encode(data).decode())
    assert source.decoded_size == len(data)
    if offset < len(data):
        assert source.decoded_range(offset, n) == data[offset : offset + n]


def test_estimate_tokens_after_decode_reads_only_the_header_of_base64_images() -> None:
    png = _png(640, 480)
    payload = [
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(png).decode(),
                    },
                }
            ],
        }
    ]
    (fresh,) = mb.decode(payload, "anthropic")
    (in_memory,) = mb.decode(payload, "anthropic")
    in_memory.media[0].read()
    fresh_count = mb.estimate_tokens([fresh], "anthropic")
    assert fresh_count == mb.estimate_tokens([in_memory], "anthropic")
    assert fresh_count == mb.image_tokens(640, 480, "anthropic")
    # Only the header's groups were decoded: the whole bytes were never made.
    assert fresh.media[0].source._data is None


# -- the depth check on shared objects ------------------------------------------------------


def _dag(levels: int) -> Any:
    """``levels`` lists, each holding the next one twice: 2**levels paths, ``levels`` objects."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value, value]
    return value


def test_the_depth_check_visits_shared_objects_once() -> None:
    check_depth(_dag(MAX_DEPTH), "a DAG at the limit")  # 2**100 paths: only the seen-set ends it
    with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
        check_depth(_dag(MAX_DEPTH + 1), "a DAG past the limit")


@pytest.mark.parametrize("levels", [MAX_DEPTH, MAX_DEPTH + 1])
def test_the_depth_check_counts_a_plain_tree_exactly(levels: int) -> None:
    tree = _nested(levels + 1)  # ``levels`` lists around a string
    if levels <= MAX_DEPTH:
        check_depth(tree, "a tree")
    else:
        with pytest.raises(mb.DecodeError, match=f"more than {MAX_DEPTH} levels"):
            check_depth(tree, "a tree")
