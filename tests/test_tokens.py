"""estimate_tokens: expectations worked by hand from each provider's published rule."""

from __future__ import annotations

import io
import wave
from pathlib import Path

import pytest
from PIL import Image

from mediablocks.blocks import TextBlock, ToolCallBlock, ToolResultBlock
from mediablocks.errors import (
    DecodeError,
    SourceError,
    UnknownProviderError,
    UnsupportedBlockError,
)
from mediablocks.history import count_tokens
from mediablocks.media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from mediablocks.messages import AssistantMessage, UserMessage
from mediablocks.tokens import estimate_tokens, image_tokens, text_tokens

from .conftest import TESTDATA


def _png_block(width: int, height: int, **fields: object) -> ImageBlock:
    buffer = io.BytesIO()
    Image.new("1", (width, height)).save(buffer, "PNG", compress_level=1)  # 1-bit: fast to make
    block = ImageBlock.from_bytes(buffer.getvalue())
    return block.model_copy(update=fields) if fields else block


def _wav_block(seconds: float) -> AudioBlock:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * round(seconds * 8000))
    return AudioBlock.from_bytes(buffer.getvalue())


def _pdf_block(pages: int) -> FileBlock:
    images = [Image.new("RGB", (60, 80), "white") for _ in range(pages)]
    buffer = io.BytesIO()
    images[0].save(buffer, "PDF", save_all=True, append_images=images[1:])
    return FileBlock.from_bytes(buffer.getvalue())


# -- OpenAI -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "model", "expected"),
    [
        # 1024x1024 -> shortest side 768 -> 768x768 -> 2x2 tiles -> 85 + 170*4 = 765 (OpenAI's
        # own worked example).
        (1024, 1024, "gpt-4o", 765),
        # 2048x4096 -> fit 2048: 1024x2048 -> 768x1536 -> 2x3 tiles -> 85 + 170*6 = 1105
        # (OpenAI's own worked example).
        (2048, 4096, "gpt-4o", 1105),
        # 500x500 fits already -> 1 tile -> 85 + 170 = 255
        (500, 500, "gpt-4.1", 255),
        # 513x500 -> 2x1 tiles -> 85 + 340 = 425
        (513, 500, None, 425),
        # gpt-4o-mini: 1024x1024 -> 4 tiles -> 2833 + 5667*4 = 25501
        (1024, 1024, "gpt-4o-mini-2024-07-18", 25501),
        # gpt-5: 70 + 140*4 = 630 ; o3: 75 + 150*4 = 675
        (1024, 1024, "gpt-5", 630),
        (1024, 1024, "o3", 675),
        # patches: 1024x1024 -> 32x32 = 1024 patches, x1.62 = 1658.88 -> 1659
        (1024, 1024, "gpt-4.1-mini", 1659),
        # 1800x2400 -> 57x75 = 4275 > 1536 -> shrink sqrt(1024*1536/4320000) = 0.6034,
        # 1086.1/32 = 33.94 and 1448.2/32 = 45.26 -> x33/33.94 -> 1056x1408 -> 33x44 = 1452
        # patches (OpenAI's example); x2.46 = 3571.92 -> 3572
        (1800, 2400, "gpt-4.1-nano", 3572),
        # o4-mini: 500x500 -> 16x16 = 256 patches, x1.72 = 440.32 -> 440
        (500, 500, "o4-mini", 440),
        # gpt-5-mini: 100x100 -> 4x4 = 16 patches, x1.62 = 25.92 -> 26
        (100, 100, "gpt-5-mini", 26),
    ],
)
def test_openai_images(width: int, height: int, model: str | None, expected: int) -> None:
    assert estimate_tokens(_png_block(width, height), "openai", model=model) == expected


def test_openai_low_detail_is_the_base_cost() -> None:
    assert estimate_tokens(_png_block(1024, 1024, detail="low"), "openai-chat") == 85
    from_provider_data = _png_block(1024, 1024, provider_data={"openai-chat": {"detail": "low"}})
    assert estimate_tokens(from_provider_data, "openai-chat", model="gpt-4o-mini") == 2833
    # patch models ignore detail: 1024 patches x 1.62
    assert estimate_tokens(_png_block(1024, 1024, detail="low"), "openai", model="o4-mini") == (
        round(1024 * 1.72)
    )


def test_openai_audio_ten_tokens_a_second() -> None:
    assert estimate_tokens(_wav_block(3.0), "openai") == 30
    assert estimate_tokens(_wav_block(0.25), "openai-responses") == 3  # ceil(2.5)


