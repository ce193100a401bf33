"""prepare() fits the whole request: its byte totals, image counts and count-dependent caps."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from mediablocks.blocks import TextBlock
from mediablocks.encoding import encode_json
from mediablocks.errors import DoesNotFitError
from mediablocks.media import ImageBlock
from mediablocks.messages import UserMessage
from mediablocks.preparing import SHARE_FLOOR_SIDE, prepare, prepare_with_report
from mediablocks.providers.registry import limits_for


def noisy_photos(count: int, size: tuple[int, int], quality: int) -> list[bytes]:
    """``count`` different noisy JPEGs (noise is the worst case for a codec)."""
    base = Image.effect_noise(size, 40).convert("RGB")
    photos = []
    for index in range(count):
        buffer = io.BytesIO()
        variant = base.transpose(Image.Transpose.ROTATE_180) if index % 2 else base
        variant.point(lambda value, shift=index: (value + 7 * shift) % 256).save(
            buffer, "JPEG", quality=quality
        )
        photos.append(buffer.getvalue())
    return photos


def test_25_large_photos_go_to_anthropic_in_one_request() -> None:
    photos = noisy_photos(25, (2200, 1650), 92)
    limits = limits_for("anthropic")
    assert limits.max_request_bytes == 32_000_000
    assert sum(4 * ((len(photo) + 2) // 3) for photo in photos) > 50_000_000  # base64 counted
    blocks = [ImageBlock.from_bytes(photo) for photo in photos]
    messages = [UserMessage(content=["What changes from one photo to the next?", *blocks])]
    # optimal_size=False: full-size photos, so the request total is what limits them
    prepared, report = prepare_with_report(messages, "anthropic", optimal_size=False)
    body = encode_json(prepared, "anthropic", model="claude-sonnet-4-5", max_tokens=1024)
    assert len(body) < 32_000_000  # the whole JSON body, as Anthropic counts it
    fitted = [block for block in prepared[0].content if isinstance(block, ImageBlock)]
    assert len(fitted) == 25
    for block in fitted:
        with Image.open(io.BytesIO(block.read())) as image:
            image.load()  # a real JPEG
            assert max(image.size) <= 2000  # more than 20 images: 2000 px per side
            assert max(image.size) >= SHARE_FLOOR_SIDE
    assert all(any(c.kind == "shared" for c in entry.changes) for entry in report.blocks)
    assert len(report.notes) >= 1
    assert "request limit of 32,000,000 bytes (base64)" in report.notes[0]
    assert "request: " in str(report)


def test_the_largest_images_share_and_small_ones_stay_as_they_are() -> None:
    small = ImageBlock.from_bytes(noisy_photos(1, (200, 150), 80)[0])
    large = [ImageBlock.from_bytes(photo) for photo in noisy_photos(3, (1800, 1350), 95)]
    total = sum(len(block.read()) for block in large)
    text = TextBlock(text="x" * (4_000_000 - (total * 4 // 3) // 2))  # half the room is text
    messages = [UserMessage(content=[text, small, *large])]
    prepared, report = prepare_with_report(messages, "groq")  # 4 MB per request, base64
    assert prepared[0].content[1] is small
    assert not report.blocks[0].changed
    assert all(entry.changed for entry in report.blocks[1:])
    body = encode_json(prepared, "groq")
    assert len(body) < 4_000_000
    kinds = [change.kind for change in report.blocks[1].changes]
    assert kinds[-1] == "shared"
    assert "re-encoded" in kinds


def test_no_share_fits_raises_naming_the_limit() -> None:
    photo = ImageBlock.from_bytes(noisy_photos(1, (1600, 1200), 90)[0])
    # About 10 KB left: less than the photo takes at the floor (512 px, quality 40).
    text = TextBlock(text="x" * (4_000_000 - 64 * 1024 - 10_000))
    with pytest.raises(DoesNotFitError) as caught:
        prepare([UserMessage(content=[text, photo])], "groq")
    assert any("does not fit its share" in problem for problem in caught.value.problems)
    assert any("request limit of 4,000,000" in problem for problem in caught.value.problems)
    no_room = TextBlock(text="x" * 3_990_000)
    with pytest.raises(DoesNotFitError, match="0 raw bytes are left"):
        prepare([UserMessage(content=[no_room, photo])], "groq")
