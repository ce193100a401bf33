"""``mediablocks prepare`` and ``inspect`` with the conversion flags, on real testdata files:
a file that becomes several blocks is written as numbered files, a ``.txt`` and report entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.cli import main
from tests.conftest import TESTDATA

pytest.importorskip("av")
pytest.importorskip("pypdfium2")

PHONE = TESTDATA / "video" / "phone-h264-aac.mp4"
THREE_PAGES = TESTDATA / "document" / "three-pages.pdf"
DOCX = TESTDATA / "document" / "report.docx"
SPEECH = TESTDATA / "audio" / "pcm16.wav"


def _prepare(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["prepare", *args, "--out", str(out)])
    return status, json.loads((out / "report.json").read_text(encoding="utf-8"))


def _inspect(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert main(["inspect", "--json", *args]) == 0
    result: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return result


def _texts(entry: dict[str, Any]) -> list[str]:
    """The text blocks of one report entry, cut from its ``.txt`` by offset and length."""
    texts = []
    for part in entry["outputs"]:
        if part["part"] == "text":
            whole = Path(part["output"]).read_text(encoding="utf-8")
            texts.append(whole[part["offset"] : part["offset"] + part["chars"]])
    return texts


def test_a_video_for_anthropic_becomes_numbered_frames_and_timestamps(tmp_path: Path) -> None:
    out = tmp_path / "out"
    status, report = _prepare(out, str(PHONE), "--provider", "anthropic", "--max-frames", "12")
    assert status == 0
    [entry] = report["files"]
    frames = sorted(out.glob("phone-h264-aac.mp4.frame-*.jpg"))
    assert [f.name for f in frames][:2] == [
        "phone-h264-aac.mp4.frame-01.jpg",
        "phone-h264-aac.mp4.frame-02.jpg",
    ]
    assert len(frames) == 12
    assert {mb.detect_mime(f.read_bytes()) for f in frames} == {"image/jpeg"}
    # The report keeps the message order: timestamp, frame, timestamp, frame...
    assert [p["part"] for p in entry["outputs"]] == ["text", "frame"] * 12
    media = [p for p in entry["outputs"] if p["part"] == "frame"]
    assert [Path(p["output"]) for p in media] == frames
    assert [p["bytes"] for p in media] == [f.stat().st_size for f in frames]
    texts = _texts(entry)
    assert texts[0].startswith("[video phone-h264-aac.mp4, frame 1/12 at ")
    assert texts[-1].startswith("[video phone-h264-aac.mp4, frame 12/12 at ")
    text_file = out / "phone-h264-aac.mp4.txt"
    assert text_file.read_text(encoding="utf-8") == "\n\n".join(texts) + "\n"
    assert entry["mime_before"] == "video/mp4"
    assert entry["bytes_after"] == sum(f.stat().st_size for f in [*frames, text_file])
    assert any("audio track" in change for change in entry["changes"])  # dropped, and said so
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f.name for f in frames] + [text_file.name, "report.json"]
    )


def test_a_pdf_for_ollama_becomes_page_images(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    status, report = _prepare(out, str(THREE_PAGES), "--provider", "ollama")
    assert status == 0
    pages = sorted(out.glob("three-pages.pdf.page-*.jpg"))
    assert [p.name for p in pages] == [f"three-pages.pdf.page-{n}.jpg" for n in (1, 2, 3)]
    assert {mb.detect_mime(p.read_bytes()) for p in pages} == {"image/jpeg"}
    [entry] = report["files"]
    assert _texts(entry) == [f"Page {n} of 3 (three-pages.pdf)" for n in (1, 2, 3)]
    assert "-> 4 files (3 text blocks, 3 pages): converted" in capsys.readouterr().out
    # --max-pages is passed through: one page image only.
    status, report = _prepare(
        tmp_path / "one", str(THREE_PAGES), "--provider", "ollama", "--max-pages", "1"
    )
    assert status == 0
    assert [p["part"] for p in report["files"][0]["outputs"]].count("page") == 1
    assert len(list((tmp_path / "one").glob("*.jpg"))) == 1


def test_a_docx_for_mistral_becomes_its_text(tmp_path: Path) -> None:
    out = tmp_path / "out"
    status, report = _prepare(out, str(DOCX), "--provider", "mistral")
    assert status == 0
    [entry] = report["files"]
    [part] = entry["outputs"]
    assert part["part"] == "text"
    text = (out / "report.docx.txt").read_text(encoding="utf-8")
    assert "# Field notes" in text
    assert "Keep the samples small." in text
    assert part["chars"] == len(text) - 1  # the file ends in a newline
    assert sorted(p.name for p in out.iterdir()) == ["report.docx.txt", "report.json"]


def test_long_audio_is_split_into_numbered_parts(tmp_path: Path) -> None:
    out = tmp_path / "out"
    # Without --model, OpenAI's most restrictive current model (no audio input) is assumed.
    args = [str(SPEECH), "--provider", "openai", "--model", "gpt-4o-audio-preview"]
    args += ["--max-audio-seconds", "0.5"]
    status, report = _prepare(out, *args)
    assert status == 0
    parts = sorted(out.glob("pcm16.wav.part-*"))
    assert len(parts) == 4  # 1.7 s in pieces of at most 0.5 s
    outputs = report["files"][0]["outputs"]
    assert [Path(p["output"]) for p in outputs if p["part"] == "part"] == parts
    assert [p["part"] for p in outputs] == ["text", "part"] * 4
    assert all(mb.detect_mime(p.read_bytes()) in ("audio/mpeg", "audio/wav") for p in parts)
    # --no-split refuses instead, naming the file
    status = main(["prepare", *args, "--no-split", "--out", str(tmp_path / "refused")])
    assert status == 1
    assert "error" in json.loads((tmp_path / "refused" / "report.json").read_text())["files"][0]


def test_multi_block_outputs_never_collide_and_never_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "three-pages.pdf.page-1.jpg").write_bytes(b"mine")
    args = ["prepare", str(THREE_PAGES), "--provider", "ollama", "--out", str(out)]
    assert main(args) == 1
    assert "already exists; pass --overwrite" in capsys.readouterr().err
    assert (out / "three-pages.pdf.page-1.jpg").read_bytes() == b"mine"
    (out / "report.json").unlink()
    assert main([*args, "--overwrite"]) == 0
    assert mb.detect_mime((out / "three-pages.pdf.page-1.jpg").read_bytes()) == "image/jpeg"
    # The same PDF named twice: the second set of files gets its own names.
    again = tmp_path / "again"
    assert (
        main(
            [
                "prepare",
                str(THREE_PAGES),
                str(THREE_PAGES),
                "--provider",
                "ollama",
                "--out",
                str(again),
            ]
        )
        == 0
    )
    assert len(list(again.glob("*.jpg"))) == 6
    assert len(list(again.glob("*.txt"))) == 2


def test_video_raise_makes_it_no_and_prepare_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [default] = _inspect(capsys, str(PHONE), "--provider", "anthropic")
    assert default["providers"]["anthropic"]["status"] == "prepare"
    [refused] = _inspect(capsys, str(PHONE), "--provider", "anthropic", "--video", "raise")
    assert refused["providers"]["anthropic"]["status"] == "cannot"
    assert "video" in refused["providers"]["anthropic"]["reason"]
    status = main(
        [
            "prepare",
            str(PHONE),
            "--provider",
            "anthropic",
            "--video",
            "raise",
            "--skip-unsupported",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert status == 0
    assert "1 skipped" in capsys.readouterr().err
    assert not list((tmp_path / "out").glob("*.jpg"))


def test_inspect_says_what_a_file_becomes(capsys: pytest.CaptureFixture[str]) -> None:
    [video] = _inspect(capsys, str(PHONE), "--provider", "anthropic", "--max-frames", "5")
    becomes = video["providers"]["anthropic"]["becomes"]
    assert becomes == {"blocks": 10, "parts": {"text": 5, "frame": 5}}
    assert video["providers"]["anthropic"]["changes"][-1] == "becomes 10 blocks"
    assert (
        main(["inspect", "--details", str(PHONE), "--provider", "anthropic", "--max-frames", "5"])
        == 0
    )
    out = capsys.readouterr().out
    assert "becomes 10 blocks: 5 text blocks, 5 frames" in out
    [pdf] = _inspect(capsys, str(THREE_PAGES), "--provider", "ollama", "--documents", "text")
    assert pdf["providers"]["ollama"]["becomes"]["parts"] == {"text": 1}
    [pdf] = _inspect(capsys, str(THREE_PAGES), "--provider", "ollama", "--documents", "raise")
    assert pdf["providers"]["ollama"]["status"] == "cannot"


@pytest.mark.parametrize(
    "flag", [["--video", "sideways"], ["--max-frames", "0"], ["--max-audio-seconds", "-1"]]
)
def test_bad_conversion_flags_are_usage_errors(flag: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["inspect", str(PHONE), *flag])
    assert exit_info.value.code == 2


def test_every_flag_reaches_prepare_as_its_keyword() -> None:
    import argparse

    from mediablocks.cli._conversion import add_conversion_flags, conversion_options

    parser = argparse.ArgumentParser()
    add_conversion_flags(parser)
    assert conversion_options(parser.parse_args([])) == {
        "audio": "convert",
        "video": "convert",
        "documents": "convert",
    }
    flags = "--audio raise --video frames --documents pages --max-frames 4 --frame-interval 1.5"
    flags += " --max-pages 2 --max-text-chars 900 --max-audio-seconds 30 --max-video-seconds 9"
    flags += " --time-budget 5 --no-split --no-truncate"
    assert conversion_options(parser.parse_args(flags.split())) == {
        "audio": "raise",
        "video": "frames",
        "documents": "pages",
        "max_frames": 4,
        "frame_interval": 1.5,
        "max_pages": 2,
        "max_text_chars": 900,
        "max_audio_seconds": 30.0,
        "max_video_seconds": 9.0,
        "time_budget": 5.0,
        "allow_split": False,
        "truncate_documents": False,
    }
    # Every one is a keyword `prepare` takes, with a value it accepts.
    assert mb.prepare([], "anthropic", **conversion_options(parser.parse_args(flags.split()))) == []


def test_batch_prepare_takes_the_same_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "b.jsonl"
    args = ["batch", str(PHONE), "--provider", "anthropic", "--model", "m", "--max-tokens", "5"]
    assert main([*args, "--prepare", "--max-frames", "2", "--out", str(out)]) == 0
    [line] = out.read_text(encoding="utf-8").splitlines()
    content = json.loads(line)["params"]["messages"][0]["content"]
    assert [block["type"] for block in content].count("image") == 2
    assert main([*args, "--prepare", "--video", "raise", "--out", str(out)]) == 1
    assert "left out" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == ""
