"""``prepare --out`` never writes outside ``--out``; ``batch --prompts`` reads only under its root.

Every hostile layout (planted links to files and folders, ``..`` names, absolute names, a forged
previous report) is made here in ``tmp_path``, next to a ``victim`` the run must leave alone.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediablocks.cli import main
from mediablocks.cli._safe_out import OutputFolder
from mediablocks.cli._wording import ItemError, for_shell
from mediablocks.cli.batch import read_under_root
from mediablocks.errors import SourceError
from tests.conftest import make_png


def _layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``in/`` with two PNGs (one in ``sub/``), an empty ``out/`` and an outside ``victim``."""
    source = tmp_path / "in"
    (source / "sub").mkdir(parents=True)
    (source / "a.png").write_bytes(make_png((8, 8)))
    (source / "sub" / "b.png").write_bytes(make_png((9, 9)))
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    return source, out, victim


def _prepare(source: Path, out: Path, *more: str) -> int:
    return main(["prepare", str(source), "--provider", "anthropic", "--out", str(out), *more])


def test_a_planted_link_at_an_output_name_is_never_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out, victim = _layout(tmp_path)
    (out / "a.png").symlink_to(victim)
    assert _prepare(source, out) == 1
    assert "already exists; pass --overwrite" in capsys.readouterr().err
    assert victim.read_bytes() == b"precious"
    (out / "report.json").unlink()
    assert _prepare(source, out, "--overwrite") == 0
    assert victim.read_bytes() == b"precious"
    assert not (out / "a.png").is_symlink()  # the link itself was replaced by the output
    assert (out / "a.png").read_bytes() == (source / "a.png").read_bytes()
    report = json.loads((out / "report.json").read_text())
    assert report["replaced"]["overwritten"] == ["a.png", "sub/b.png"]  # b.png from run 1


def test_a_planted_report_link_is_replaced_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out, victim = _layout(tmp_path)
    (out / "report.json").symlink_to(victim)
    assert _prepare(source, out) == 2  # a dangling or planted report still counts as "there"
    assert _prepare(source, out, "--overwrite") == 0
    assert victim.read_bytes() == b"precious"
    assert not (out / "report.json").is_symlink()
    assert "cannot be read" in json.loads((out / "report.json").read_text())["replaced"]["problem"]
    (out / "report.json").unlink()
    (out / "report.json").symlink_to(tmp_path / "nowhere")  # dangling: lexists, not exists
    assert _prepare(source, out) == 2
    assert not (tmp_path / "nowhere").exists()


def test_a_symlinked_folder_inside_out_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out, _ = _layout(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "sub").symlink_to(elsewhere, target_is_directory=True)
    for extra in ([], ["--overwrite"]):
        assert _prepare(source, out, *extra) == 1
        err = capsys.readouterr().err
        assert "sub is a symbolic link or not a folder; refusing to write through it" in err
        assert list(elsewhere.iterdir()) == []
        (out / "report.json").unlink()
    assert (out / "a.png").is_file()  # the other input still went through


def test_overwrite_replaces_the_whole_previous_output_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out, _ = _layout(tmp_path)
    assert _prepare(source, out) == 0
    assert (out / "sub" / "b.png").is_file()
    (source / "sub" / "b.png").unlink()
    (out / "mine.txt").write_text("not the tool's")
    assert _prepare(source, out, "--overwrite") == 0
    assert "1 overwritten, 1 removed" in capsys.readouterr().err
    assert not (out / "sub" / "b.png").exists()
    assert (out / "mine.txt").read_text() == "not the tool's"  # never listed, never touched
    replaced = json.loads((out / "report.json").read_text())["replaced"]
    assert replaced == {"overwritten": ["a.png"], "removed": ["sub/b.png"]}


def test_a_forged_previous_report_removes_nothing_outside_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out, victim = _layout(tmp_path)
    (out / "link").symlink_to(victim)
    (out / "folder").mkdir()
    (out / "linked").symlink_to(tmp_path, target_is_directory=True)
    inside = [f"{out}/link", f"{out}/folder", f"{out}/linked/victim", f"{out}/../victim"]
    listed = ["../victim", str(victim), "mine.txt", *inside]
    forged = {"out": "/", "files": [{"path": "x", "output": name} for name in listed]}
    forged["files"] += [{"outputs": 3}, {"outputs": [{"output": 4}]}, "junk"]
    (out / "report.json").write_text(json.dumps(forged))
    assert _prepare(source, out, "--overwrite") == 0
    assert victim.read_bytes() == b"precious"
    assert (out / "link").is_symlink()
    assert (out / "folder").is_dir()
    replaced = json.loads((out / "report.json").read_text())["replaced"]
    assert replaced["removed"] == []
    assert {entry["output"] for entry in replaced["left"]} == {
        "../victim",  # twice in the report (f"{out}/../victim" too), listed once
        str(victim),  # "out": "/" is not this --out, so this stays outside
        "mine.txt",
        "link",
        "folder",
        "linked/victim",
    }


