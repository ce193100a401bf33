"""``inspect`` stays readable when piped; ``batch`` errors speak the command line's words."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from mediablocks.cli import main
from mediablocks.cli._wording import for_shell, short_reason
from mediablocks.errors import MediaBlocksError
from tests.conftest import make_bmp, make_png, make_wav


def _mixed(folder: Path) -> Path:
    """Non-media names sort first here on purpose: ``a-notes.zip``, ``b-readme.bin``, then media."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("x.txt", "x")
    (folder / "a-notes.zip").write_bytes(buffer.getvalue())
    (folder / "b-readme.bin").write_bytes(bytes(range(256)) * 4)
    deep = folder / ("a-rather-long-folder-name-for-photos-" * 2)
    deep.mkdir()
    (deep / "c-photo.png").write_bytes(make_png((40, 30)))
    (folder / "d-voice.wav").write_bytes(make_wav(seconds=0.3))
    return folder


def test_piped_inspect_cuts_nothing_and_shows_token_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Piped or written to a file, the table is read by scripts and logs: no path, type or
    # reason is cut to fit a terminal that is not there, and the token counts stay.
    monkeypatch.delenv("COLUMNS", raising=False)
    folder = _mixed(tmp_path)
    assert main(["inspect", str(folder)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 1 + 4  # the header and one row per file, whatever the provider count
    photo = next(line for line in lines if "c-photo.png" in line)
    assert ("a-rather-long-folder-name-for-photos-" * 2) + "/c-photo.png" in photo
    assert "…" not in out
    assert "ok " in photo
    assert any(cell.isdigit() for cell in photo.split())
    assert "openai" in lines[0].split()
    assert "numbers: tokens" in err
    order = [
        next(n for n in ("zip", "readme", "photo", "voice") if n in line) for line in lines[1:]
    ]
    assert set(order[:2]) == {"photo", "voice"}  # media first, then what no provider takes


def test_columns_sets_the_piped_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "180")
    main(["inspect", str(_mixed(tmp_path))])
    wide = capsys.readouterr().out.splitlines()
    assert any(len(line) > 100 for line in wide)  # room for the token counts
    assert "openai" in wide[0].split()


def test_a_no_always_says_why_in_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    main(["inspect", str(_mixed(tmp_path))])
    rows = capsys.readouterr().out.splitlines()[1:]
    why = {line.split()[0].rsplit("/", 1)[-1]: line for line in rows}
    assert why["a-notes.zip"].endswith("type not taken")
    assert why["d-voice.wav"].endswith("no audio input")
    assert not any(" no " in line for line in rows if "c-photo" in line)


@pytest.mark.parametrize(
    ("reason", "short"),
    [
        (
            "v.wav (audio/wav): anthropic takes no audio input in any form (transcribe...)",
            "no audio input",
        ),
        (
            "x (image/png): 784,000,000 pixels exceeds the decompression-bomb limit of 1",
            "too many pixels (--max-pixels)",
        ),
        ("the PNG is truncated inside its b'IDAT' chunk", "the PNG is truncated inside its…"),
        ("no video frame could be decoded", "no video frame could be decoded"),
        ("cannot read the mp4 header: MP4/MOV without a moov box", "cannot read the mp4 header"),
    ],
)
def test_short_reasons(reason: str, short: str) -> None:
    assert short_reason(reason) == short


def test_batch_errors_name_batch_flags_and_no_python_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bmp = tmp_path / "scan.bmp"
    bmp.write_bytes(make_bmp())
    out = tmp_path / "batch.jsonl"
    assert main(["batch", str(bmp), "--provider", "gemini", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "--prepare converts it" in err
    assert "mediablocks prepare" not in err
    assert main(["batch", str(bmp), "--provider", "gemini", "--out", str(out), "--prepare"]) == 0
    text = for_shell(
        MediaBlocksError("message 0, block 0: TextBlock('hi') is empty; a ThinkingBlock")
    )
    assert text == "the text 'hi' is empty; a thinking block"


@pytest.mark.parametrize(
    ("paths", "folder"),
    [
        (["d/a.png", "d/e/b.png"], "d/"),
        (["./d/a.png", "./d/b.png"], ""),  # as typed: commonpath's "d" is not their prefix
        (["a.png", "d/b.png"], ""),
        (["d//a.png", "d//b.png"], ""),
        (["/x/a.png", "/y/b.png"], ""),
        (["d/a.png"], ""),
    ],
)
def test_the_shared_folder_is_a_prefix_of_every_row(paths: list[str], folder: str) -> None:
    from mediablocks.cli.inspect import _common_folder

    assert _common_folder(paths) == folder


def test_an_output_whose_format_changed_is_named_by_its_new_type() -> None:
    """Every type preparation writes has one extension (`mime.names.OUTPUT_EXTENSIONS`): an AAC,
    Opus or Ogg result used to keep its old name because the CLI's own table lacked them."""
    from pathlib import PurePosixPath

    from mediablocks.cli.prepare import output_name

    voice = PurePosixPath("notes/voice.wav")
    assert output_name(voice, "audio/wav", "audio/aac") == PurePosixPath("notes/voice.wav.aac")
    assert output_name(voice, "audio/wav", "audio/opus") == PurePosixPath("notes/voice.wav.opus")
    assert output_name(voice, "audio/wav", "audio/wav") == voice
    photo = PurePosixPath("photo.heic")
    assert output_name(photo, "image/heic", "image/jpeg") == PurePosixPath("photo.heic.jpg")
