"""Tools and settings: defined once, checked on construction."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

import mediablocks as mb
from mediablocks.errors import InvalidOptionError


def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int = 1) -> str:
    """Current weather for a city.

    More words that are not the summary.

    Args:
        city: The city name,
            for example Paris.
        unit: Temperature unit.
    """
    return city


class WeatherArgs(BaseModel):
    """Arguments of the weather tool."""

    city: str = Field(description="The city name")
    days: int | None = None


def test_a_tool_keeps_what_it_is_given() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    tool = mb.Tool(name="search", description="Search the web", parameters=schema)
    assert (tool.name, tool.description, tool.parameters, tool.strict) == (
        "search",
        "Search the web",
        schema,
        False,
    )
    assert mb.Tool(name="noargs").parameters == {"type": "object", "properties": {}}


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "1starts_with_digit", "emoji☃", "a.b"])
def test_a_name_no_provider_takes_is_refused(name: str) -> None:
    with pytest.raises(InvalidOptionError, match="tool name"):
        mb.Tool(name=name)


def test_parameters_must_be_an_object_schema() -> None:
    with pytest.raises(InvalidOptionError, match="object schema"):
        mb.Tool(name="t", parameters={"type": "string"})


def test_from_function_reads_signature_docstring_and_arg_docs() -> None:
    tool = mb.Tool.from_function(get_weather)
    assert tool.name == "get_weather"
    assert tool.description == "Current weather for a city."
    props = tool.parameters["properties"]
    assert tool.parameters["required"] == ["city"]
    assert props["city"]["type"] == "string"
    assert props["city"]["description"] == "The city name, for example Paris."
    assert props["unit"]["enum"] == ["c", "f"]
    assert props["unit"]["default"] == "c"
    assert props["unit"]["description"] == "Temperature unit."
    assert props["days"] == {"default": 1, "title": "Days", "type": "integer"}
    assert "title" not in tool.parameters


def test_from_function_name_and_description_can_be_given() -> None:
    tool = mb.Tool.from_function(get_weather, name="weather", description="Weather.")
    assert (tool.name, tool.description) == ("weather", "Weather.")


def test_from_function_refuses_untyped_and_variadic_parameters() -> None:
    def untyped(city):  # type: ignore[no-untyped-def]
        return city

    def variadic(*cities: str) -> None:
        return None

    with pytest.raises(InvalidOptionError, match="no type annotation"):
        mb.Tool.from_function(untyped)
    with pytest.raises(InvalidOptionError, match=r"\*args"):
        mb.Tool.from_function(variadic)


def test_from_model_uses_the_class_name_docstring_and_schema() -> None:
    tool = mb.Tool.from_model(WeatherArgs)
    assert tool.name == "WeatherArgs"
    assert tool.description == "Arguments of the weather tool."
    assert tool.parameters["properties"]["city"]["description"] == "The city name"
    assert tool.parameters["required"] == ["city"]
    assert mb.Tool.from_model(WeatherArgs, name="weather", description="").description == ""


def test_from_model_refuses_what_is_not_a_model_class() -> None:
    with pytest.raises(InvalidOptionError):
        mb.Tool.from_model(WeatherArgs(city="x"))  # type: ignore[arg-type]


def test_tools_round_trip_through_json() -> None:
    tool = mb.Tool.from_function(get_weather, strict=True)
    assert mb.Tool.model_validate_json(tool.model_dump_json()) == tool


def test_settings_take_one_stop_string_or_a_list_and_a_model_as_schema() -> None:
    assert mb.Settings(stop="END").stop == ["END"]
    assert mb.Settings(stop=["a", "b"]).stop == ["a", "b"]
    settings = mb.Settings(response_schema=WeatherArgs)
    assert settings.response_schema is not None
    assert settings.response_schema["properties"]["city"]["type"] == "string"
    assert settings.schema_name() == "WeatherArgs"
    assert mb.Settings(max_tokens=5, temperature=0.2).given() == {
        "max_tokens": 5,
        "temperature": 0.2,
    }


@pytest.mark.parametrize(
    "fields", [{"max_tokens": 0}, {"reasoning_effort": "extreme"}, {"temprature": 1.0}]
)
def test_settings_refuse_bad_values(fields: dict[str, object]) -> None:
    with pytest.raises(InvalidOptionError, match="invalid settings"):
        mb.Settings(**fields)  # type: ignore[arg-type]


def test_tool_choice_must_name_a_given_tool() -> None:
    tool = mb.Tool(name="search")
    with pytest.raises(InvalidOptionError, match="tool_choice='lookup'"):
        mb.encode([mb.UserMessage.text("hi")], "anthropic", tools=[tool], tool_choice="lookup")
    with pytest.raises(InvalidOptionError, match="unique"):
        mb.encode([mb.UserMessage.text("hi")], "anthropic", tools=[tool, tool])
