"""Shared fixtures: the bundled test data and small media made with real encoders."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
PUBLIC_TESTDATA = ROOT.parent / "shared" / "testdata-public"


def load_manifest() -> dict[str, dict[str, Any]]:
    """testdata/manifest.json: relative path -> what the encoder made (empty if absent)."""
    manifest = TESTDATA / "manifest.json"
    if not manifest.exists():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(manifest.read_text())
    return data


def make_png(size: tuple[int, int] = (32, 24), mode: str = "RGB", color: Any = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, "PNG")
    return buffer.getvalue()


def make_jpeg(size: tuple[int, int] = (32, 24), color: Any = "blue") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def make_wav(seconds: float = 0.1, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x01" * int(seconds * rate))
    return buffer.getvalue()


@pytest.fixture
def png_bytes() -> bytes:
    return make_png()


@pytest.fixture
def jpeg_bytes() -> bytes:
    return make_jpeg()


@pytest.fixture
def wav_bytes() -> bytes:
    return make_wav()