# -- Anthropic and Bedrock ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "expected"),
    [
        (200, 200, 54),  # 40000/750 = 53.3 -> 54 (Anthropic's table: ~54)
        (1000, 1000, 1334),  # 1e6/750 = 1333.3 -> 1334 (Anthropic's table: ~1334)
        (1092, 1092, 1590),  # 1192464/750 = 1589.95 -> 1590 (Anthropic's table: ~1590)
        # 3000x2000: long edge 1568 -> 1568x1045 is 1.64 MP > 1.2 MP; scale sqrt(1.2e6/6e6) =
        # 0.44721 -> 1341x894 = 1198854 px -> /750 = 1598.5 -> 1599
        (3000, 2000, 1599),
        # 4000x500: long edge to 1568 -> 1568x196 = 307328 px -> /750 = 409.8 -> 410
        (4000, 500, 410),
    ],
)
def test_anthropic_images(width: int, height: int, expected: int) -> None:
    assert estimate_tokens(_png_block(width, height), "anthropic") == expected
    claude = "anthropic.claude-sonnet-4-20250514-v1:0"
    assert estimate_tokens(_png_block(width, height), "bedrock", model=claude) == expected


def test_bedrock_nova_uses_amazons_table() -> None:
    # Amazon's own example: 800x400 has the 1:2 aspect of the 900x450 row -> ~800 tokens.
    block = _png_block(800, 400)
    assert estimate_tokens(block, "bedrock", model="amazon.nova-lite-v1:0") == 800
    # 1000x1000: 1:1 rows are 900x900 (1300) and 1300x1300 (2600); 900x900 is nearer in area.
    assert estimate_tokens(_png_block(1000, 1000), "bedrock", model="us.amazon.nova-pro-v1:0") == (
        1300
    )
    # Nova 2 bills a flat 230 tokens per image.
    assert estimate_tokens(block, "bedrock", model="us.amazon.nova-2-lite-v1:0") == 230


def test_anthropic_pdf_pages() -> None:
    # per page: 1500 text tokens + a 1700x2200 page image: long edge 1568 -> 1211.6x1568 is
    # 1.90 MP > 1.2 MP -> scale sqrt(1.2e6/3.74e6) = 0.56639 -> 962x1246 = 1198652 px -> 1599
    assert estimate_tokens(_pdf_block(3), "anthropic") == 3 * (1500 + 1599)


def test_anthropic_takes_no_audio() -> None:
    with pytest.raises(UnsupportedBlockError, match="anthropic takes no audio"):
        estimate_tokens(_wav_block(1.0), "anthropic")


# -- Gemini -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "expected"),
    [
        (384, 384, 258),  # both sides <= 384 -> 258
        (385, 200, 258),  # one 768 tile
        (1000, 800, 1032),  # 2x2 tiles of 768 -> 4 * 258
        (3000, 100, 1032),  # 4x1 tiles -> 4 * 258
    ],
)
def test_gemini_images(width: int, height: int, expected: int) -> None:
    assert (
        estimate_tokens(_png_block(width, height), "google", model="gemini-2.5-flash") == expected
    )


def test_gemini_3_media_resolution() -> None:
    block = _png_block(2000, 2000)
    assert estimate_tokens(block, "gemini", model="gemini-3-pro-preview") == 1120  # default high
    low = block.model_copy(update={"provider_data": {"gemini": {"media_resolution": "low"}}})
    assert estimate_tokens(low, "gemini", model="gemini-3-flash") == 280
    enum = {"gemini": {"media_resolution": {"level": "MEDIA_RESOLUTION_MEDIUM"}}}
    medium = block.model_copy(update={"provider_data": enum})
    assert estimate_tokens(medium, "gemini", model="gemini-3-flash") == 560
    assert estimate_tokens(_pdf_block(2), "gemini", model="gemini-3-pro") == 2 * 560


def test_gemini_audio_video_and_pdf() -> None:
    assert estimate_tokens(_wav_block(3.0), "gemini") == 96  # 3 s x 32
    assert estimate_tokens(_pdf_block(5), "gemini") == 5 * 258
    path = TESTDATA / "video/h264-aac.mp4"
    if not path.exists():
        pytest.skip("testdata/video/h264-aac.mp4 is not present")
    video = VideoBlock.from_path(path)
    assert estimate_tokens(video, "gemini") == 132  # 0.5 s x 263 = 131.5 -> 132
    # Gemini 3 default: 70 tokens per frame at 1 frame/s + 32 audio -> 0.5 x 102 = 51
    assert estimate_tokens(video, "gemini", model="gemini-3-flash") == 51
    assert not video.loaded  # the duration came from the headers alone


