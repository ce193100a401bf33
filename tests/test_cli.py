from __future__ import annotations

import json
from pathlib import Path

import pytest

from mediablocks.cli import main

from .conftest import make_png, make_wav


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.png").write_bytes(make_png())
    (tmp_path / "sub" / "b.data").write_bytes(make_wav())
    return tmp_path


def test_inspect_prints_one_line_per_file_from_the_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["inspect", str(_folder(tmp_path))])
    out, err = capsys.readouterr()
    assert status == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert "image/png" in lines[0]
    assert "audio/wav" in lines[1]  # the .data extension says nothing; the bytes do
    assert "2 inspected, 0 failed" in err


def test_inspect_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--json", str(_folder(tmp_path))]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["mime_type"] for r in rows] == ["image/png", "audio/wav"]
    assert rows[0]["block"] == "ImageBlock"
    assert rows[0]["base64_chars"] == 4 * ((rows[0]["bytes"] + 2) // 3)


def test_a_failing_file_gives_one_line_and_a_failing_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["inspect", str(tmp_path / "missing.png"), str(_folder(tmp_path) / "a.png")])
    out, err = capsys.readouterr()
    assert status == 1
    assert "missing.png: error:" in err
    assert "Traceback" not in err
    assert "image/png" in out
