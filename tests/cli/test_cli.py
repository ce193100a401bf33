"""The ``mediablocks`` command, run in-process through ``main`` (and once as ``python -m``)."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from mediablocks.cli import main
from mediablocks.cli._output import Column, Progress, Table
from mediablocks.cli._wording import ItemError
from tests.conftest import make_png, make_wav


def _bmp(size: tuple[int, int] = (40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "green").save(buffer, "BMP")
    return buffer.getvalue()


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.png").write_bytes(make_png((32, 24)))
    (tmp_path / "sub" / "b.data").write_bytes(make_wav(seconds=0.5, rate=8000))
    return tmp_path


# -- inspect ------------------------------------------------------------------------------------


def test_inspect_prints_a_header_and_one_line_per_file_from_the_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["inspect", str(_folder(tmp_path))])
    out, err = capsys.readouterr()
    assert status == 0
    header, *rows = out.strip().splitlines()
    assert header.split()[:2] == ["PATH", "in"]  # the folder all rows share, said once
    assert header.split()[3:6] == ["TYPE", "SIZE", "FACTS"]
    assert len(rows) == 2
    assert "image/png" in rows[0]
    assert "32x24" in rows[0]
    assert "audio/wav" in rows[1]  # the .data extension says nothing; the bytes do
    assert "0.5 s" in rows[1]
    assert "2 inspected, 0 failed" in err


def test_inspect_json_has_facts_tokens_and_provider_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c.bmp").write_bytes(_bmp())
    assert main(["inspect", "--json", str(_folder(tmp_path))]) == 0
    rows = {Path(r["path"]).name: r for r in json.loads(capsys.readouterr().out)}
    png, wav, bmp = rows["a.png"], rows["b.data"], rows["c.bmp"]
    assert png["mime_type"] == "image/png"
    assert png["block"] == "ImageBlock"
    assert png["base64_chars"] == 4 * ((png["bytes"] + 2) // 3)
    assert (png["facts"]["width"], png["facts"]["height"]) == (32, 24)
    assert wav["facts"]["sample_rate"] == 8000
    assert wav["facts"]["channels"] == 1
    assert wav["facts"]["duration"] == pytest.approx(0.5)
    assert set(png["tokens"]) == {
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
        "mistral",
        "ollama",
        "cohere",
    }  # every wire format; profiles (groq, anthropic-bedrock...) only when asked for
    # Anthropic: width * height / 750, rounded up -> 32 * 24 / 750 = 1.02 -> 2 (at least 1)
    assert png["tokens"]["anthropic"] >= 1
    assert png["providers"]["anthropic"] == {"status": "as-is"}
    assert bmp["providers"]["anthropic"]["status"] == "prepare"  # Anthropic takes no BMP
    assert bmp["providers"]["anthropic"]["changes"]
    assert wav["providers"]["anthropic"]["status"] == "cannot"  # Anthropic takes no audio
    assert wav["providers"]["gemini"]["status"] == "as-is"


def test_inspect_details_say_what_prepare_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c.bmp").write_bytes(_bmp())
    main(["inspect", "--details", "--provider", "anthropic", str(tmp_path / "c.bmp")])
    out = capsys.readouterr().out
    assert "anthropic: prepare:" in out
    assert "openai" not in out.split("\n")[0]  # only the chosen provider's column


def test_a_failing_file_gives_one_line_and_a_failing_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["inspect", str(tmp_path / "missing.png"), str(_folder(tmp_path) / "a.png")])
    out, err = capsys.readouterr()
    assert status == 1
    assert "missing.png: error:" in err
    assert "Traceback" not in err
    assert "image/png" in out
    assert "1 inspected, 1 failed" in err


def test_debug_shows_the_error_itself(tmp_path: Path) -> None:
    with pytest.raises(ItemError, match=r"no such file"):
        main(["inspect", "--debug", str(tmp_path / "missing.png")])


def test_an_unknown_provider_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["encode", "--provider", "nope", str(_folder(tmp_path) / "a.png")])
    assert exit_info.value.code == 2
    assert "unknown provider 'nope'" in capsys.readouterr().err


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_bar_only_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(25):
        (tmp_path / f"{number:02}.png").write_bytes(make_png((8, 8)))
    main(["inspect", "--provider", "anthropic", str(tmp_path)])
    assert "\r" not in capsys.readouterr().err  # piped: no bar
    terminal = _TTY()
    monkeypatch.setattr(sys, "stderr", terminal)
    main(["inspect", "--provider", "anthropic", str(tmp_path)])
    drawn = terminal.getvalue()
    assert "\r[" in drawn
    assert "25/25" in drawn
    assert "files/s" in drawn
    assert "ETA" in drawn
    assert "25 inspected, 0 failed" in drawn


# -- URLs ---------------------------------------------------------------------------------------


@pytest.fixture
def png_server() -> Iterator[str]:
    body = make_png((16, 16))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")  # a lie the bytes correct
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/img"
    finally:
        server.shutdown()
        server.server_close()


def test_inspect_a_url_refuses_loopback_unless_allowed(
    png_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--provider", "anthropic", png_server]) == 1
    assert "127.0.0.1" in capsys.readouterr().err
    assert main(["inspect", "--allow-private", "--json", "--provider", "gemini", png_server]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["mime_type"] == "image/png"
    assert row["facts"]["width"] == 16


# -- encode -------------------------------------------------------------------------------------


def test_encode_prints_the_provider_message_with_the_exact_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = _folder(tmp_path) / "a.png"
    assert main(["encode", str(png), "--provider", "anthropic", "--text", "What?"]) == 0
    fields = json.loads(capsys.readouterr().out)
    text, image = fields["messages"][0]["content"]
    assert text == {"type": "text", "text": "What?"}
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == png.read_bytes()


def test_encode_blocks_for_an_sdk_that_takes_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wav = _folder(tmp_path) / "sub" / "b.data"
    args = ["encode", str(wav), "--provider", "bedrock", "--target", "sdk", "--blocks"]
    assert main(args) == 0
    [block] = json.loads(capsys.readouterr().out)
    assert base64.b64decode(block["audio"]["source"]["bytes"]) == wav.read_bytes()


def test_encode_a_block_the_provider_cannot_carry_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wav = _folder(tmp_path) / "sub" / "b.data"
    assert main(["encode", str(wav), "--provider", "anthropic"]) == 1
    err = capsys.readouterr().err
    assert "b.data: error: anthropic cannot carry b.data" in err
    assert "Traceback" not in err
    assert "message 0" not in err


def test_encode_prepare_fits_each_file_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    voice = TESTDATA / "audio" / "voice-note.webm"
    assert main(["encode", str(voice), "--provider", "openai"]) == 1  # WebM: not taken as is
    capsys.readouterr()
    # Without --model, the most restrictive current model: gpt-4.1 takes no audio at all.
    assert main(["encode", str(voice), "--provider", "openai", "--prepare"]) == 1
    assert "openai-chat (gpt-4.1) takes no audio input" in capsys.readouterr().err
    args = ["encode", str(voice), "--provider", "openai", "--prepare", "--blocks"]
    assert main([*args, "--model", "gpt-4o-audio-preview"]) == 0
    [part] = json.loads(capsys.readouterr().out)
    assert part["type"] == "input_audio"
    assert part["input_audio"]["format"] == "wav"
    photo = TESTDATA / "image" / "photo.jpg"
    assert main(["encode", str(photo), "--provider", "anthropic", "--prepare", "--blocks"]) == 0
    [image] = json.loads(capsys.readouterr().out)
    sent = base64.b64decode(image["source"]["data"])
    assert sent != photo.read_bytes()  # the camera metadata prepare strips is gone
    assert b"Exif" not in sent[:4096]


# -- prepare ------------------------------------------------------------------------------------


def test_prepare_writes_fitted_files_and_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in").mkdir()
    source = _folder(tmp_path / "in")
    (source / "c.bmp").write_bytes(_bmp())
    out = tmp_path / "out"
    status = main(["prepare", str(source), "--provider", "anthropic", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 1  # the WAV cannot go to Anthropic
    assert "b.data: error:" in err
    assert (out / "a.png").read_bytes() == (source / "a.png").read_bytes()  # already fits
    with Image.open(out / "c.bmp.png") as converted:  # BMP is not taken: converted, renamed
        assert converted.format == "PNG"
        assert converted.size == (40, 30)
    report = json.loads((out / "report.json").read_text())
    assert report["provider"] == "anthropic"
    by_name = {Path(f["path"]).name: f for f in report["files"]}
    assert by_name["a.png"]["changes"] == []
    assert by_name["c.bmp"]["mime_after"] == "image/png"
    assert by_name["c.bmp"]["changes"]
    assert "error" in by_name["b.data"]


def test_python_dash_m_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mediablocks", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("mediablocks ")


def test_a_broken_header_is_reported_on_its_row_not_as_a_failed_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An MP4 cut after its ftyp box: the type is known, the facts are not.
    (tmp_path / "cut.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
    assert main(["inspect", "--json", "--provider", "gemini", str(tmp_path / "cut.mp4")]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["mime_type"] == "video/mp4"
    assert "moov" in row["facts"]["error"]
    assert row["providers"]["gemini"]["status"] == "cannot"
    assert main(["inspect", "--provider", "gemini", str(tmp_path / "cut.mp4")]) == 0
    assert "unreadable header" in capsys.readouterr().out


# -- words of the command line (issue 11) -------------------------------------------------------

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"


def test_a_missing_file_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "no-such-photo.jpg"]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no empty table header
    assert err.strip().splitlines() == ["no-such-photo.jpg: error: no such file or directory"]


def test_a_refused_url_names_the_flag(png_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--provider", "anthropic", png_server]) == 1
    err = capsys.readouterr().err
    assert "--allow-private" in err
    assert "FetchPolicy" not in err


def test_an_unsupported_image_names_the_prepare_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    psd = TESTDATA / "image" / "sample.psd"
    assert main(["encode", str(psd), "--provider", "anthropic"]) == 1
    err = capsys.readouterr().err
    assert "`mediablocks prepare --provider anthropic` converts it" in err
    assert "sample.psd" in err
    assert "mb.prepare" not in err
    assert "message 0" not in err
    assert "block 0" not in err


def test_an_oversize_image_names_the_flag_that_raises_the_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bomb = TESTDATA / "bad" / "bomb-28000x28000.png"
    out = tmp_path / "out"
    assert main(["prepare", str(bomb), "--provider", "gemini", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "--max-pixels" in err
    assert "max_image_pixels" not in err
    main(["inspect", "--details", "--provider", "gemini", str(bomb)])
    details = capsys.readouterr().out
    assert "larger --max-pixels" in details
    assert "bytes in memory" not in details  # the row names the file; no block talk


def test_max_bytes_bounds_what_inspect_reads_from_a_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    photo = TESTDATA / "image" / "photo.jpg"  # 84 KiB
    args = ["inspect", "--json", "--max-bytes", "10KiB", "--provider", "anthropic", str(photo)]
    assert main(args) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["mime_type"] == "image/jpeg"  # from the header window
    assert row["bytes"] == photo.stat().st_size
    assert (row["facts"]["width"], row["facts"]["height"]) == (640, 480)
    verdict = row["providers"]["anthropic"]
    assert verdict["status"] == "cannot"
    assert "--max-bytes" in verdict["reason"]


def test_a_pipe_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it would block for ever; reading /dev/zero would never end
    assert main(["inspect", "--provider", "gemini", str(fifo)]) == 1
    assert "not a regular file" in capsys.readouterr().err


def test_no_token_count_beside_a_no(capsys: pytest.CaptureFixture[str]) -> None:
    wav = TESTDATA / "audio" / "pcm16.wav"
    main(["inspect", "--provider", "anthropic", "--provider", "gemini", str(wav)])
    _header, row = capsys.readouterr().out.strip().splitlines()
    cells = row.split()
    assert cells[-6:-3] == ["no", "ok", cells[-4]]  # anthropic: no (and no number); gemini: ok N
    assert cells[-4].isdigit()
    assert cells[-3:] == ["no", "audio", "input"]  # and why it is no, always


def test_a_decoder_failure_is_its_own_row_and_the_json_stays_valid(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import mediablocks.cli.inspect as inspect_module

    def broken_decoder(*args: object, **kwargs: object) -> object:
        raise SyntaxError("not a PSD this decoder understands")  # as Pillow's plugins do

    monkeypatch.setattr(inspect_module, "prepare_with_report", broken_decoder)
    psd = TESTDATA / "image" / "sample.psd"
    photo = TESTDATA / "image" / "photo.jpg"
    assert main(["inspect", "--json", "--provider", "openai", str(psd), str(photo)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [Path(r["path"]).name for r in rows] == ["sample.psd", "photo.jpg"]
    reason = rows[0]["providers"]["openai-chat"]["reason"]
    assert reason == "SyntaxError: not a PSD this decoder understands"


def test_inspect_json_of_real_broken_files_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["inspect", "--json", str(TESTDATA / "bad"), str(TESTDATA / "image" / "sample.psd")]
    main(args)
    rows = json.loads(capsys.readouterr().out)
    names = {Path(r["path"]).name for r in rows}
    assert {"sample.psd", "truncated.jpg", "empty.bin", "random.bin"} <= names


def test_table_columns_stay_aligned_for_long_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / ("a-very-long-folder-name-" * 4) / "sub"
    deep.mkdir(parents=True)
    (deep / "short.png").write_bytes(make_png((8, 8)))
    (tmp_path / "x.png").write_bytes(make_png((8, 8)))
    main(["inspect", "--provider", "anthropic", str(tmp_path)])
    lines = capsys.readouterr().out.strip().splitlines()
    starts = {line.index("image/png") for line in lines[1:]}
    assert starts == {lines[0].index("TYPE")}


def test_a_narrow_terminal_gets_shortened_paths_then_blocks() -> None:
    table = Table([Column("PATH", elastic=True, minimum=12), Column("SIZE", right=True)])
    table.add(["folder/" * 20 + "photo.jpg", "84 KiB"])
    table.add(["b.png", "1 KiB"])
    fitted = table.render(40).splitlines()
    assert all(len(line) < 40 for line in fitted)
    assert fitted[1].endswith("84 KiB")
    assert fitted[1].startswith("folder/")
    assert "…" in fitted[1]
    assert fitted[2].index("1 KiB") == fitted[1].index("84 KiB") + 1  # right-aligned
    many = Table([Column("PATH", elastic=True)] + [Column(f"p{i}") for i in range(12)])
    many.add(["x.png"] + ["ok 1234"] * 12)
    blocks = many.render(40).splitlines()
    assert blocks[0] == "x.png"
    assert all(len(line) < 40 for line in blocks)
    assert len({line.index("p") for line in blocks[1:]}) == 1  # the grid is aligned
    assert "p11 ok 1234" in " ".join(blocks)


def test_progress_line_has_count_rate_and_eta() -> None:
    ticks = iter([0.0, 2.0])
    progress = Progress(10, _TTY(), clock=lambda: next(ticks))
    progress.done = 4
    line = progress.line("x.png", 120)
    assert "4/10" in line
    assert "2.0 files/s" in line
    assert "ETA 0:03" in line  # 6 files left at 2 a second


# -- prepare: outputs never collide, never overwrite --------------------------------------------


def test_prepare_keeps_each_input_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in"
    source.mkdir()
    for name in ("photo.heic", "photo.avif", "photo.jpg"):
        shutil.copy(TESTDATA / "image" / name, source / name)
    out = tmp_path / "out"
    assert main(["prepare", str(source), "--provider", "anthropic", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    outputs = {Path(f["path"]).name: Path(f["output"]).name for f in report["files"]}
    assert outputs == {
        "photo.avif": "photo.avif.jpg",
        "photo.heic": "photo.heic.jpg",
        "photo.jpg": "photo.jpg",
    }
    assert sorted(p.name for p in out.iterdir()) == sorted([*outputs.values(), "report.json"])


def test_the_same_name_from_two_folders_gets_two_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.png").write_bytes(make_png((8, 8) if folder == "a" else (9, 9)))
    out = tmp_path / "out"
    args = [str(tmp_path / "a" / "x.png"), str(tmp_path / "b" / "x.png")]
    assert main(["prepare", *args, "--provider", "anthropic", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert [Path(f["output"]).name for f in report["files"]] == ["x.png", "x-2.png"]
    with Image.open(out / "x-2.png") as second:
        assert second.size == (9, 9)


def test_prepare_never_overwrites_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "x.png"
    png.write_bytes(make_png((8, 8)))
    out = tmp_path / "out"
    out.mkdir()
    (out / "x.png").write_bytes(b"mine")
    args = ["prepare", str(png), "--provider", "anthropic", "--out", str(out)]
    assert main(args) == 1
    assert "already exists; pass --overwrite" in capsys.readouterr().err
    assert (out / "x.png").read_bytes() == b"mine"
    assert main(args) == 2  # the report of the first run is there now
    assert "--overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0
    assert (out / "x.png").read_bytes() == png.read_bytes()


def test_skip_unsupported_skips_and_summarises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in"
    source.mkdir()
    shutil.copy(TESTDATA / "image" / "rgb.png", source / "rgb.png")
    shutil.copy(TESTDATA / "audio" / "pcm16.wav", source / "a.wav")
    shutil.copy(TESTDATA / "audio" / "sample.flac", source / "b.flac")
    out = tmp_path / "out"
    args = ["prepare", str(source), "--provider", "anthropic", "--out", str(out)]
    assert main([*args, "--skip-unsupported"]) == 0
    err = capsys.readouterr().err
    assert "error:" not in err
    assert "1 prepared (0 changed, 1 copied as they were), 2 skipped, 0 failed" in err
    assert "skipped 2: anthropic takes no audio input" in err
    report = json.loads((out / "report.json").read_text())
    assert sum("skipped" in f for f in report["files"]) == 2


def test_a_download_over_max_bytes_names_the_flag(
    png_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["inspect", "--allow-private", "--max-bytes", "50", "--provider", "gemini", png_server]
    assert main(args) == 1  # the PNG is 80 bytes
    err = capsys.readouterr().err
    assert "raise the limit with --max-bytes" in err
    assert "FetchPolicy" not in err
    with pytest.raises(SystemExit) as exit_info:
        main(["inspect", "--max-bytes", "lots", png_server])
    assert exit_info.value.code == 2
    assert "not a byte count: 'lots'" in capsys.readouterr().err
