"""Provider limits as data: every number sourced, types in line with the translators."""

from __future__ import annotations

import base64
import dataclasses
import io

import pytest
from PIL import Image

import mediablocks as mb
from mediablocks.errors import UnknownProviderError
from mediablocks.limits import ProviderLimits, measured_size
from mediablocks.providers.anthropic import translate as anthropic
from mediablocks.providers.bedrock import translate as bedrock
from mediablocks.providers.openai_chat import translate as openai_chat
from mediablocks.providers.registry import PROVIDERS, limits_for

from .conftest import TESTDATA


def _bmp() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), "teal").save(buffer, "BMP")
    return buffer.getvalue()


_BMP = _bmp()


def test_every_provider_has_limits_and_the_openai_alias_works() -> None:
    for name in PROVIDERS:
        assert limits_for(name).provider == name
    assert limits_for("openai") == limits_for("openai-chat")
    assert limits_for(" Anthropic ").provider == "anthropic"


@pytest.mark.parametrize(
    ("alias", "provider"),
    [("google", "gemini"), ("responses", "openai-responses"), ("bedrock-converse", "bedrock")],
)
def test_every_alias_of_encode_works_for_limits_and_prepare(alias: str, provider: str) -> None:
    assert limits_for(alias).provider == provider
    message = mb.UserMessage.with_images("hi", [mb.ImageBlock.from_bytes(_BMP)])
    [prepared] = mb.prepare([message], alias)  # BMP is refused everywhere: converted
    assert prepared.content[1].mime_type in limits_for(provider).image_types


def test_unknown_provider_is_refused_by_name() -> None:
    with pytest.raises(UnknownProviderError, match="nonesuch"):
        limits_for("nonesuch")


@pytest.mark.parametrize("name", PROVIDERS)
def test_every_number_has_a_source(name: str) -> None:
    limits = limits_for(name)
    for item in dataclasses.fields(ProviderLimits):
        value = getattr(limits, item.name)
        if item.name in ("provider", "model", "sources") or value is None:
            continue
        source = limits.source_of(item.name)
        assert source.startswith(("http", "botocore", "Anthropic API")), (item.name, source)


def test_image_types_agree_with_the_translators() -> None:
    assert limits_for("anthropic").image_types == frozenset(anthropic._IMAGE_TYPES)
    assert limits_for("openai-chat").image_types == frozenset(openai_chat._IMAGE_TYPES)
    assert limits_for("openai-chat").audio_types == frozenset(openai_chat._AUDIO_FORMATS)
    rock = limits_for("bedrock")
    assert rock.image_types == frozenset(bedrock.IMAGE_FORMATS)
    assert rock.document_types == frozenset(bedrock.DOCUMENT_FORMATS)
    assert rock.video_types == frozenset(bedrock.VIDEO_FORMATS)
    assert rock.audio_types == frozenset(bedrock.AUDIO_FORMATS)
    assert limits_for("ollama").audio_types == frozenset()


def test_anthropic_pixel_cap_depends_on_the_image_count() -> None:
    limits = limits_for("anthropic")
    assert limits.max_side_for(1) == 8000
    assert limits.max_side_for(20) == 8000
    assert limits.max_side_for(21) == 2000
    assert limits.optimal_image_side == 1568
    assert limits.image_bytes_measure == "base64"
    assert limits.max_image_bytes == 5 * 1024 * 1024


def test_bedrock_counts_raw_bytes_and_caps_documents() -> None:
    limits = limits_for("bedrock")
    assert limits.image_bytes_measure == "raw"
    assert limits.max_image_bytes == 3_750_000
    assert limits.max_document_bytes == 4_500_000
    assert limits.max_documents == 5
    assert limits.max_images == 20


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 1000, 3_932_160])
def test_base64_measure_matches_real_base64(size: int) -> None:
    assert measured_size(size, "base64") == len(base64.b64encode(bytes(size)))
    assert measured_size(size, "raw") == size


def test_openai_model_families() -> None:
    mini = limits_for("openai", "gpt-4.1-mini")
    assert (mini.image_patch_size, mini.max_image_patches) == (32, 1536)
    assert mini.model == "gpt-4.1-mini"
    assert "gpt-4.1-mini" in mini.source_of("max_image_patches")
    assert limits_for("openai", "gpt-4o").audio_types == frozenset()
    assert "audio/wav" in limits_for("openai", "gpt-4o-audio-preview").audio_types
    assert limits_for("openai", "gpt-4o").image_tile_size == 512


def test_claude_on_bedrock_gets_anthropic_page_limit_and_no_video() -> None:
    claude = limits_for("bedrock", "anthropic.claude-sonnet-4-20250514-v1:0")
    assert claude.max_document_pages == 100
    assert claude.video_types == frozenset()
    assert limits_for("bedrock", "amazon.nova-pro-v1:0").video_types


def test_limits_are_frozen_and_hashable() -> None:
    limits = limits_for("gemini")
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_images = 1  # type: ignore[misc]
    assert hash(limits) == hash(limits_for("gemini"))
    assert limits.accepts("image/heic")
    assert not limits_for("anthropic").accepts("image/heic")
    assert limits.types_for("file") == limits.document_types


def test_the_documented_table_is_the_generated_one() -> None:
    from pathlib import Path

    from mediablocks.providers._docs import limits_table

    page = Path(__file__).resolve().parent.parent / "docs" / "preparation.md"
    assert limits_table() in page.read_text(encoding="utf-8")


def test_responses_takes_office_files_where_chat_completions_takes_only_pdf() -> None:
    docx = mb.FileBlock.from_path(TESTDATA / "document" / "report.docx")
    message = mb.UserMessage(content=[mb.TextBlock(text="summarise"), docx])
    [prepared] = mb.prepare([message], "openai-responses")
    assert prepared.content[1] is docx  # taken as it is
    with pytest.raises(mb.DoesNotFitError, match=r"report\.docx"):
        mb.prepare([message], "openai", documents="raise")
    [as_text] = mb.prepare([message], "openai")  # Chat Completions gets the DOCX as its text
    assert isinstance(as_text.content[1], mb.TextBlock)
    assert "Field notes" in as_text.content[1].text
