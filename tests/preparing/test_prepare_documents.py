"""prepare with documents: native where taken, else PDF page images or text, all reported."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

import mediablocks as mb
from mediablocks.preparing import prepare_block, prepare_with_report
from mediablocks.providers.registry import PROVIDERS, limits_for
from tests.conftest import TESTDATA, load_manifest

DOCS = TESTDATA / "document"
PDF_WORDS = re.findall(r"\(([^)]*)\) show", load_manifest()["document/three-pages.pdf"]["made_by"])


def message(path: str, text: str = "read this") -> list[mb.Message]:
    return [mb.UserMessage(content=[mb.TextBlock(text=text), mb.media_block(TESTDATA / path)])]


def test_ollama_gets_a_pdf_as_page_images_each_after_its_page_number() -> None:
    prepared, report = prepare_with_report(message("document/three-pages.pdf"), "ollama")
    content = prepared[0].content
    assert [type(block).__name__ for block in content] == ["TextBlock"] + [
        "TextBlock",
        "ImageBlock",
    ] * 3
    limits = limits_for("ollama")
    for number in (1, 2, 3):
        label, image = content[2 * number - 1], content[2 * number]
        assert isinstance(label, mb.TextBlock)
        assert isinstance(image, mb.ImageBlock)
        assert label.text == f"Page {number} of 3 (three-pages.pdf)"
        assert image.mime_type in limits.image_types
        with Image.open(io.BytesIO(image.read())) as decoded:
            assert max(decoded.size) <= 1568
            assert decoded.size == (625, 417)  # 300 x 200 pt at 150 dpi
    [entry] = report.blocks
    assert "application/pdf -> 3 page images of 3" in str(entry)
    assert len(entry.replaced_by) == 6
    assert mb.encode(prepared, "ollama")  # the translator takes the result


def test_pages_over_the_budget_are_cut_and_said_so() -> None:
    prepared, report = prepare_with_report(
        message("document/three-pages.pdf"), "ollama", max_pages=2
    )
    images = [b for b in prepared[0].content if isinstance(b, mb.ImageBlock)]
    assert len(images) == 2
    last = prepared[0].content[-1]
    assert isinstance(last, mb.TextBlock)
    assert "pages 3-3 of three-pages.pdf not included" in last.text
    assert "pages 3-3 cut (max_pages=2)" in str(report)
    with pytest.raises(mb.DoesNotFitError, match="truncate_documents=False"):
        mb.prepare(
            message("document/three-pages.pdf"), "ollama", max_pages=2, truncate_documents=False
        )


@pytest.mark.parametrize("provider", ["mistral", "openai-chat", "ollama", "anthropic"])
def test_a_docx_goes_as_its_text_to_providers_without_docx(provider: str) -> None:
    prepared, report = prepare_with_report(message("document/report.docx"), provider)
    [_, block] = prepared[0].content
    assert isinstance(block, mb.TextBlock)
    assert block.text.startswith('<document name="report.docx" type="DOCX">\n# Field notes')
    assert block.text.endswith("</document>")
    for words in ("second point with emphasis", "Keep the samples small.", 'print("hello")'):
        assert words in block.text
    assert "-> text (DOCX, " in str(report)


def test_a_provider_taking_docx_keeps_it_unless_text_is_asked_for() -> None:
    original = message("document/report.docx")
    assert mb.prepare(original, "openai-responses")[0].content[1] is original[0].content[1]
    as_text = mb.prepare(original, "openai-responses", documents="text")[0].content[1]
    assert isinstance(as_text, mb.TextBlock)
    assert "Field notes" in as_text.text


def test_strategies_for_a_pdf_a_provider_takes() -> None:
    original = message("document/three-pages.pdf")
    assert mb.prepare(original, "anthropic")[0].content[1] is original[0].content[1]
    pages = mb.prepare(original, "anthropic", documents="pages")[0].content
    assert sum(isinstance(b, mb.ImageBlock) for b in pages) == 3
    [_, text] = mb.prepare(original, "anthropic", documents="text")[0].content
    assert isinstance(text, mb.TextBlock)
    for number, words in enumerate(PDF_WORDS, start=1):
        assert f"## Page {number}\n{words}" in text.text


def test_raise_and_convert_false_keep_todays_refusal() -> None:
    for options in ({"documents": "raise"}, {"convert": False}):
        with pytest.raises(mb.DoesNotFitError, match=r"three-pages\.pdf.*ollama takes no document"):
            mb.prepare(message("document/three-pages.pdf"), "ollama", **options)  # type: ignore[arg-type]


def test_an_unknown_strategy_is_an_invalid_option() -> None:
    with pytest.raises(mb.InvalidOptionError, match="documents="):
        mb.prepare(message("document/report.docx"), "ollama", documents="ocr")  # type: ignore[arg-type]
    with pytest.raises(mb.InvalidOptionError, match="max_pages"):
        mb.prepare(message("document/report.docx"), "ollama", max_pages=0)


def test_text_over_the_character_budget_is_cut_or_refused() -> None:
    prepared, report = prepare_with_report(
        message("document/report.odt"), "mistral", max_text_chars=40
    )
    text = prepared[0].content[1]
    assert isinstance(text, mb.TextBlock)
    assert "[text cut at 40 characters]" in text.text
    assert "cut at max_text_chars=40" in str(report)
    with pytest.raises(mb.DoesNotFitError, match="max_text_chars=40"):
        mb.prepare(
            message("document/report.odt"), "mistral", max_text_chars=40, truncate_documents=False
        )


def test_a_corrupt_document_is_a_problem_naming_it() -> None:
    data = (DOCS / "report.docx").read_bytes()
    block = mb.FileBlock.from_bytes(
        data[: len(data) // 2],
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="half.docx",
    )
    with pytest.raises(
        mb.DoesNotFitError, match=r"FileBlock\(\d+ bytes in memory.*: not a readable DOCX"
    ) as caught:
        mb.prepare([mb.UserMessage(content=[block])], "mistral")
    assert len(caught.value.problems) == 1


def test_postscript_says_why_it_cannot_be_sent() -> None:
    with pytest.raises(mb.DoesNotFitError, match="cannot convert it to text or page images"):
        mb.prepare(message("document/sample.ps"), "anthropic")


def test_prepare_block_points_to_prepare_for_a_converted_document() -> None:
    block = mb.media_block(DOCS / "report.docx")
    with pytest.raises(mb.DoesNotFitError, match="use prepare"):
        prepare_block(block, "mistral")
    assert prepare_block(block, "openai-responses")[0] is block


def test_token_estimates_count_what_was_converted() -> None:
    pages = mb.prepare(message("document/three-pages.pdf"), "anthropic", documents="pages")
    one_page = next(b for b in pages[0].content if isinstance(b, mb.ImageBlock))
    per_image = mb.estimate_tokens(one_page, "anthropic")
    assert mb.estimate_tokens(pages, "anthropic") >= 3 * per_image
    text = mb.prepare(message("document/report.docx"), "anthropic")
    short = mb.prepare(message("document/report.docx"), "anthropic", max_text_chars=40)
    assert mb.estimate_tokens(text, "anthropic") > mb.estimate_tokens(short, "anthropic")


SENDABLE = sorted(
    p.relative_to(TESTDATA).as_posix()
    for folder in ("document", "text")
    for p in (TESTDATA / folder).iterdir()
    if p.name != "sample.ps"
)


@pytest.mark.parametrize("path", SENDABLE)
def test_every_document_in_testdata_is_sendable_to_every_provider(path: str) -> None:
    for provider in PROVIDERS:
        try:
            prepared = mb.prepare(message(path), provider)
        except mb.DoesNotFitError as exc:
            # Only a text-only provider (DeepSeek) may refuse, and only a scanned PDF: no text to
            # extract and no images to send its pages as.
            assert not limits_for(provider).image_types
            assert "no text layer" in str(exc)  # noqa: PT017
            continue
        assert mb.encode(prepared, provider)


def test_a_document_url_not_read_says_how_to_convert_it() -> None:
    block = mb.FileBlock.from_url("https://example.com/report.pdf")
    with pytest.raises(mb.DoesNotFitError, match=r"read_urls=True lets prepare fetch it"):
        mb.prepare([mb.UserMessage(content=[block])], "ollama")


BAD = sorted((TESTDATA / "bad").iterdir())


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_hostile_files_as_documents_raise_only_mediablocks_errors(path: Path) -> None:
    block = mb.FileBlock.from_path(path)
    for provider in PROVIDERS:
        for documents in ("convert", "text"):
            try:
                mb.prepare([mb.UserMessage(content=[block])], provider, documents=documents)  # type: ignore[arg-type]
            except (mb.DoesNotFitError, mb.ImageBombError, mb.DecodeError) as exc:
                # a bomb, and an image that does not decode, are raised at once
                assert path.name in str(exc)  # noqa: PT017 - the problem names the file


def test_inspect_counts_a_document_that_becomes_pages_or_text_as_sendable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from mediablocks.cli import main

    pdf, ps = str(DOCS / "three-pages.pdf"), str(DOCS / "sample.ps")
    assert main(["inspect", "--json", "--provider", "ollama", pdf, ps]) == 0
    rows = {Path(row["path"]).name: row for row in json.loads(capsys.readouterr().out)}
    verdict = rows["three-pages.pdf"]["providers"]["ollama"]
    assert verdict["status"] == "prepare"
    assert verdict["changes"][-1] == "becomes 6 blocks"  # 3 x (page label, page image)
    assert rows["sample.ps"]["providers"]["ollama"]["status"] == "cannot"


def test_pages_take_only_the_image_slots_the_request_has_left() -> None:
    # Mistral takes at most 8 images a request: 7 photos leave room for one page.
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    photos = [mb.ImageBlock.from_bytes(buffer.getvalue()) for _ in range(7)]
    pdf = mb.media_block(DOCS / "three-pages.pdf")
    messages = [mb.UserMessage(content=[*photos, pdf])]
    prepared, report = prepare_with_report(messages, "mistral", documents="pages")
    images = [b for b in prepared[0].content if isinstance(b, mb.ImageBlock)]
    assert len(images) == 8
    assert "application/pdf -> 1 page image of 3" in str(report)
    assert isinstance(prepared[0].content[-1], mb.TextBlock)
    assert "pages 2-3 of three-pages.pdf not included" in prepared[0].content[-1].text


def test_a_scanned_pdf_has_no_text_to_send_but_its_pages() -> None:
    # pillow.pdf is testdata/image/rgb.png saved as a PDF: an image, no text layer.
    with pytest.raises(mb.DoesNotFitError, match=r"no text layer.*documents='pages'"):
        mb.prepare(message("document/pillow.pdf"), "mistral", documents="text")
    pages = mb.prepare(message("document/pillow.pdf"), "ollama")[0].content
    assert sum(isinstance(block, mb.ImageBlock) for block in pages) == 1
