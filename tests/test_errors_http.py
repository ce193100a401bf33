"""The upload endpoint of docs/errors.md, run with FastAPI's test client: every hostile upload is
answered with the status its error code maps to, and the body carries that code."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pytest

from tests.conftest import ROOT, TESTDATA, make_pdf

fastapi = pytest.importorskip("fastapi")
pytest.importorskip("multipart")

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.fixture(scope="module")
def app_post() -> Any:
    """The docs page's ``post`` helper, its app built and its own assertions run."""
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    [example] = [block for block in FENCE.findall(page) if "FastAPI()" in block]
    namespace: dict[str, Any] = {"__name__": "errors_page_example"}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        exec(compile(example, "docs/errors.md", "exec"), namespace)
    client = namespace["client"]

    def post(name: str, data: bytes) -> tuple[int, dict[str, Any]]:
        answer = client.post("/describe", files={"file": (name, data)})
        return answer.status_code, answer.json()

    return post


def zip_bomb_docx() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        body = b"<w:document>" + b" " * 50_000_000 + b"</w:document>"
        archive.writestr("word/document.xml", body)
    return out.getvalue()


def nested_svg(depth: int = 200_000) -> bytes:
    return (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        + b"<g>" * depth
        + b"</g>" * depth
        + b"</svg>"
    )


def test_a_photo_is_accepted(app_post: Any) -> None:
    status, body = app_post("rgb.png", (TESTDATA / "image" / "rgb.png").read_bytes())
    assert (status, body) == (200, {"blocks": 2})


def test_a_zip_bomb_is_refused_before_anything_inflates_it(app_post: Any) -> None:
    bomb = zip_bomb_docx()
    assert len(bomb) < 100_000
    status, body = app_post("bomb.docx", bomb)
    assert (status, body["code"]) == (415, "not_accepted")
    assert "wordprocessingml" in body["detail"]


def test_a_png_bomb_is_413(app_post: Any) -> None:
    status, body = app_post("bomb.png", (TESTDATA / "bad" / "bomb-28000x28000.png").read_bytes())
    assert (status, body["code"]) == (413, "decompression_bomb")
    assert "784,000,000 pixels" in body["detail"]


def test_a_crashing_svg_is_422_naming_the_signal(app_post: Any) -> None:
    status, body = app_post("deep.svg", nested_svg())
    assert (status, body["code"]) == (422, "conversion_crashed")
    assert "SIG" in body["detail"]
    assert "image/svg+xml" in body["detail"]


def test_a_truncated_image_is_422(app_post: Any) -> None:
    status, body = app_post("cut.jpg", (TESTDATA / "bad" / "truncated.jpg").read_bytes())
    assert (status, body["code"]) == (422, "broken_media")


def test_empty_and_unknown_bytes_are_not_accepted(app_post: Any) -> None:
    assert app_post("empty.bin", b"")[0] == 415
    status, body = app_post("voice.webm", (TESTDATA / "audio" / "voice-note.webm").read_bytes())
    assert (status, body["code"]) == (415, "not_accepted")


def test_a_pdf_is_accepted(app_post: Any) -> None:
    status, body = app_post("page.pdf", make_pdf())
    assert status == 200
    assert body == {"blocks": 2}