@pytest.mark.parametrize("name", ["..", "../x", "/etc/x", "a/../b", ""])
def test_names_that_leave_the_folder_are_refused(tmp_path: Path, name: str) -> None:
    with OutputFolder(tmp_path) as folder, pytest.raises(ItemError, match="not a name inside"):
        folder.write(PurePosixPath(name), b"x", replace=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_out_that_is_a_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, _, _ = _layout(tmp_path)
    assert _prepare(source, tmp_path / "victim") == 2
    assert "exists and is not a folder" in capsys.readouterr().err


# -- batch --prompts reads only under its root ----------------------------------------------------


def _jobs(folder: Path, files: list[str]) -> Path:
    jobs = folder / "jobs.jsonl"
    jobs.write_text(json.dumps({"id": "one", "prompt": "Describe.", "files": files}) + "\n")
    return jobs


def _batch(jobs: Path, out: Path, *more: str) -> int:
    return main(
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
            *more,
        ]
    )


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("{secret}", "is an absolute path"),
        ("../secret.png", "goes up with '..'"),
        ("sub/../../secret.png", "goes up with '..'"),
        ("escape.png", "leaves the root through a symbolic link"),
        ("linked/secret.png", "leaves the root through a symbolic link"),
    ],
)
def test_prompt_files_outside_the_root_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, why: str
) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(make_png((5, 5)))
    jobs_dir = tmp_path / "jobs"
    (jobs_dir / "sub").mkdir(parents=True)
    (jobs_dir / "escape.png").symlink_to(secret)
    (jobs_dir / "linked").symlink_to(tmp_path, target_is_directory=True)
    out = tmp_path / "batch.jsonl"
    assert _batch(_jobs(jobs_dir, [name.format(secret=secret)]), out) == 1
    err = capsys.readouterr().err
    assert why in err
    assert "--files-root" in err
    assert out.read_bytes() == b""  # the secret never reaches the file sent to the provider


def test_prompt_files_inside_the_root_are_read_and_the_root_can_be_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    (shared / "img").mkdir(parents=True)
    (shared / "img" / "a.png").write_bytes(make_png((6, 6)))
    (shared / "alias.png").symlink_to(shared / "img" / "a.png")  # a link that stays inside
    jobs_dir = tmp_path / "jobs"
    jobs_dir.mkdir()
    jobs = _jobs(jobs_dir, ["img/a.png", "alias.png"])
    out = tmp_path / "batch.jsonl"
    assert _batch(jobs, out) == 1  # img/a.png is not under the default root (jobs/)
    assert "no such file" in capsys.readouterr().err
    assert _batch(jobs, out, "--files-root", str(shared)) == 0
    [line] = out.read_bytes().splitlines()
    content = json.loads(line)["body"]["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "image_url", "image_url"]


# -- properties: whatever the name, nothing outside ---------------------------------------------

_NAME_PARTS = st.sampled_from(["a", "b.png", "..", ".", "", "~", "/", "\\", "c:", "sub", "é"])


@given(st.lists(_NAME_PARTS, max_size=6).map("".join))
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_read_under_root_never_leaves_the_root(tmp_path: Path, name: str) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True, exist_ok=True)
    for file in ("a", "b.png", "sub/a"):
        (root / file).write_bytes(b"inside")
    for file in ("a", "b.png"):  # the same names outside, through the link "out"
        (tmp_path / file).write_bytes(b"SECRET")
    if not (root / "out").exists():
        (root / "out").symlink_to(tmp_path, target_is_directory=True)
    try:
        found = read_under_root(root, name)
    except (ItemError, SourceError):
        return
    assert found == b"inside"


@given(st.lists(_NAME_PARTS, min_size=1, max_size=6).map("".join))
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_output_folder_writes_only_inside(tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    before = set(tmp_path.iterdir())
    refused = (ItemError, IsADirectoryError, NotADirectoryError)
    with OutputFolder(out) as folder, contextlib.suppress(*refused):
        folder.write(PurePosixPath(name), b"x", replace=True)
    assert set(tmp_path.iterdir()) == before  # nothing appeared beside --out


def test_an_os_error_is_its_reason_not_its_repr() -> None:
    assert for_shell(PermissionError(13, "Permission denied", "/x/y.png")) == "Permission denied"
