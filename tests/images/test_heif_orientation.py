"""A HEIF's orientation: what the decoder turned (``irot``) is reported as such, and an EXIF
orientation with no transform box (a photo edited on iOS) is applied, never only reported."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import mediablocks as mb
from mediablocks.probing.images import heif_has_transform

pillow_heif = pytest.importorskip("pillow_heif")
pillow_heif.register_heif_opener()


def _marked(size: tuple[int, int]) -> Image.Image:
    """A landscape image, red in its top-left corner and blue elsewhere."""
    image = Image.new("RGB", size, (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, size[0] // 4, size[1] // 4))
    return image


def _heif(orientation: int, transform: bool) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation if transform else 1
    out = io.BytesIO()
    _marked((64, 48)).save(out, "HEIF", quality=90, exif=exif.tobytes())
    data = out.getvalue()
    if transform:
        return data
    # The EXIF item says 6 and no irot box says anything: patch the tag's value in place.
    tag = b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x01" if b"MM\x00*" in data else None
    little = b"\x12\x01\x03\x00\x01\x00\x00\x00\x01\x00"
    if tag is not None and tag in data:
        return data.replace(tag, tag[:-2] + b"\x00" + bytes([orientation]), 1)
    assert little in data
    return data.replace(little, little[:-2] + bytes([orientation]) + b"\x00", 1)


def _prepared(data: bytes) -> tuple[Image.Image, str]:
    block = mb.ImageBlock.from_bytes(data)
    [message], report = mb.prepare_with_report([mb.UserMessage(content=[block])], "anthropic")
    image = Image.open(io.BytesIO(message.content[0].read()))
    image.load()
    return image, str(report.blocks[0])


@pytest.mark.parametrize("transform", [True, False], ids=["irot box", "exif only"])
def test_an_orientation_reported_is_an_orientation_applied(transform: bool) -> None:
    data = _heif(6, transform)
    assert heif_has_transform(data) is transform
    image, report = _prepared(data)
    assert image.size == (48, 64)  # portrait: turned 90 degrees clockwise
    # The red corner was top-left; turned clockwise it is top-right.
    assert image.getpixel((44, 2))[0] > 200
    assert image.getpixel((2, 2))[2] > 200
    assert "orientation 6" in report
    if not transform:
        assert "EXIF orientation 6" in report


def test_an_upright_heif_is_not_turned() -> None:
    image, report = _prepared(_heif(1, False))
    assert image.size == (64, 48)
    assert "orientation" not in report
