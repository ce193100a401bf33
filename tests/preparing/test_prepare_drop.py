"""``prepare(..., unsupported="drop")``: a block the provider takes in no form is removed and
reported; anything else that does not fit still raises; the option is validated."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediablocks.blocks import TextBlock, ToolResultBlock
from mediablocks.errors import DoesNotFitError, InvalidOptionError
from mediablocks.media import AudioBlock, ImageBlock, VideoBlock
from mediablocks.messages import ToolMessage, UserMessage
from mediablocks.preparing import prepare, prepare_with_report

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"


def test_the_default_still_raises() -> None:
    audio = AudioBlock.from_path(TESTDATA / "audio/sample.flac")
    with pytest.raises(DoesNotFitError, match="anthropic takes no audio input"):
        prepare([UserMessage(content=["listen", audio])], "anthropic")


def test_audio_for_anthropic_is_dropped_and_reported() -> None:
    audio = AudioBlock.from_path(TESTDATA / "audio/sample.flac")
    image = ImageBlock.from_path(TESTDATA / "image/rgb.png")
    messages = [UserMessage(content=["listen", audio, image]), UserMessage(content=[audio])]
    prepared, report = prepare_with_report(messages, "anthropic", unsupported="drop")
    first, second = prepared
    assert [type(block) for block in first.content] == [TextBlock, ImageBlock]
    assert first.content[1] is image
    assert second.content == []
    assert [(e.message_index, e.block_index) for e in report.dropped] == [(0, 1), (1, 0)]
    assert all(e.changes[0].detail == "anthropic takes no audio input" for e in report.dropped)
    assert report.notes == ("message 1 is empty: every block in it was dropped",)
    assert "dropped: anthropic takes no audio input" in str(report)
    assert messages[0].content[1] is audio  # the inputs are untouched
    assert prepare(messages, "anthropic", unsupported="drop") == prepared


def test_video_goes_as_frames_where_images_are_taken_and_is_dropped_where_not() -> None:
    video = VideoBlock.from_path(TESTDATA / "video/phone-h264-aac.mp4")
    (kept,), report = prepare_with_report(
        [UserMessage(content=[video])], "anthropic", unsupported="drop", max_frames=2
    )
    assert not report.dropped
    assert sum(isinstance(block, ImageBlock) for block in kept.content) == 2
    (gone,), report = prepare_with_report(
        [UserMessage(content=["watch", video])], "deepseek", unsupported="drop"
    )
    assert [type(block) for block in gone.content] == [TextBlock]
    assert "no JPEG images for its frames" in report.dropped[0].changes[0].detail


def test_a_block_inside_a_tool_result_is_dropped_from_it() -> None:
    audio = AudioBlock.from_path(TESTDATA / "audio/sample.flac")
    result = ToolResultBlock(tool_call_id="c1", content=[TextBlock(text="recorded"), audio])
    (message,), report = prepare_with_report(
        [ToolMessage(content=[result])], "openai-responses", unsupported="drop"
    )
    (kept,) = message.content
    assert isinstance(kept, ToolResultBlock)
    assert [type(item) for item in kept.content] == [TextBlock]
    assert report.dropped[0].item_index == 1


def test_what_only_does_not_fit_still_raises_when_dropping() -> None:
    broken = AudioBlock.from_path(TESTDATA / "bad/truncated.flac")
    audio = AudioBlock.from_path(TESTDATA / "audio/sample.flac")
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=[broken, audio])], "gemini", unsupported="drop")
    (problem,) = caught.value.problems
    assert "truncated.flac" in problem


@pytest.mark.parametrize("value", ["skip", "", None, True, "DROP"])
def test_the_option_is_validated(value: object) -> None:
    with pytest.raises(InvalidOptionError, match="unsupported="):
        prepare([UserMessage(content=["hi"])], "anthropic", unsupported=value)  # type: ignore[arg-type]
