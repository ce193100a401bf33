"""docs/isolation.md lists every parser of untrusted bytes and how it is bounded: each Pillow
plugin (and where it runs), each header walker of `probe`, each signature check of
`detect_mime`, and the external programs and native decoders. A new one fails here until the
page says how it is bounded."""

from __future__ import annotations

import re

import pytest

from mediablocks.mime.detect import _TABLE
from mediablocks.probing.dispatch import _PARSERS
from mediablocks.probing.plugins import CALLER_FORMATS, NEVER_OPENED, WORKER_FORMATS
from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "isolation.md").read_text(encoding="utf-8")


def _section(heading: str) -> str:
    """The text under ``### heading`` (or ``## heading``) up to the next heading."""
    found = re.search(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#+ |\Z)", PAGE, re.M | re.S)
    assert found is not None, f"docs/isolation.md has no section {heading!r}"
    return found.group(1)


def _pillow_rows() -> dict[str, str]:
    """Pillow format -> where (caller, worker, never), from the table's rows."""
    rows: dict[str, str] = {}
    for line in _section("Pillow plugins").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([A-Z0-9]+)`", cells[0]):
            rows[name] = cells[1]
    return rows


def test_the_page_states_the_rule() -> None:
    rule = _section("The rule")
    assert (
        "Every parser of untrusted bytes runs either in a limited worker process, or in the "
        "caller's\nprocess with a proven linear bound and a deadline." in rule
    )


@pytest.mark.parametrize("name", CALLER_FORMATS)
def test_every_plugin_the_caller_runs_is_listed_as_such(name: str) -> None:
    assert _pillow_rows().get(name) == "caller"


@pytest.mark.parametrize("name", [f for f in WORKER_FORMATS if f not in CALLER_FORMATS])
def test_every_plugin_only_a_worker_runs_is_listed_as_such(name: str) -> None:
    assert _pillow_rows().get(name) == "worker"


@pytest.mark.parametrize("name", sorted(NEVER_OPENED))
def test_every_plugin_never_opened_is_listed_as_such(name: str) -> None:
    assert _pillow_rows().get(name) == "never"


def test_every_pillow_plugin_is_in_exactly_one_list() -> None:
    from PIL import Image

    Image.init()
    listed = set(WORKER_FORMATS) | set(NEVER_OPENED)
    assert set(WORKER_FORMATS).isdisjoint(NEVER_OPENED)
    assert set(Image.OPEN) - {"HEIF", "JXL"} <= listed  # pillow-heif/-jxl register on use
    assert set(_pillow_rows()) == listed


@pytest.mark.parametrize("kind", list(_PARSERS))
def test_every_header_walker_is_listed(kind: str) -> None:
    assert f"`probe.{kind}`" in _section("Header walkers (`probe`)")


@pytest.mark.parametrize("name", [name for name, _, _ in _TABLE])
def test_every_signature_check_is_listed(name: str) -> None:
    assert f"`{name}`" in _section("Signature checks (`detect_mime`)")


@pytest.mark.parametrize(
    "native",
    [
        "resvg",
        "PDFium",
        "FFmpeg (PyAV)",
        "olefile",
        "xlrd",
        "pillow-jxl-plugin",
        "libtiff",
        "OpenJPEG",
        "libheif",
        "libavif",
        "Ghostscript",
    ],
)
def test_every_native_decoder_and_program_is_listed_in_a_worker(native: str) -> None:
    assert native in _section("In worker processes")


def test_ghostscript_is_the_only_external_program() -> None:
    section = _section("External programs")
    assert re.findall(r"^\| ([^|]+) \|", section, re.M)[1:] == ["Ghostscript (`gs`)"]
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "src").rglob("*.py"))
    starts = re.findall(r"subprocess\.(?:Popen|run|call|check_call|check_output)\(", sources)
    # the worker pool (a Python interpreter) and Ghostscript's job: nothing else is started
    assert len(starts) == 2
