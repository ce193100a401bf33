"""Hostile command lines and inputs give one clear line and an exit status, never a traceback."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from mediablocks.cli import main
from tests.conftest import ROOT, make_png


def _tiff_libtiff_complains_about(path: Path) -> None:
    """An LZW TIFF (decoded by libtiff) whose SamplesPerPixel tag has count 2: libtiff prints
    ``TIFFFetchNormalTag: Incorrect count for "SamplesPerPixel".`` straight to descriptor 2."""
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), "red").save(buffer, "TIFF", compression="tiff_lzw")
    data = bytearray(buffer.getvalue())
    (offset,) = struct.unpack("<I", data[4:8])
    (count,) = struct.unpack("<H", data[offset : offset + 2])
    for index in range(count):
        entry = offset + 2 + 12 * index
        if struct.unpack("<H", data[entry : entry + 2])[0] == 277:
            data[entry + 4 : entry + 8] = struct.pack("<I", 2)
    path.write_bytes(bytes(data))


def test_inspect_keeps_libtiff_warnings_off_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    tiff = tmp_path / "odd.tif"
    _tiff_libtiff_complains_about(tiff)
    decode = f"from PIL import Image; Image.open({str(tiff)!r}).load()"
    talk = subprocess.run([sys.executable, "-c", decode], capture_output=True, text=True).stderr
    assert "TIFFFetchNormalTag" in talk  # the file does make libtiff talk
    # libtiff runs only in worker processes, whose stderr is their own, even with --debug
    assert main(["inspect", "--debug", str(tiff)]) == 0
    assert "TIFFFetchNormalTag" not in capfd.readouterr().err
    assert main(["inspect", str(tiff)]) == 0
    out, err = capfd.readouterr()
    assert "TIFFFetchNormalTag" not in err
    assert "odd.tif" in out
    assert "1 inspected, 0 failed" in err


def test_an_empty_folder_is_said_not_silently_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    for command in (["inspect"], ["encode", "--provider", "openai"]):
        assert main([*command, str(tmp_path / "empty")]) == 1
        out, err = capsys.readouterr()
        assert "empty: error: a folder with no files in it" in err
        assert out == ""


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            b"{bad\n",
            "not valid JSON: expecting property name enclosed in double quotes at column 2",
        ),
        (b'{"prompt": "caf\xe9"}\n', "not UTF-8 text"),
        (b"[" * 100_000 + b"\n", "line 1: error: "),
        (b'{"prompt": 3}\n', 'an object with a "prompt" string'),
        (b'{"prompt": "x", "files": "a.png"}\n', '"files" must be a list of file names'),
        (b'{"prompt": "x", "files": 3}\n', '"files" must be a list of file names'),
    ],
)
def test_a_bad_prompts_line_is_its_own_error_in_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: bytes, said: str
) -> None:
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_bytes(line + b'{"prompt": "fine"}\n')
    out = tmp_path / "batch.jsonl"
    assert (
        main(
            [
                "batch",
                "--prompts",
                str(jobs),
                "--provider",
                "openai",
                "--model",
                "m",
                "--out",
                str(out),
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert said in err
    assert "Error" not in err  # no Python class names (JSONDecodeError, UnicodeDecodeError...)
    assert len(out.read_bytes().splitlines()) == 1  # the good line still went in


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--out", "{tmp}"], "--out {tmp}: Is a directory"),
        (["--out", "{tmp}/no/such/batch.jsonl"], "No such file or directory"),
        (["--prompts", "{tmp}", "--out", "{tmp}/b.jsonl"], "--prompts {tmp}: is a folder"),
        (["--prompts", "{tmp}/none.jsonl", "--out", "{tmp}/b.jsonl"], "no such file"),
        (["--max-tokens", "-3", "--out", "{tmp}/b.jsonl"], "not a positive whole number"),
    ],
)
def test_bad_batch_arguments_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    png = tmp_path / "a.png"
    png.write_bytes(make_png((4, 4)))
    filled = [arg.format(tmp=tmp_path) for arg in args]
    paths = [] if "--prompts" in args else [str(png)]
    try:
        status = main(["batch", *paths, "--provider", "openai", "--model", "m", *filled])
    except SystemExit as exit_info:  # argparse's own usage errors
        status = int(exit_info.code or 0)
    assert status == 2
    assert said.format(tmp=tmp_path) in capsys.readouterr().err


def test_a_name_that_is_not_utf8_prints_under_a_strict_stream(tmp_path: Path) -> None:
    name = tmp_path.as_posix().encode() + b"/caf\xe9.png"
    with open(name, "wb") as handle:
        handle.write(make_png((4, 4)))
    env = {"PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin"}
    for command in (["inspect"], ["inspect", "--json"]):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "mediablocks",
                *command,
                name.decode("utf-8", "surrogateescape"),
            ],
            capture_output=True,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert b"Traceback" not in done.stderr
    assert json.loads(done.stdout)[0]["mime_type"] == "image/png"
