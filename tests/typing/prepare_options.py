"""`mb.prepare` as users call it, with every keyword option: the one ``Unpack`` TypedDict
(`mediablocks.preparing.PrepareKeywords`) keeps each option's type and the results' types.

Never run by the tests; type-checked by ``tests/test_typing_user_program.py`` with ``mypy
--strict`` and ``pyright`` (strict), which must both report 0 errors.
"""

from __future__ import annotations

import asyncio

from typing_extensions import assert_type

import mediablocks as mb
from mediablocks.changes import Change

history: list[mb.Message] = [mb.UserMessage.text("What is in this photo?")]

every_option = mb.prepare(
    history,
    "anthropic",
    model="claude-sonnet-4-5",
    optimal_size=True,
    strip_metadata=True,
    convert=True,
    max_image_pixels=50_000_000,
    read_urls=False,
    policy=mb.FetchPolicy(),
    audio="convert",
    video="frames",
    max_frames=8,
    frame_interval=2.5,
    max_audio_seconds=600,
    max_video_seconds=None,
    allow_split=True,
    time_budget="auto",
    total_time_budget=300.0,
    documents="pages",
    max_pages=20,
    max_text_chars=100_000,
    truncate_documents=True,
    conversion_limits=mb.ConversionLimits(),
    unsupported="note",
    transcriber=None,
    describer=None,
    stand_in_cache=None,
    accept=["image/*", "application/pdf"],
)
assert_type(every_option, list[mb.Message])

prepared, report = mb.prepare_with_report(history, "openai", documents="text")
assert_type(prepared, list[mb.Message])
assert_type(report, mb.PrepareReport)

block = mb.ImageBlock.from_bytes(b"\x89PNG\r\n\x1a\n")
fitted, changes = mb.prepare_block(block, "gemini", image_count=3, optimal_size=False)
assert_type(fitted, mb.MediaBlock)
assert_type(changes, list[Change])


async def main() -> list[mb.Message]:
    return await mb.aprepare(history, "bedrock", video="convert", time_budget=30)


assert_type(asyncio.run(main()), list[mb.Message])
