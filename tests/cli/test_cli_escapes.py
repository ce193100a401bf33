"""The command line prints names, types and reasons from input escaped: a file name with a
newline, a terminal escape or a bidirectional override never reaches the terminal raw; JSON keeps
the name exact. And a file swapped for a FIFO while ``inspect DIR`` runs never hangs it."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from mediablocks.cli import _items, main
from mediablocks.cli._printable import printable, printable_json
from tests.conftest import make_pdf, make_png

HOSTILE = [
    "two\nlines.png",
    "\x1b[31mred\x1b[0m.png",
    "csi\x9b2J.png",
    "gpj\u202eexe.png",
    "bell\x07tab\there.png",
    "sep\u2028line.png",
]
RAW = {"\x1b", "\x9b", "\u202e", "\x07", "\u2028", "\r", "\t"}


def _folder(tmp_path: Path, names: list[str], data: bytes | None = None) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in names:
        (folder / name).write_bytes(make_png((8, 6)) if data is None else data)
    return folder


def _clean(text: str) -> None:
    """Nothing that drives a terminal: only printable characters and line ends."""
    bad = sorted({char for char in text if not char.isprintable() and char != "\n"})
    assert not bad, f"raw control characters printed: {bad!r}"
    assert not RAW & set(text)


def test_printable_escapes_what_is_not_printable_and_keeps_the_rest() -> None:
    assert printable("plain name.png") == "plain name.png"
    assert printable("é 🙂 日本.png") == "é 🙂 日本.png"
    assert printable("a\nb\x1b[2J\x9b\u202e") == "a\\nb\\x1b[2J\\x9b\\u202e"
    assert printable(os.fsdecode(b"bad\xff.png")) == "bad\\xff.png"  # the byte it was
    assert printable("\U000e0041tag") == "\\U000e0041tag"


def test_printable_json_is_the_same_value_and_safe_to_print() -> None:
    value = {"path": "a\nb\x1b\x9b\u202e\U000e0041", "n": [1, "é"]}
    text = printable_json(value, indent=2)
    _clean(text)
    assert json.loads(text) == value


def test_inspect_table_and_details_print_names_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # wide enough that every row is one line
    folder = _folder(tmp_path, HOSTILE)
    assert main(["inspect", "--provider", "openai", "--details", str(folder)]) == 0
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    for name in HOSTILE:
        assert printable(name) in out
    rows = [line for line in out.splitlines() if ".png" in line]
    assert len(rows) == len(HOSTILE)  # no name split a row in two


def test_inspect_json_keeps_every_name_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, HOSTILE)
    assert main(["inspect", "--json", "--provider", "openai", str(folder)]) == 0
    out, _ = capsys.readouterr()
    _clean(out)
    assert sorted(Path(row["path"]).name for row in json.loads(out)) == sorted(HOSTILE)


def test_errors_for_files_print_the_name_and_reason_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, ["broken\n\x1b[2J.png"], data=b"\x89PNG\r\n\x1a\nnot really")
    missing = str(tmp_path / "gone\x1b]0;pwned\x07.png")
    for command in (["inspect"], ["encode", "--provider", "openai"]):
        main([*command, str(folder), missing])
        out, err = capsys.readouterr()
        _clean(out)
        _clean(err)
        assert "gone\\x1b]0;pwned\\x07.png: error: no such file or directory" in err


def test_encode_json_output_is_safe_and_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "report\x9b\u202e.pdf"
    pdf = make_pdf()
    folder = _folder(tmp_path, [name], data=pdf)
    main(["encode", "--provider", "anthropic", "--blocks", str(folder)])
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert json.loads(out)  # still JSON, whatever the name held


def test_prepare_and_batch_lines_print_names_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, HOSTILE[:3])
    (folder / "voice\x1b[8m.wav").write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt ")  # a broken WAV
    main(["prepare", "--provider", "openai", "--out", str(tmp_path / "out"), str(folder)])
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert printable(str(folder / HOSTILE[0])) in out
    main(
        [
            "batch",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--max-tokens",
            "5",
            "--out",
            str(tmp_path / "b.jsonl"),
            str(folder),
        ]
    )
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert "voice\\x1b[8m.wav: error:" in err


def test_batch_prompt_lines_print_file_names_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = tmp_path / "jobs\x1b[1m.jsonl"
    lines = [
        {"prompt": "x", "files": ["gone\n\x1b[2J.png"]},
        {"prompt": "y", "files": ["/etc/\x9b"]},
    ]
    jobs.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
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
                str(tmp_path / "b.jsonl"),
            ]
        )
        == 1
    )
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert len(err.splitlines()) == 3  # two error lines and the summary, none split
    assert "jobs\\x1b[1m.jsonl line 1: error:" in err


# -- a file swapped for a FIFO while inspect DIR runs ---------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_inspect_dir_never_hangs_on_a_file_swapped_for_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path, ["a.png", "b.png", "c.png"])
    first_look = _items._regular_file

    def look_then_swap(path: Path) -> int:
        size = first_look(path)  # the file passed its first look, by name...
        if path.name == "b.png":
            path.unlink()
            os.mkfifo(path)  # ...and is a FIFO (no writer will ever come) when opened
        return size

    monkeypatch.setattr(_items, "_regular_file", look_then_swap)
    status: list[Any] = []
    thread = threading.Thread(target=lambda: status.append(main(["inspect", str(folder)])))
    thread.daemon = True
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "inspect hung on the FIFO"
    assert status == [1]
    out, err = capsys.readouterr()
    assert "b.png: error: not a regular file" in err
    assert "a.png" in out
    assert "c.png" in out
