"""``inspect`` judges images from their headers: a large photo is never fitted once per provider
to say ``fix``, and the verdicts are the ones `prepare` reaches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import pytest

import mediablocks as mb
import mediablocks.cli.inspect as inspect_module
from mediablocks.cli import main
from tests.conftest import TESTDATA, image_bytes


def test_large_photos_are_judged_without_fitting_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "phone.jpg").write_bytes(image_bytes("JPEG", (4032, 3024), "teal"))
    (tmp_path / "photo.heic").write_bytes((TESTDATA / "image" / "photo.heic").read_bytes())

    def no_fitting(*args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError("an image was fitted to judge it")

    monkeypatch.setattr(inspect_module, "prepare_with_report", no_fitting)
    monkeypatch.setattr("mediablocks.images.fit._reencode", no_fitting)
    assert main(["inspect", "--json", str(tmp_path)]) == 0
    rows = {Path(row["path"]).name: row for row in json.loads(capsys.readouterr().out)}
    phone = rows["phone.jpg"]["providers"]
    assert phone["anthropic"]["status"] == "prepare"
    assert any(c.startswith("resized: 4032x3024 -> ") for c in phone["anthropic"]["changes"])
    heic = rows["photo.heic"]["providers"]
    assert heic["gemini"] == {"status": "as-is"}  # Gemini takes HEIC
    assert "converted: image/heic -> image/jpeg" in heic["anthropic"]["changes"]


def test_the_verdicts_are_the_ones_prepare_reaches(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(p for p in (TESTDATA / "image").iterdir() if p.suffix in (".jpg", ".png"))[:6]
    assert main(["inspect", "--json", "--provider", "anthropic", *map(str, files)]) == 0
    for row in json.loads(capsys.readouterr().out):
        block = mb.media_block(Path(row["path"]))
        verdict = row["providers"]["anthropic"]
        try:
            _, report = mb.prepare_with_report([mb.UserMessage(content=[block])], "anthropic")
        except mb.MediaBlocksError:
            assert verdict["status"] == "cannot", row["path"]
            continue
        changed = report.blocks[0].changed
        assert verdict["status"] == ("prepare" if changed else "as-is"), row["path"]
