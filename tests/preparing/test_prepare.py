"""prepare(): new messages that fit a provider, a report of what changed, every problem at once."""

from __future__ import annotations

import base64
import io
import random
import sys
import wave
from pathlib import Path

import pytest
from PIL import Image
from pydantic import TypeAdapter

from mediablocks import ConversionLimits
from mediablocks.blocks import TextBlock, ToolResultBlock
from mediablocks.encoding import encode
from mediablocks.errors import DoesNotFitError, ImageBombError
from mediablocks.media import AudioBlock, FileBlock, ImageBlock, VideoBlock
from mediablocks.messages import Message, ToolMessage, UserMessage
from mediablocks.preparing import prepare, prepare_block, prepare_with_report
from mediablocks.providers.registry import limits_for

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"


def jpeg(size: tuple[int, int], quality: int = 80) -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise(size, 30).convert("RGB").save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


def pdf(pages: int) -> bytes:
    frames = [Image.new("L", (8, 8), page % 256) for page in range(pages)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "PDF", save_all=True, append_images=frames[1:])
    return buffer.getvalue()


def wav(seconds: float, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(rate)
        out.writeframes(b"\x80" * int(seconds * rate))
    return buffer.getvalue()


def size_of(block: ImageBlock) -> tuple[int, int]:
    width, height = Image.open(io.BytesIO(block.read())).size
    return width, height


def test_fitting_media_comes_back_as_the_same_objects() -> None:
    image = ImageBlock.from_bytes(jpeg((300, 200)))
    messages: list[Message] = [UserMessage(content=["look", image])]
    prepared, report = prepare_with_report(messages, "anthropic")
    assert prepared is not messages
    assert prepared[0] is messages[0]
    assert prepared[0].content[1] is image
    assert report.changed == []
    assert not report.blocks[0].changed


def test_inputs_stay_untouched_and_changes_are_recorded_on_the_block() -> None:
    data = jpeg((9000, 600))
    image = ImageBlock.from_bytes(data, filename="wide.jpg")
    image = image.model_copy(update={"metadata": {"mine": 1}, "detail": "high"})
    messages: list[Message] = [UserMessage(content=["look", image])]
    prepared = prepare(messages, "anthropic", optimal_size=False)  # the hard limit, 8000 px
    assert messages[0].content[1] is image
    assert image.read() is data
    new = prepared[0].content[1]
    assert isinstance(new, ImageBlock)
    assert size_of(new) == (8000, 533)
    assert new.metadata["mine"] == 1
    assert new.metadata["prepared"]["provider"] == "anthropic"
    assert "resized: 9000x600 -> 8000x533" in new.metadata["prepared"]["changes"]
    assert new.detail == "high"
    assert new.filename == "wide.jpg"


def test_report_counts_bytes_the_way_the_provider_does() -> None:
    heic = _heic_bytes()
    messages: list[Message] = [
        UserMessage(content=[ImageBlock.from_bytes(heic, filename="a.heic")])
    ]
    prepared, report = prepare_with_report(messages, "anthropic")
    entry = report.blocks[0]
    new = prepared[0].content[0]
    assert isinstance(new, ImageBlock)
    assert (entry.message_index, entry.block_index, entry.item_index) == (0, 0, None)
    assert entry.measure == "base64"
    assert entry.bytes_before == len(base64.b64encode(heic))
    assert entry.bytes_after == len(base64.b64encode(new.read()))
    assert any(c.detail.startswith("image/heic -> image/") for c in entry.changes)
    assert new.filename is not None
    assert new.filename.endswith((".jpg", ".png"))
    assert "image/heic ->" in str(report)


def _heic_bytes() -> bytes:
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    path = TESTDATA / "image" / "photo.heic"
    if path.exists():
        return path.read_bytes()
    buffer = io.BytesIO()
    Image.effect_noise((64, 48), 40).convert("RGB").save(buffer, "HEIF")
    return buffer.getvalue()


def test_prepared_heic_is_a_valid_anthropic_image_block() -> None:
    from anthropic.types import ImageBlockParam

    messages: list[Message] = [UserMessage(content=["what", ImageBlock.from_bytes(_heic_bytes())])]
    payload = encode(prepare(messages, "anthropic"), "anthropic")
    part = payload["messages"][0]["content"][1]
    TypeAdapter(ImageBlockParam).validate_python(part)
    assert part["source"]["media_type"] in ("image/jpeg", "image/png")


def test_twenty_five_images_get_the_many_images_cap() -> None:
    data = jpeg((2100, 600), 60)
    images = [ImageBlock.from_bytes(data) for _ in range(25)]
    message = UserMessage(content=["compare", *images])
    prepared = prepare([message], "anthropic", optimal_size=False)  # the cap, not the optimum
    out = [block for block in prepared[0].content if isinstance(block, ImageBlock)]
    assert len(out) == 25
    for block in out:
        width, height = size_of(block)
        assert max(width, height) <= 2000
    twenty = prepare([UserMessage(content=images[:20])], "anthropic", optimal_size=False)
    assert all(a is b for a, b in zip(twenty[0].content, images[:20], strict=False))


def test_too_many_images_for_bedrock_is_a_problem() -> None:
    images = [ImageBlock.from_bytes(jpeg((20, 20))) for _ in range(21)]
    with pytest.raises(DoesNotFitError, match="21 images; bedrock takes at most 20"):
        prepare([UserMessage(content=images)], "bedrock")


def test_media_inside_tool_results_is_prepared() -> None:
    image = ImageBlock.from_bytes(jpeg((2000, 500)))
    result = ToolResultBlock(tool_call_id="call_1", content=[TextBlock(text="screenshot"), image])
    messages: list[Message] = [UserMessage(content="hi"), ToolMessage(content=[result])]
    prepared, report = prepare_with_report(messages, "anthropic", optimal_size=True)
    new_result = prepared[1].content[0]
    assert isinstance(new_result, ToolResultBlock)
    assert isinstance(new_result.content, list)
    new_image = new_result.content[1]
    assert isinstance(new_image, ImageBlock)
    assert max(size_of(new_image)) <= 1568
    assert new_result.tool_call_id == "call_1"
    assert result.content[1] is image  # the input is untouched
    assert (report.blocks[0].message_index, report.blocks[0].item_index) == (1, 1)


def test_every_offending_block_is_listed() -> None:
    video_path = next((TESTDATA / "video").glob("*.mp4"), None)
    video = (
        VideoBlock.from_path(video_path)
        if video_path
        else VideoBlock.from_url("https://example.com/clip.mp4")
    )
    docx = FileBlock.from_bytes(b"PK\x03\x04" + bytes(40), "application/vnd.ms-excel")
    pdfs = [FileBlock.from_bytes(pdf(60), filename=f"part{n}.pdf") for n in (1, 2)]
    messages: list[Message] = [
        UserMessage(content=["a", video, ImageBlock.from_bytes(jpeg((50, 50))), docx]),
        UserMessage(content=["b", *pdfs]),
    ]
    with pytest.raises(DoesNotFitError) as caught:
        prepare(messages, "anthropic", video="raise")  # "convert" would send frames
    problems = caught.value.problems
    assert len(problems) == 3
    assert "message 0, block 1" in problems[0]
    assert "takes no video" in problems[0]
    assert "message 0, block 3" in problems[1]
    assert "120 PDF pages" in problems[2]
    assert "message 1, block 1" in problems[2]
    assert "message 1, block 2" in problems[2]
    assert str(caught.value).count("\n  - ") == 3


def test_bedrock_document_byte_limit() -> None:
    big = FileBlock.from_bytes(b"%PDF-1.4\n" + bytes(4_600_000) + b"\n%%EOF\n", filename="big.pdf")
    small = FileBlock.from_bytes(pdf(2), filename="small.pdf")
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=["read", big, small])], "bedrock")
    assert len(caught.value.problems) == 1
    assert "message 0, block 1" in caught.value.problems[0]
    assert "4,500,000" in caught.value.problems[0]


