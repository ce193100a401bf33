"""``mediablocks batch``: a batch file from a folder or a JSONL of prompts, failures per item."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from mediablocks.cli import main
from tests.conftest import TESTDATA, make_png, make_wav


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_a_folder_becomes_one_request_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(TESTDATA / "image" / "photo.jpg", folder / "my photo.jpg")
    (folder / "sub" / "b.png").write_bytes(make_png())
    out = tmp_path / "batch.jsonl"
    status = main(
        [
            "batch",
            str(folder),
            "--provider",
            "anthropic",
            "--prompt",
            "Describe.",
            "--model",
            "claude-sonnet-4-5",
            "--max-tokens",
            "100",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    lines = _lines(out)
    assert [line["custom_id"] for line in lines] == ["000000-my_photo", "000001-b"]
    params = lines[0]["params"]
    assert isinstance(params, dict)
    assert params["model"] == "claude-sonnet-4-5"
    assert params["max_tokens"] == 100
    content = params["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "Describe."}
    data = (TESTDATA / "image" / "photo.jpg").read_bytes()
    assert base64.b64decode(content[1]["source"]["data"]) == data
    assert "wrote 2 requests" in capsys.readouterr().err


def test_prepare_fits_media_and_failures_are_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "scan.bmp"  # Anthropic takes no BMP: --prepare converts it
    Image.new("RGB", (300, 200), "white").save(big)
    (tmp_path / "voice.wav").write_bytes(make_wav())  # Anthropic takes no audio
    out = tmp_path / "b.jsonl"
    status = main(
        [
            "batch",
            str(big),
            str(tmp_path / "voice.wav"),
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--max-tokens",
            "5",
            "--prepare",
            "--out",
            str(out),
        ]
    )
    assert status == 1
    err = capsys.readouterr().err
    assert "voice.wav: error:" in err
    assert "1 left out" in err
    (line,) = _lines(out)
    source = line["params"]["messages"][0]["content"][0]["source"]  # type: ignore[index]
    assert source["media_type"] in ("image/png", "image/jpeg")
    assert base64.b64decode(source["data"]).startswith((b"\x89PNG", b"\xff\xd8\xff"))


def test_a_jsonl_of_prompts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cat.png").write_bytes(make_png())
    prompts = tmp_path / "jobs.jsonl"
    prompts.write_text(
        json.dumps({"id": "q1", "prompt": "What is 2+2?"})
        + "\n"
        + json.dumps({"id": "q2", "prompt": "What colour?", "files": ["cat.png"]})
        + "\n"
        + "\n"
        + "not json\n"
        + json.dumps({"id": "q1", "prompt": "again"})
        + "\n"
    )
    out = tmp_path / "batch.jsonl"
    status = main(
        [
            "batch",
            "--prompts",
            str(prompts),
            "--provider",
            "openai",
            "--model",
            "gpt-4.1-mini",
            "--out",
            str(out),
        ]
    )
    assert status == 1
    lines = _lines(out)
    assert [line["custom_id"] for line in lines] == ["q1", "q2"]
    body = lines[1]["body"]
    assert isinstance(body, dict)
    assert body["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png")
    err = capsys.readouterr().err
    assert "jobs.jsonl line 4: error:" in err
    assert "not unique" in err


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "o.jsonl")
    assert main(["batch", "--provider", "openai", "--out", out]) == 2
    assert main(["batch", str(tmp_path), "--provider", "ollama", "--out", out]) == 2
    assert "takes no batch files" in capsys.readouterr().err


def test_a_provider_that_needs_a_model_says_which_flag_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "a.png"
    Image.new("RGB", (4, 4)).save(png)
    out = tmp_path / "batch.jsonl"
    assert main(["batch", str(png), "--provider", "anthropic", "--out", str(out)]) == 2
    assert "anthropic batch files need --model and --max-tokens" in capsys.readouterr().err
    assert not out.exists()


def test_a_model_given_on_the_command_line_counts_for_prepare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "voice.wav").write_bytes(make_wav(seconds=0.5))
    out = tmp_path / "batch.jsonl"
    args = ["batch", str(folder), "--provider", "openai", "--out", str(out), "--prepare"]
    assert main([*args, "--model", "gpt-4.1"]) == 1  # gpt-4.1 takes no audio: left out
    assert "gpt-4.1" in capsys.readouterr().err
    assert "input_audio" not in out.read_text()
    assert main([*args, "--model", "gpt-4o-audio-preview"]) == 0
    [line] = _lines(out)
    body = line["body"]
    assert isinstance(body, dict)
    assert body["model"] == "gpt-4o-audio-preview"
    assert body["messages"][0]["content"][0]["type"] == "input_audio"
