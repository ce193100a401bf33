from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

import mediablocks as mb
from mediablocks.history.storage import load_history, media_summary, redacted, save_history


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


def test_path_media_stay_references_unless_embedded(tmp_path: Path, png_bytes: bytes) -> None:
    picture = tmp_path / "cat.png"
    picture.write_bytes(png_bytes)
    history = [mb.UserMessage.with_images("look", [picture])]
    kept = json.loads(save_history(history))
    assert kept["messages"][0]["content"][1]["source"] == {"kind": "path", "path": str(picture)}
    inline = save_history(history, embed_paths=True)
    picture.unlink()  # the history holds its own copy now
    assert load_history(inline)[0].media[0].read() == png_bytes
    picture.write_bytes(png_bytes)
    media = tmp_path / "media"
    external = save_history(history, media_dir=media, embed_paths=True)
    digest = hashlib.sha256(png_bytes).hexdigest()
    assert f'"file": "{digest}.png"' in external
    picture.unlink()
    assert load_history(external, media_dir=media)[0].media[0].read() == png_bytes


def test_stored_media_need_the_folder(tmp_path: Path, png_bytes: bytes) -> None:
    text = save_history(_history(png_bytes), media_dir=tmp_path)
    with pytest.raises(mb.DecodeError, match="pass media_dir"):
        load_history(text)


def test_redacted_view_summarises_nested_media_and_long_base64(png_bytes: bytes) -> None:
    bare = mb.ImageBlock.from_bytes(png_bytes)  # no declared type: the bytes say image/png
    blob = base64.b64encode(bytes(range(256)) * 8).decode("ascii")
    history = [
        mb.ToolMessage.from_result("c", [mb.TextBlock(text="shot"), bare]),
        mb.AssistantMessage(
            content=[
                mb.RawBlock(provider="openai-chat", data={"b64_json": blob, "note": "short"}),
                mb.RawBlock(provider="x", data={"url": "data:image/png;base64," + blob}),
            ]
        ),
    ]
    view = redacted(history)
    nested = view[0]["content"][0]["content"]
    assert nested[0]["text"] == "shot"
    digest = hashlib.sha256(png_bytes).hexdigest()[:12]
    assert nested[1] == {"type": "image", "media": media_summary(bare)}
    assert nested[1]["media"].startswith("<image/png ")
    assert f"sha256:{digest}" in nested[1]["media"]
    raw = view[1]["content"][0]["data"]
    assert raw["note"] == "short"
    blob_digest = hashlib.sha256(base64.b64decode(blob)).hexdigest()[:12]
    assert raw["b64_json"] == f"<base64 2.0 KB sha256:{blob_digest}…>"
    assert view[1]["content"][1]["data"]["url"] == f"<image/png 2.0 KB sha256:{blob_digest}…>"
    text = json.dumps(view)
    assert blob[:64] not in text
    assert len(text) < len(blob)


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_history_nested_too_deeply_is_a_decode_error(depth: int) -> None:
    text = "[" * depth + "]" * depth
    with pytest.raises(mb.DecodeError, match="nested more than"):
        mb.load_history(text)
