"""Nothing leaves `prepare` undecodable: every file of testdata/ (but bad/) prepared for every
provider, and every media block that comes out decoded again with the library a provider-side
reader would use (Pillow for images, PyAV for audio and video, pypdfium2 for PDFs, UTF-8 for
text, ZIP or OLE for Office files). Refusing a file is fine; sending one that does not open is
not.

One test per file runs all 17 providers; an output already decoded (the same bytes for several
providers) is decoded once.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from mediablocks.blocks import TextBlock, ToolResultBlock
from mediablocks.errors import DoesNotFitError, MediaBlocksError
from mediablocks.media import MediaBlock
from mediablocks.media_input import media_block
from mediablocks.messages import UserMessage
from mediablocks.preparing import prepare_with_report
from mediablocks.providers.registry import PROVIDERS

av = pytest.importorskip("av")
pdfium = pytest.importorskip("pypdfium2")
Image = pytest.importorskip("PIL.Image")

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
MANIFEST = json.loads((TESTDATA / "manifest.json").read_text())
FILES = sorted(path for path in MANIFEST if not path.startswith("bad/"))
BAD = sorted(path for path in MANIFEST if path.startswith("bad/"))
AUDIO_MODELS = {"openai-chat": "gpt-4o-audio-preview", "azure-openai": "gpt-4o-audio-preview"}
_DECODED: set[str] = set()


def _decode_image(data: bytes) -> None:
    with Image.open(io.BytesIO(data)) as image:
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            image.load()


def _decode_av(data: bytes) -> None:
    with av.open(io.BytesIO(data)) as container:
        streams = [s for s in container.streams if s.type in ("audio", "video")]
        assert streams, "no audio or video stream"
        frames = sum(1 for _ in container.decode(*streams))
    assert frames > 0, "no frame decodes"


def _decode_pdf(data: bytes) -> None:
    document = pdfium.PdfDocument(data)
    try:
        assert len(document) >= 1
        document[0].render(scale=0.2).to_pil().load()
    finally:
        document.close()


def decode(data: bytes, mime: str) -> None:
    """Open ``data`` as ``mime`` says, fully; an exception means it is not decodable."""
    if mime.startswith("image/"):
        _decode_image(data)
    elif mime.startswith(("audio/", "video/")):
        _decode_av(data)
    elif mime == "application/pdf":
        _decode_pdf(data)
    elif mime.startswith("text/") or mime in ("application/json", "application/xml"):
        data.decode("utf-8")
    elif "openxmlformats" in mime or "opendocument" in mime or mime == "application/epub+zip":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.testzip() is None
    elif mime in (
        "application/msword",
        "application/vnd.ms-excel",
        "application/vnd.ms-powerpoint",
    ):
        assert data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an OLE compound file
    else:
        raise AssertionError(f"no decoder for {mime}")


def _media_out(content: list[object]) -> list[MediaBlock]:
    found: list[MediaBlock] = []
    for block in content:
        if isinstance(block, MediaBlock):
            found.append(block)
        elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
            found.extend(item for item in block.content if isinstance(item, MediaBlock))
    return found


def _prepare_and_decode(path: str) -> tuple[int, int]:
    """(media blocks sent, providers that refused) over every provider; fails on an output
    that does not decode."""
    try:
        source = media_block(TESTDATA / path)
    except MediaBlocksError:  # not media at all (bad/ holds such): nothing to prepare
        return 0, len(PROVIDERS)
    sent = 0
    refusals: list[MediaBlocksError] = []
    for provider in PROVIDERS:
        model = AUDIO_MODELS.get(provider)
        message = UserMessage(content=[TextBlock(text="look"), source])
        try:
            (prepared,), _ = prepare_with_report(
                [message], provider, model=model, unsupported="drop", max_frames=4
            )
        except MediaBlocksError as error:  # refused (naming the block): fine
            refusals.append(error)
            continue
        for block in _media_out(list(prepared.content)):
            data = block.read()
            key = hashlib.sha256(data).hexdigest() + block.mime_type
            sent += 1
            if key in _DECODED:
                continue
            try:
                decode(data, block.mime_type)
            except Exception as exc:
                raise AssertionError(
                    f"{path} for {provider}: {block.describe()} does not decode: {exc!r}"
                ) from exc
            _DECODED.add(key)
    for error in refusals:
        problems = error.problems if isinstance(error, DoesNotFitError) else [str(error)]
        assert problems
        assert all(source.describe() in problem for problem in problems), problems
    return sent, len(refusals)


# Files no decoder installed here can turn into pixels, refused for every provider with these
# words: EPS needs Ghostscript (not a wheel) and Pillow reads no tile-compressed FITS. (PyAV
# decodes no frame of Pillow's FLI test file; its frames come from Pillow, so it must be sent.)
REFUSED_HERE = {
    "image/rose.eps": "Ghostscript",
    "image/rose-tiled-gzip.fits": "rose-tiled-gzip.fits",
}


@pytest.mark.parametrize("path", FILES)
def test_every_output_for_every_provider_decodes(path: str) -> None:
    sent, _ = _prepare_and_decode(path)
    if path in REFUSED_HERE and not sent:
        with pytest.raises(MediaBlocksError, match=REFUSED_HERE[path]):
            prepare_with_report([UserMessage(content=[media_block(TESTDATA / path)])], "gemini")
    elif MANIFEST[path]["kind"] in ("image", "video"):
        assert sent  # every provider taking images takes these in some form


@pytest.mark.parametrize("path", BAD)
def test_broken_files_are_refused_or_sent_decodable(path: str) -> None:
    _prepare_and_decode(path)


@pytest.mark.parametrize(
    "path", ["bad/truncated.flac", "bad/short-picture-block.flac", "bad/encrypted-password.pdf"]
)
def test_what_no_decoder_opens_is_sent_to_no_provider(path: str) -> None:
    sent, refused = _prepare_and_decode(path)
    assert sent == 0
    assert refused >= 7  # every provider taking audio (or PDFs) refuses it; the rest drop it
