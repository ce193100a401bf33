"""Tool and response schemas made acceptable to each provider: Gemini's subset, OpenAI strict."""

from __future__ import annotations

from typing import Literal

import pytest
from google.genai import types as gt
from pydantic import BaseModel

from mediablocks.errors import UnsupportedSettingError
from mediablocks.providers._schema import inline_refs, to_gemini_schema, to_strict_schema


class Address(BaseModel):
    street: str
    zip_code: str | None = None


class Person(BaseModel):
    name: str
    kind: Literal["adult", "child"]
    home: Address
    tags: dict[str, int] = {}
    nickname: str | None = None


class Contact(BaseModel):
    name: str
    home: Address
    nickname: str | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


def test_refs_are_inlined_and_defs_removed() -> None:
    schema = inline_refs(Person.model_json_schema())
    assert "$defs" not in schema
    assert schema["properties"]["home"]["properties"]["street"] == {
        "title": "Street",
        "type": "string",
    }


def test_a_recursive_reference_cannot_be_inlined() -> None:
    with pytest.raises(UnsupportedSettingError, match="recursive"):
        inline_refs(Node.model_json_schema(), "tool tree")


def test_gemini_subset_keeps_what_it_can_and_lists_what_was_lost() -> None:
    schema, lost = to_gemini_schema(Person.model_json_schema(), "tool person")
    gt.Schema.model_validate(schema)  # the SDK's own schema type takes it
    props = schema["properties"]
    assert props["nickname"] == {
        "type": "string",
        "nullable": True,
        "default": None,
        "title": "Nickname",
    }
    assert props["home"]["properties"]["zip_code"]["nullable"] is True
    assert props["kind"]["enum"] == ["adult", "child"]
    assert lost == [
        "tool person.tags.additionalProperties: {'type': 'integer'} "
        "(Gemini's schema has no 'additionalProperties')"
    ]


def test_gemini_const_one_of_and_type_lists() -> None:
    schema, lost = to_gemini_schema(
        {
            "type": "object",
            "properties": {
                "mode": {"const": "fast"},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "maybe": {"type": ["integer", "null"], "exclusiveMinimum": 0},
                "count": {"type": "integer", "enum": [1, 2]},
            },
        }
    )
    gt.Schema.model_validate(schema)
    props = schema["properties"]
    assert props["mode"] == {"enum": ["fast"]}
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["maybe"] == {"type": "integer", "nullable": True}
    assert props["count"] == {"type": "integer"}
    assert len(lost) == 3
    assert any("oneOf sent as anyOf" in line for line in lost)
    assert any("exclusiveMinimum" in line for line in lost)
    assert any("enum of non-strings" in line for line in lost)


def test_strict_schema_requires_every_property_and_refuses_extras() -> None:
    schema = to_strict_schema(Contact.model_json_schema())
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["name", "home", "nickname"]
    assert schema["properties"]["nickname"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    address = schema["$defs"]["Address"]
    assert address["required"] == ["street", "zip_code"]
    assert address["additionalProperties"] is False
    assert "default" not in address["properties"]["zip_code"]


def test_strict_schema_refuses_open_ended_objects() -> None:
    with pytest.raises(UnsupportedSettingError, match="additionalProperties"):
        to_strict_schema(
            {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}}
        )