def test_audio_too_long_for_mistral() -> None:
    clip = AudioBlock.from_bytes(wav(41 * 60, rate=1000))
    with pytest.raises(DoesNotFitError, match="2,460 seconds of audio"):
        prepare([UserMessage(content=["transcribe", clip])], "mistral")
    short = AudioBlock.from_bytes(wav(1))
    assert prepare([UserMessage(content=[short])], "mistral")[0].content[0] is short


def test_flac_is_transcoded_for_openai_with_pyav() -> None:
    clip = AudioBlock.from_path(TESTDATA / "audio" / "sample.flac")
    block, changes = prepare_block(clip, "openai", model="gpt-4o-audio-preview")
    assert block.mime_type == "audio/wav"  # OpenAI takes MP3 and WAV: lossless while small
    assert [c.kind for c in changes] == ["transcoded"]
    assert block.read()[:4] == b"RIFF"
    assert block.read()[8:12] == b"WAVE"


def test_without_pyav_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "av", None)  # import av now raises ImportError
    clip = AudioBlock.from_bytes(_flac_or_skip())
    with pytest.raises(DoesNotFitError, match=r"pip install 'mediablocks\[av\]'"):
        prepare(  # in-process: the patched import must be the converter's own
            [UserMessage(content=[clip])],
            "openai",
            model="gpt-4o-audio-preview",
            conversion_limits=ConversionLimits(isolate=False),
        )


