"""`prepare(..., accept=[...])`, the codes and blocks of `DoesNotFitError` problems, hostile
inputs raising one class each, and the model `prepare` assumes when none is given."""

from __future__ import annotations

import io
import zipfile
from typing import Any, NoReturn

import pytest

import mediablocks as mb
import mediablocks.preparing as preparing
from tests.conftest import TESTDATA, make_pdf, make_png

PNG_BOMB = (TESTDATA / "bad" / "bomb-28000x28000.png").read_bytes()
VOICE = (TESTDATA / "audio" / "voice-note.webm").read_bytes()
WAV = (TESTDATA / "audio" / "pcm16.wav").read_bytes()
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def docx_bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<Types><Override PartName="/word/document.xml" ContentType="x"/></Types>',
        )
        body = b"<w:document>" + b" " * 40_000_000 + b"</w:document>"
        archive.writestr("word/document.xml", body)
    return out.getvalue()


def _no_walk(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError("prepare read or decoded a block it should have refused")


# -- accept= --------------------------------------------------------------------------------------


def test_accept_refuses_other_kinds_before_anything_is_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(preparing, "walk", _no_walk)
    bomb = mb.media_block(docx_bomb())
    assert bomb.mime_type == DOCX
    messages = [("user", ["look", mb.media_block(make_png()), bomb, mb.media_block(PNG_BOMB)])]
    with pytest.raises(mb.NotAcceptedError) as caught:
        mb.prepare(messages, "anthropic", accept=["application/pdf"])
    error = caught.value
    assert (error.code, error.http_status) == ("not_accepted", 415)
    assert error.block is not None
    assert error.block.mime_type == "image/png"
    assert [b.mime_type for b in error.blocks] == ["image/png", DOCX, "image/png"]
    assert "message 0, block 2" in str(error)
    assert DOCX in str(error)
    assert isinstance(error, mb.MediaTypeError)
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("accept", "taken"),
    [
        (["image"], True),
        (["image/*"], True),
        (["IMAGE/PNG"], True),
        (["image/jpg", "image/png"], True),
        (["*/*"], True),
        (["audio", "document"], False),
        (["image/jpeg"], False),
        ([], False),
    ],
)
def test_accept_takes_kinds_types_and_wildcards(accept: list[str], taken: bool) -> None:
    message = mb.UserMessage(content=[mb.media_block(make_png())])
    if taken:
        assert mb.prepare([message], "anthropic", accept=accept) == [message]
    else:
        with pytest.raises(mb.NotAcceptedError):
            mb.prepare([message], "anthropic", accept=accept)


def test_document_and_file_are_one_kind() -> None:
    message = mb.UserMessage(content=[mb.media_block(make_pdf())])
    for kind in ("document", "file", "application/pdf"):
        assert mb.prepare([message], "anthropic", accept=[kind]) == [message]


def test_media_inside_tool_results_is_checked_too() -> None:
    result = mb.ToolResultBlock(tool_call_id="c1", content=[mb.media_block(WAV)])
    messages = [
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="record")]),
        mb.ToolMessage(content=[result]),
    ]
    with pytest.raises(mb.NotAcceptedError, match=r"message 1, block 0, item 0"):
        mb.prepare(messages, "gemini", accept=["image"])


@pytest.mark.parametrize("bad", ["image", ["pictures"], ["image/"], [3], ["a/b/c"]])
def test_an_accept_value_that_names_nothing_is_an_option_error(bad: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match="accept"):
        mb.prepare("hi", "anthropic", accept=bad)


# -- problems: codes and blocks -------------------------------------------------------------------


def test_each_problem_names_its_block_and_code() -> None:
    audio = mb.media_block(WAV)
    video = mb.VideoBlock.from_url("https://example.com/clip.mp4")
    with pytest.raises(mb.DoesNotFitError) as caught:
        mb.prepare([mb.UserMessage(content=["hear this", audio, video])], "anthropic")
    error = caught.value
    assert [(p.code, p.block) for p in error.problems] == [
        ("unsupported_kind", audio),
        ("unsupported_kind", video),
    ]
    assert error.problems[0].where.startswith("message 0, block 1: AudioBlock(")
    assert str(error).count("unsupported") == 0  # the text is unchanged: words, not codes
    assert error.http_status == 415


