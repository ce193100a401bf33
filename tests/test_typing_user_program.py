"""A realistic user program type-checks with 0 errors under ``mypy --strict`` and ``pyright``.

``tests/typing/user_program.py`` sends an image and a PDF through the seven official SDKs, runs a
two-call tool loop, folds a stream and prepares media; its ``assert_type`` lines fail if an SDK
call loses its return type after ``**mb.encode(...)`` or if mediablocks hands back ``Any``. Both
checkers read mediablocks from this tree's ``src``. They take 20-40 s together, so they run
side by side; the test is marked ``typecheck`` (``-m "not typecheck"`` leaves it out locally).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TYPING = ROOT / "tests" / "typing"
PROGRAM = TYPING / "user_program.py"
NEWCOMERS = [TYPING / f"newcomer_{name}.py" for name in ("upload", "media", "messages")]
"""A newcomer's three programs (issue 31): an upload endpoint mapping errors by code, a photo and
a voice note to three providers, messages in every shape the docs name."""
ENCODE_OPTIONS = TYPING / "encode_options.py"
"""`mb.encode` with every keyword option, each typed SDK and the JSON target (issue 30)."""
PREPARE_OPTIONS = TYPING / "prepare_options.py"
"""`mb.prepare` and its siblings with every keyword option (issue 30)."""

pytestmark = pytest.mark.typecheck


def _pyright() -> list[str]:
    pytest.importorskip("pyright", reason="pyright is in the dev extra")
    return [sys.executable, "-m", "pyright"]


def test_the_user_program_type_checks_with_mypy_strict_and_pyright(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    pytest.importorskip("fastapi", reason="fastapi is in the dev extra (newcomer_upload.py)")
    pytest.importorskip("mypy_boto3_bedrock_runtime", reason="boto3-stubs is in the dev extra")
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    mypy = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(TYPING / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--no-error-summary",
            str(PROGRAM),
            *map(str, NEWCOMERS),
            str(ENCODE_OPTIONS),
            str(PREPARE_OPTIONS),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    pyright = subprocess.run(
        [*_pyright(), "--pythonpath", sys.executable, "-p", str(TYPING / "pyrightconfig.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    mypy_out, _ = mypy.communicate(timeout=600)
    assert mypy.returncode == 0, f"mypy --strict:\n{mypy_out}"
    assert "0 errors" in pyright.stdout, f"pyright:\n{pyright.stdout}\n{pyright.stderr}"
    assert pyright.returncode == 0


def test_the_checkers_do_fail_on_a_wrong_program(tmp_path: Path) -> None:
    """The same set-up reports a real mistake, so 0 errors above means something."""
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "import mediablocks as mb\n"
        "reply = mb.decode_response({}, 'anthropic')\n"
        "count: str = reply.usage\n",  # Usage | None is not str
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(TYPING / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            str(wrong),
        ],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert 'Incompatible types in assignment (expression has type "Usage | None"' in done.stdout


def test_the_checkers_refuse_a_wrong_encode_option(tmp_path: Path) -> None:
    """With the options as one ``Unpack`` TypedDict (`encode`'s and `prepare`'s), a misspelled
    option, an option value outside its literals, an SDK result used as the wrong type and a
    misspelt public name are still each reported, by line."""
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    wrong = tmp_path / "wrong_encode.py"
    wrong.write_text(
        "import mediablocks as mb\n"
        "mb.encode('hi', 'anthropic', thinkng='text')\n"
        "mb.encode('hi', 'anthropic', unsupported='ignore')\n"
        "mb.encode('hi', 'gemini', tools=mb.Tool(name='f'))\n"
        "contents: int = mb.encode('hi', 'gemini')['contents']\n"
        "body: int = mb.encode('hi', 'gemini', target='json')\n"
        "mb.prepare('hi', 'anthropic', max_frame=3)\n"
        "mb.prepare('hi', 'anthropic', video='drop')\n"
        "mb.ImageBlok.from_bytes(b'')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(TYPING / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--show-error-codes",
            str(wrong),
        ],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    lines = {int(line.split(":")[1]) for line in done.stdout.splitlines() if ": error:" in line}
    assert lines == {2, 3, 4, 5, 6, 7, 8, 9}, done.stdout
    assert '"thinkng"' in done.stdout
    assert '"max_frame"' in done.stdout
    # The lazy face's __getattr__ is hidden from type checkers: a misspelt name is reported.
    assert 'Module has no attribute "ImageBlok"' in done.stdout