def _flac_or_skip() -> bytes:
    path = TESTDATA / "audio" / "sample.flac"
    if not path.exists():
        pytest.skip("testdata flac not there")
    return path.read_bytes()


def test_bomb_raises_at_once() -> None:
    path = TESTDATA / "bad" / "bomb-28000x28000.png"
    if not path.exists():
        pytest.skip("testdata bomb not there")
    with pytest.raises(ImageBombError, match=r"bomb-28000x28000\.png"):
        prepare([UserMessage(content=[ImageBlock.from_path(path)])], "openai")


def test_prepare_block_returns_the_same_block_when_it_fits() -> None:
    image = ImageBlock.from_bytes(jpeg((100, 100)))
    assert prepare_block(image, "gemini") == (image, [])
    block, changes = prepare_block(image, "anthropic", image_count=30, optimal_size=True)
    assert block is image
    assert changes == []


def test_openai_total_image_bytes_are_shared() -> None:
    limits = limits_for("openai")
    assert limits.max_total_image_bytes == 50_000_000
    noise = Image.frombytes("RGB", (3000, 2000), random.Random(7).randbytes(3000 * 2000 * 3))
    buffer = io.BytesIO()
    noise.save(buffer, "JPEG", quality=95)  # about 7 MB: eight of them are over 50 MB
    images = [ImageBlock.from_bytes(buffer.getvalue()) for _ in range(8)]
    assert len(buffer.getvalue()) * 8 > 50_000_000
    prepared, report = prepare_with_report([UserMessage(content=images)], "openai")
    sizes = [len(block.read()) for block in prepared[0].content if isinstance(block, ImageBlock)]
    assert sum(sizes) <= 50_000_000
    assert all(size <= 50_000_000 // 8 for size in sizes)
    assert all(entry.changed for entry in report.blocks)


def test_url_blocks_are_counted_not_read() -> None:
    url_image = ImageBlock.from_url("https://example.com/cat.png")
    out = prepare([UserMessage(content=[url_image])], "anthropic")
    assert out[0].content[0] is url_image
    with pytest.raises(DoesNotFitError, match="takes no audio"):
        prepare([UserMessage(content=[AudioBlock.from_url("https://example.com/a.mp3")])], "ollama")


def test_a_broken_header_is_a_problem_not_a_pass() -> None:
    path = TESTDATA / "bad" / "truncated-ftyp-only.mp4"
    if not path.exists():
        pytest.skip("testdata file not there")
    video = VideoBlock.from_path(path)
    with pytest.raises(DoesNotFitError, match=r"truncated-ftyp-only\.mp4") as caught:
        prepare([UserMessage(content=["what happens?", video])], "gemini")
    assert len(caught.value.problems) == 1
    assert "moov" in caught.value.problems[0]
