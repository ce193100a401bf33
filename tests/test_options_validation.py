"""Every option is checked when it is built: a bad value raises `InvalidOptionError` naming it."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.preparing import PrepareOptions

from .conftest import TESTDATA

# The examples of the issue: NaN turned the download cap off, "5" raised a raw TypeError.
ISSUE_EXAMPLES = [
    ({"max_bytes": float("nan")}, "max_bytes"),
    ({"timeout": float("nan")}, "timeout"),
    ({"max_bytes": "5"}, "max_bytes"),
]


@pytest.mark.parametrize(("options", "name"), ISSUE_EXAMPLES)
def test_the_issue_examples_are_refused_at_construction(options: dict[str, Any], name: str) -> None:
    with pytest.raises(mb.InvalidOptionError, match=f"FetchPolicy.{name}"):
        mb.FetchPolicy(**options)


SIZES = ("max_bytes", "max_path_bytes")
BAD_NUMBERS = [
    float("nan"),
    float("inf"),
    -float("inf"),
    -1,
    0,
    True,
    False,
    "5",
    b"5",
    5.0,
    None,
    [5],
    {"n": 5},
]


@pytest.mark.parametrize("name", [*SIZES, "max_redirects", "timeout"])
@pytest.mark.parametrize("value", BAD_NUMBERS, ids=repr)
def test_numbers_of_the_wrong_kind_are_refused(name: str, value: Any) -> None:
    acceptable = (name == "max_redirects" and value == 0 and type(value) is int) or (
        name == "timeout" and value == 5.0
    )
    if acceptable:
        assert getattr(mb.FetchPolicy(**{name: value}), name) == value
        return
    with pytest.raises(mb.InvalidOptionError, match=rf"FetchPolicy\.{name}"):
        mb.FetchPolicy(**{name: value})


@pytest.mark.parametrize("name", ["allow_private", "allow_metadata"])
@pytest.mark.parametrize("value", [1, 0, "yes", "", None, 1.0])
def test_flags_must_be_bools(name: str, value: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match=name):
        mb.FetchPolicy(**{name: value})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("allowed_schemes", 5),
        ("allowed_schemes", [b"http"]),
        ("blocked_hosts", [1, 2]),
        ("allowed_hosts", 3.5),
        ("allowed_roots", 7),
        ("allowed_roots", [None]),
        ("allowed_roots", [""]),
        ("user_agent", 12),
        ("user_agent", None),
    ],
)
def test_collections_and_strings_are_checked(name: str, value: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match=name):
        mb.FetchPolicy(**{name: value})


def test_a_single_root_string_is_one_root_not_its_letters() -> None:
    assert mb.FetchPolicy(allowed_roots="/srv/media").allowed_roots == ("/srv/media",)


def test_replace_checks_too() -> None:
    with pytest.raises(mb.InvalidOptionError, match="timeout"):
        mb.FetchPolicy().replace(timeout=float("nan"))


_anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.binary(max_size=5),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(["max_bytes", "max_path_bytes", "timeout", "max_redirects"]),
    value=_anything,
)
def test_any_value_either_builds_a_sane_policy_or_names_the_option(name: str, value: Any) -> None:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "timeout":
        sane = number and math.isfinite(value) and value > 0
    else:
        sane = type(value) is int and value >= (0 if name == "max_redirects" else 1)
    if not sane:
        with pytest.raises(mb.InvalidOptionError, match=name):
            mb.FetchPolicy(**{name: value})
        return
    assert getattr(mb.FetchPolicy(**{name: value}), name) == value


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["optimal_size", "strip_metadata", "convert", "read_urls"]),
    value=_anything,
)
def test_prepare_flags_are_bools(name: str, value: Any) -> None:
    if isinstance(value, bool):
        assert getattr(PrepareOptions(**{name: value}), name) is value
        return
    with pytest.raises(mb.InvalidOptionError, match=f"PrepareOptions.{name}"):
        PrepareOptions(**{name: value})


@settings(max_examples=150, deadline=None)
@given(value=_anything)
def test_max_image_pixels_is_a_positive_int_or_none(value: Any) -> None:
    good = value is None or (type(value) is int and value > 0)
    if good:
        assert PrepareOptions(max_image_pixels=value).max_image_pixels == value
        return
    with pytest.raises(mb.InvalidOptionError, match="max_image_pixels"):
        PrepareOptions(max_image_pixels=value)


def test_prepare_checks_its_keywords_before_any_work() -> None:
    messages = [mb.UserMessage(content=[mb.TextBlock(text="hi")])]
    with pytest.raises(mb.InvalidOptionError, match="max_image_pixels"):
        mb.prepare(messages, "anthropic", max_image_pixels=float("nan"))  # type: ignore[arg-type]
    with pytest.raises(mb.InvalidOptionError, match="policy"):
        mb.prepare(messages, "anthropic", policy={"max_bytes": 5})  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(
    name=st.sampled_from(["target", "url_media", "thinking", "tool_result_media"]),
    value=_anything,
)
def test_encode_options_name_the_option(name: str, value: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match=name):
        mb.EncodeOptions(**{name: value})


@pytest.mark.parametrize(
    ("keywords", "name"),
    [({"offset": "2"}, "offset"), ({"offset": True}, "offset"), ({"offset": 1.5}, "offset")],
)
def test_register_signature_checks_its_numbers(keywords: dict[str, Any], name: str) -> None:
    with pytest.raises(mb.InvalidOptionError, match=name):
        mb.register_signature("application/x-test", prefix=b"XY", **keywords)
    with pytest.raises(mb.InvalidOptionError, match="prefix"):
        mb.register_signature("application/x-test", prefix="XY")  # type: ignore[arg-type]


_PNG = (TESTDATA / "image" / "rgb.png").read_bytes()
_MESSAGES = [mb.UserMessage(content=[mb.TextBlock(text="hi")])]


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda value: mb.image_tokens(value, 10, "anthropic"), "image_tokens.width"),
        (lambda value: mb.image_tokens(10, value, "openai"), "image_tokens.height"),
        (lambda value: mb.trim_messages(_MESSAGES, value), "trim_messages.max_tokens"),
        (
            lambda value: mb.prepare_block(
                mb.ImageBlock.from_bytes(_PNG), "anthropic", image_count=value
            ),
            "prepare_block.image_count",
        ),
        (lambda value: mb.dump_messages(_MESSAGES, indent=value), "dump_messages.indent"),
    ],
)
@pytest.mark.parametrize("value", [float("nan"), float("inf"), "5", -1, 2.5, [3]], ids=repr)
def test_numeric_keywords_of_public_functions_are_checked(call: Any, name: str, value: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match=re.escape(name)):
        call(value)
