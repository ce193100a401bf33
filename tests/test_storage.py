from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

import mediablocks as mb
from mediablocks.storage import load_history, media_summary, redacted, save_history


def _history(png: bytes) -> list[mb.Message]:
    image = mb.ImageBlock.from_bytes(png)
    return [
        mb.UserMessage.with_images("one", [image]),
        mb.UserMessage.with_images("same again", [mb.ImageBlock.from_bytes(png)]),
        mb.ToolMessage.from_result("c", [image]),
    ]


def test_inline_round_trip(png_bytes: bytes) -> None:
    history = _history(png_bytes)
    assert load_history(save_history(history)) == history


def test_external_media_are_content_addressed_and_deduplicated(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    Image.effect_noise((64, 64), 60).save(buffer, "PNG")  # incompressible: base64 would dominate
    png_bytes = buffer.getvalue()
    history = _history(png_bytes)
    media = tmp_path / "media"
    text = save_history(history, tmp_path / "h.json", media_dir=media)
    digest = hashlib.sha256(png_bytes).hexdigest()
    assert [p.name for p in media.iterdir()] == [f"{digest}.png"]
    assert len(text) < len(save_history(history)) / 2
    assert digest in (tmp_path / "h.json").read_text()
    back = load_history(tmp_path / "h.json", media_dir=media)
    assert [m.content for m in back] == [m.content for m in history]
    assert back[2].results[0].media[0].read() == png_bytes  # type: ignore[attr-defined]


def test_altered_or_missing_stored_media_are_refused(tmp_path: Path, png_bytes: bytes) -> None:
    media = tmp_path / "media"
    text = save_history(_history(png_bytes), media_dir=media)
    stored = next(media.iterdir())
    stored.write_bytes(png_bytes + b"tampered")
    with pytest.raises(mb.SourceError, match="does not match its sha256"):
        load_history(text, media_dir=media)
    stored.unlink()
    with pytest.raises(mb.SourceError, match="cannot read"):
        load_history(text, media_dir=media)


def test_stored_names_cannot_escape_the_folder(tmp_path: Path, png_bytes: bytes) -> None:
    text = save_history(_history(png_bytes), media_dir=tmp_path / "m")
    evil = text.replace(hashlib.sha256(png_bytes).hexdigest() + ".png", "../../etc/passwd")
    with pytest.raises(mb.DecodeError, match="plain file name"):
        load_history(evil, media_dir=tmp_path / "m")


def test_redacted_view_shows_summaries_not_base64(png_bytes: bytes) -> None:
    view = redacted(_history(png_bytes))
    text = json.dumps(view)
    digest = hashlib.sha256(png_bytes).hexdigest()[:12]
    assert f"sha256:{digest}" in text
    assert "image/png" in text
    assert mb.ImageBlock.from_bytes(png_bytes).to_base64()[0][:24] not in text
    assert view[0]["content"][1] == {
        "type": "image",
        "media": media_summary(_history(png_bytes)[0].media[0]),
    }


def test_summary_of_an_unread_path_does_not_read_it(tmp_path: Path) -> None:
    block = mb.ImageBlock.from_path(tmp_path / "not-there.png", "image/png")
    assert "not-there.png" in media_summary(block)
