"""The ``mediablocks`` command, run in-process through ``main`` (and once as ``python -m``)."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from mediablocks.cli import main

from .conftest import make_png, make_wav


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
    assert header.split()[:4] == ["PATH", "TYPE", "SIZE", "FACTS"]
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
    with pytest.raises(OSError, match=r"missing\.png"):
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
    assert "anthropic cannot carry AudioBlock" in err
    assert "Traceback" not in err


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
    with Image.open(out / "c.png") as converted:  # BMP is not taken: converted, renamed
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