def test_request_totals_are_problems_without_a_block() -> None:
    images = [mb.media_block(make_png((8, 8))) for _ in range(21)]
    with pytest.raises(mb.DoesNotFitError) as caught:
        mb.prepare([mb.UserMessage(content=images)], "bedrock")
    [problem] = caught.value.problems
    assert (problem.code, problem.block, problem.where) == ("too_many", None, "")
    assert caught.value.http_status == 413


# -- hostile inputs: one class each ---------------------------------------------------------------


def test_a_png_bomb_and_a_docx_zip_bomb_raise_the_same_class() -> None:
    raised = []
    for data in (PNG_BOMB, docx_bomb()):
        block = mb.media_block(data)
        with pytest.raises(mb.DecompressionBombError) as caught:
            mb.prepare([mb.UserMessage(content=[block])], "anthropic")
        assert caught.value.block is block
        raised.append(caught.value)
    assert [type(e) for e in raised] == [mb.DecompressionBombError] * 2
    assert {e.code for e in raised} == {"decompression_bomb"}
    assert all(e.http_status == 413 and isinstance(e, mb.TooLargeError) for e in raised)


def test_a_renderer_crash_is_a_conversion_crashed_error_with_signal_and_limit() -> None:
    depth = 200_000
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">'
    svg += b"<g>" * depth + b"</g>" * depth + b"</svg>"
    block = mb.ImageBlock.from_bytes(svg)
    with pytest.raises(mb.ConversionCrashedError) as caught:
        mb.prepare([mb.UserMessage(content=[block])], "anthropic")
    error = caught.value
    assert error.signal is not None
    assert error.signal.startswith("SIG")
    assert error.limit in ("stack_bytes", "memory_bytes")
    assert error.block is block
    assert error.code == "conversion_crashed"
    assert "message 0, block 0" in str(error)
    assert "image/svg+xml" in str(error)


# -- the model assumed without model= -------------------------------------------------------------


def test_without_a_model_openai_chat_assumes_one_without_audio() -> None:
    message = mb.UserMessage(content=["transcribe", mb.media_block(VOICE)])
    with pytest.raises(mb.DoesNotFitError) as caught:
        mb.prepare([message], "openai")
    [problem] = caught.value.problems
    assert problem.code == "unsupported_kind"
    assert "gpt-4.1" in problem
    # gpt-4.1 named anywhere: the same refusal, never an input_audio part
    with pytest.raises(mb.DoesNotFitError):
        mb.prepare([message], "openai", model="gpt-4.1")
    prepared, report = mb.prepare_with_report([message], "openai", model="gpt-4o-audio-preview")
    assert mb.encode(prepared, "openai")["messages"][0]["content"][1]["type"] == "input_audio"
    assert (report.model, report.model_assumed) == ("gpt-4o-audio-preview", False)


def test_the_report_says_which_model_was_assumed() -> None:
    message = mb.UserMessage(content=[mb.media_block(make_png())])
    _, report = mb.prepare_with_report([message], "openai")
    assert (report.model, report.model_assumed) == ("gpt-4.1", True)
    assert "no model given" in report.notes[0]
    assert "gpt-4.1" in report.notes[0]
    assert "(gpt-4.1, assumed)" in str(report)
    _, gemini = mb.prepare_with_report([message], "gemini")  # every Gemini model takes the same
    assert (gemini.model, gemini.model_assumed) == (None, False)


# -- a phone photo for Claude ---------------------------------------------------------------------


def test_a_phone_photo_goes_to_claude_at_the_size_claude_uses() -> None:
    """Claude scales images to about 1.15 megapixels (1568 px long edge) itself: sending 12 MP
    costs bytes for no more of the picture. By default prepare sends the optimal size."""
    from PIL import Image

    from tests.conftest import image_bytes

    photo = image_bytes("JPEG", (4032, 3024), "teal")
    [message], report = mb.prepare_with_report([("user", [mb.media_block(photo)])], "anthropic")
    with Image.open(io.BytesIO(message.content[0].read())) as sent:
        assert max(sent.size) <= 1568
        assert sent.width * sent.height <= 1_150_000
    assert any(change.kind == "resized" for change in report.blocks[0].changes)
    tokens_sent = mb.estimate_tokens(message, "anthropic")
    tokens_full = mb.estimate_tokens(mb.media_block(photo), "anthropic")
    assert tokens_sent == pytest.approx(tokens_full, rel=0.05)  # the same picture to the model
    [full] = mb.prepare([("user", [mb.media_block(photo)])], "anthropic", optimal_size=False)
    assert len(full.content[0].read()) > len(message.content[0].read())
