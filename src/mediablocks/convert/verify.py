"""Checks that what `prepare` sends on untouched (or only remuxed) its own decoders can open.

A file the provider takes by type can still be broken: a FLAC cut short, a PDF that is
encrypted or has no readable page, a video whose first frame does not decode. The provider
would refuse it (or the model would see nothing), so `prepare` refuses it with a
`DecodeError` naming the block and why. Each check runs only where its decoder is installed
(PyAV, pypdfium2): without it the type and header checks are all there is.

Each check is a top-level function over bytes, so an isolation layer can run it in a worker.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import DecodeError
from ._av import Deadline, decoding, open_input

__all__ = ["check_audio_decodes", "check_pdf_opens", "check_video_decodes"]

_AUDIO_FRAMES = 8
"""Frames of audio the default check decodes: past every codec's priming frames (AAC 2, Opus's
pre-skip), so a stream that decodes this far has a working decoder setup."""

_VIDEO_PACKETS = 2000
"""Packets read looking for the first video frame (and the first audio frame) before giving up."""


def _has_av() -> bool:
    try:
        import av  # noqa: F401
    except ImportError:
        return False
    return True


def check_audio_decodes(
    data: bytes, what: str, deadline: Deadline | None = None, *, full: bool = False
) -> None:
    """Open the container and decode the first frames of its first audio stream (all of them
    with ``full=True``); `DecodeError` naming ``what`` when PyAV cannot (a broken header, a FLAC
    cut inside its first frames) or finds no audio.

    What can fail to open fails at the start, so the default costs about what reading the
    headers does, whatever the length (``_AUDIO_FRAMES`` frames, a fraction of a second); a
    stream damaged further in is found only with ``full=True``. Memory: one frame."""
    if not _has_av():
        return
    deadline = deadline or Deadline(None, what)
    container = open_input(data, what)
    with decoding(what), container:
        if not container.streams.audio:
            raise DecodeError(f"{what}: holds no audio stream")
        stream = container.streams.audio[0]
        frames = 0
        for count, packet in enumerate(container.demux(stream), 1):
            frames += len(packet.decode())
            if count % 256 == 0:
                deadline.check()
            if not full and frames >= _AUDIO_FRAMES:
                break
    if not frames:
        raise DecodeError(f"{what}: holds no decodable audio")


def check_video_decodes(data: bytes, what: str, deadline: Deadline | None = None) -> None:
    """Decode the first video frame (and the first audio frame, if there is audio); a
    `DecodeError` naming ``what`` when either cannot be decoded."""
    if not _has_av():
        return
    deadline = deadline or Deadline(None, what)
    container = open_input(data, what)
    with decoding(what), container:
        if not container.streams.video:
            raise DecodeError(f"{what}: holds no video stream")
        wanted = [container.streams.video[0], *container.streams.audio[:1]]
        found: set[int] = set()
        for count, packet in enumerate(container.demux(wanted)):
            deadline.check()
            if count >= _VIDEO_PACKETS:
                break
            if packet.stream.index not in found and packet.decode():
                found.add(packet.stream.index)
                if len(found) == len(wanted):
                    return
        missing = [s.type for s in wanted if s.index not in found]
    raise DecodeError(f"{what}: no {' or '.join(missing)} frame could be decoded")


def check_pdf_opens(data: bytes, what: str) -> None:
    """Open the PDF with PDFium and load its first page; `DecodeError` naming ``what`` when it
    cannot be opened (broken, or encrypted with a password), is encrypted at all (providers
    refuse encrypted PDFs even without a password), or has no page."""
    try:
        pdfium: Any = importlib.import_module("pypdfium2")
        pdfium_c: Any = importlib.import_module("pypdfium2.raw")
    except ImportError:
        return
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise DecodeError(f"{what}: PDFium cannot open it ({exc})") from None
    except Exception as exc:  # pypdfium2 raises other types for some inputs
        raise DecodeError(f"{what}: PDFium cannot open it ({type(exc).__name__})") from None
    try:
        if pdfium_c.FPDF_GetSecurityHandlerRevision(document) != -1:
            raise DecodeError(
                f"{what}: is encrypted; providers refuse encrypted PDFs (decrypt it first, "
                "e.g. qpdf --decrypt, or send it with documents='text' or 'pages')"
            )
        if len(document) < 1:
            raise DecodeError(f"{what}: has no page")
        try:
            document[0].close()
        except Exception as exc:
            raise DecodeError(f"{what}: its first page cannot be read ({exc})") from None
    finally:
        document.close()
