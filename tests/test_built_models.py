"""`built_message`, `text_block` and `assembled`: what decoders use to skip validating again what
they just built must give exactly the model validation gives, and fall back to validation for
anything it does not cover."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, PrivateAttr, ValidationError

import mediablocks as mb
from mediablocks._base import assembled
from mediablocks._frozen import BlockTuple, FrozenDict, FrozenList
from mediablocks.blocks import text_block
from mediablocks.messages import built_message


def _state(model: BaseModel) -> Any:
    """Everything that makes a model what it is, but its random id and its timestamp."""
    fields = {k: v for k, v in model.__dict__.items() if k not in ("id", "timestamp")}
    return (
        type(model),
        list(model.__dict__),
        fields,
        {k: type(v) for k, v in fields.items()},
        model.model_fields_set,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


_texts = st.text(max_size=20)
_blocks = st.lists(
    st.one_of(
        _texts.map(lambda t: mb.TextBlock(text=t)),
        st.builds(mb.ThinkingBlock, thinking=_texts, signature=st.none() | _texts),
        st.builds(mb.ToolCallBlock, id=_texts, name=_texts),
        st.builds(mb.ToolResultBlock, tool_call_id=_texts, content=_texts),
        st.builds(mb.RawBlock, provider=_texts, data=st.dictionaries(_texts, _texts)),
    ),
    max_size=5,
)
_optional = st.none() | _texts


@settings(max_examples=200, deadline=None)
@given(blocks=_blocks, provider=_optional, model=_optional, response_id=_optional)
def test_built_assistant_messages_equal_validated_ones(
    blocks: list[Any], provider: str | None, model: str | None, response_id: str | None
) -> None:
    fields = {"provider": provider, "model": model, "response_id": response_id}
    built = built_message(mb.AssistantMessage, blocks, **fields)
    validated = mb.AssistantMessage(content=blocks, **fields)
    assert _state(built) == _state(validated)
    assert isinstance(built.content, BlockTuple)
    assert built.model_dump_json(exclude={"id", "timestamp"}) == validated.model_dump_json(
        exclude={"id", "timestamp"}
    )
    assert built.id.startswith("msg_")
    assert built.id != validated.id
    assert built.timestamp.tzinfo is not None


@settings(max_examples=100, deadline=None)
@given(blocks=_blocks, name=_optional)
def test_built_user_tool_and_system_messages_equal_validated_ones(
    blocks: list[Any], name: str | None
) -> None:
    assert _state(built_message(mb.UserMessage, blocks, name=name)) == _state(
        mb.UserMessage(content=blocks, name=name)
    )
    for cls in (mb.ToolMessage, mb.SystemMessage, mb.UserMessage):
        assert _state(built_message(cls, blocks)) == _state(cls(content=blocks))


class _Text(str):
    pass


def test_what_the_shortcut_does_not_cover_is_validated() -> None:
    # A stop reason goes through the assistant's validator, which normalises it.
    reply = built_message(mb.AssistantMessage, [], provider="anthropic", model=None)
    assert reply.stop_reason is None
    stopped = built_message(mb.AssistantMessage, [], provider_stop_reason="max_tokens")
    assert stopped.stop_reason == "max_tokens"
    assert stopped.provider_stop_reason == "max_tokens"
    # A string subclass, a wrong type and a dict block are validated (and refused or converted).
    named = built_message(mb.UserMessage, [], name=_Text("n"))
    assert type(named.name) is str
    with pytest.raises(ValidationError, match="valid string"):
        built_message(mb.UserMessage, [], name=3)  # type: ignore[arg-type]
    from_dict = built_message(mb.UserMessage, [{"type": "text", "text": "hi"}])  # type: ignore[list-item]
    assert from_dict.content == [mb.TextBlock(text="hi")]
    with pytest.raises(ValidationError, match="content"):
        built_message(mb.UserMessage, [object()])  # type: ignore[list-item]


@settings(max_examples=200, deadline=None)
@given(
    text=_texts,
    annotations=st.none() | st.lists(st.dictionaries(_texts, _texts, max_size=2), max_size=2),
    provider_data=st.none()
    | st.dictionaries(_texts, st.dictionaries(_texts, _texts, max_size=2), max_size=2),
)
def test_text_block_equals_the_validated_block(
    text: str,
    annotations: list[dict[str, Any]] | None,
    provider_data: dict[str, dict[str, Any]] | None,
) -> None:
    given_fields: dict[str, Any] = {"text": text}
    if annotations is not None:
        given_fields["annotations"] = annotations
    if provider_data is not None:
        given_fields["provider_data"] = provider_data
    built = text_block(text, annotations, provider_data)
    assert _state(built) == _state(mb.TextBlock(**given_fields))
    assert isinstance(built.annotations, FrozenList)
    assert isinstance(built.provider_data, FrozenDict)


def test_text_block_validates_what_is_not_plain() -> None:
    assert type(text_block(_Text("x")).text) is str
    with pytest.raises(ValidationError, match="valid string"):
        text_block(3)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="valid dictionary"):
        text_block("x", [1])  # type: ignore[list-item]
    noted = text_block("x", [{"a": [1]}])
    with pytest.raises(TypeError):
        noted.annotations[0]["a"].append(2)


def test_assembled_refuses_models_that_need_their_setup() -> None:
    class Cached(BaseModel):
        value: int = 0
        _cache: int = PrivateAttr(default=0)

    with pytest.raises(TypeError, match="needs its validation"):
        assembled(Cached, {"value": 1})

    class Shared(BaseModel):
        items: list[int] = []  # validation gives each model its own copy

    with pytest.raises(TypeError, match="mutable default"):
        assembled(Shared, {})

    class Plain(BaseModel):
        value: int = 0
        items: tuple[int, ...] = ()
        made: list[int] = Field(default_factory=list)

    built = assembled(Plain, {"value": 2})
    assert built == Plain(value=2)
    assert built.model_fields_set == {"value"}
    assert built.made is not assembled(Plain, {}).made