# -- Mistral and Ollama -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "model", "expected"),
    [
        # Pixtral 12B, 16 px: 1024x1024 -> 64x64 = 4096 + 64 row breaks = 4160
        (1024, 1024, "pixtral-12b-2409", 4160),
        # 2048x1024 -> scaled to 1024x512 -> 64x32 = 2048 + 32 = 2080
        (2048, 1024, "pixtral-12b-latest", 2080),
        # later models, 28 px cells up to 1540: 1540x1540 -> 55x55 = 3025 + 55 = 3080
        (1540, 1540, "mistral-small-latest", 3080),
        # 100x50 -> ceil(100/28) = 4 columns, 2 rows -> 8 + 2 = 10
        (100, 50, None, 10),
    ],
)
def test_mistral_images(width: int, height: int, model: str | None, expected: int) -> None:
    assert estimate_tokens(_png_block(width, height), "mistral", model=model) == expected


def test_ollama_images_by_family() -> None:
    assert estimate_tokens(_png_block(10, 10), "ollama", model="llava:13b") == 576
    assert estimate_tokens(_png_block(10, 10), "ollama", model="gemma3:4b") == 256
    with pytest.raises(UnsupportedBlockError):
        estimate_tokens(_wav_block(1.0), "ollama")


# -- text, messages, and what cannot be estimated ---------------------------------------------


def test_text_is_one_token_per_four_characters() -> None:
    assert text_tokens("hello world") == 3  # 11 / 4 -> 3
    assert estimate_tokens(TextBlock(text="x" * 400), "anthropic") == 100


def test_messages_agree_with_history_count_tokens() -> None:
    messages = [
        UserMessage(content=[TextBlock(text="What is in this picture?"), _png_block(1000, 1000)]),
        AssistantMessage(content=[ToolCallBlock(id="c1", name="zoom", args={"factor": 2})]),
        UserMessage(content=[ToolResultBlock(tool_call_id="c1", content="zoomed in")]),
    ]
    expected = 6 + 1334 + (1 + 4) + 3  # text 24/4; image 1334; "zoom" + '{"factor": 2}'; 9/4
    assert estimate_tokens(messages, "anthropic") == expected
    assert count_tokens(messages, "anthropic") == expected
    assert estimate_tokens(messages[0], "anthropic") == 6 + 1334


def test_image_size_only_helper() -> None:
    assert image_tokens(1024, 1024, "openai", model="gpt-4o") == 765
    with pytest.raises(ValueError, match="must be positive"):
        image_tokens(0, 10, "anthropic")


def test_unfetched_url_is_refused_without_network() -> None:
    block = ImageBlock.from_url("https://example.com/cat.png")
    with pytest.raises(SourceError, match="not fetched yet"):
        estimate_tokens(block, "anthropic")
    with pytest.raises(SourceError, match="stored at a provider"):
        estimate_tokens(ImageBlock.from_file_id("file-1", "image/png"), "openai")


def test_path_image_is_estimated_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "wide.png"
    Image.new("RGB", (1024, 1024), "white").save(path)
    block = ImageBlock.from_path(path)
    assert estimate_tokens(block, "openai", model="gpt-4o") == 765
    assert not block.loaded


def test_unknown_provider() -> None:
    with pytest.raises(UnknownProviderError):
        estimate_tokens(TextBlock(text="hi"), "nope")


def test_documents_other_than_pdf_and_text() -> None:
    text = FileBlock.from_bytes(b"a,b\n1,2\n" * 10, "text/csv")
    assert estimate_tokens(text, "openai") == 20  # 80 bytes / 4
    zipped = FileBlock.from_path(TESTDATA / "archive" / "sample.zip")
    with pytest.raises(UnsupportedBlockError, match="no token rule"):
        estimate_tokens(zipped, "anthropic")


def test_image_without_a_size_is_a_decode_error() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (10, 10)).save(buffer, "GIF")
    data = bytearray(buffer.getvalue())
    data[6:10] = b"\x00\x00\x00\x00"  # logical screen 0x0: the header gives no size
    with pytest.raises(DecodeError, match="no image size"):
        estimate_tokens(ImageBlock.from_bytes(bytes(data)), "anthropic")


def test_fixed_count_images_need_no_bytes() -> None:
    block = ImageBlock.from_url("https://example.com/cat.png")  # never fetched
    assert estimate_tokens(block, "gemini", model="gemini-3-pro-preview") == 1120
    assert estimate_tokens(block, "ollama", model="llava") == 576
    assert not block.loaded


def test_video_outside_gemini_is_refused() -> None:
    path = TESTDATA / "video/h264-aac.mp4"
    if not path.exists():
        pytest.skip("testdata/video/h264-aac.mp4 is not present")
    video = VideoBlock.from_path(path)
    with pytest.raises(UnsupportedBlockError, match="no documented token rule"):
        estimate_tokens(video, "bedrock", model="amazon.nova-pro-v1:0")
    with pytest.raises(UnsupportedBlockError, match="openai-chat takes no video"):
        estimate_tokens(video, "openai")
