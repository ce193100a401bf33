"""`prepare`'s keyword options are written once (`PrepareKeywords`) and reach `PrepareOptions`.

The keywords used to be spelled out three times (``prepare``, ``prepare_with_report``, the
`PrepareOptions` they built) and a fourth in ``prepare_block``; now each function takes
``**options: Unpack[...]``. These tests pin that the one list matches `PrepareOptions`, that a
misspelt keyword is still Python's `TypeError` naming it, and that every keyword still arrives.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

import mediablocks as mb
from mediablocks.preparing import BlockKeywords, PrepareKeywords, PrepareOptions
from mediablocks.preparing.options import BLOCK_OPTIONS, PREPARE_OPTIONS
from tests.conftest import make_png


def test_the_keywords_are_the_fields_of_prepare_options() -> None:
    fields = {field.name for field in dataclasses.fields(PrepareOptions)}
    assert fields == PREPARE_OPTIONS
    assert fields - {"read_urls", "unsupported"} == BLOCK_OPTIONS
    stand_ins = {"transcriber", "describer", "stand_in_cache", "accept"}
    assert set(PrepareKeywords.__annotations__) == fields | stand_ins
    assert set(BlockKeywords.__annotations__) == BLOCK_OPTIONS


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: mb.prepare("hi", "anthropic", max_frame=3), "prepare"),
        (lambda: mb.prepare_with_report("hi", "anthropic", max_frame=3), "prepare"),
        (lambda: asyncio.run(mb.aprepare("hi", "anthropic", max_frame=3)), "prepare"),
    ],
)
def test_a_misspelt_keyword_is_a_type_error_naming_it(call, name: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(
        TypeError, match=rf"{name}\(\) got an unexpected keyword argument 'max_frame'"
    ):
        call()


def test_prepare_block_takes_neither_read_urls_nor_unsupported() -> None:
    block = mb.ImageBlock.from_bytes(make_png((8, 8)))
    for name in ("read_urls", "unsupported", "accept"):
        with pytest.raises(
            TypeError, match=f"prepare_block\\(\\) got an unexpected keyword argument '{name}'"
        ):
            mb.prepare_block(block, "anthropic", **{name: True})  # type: ignore[arg-type]


def test_each_keyword_reaches_the_options() -> None:
    """An invalid value of each option is refused by name: the keyword got to `PrepareOptions`."""
    for name, bad in [("max_frames", 0), ("audio", "loud"), ("max_pages", 0), ("read_urls", "yes")]:
        with pytest.raises(mb.InvalidOptionError, match=name):
            mb.prepare("hi", "anthropic", **{name: bad})  # type: ignore[arg-type]


def test_model_and_options_still_fit_an_image() -> None:
    photo = mb.ImageBlock.from_bytes(make_png((3000, 200)))
    prepared, report = mb.prepare_with_report(
        [mb.UserMessage(content=[photo])], "anthropic", model="claude-sonnet-4-5", optimal_size=True
    )
    fitted = prepared[0].content[0]
    assert isinstance(fitted, mb.ImageBlock)
    info = mb.probe(fitted)
    assert 1500 < (info.width or 0) <= 1568  # Anthropic's long edge, with the model named
    assert any("resized: 3000x200" in str(change) for change in report.blocks[0].changes)
