"""Checks that what `prepare` sends on untouched (or only remuxed) its own decoders can open.

A file the provider takes by type can still be broken: a FLAC cut short, a PDF that is
encrypted or has no readable page, a video whose first frame does not decode. The provider
would refuse it (or the model would see nothing), so `prepare` refuses it with a
`DecodeError` naming the block and why. Each check runs only where its decoder is installed
(PyAV, pypdfium2): without it the type and header checks are all there is.

Each check is a top-level function over bytes, so an isolation layer can run it in a worker;
`run_check` is how `prepare` runs one there. The audio and video checks read the headers and
the first packets only, so `run_check` ships them a `Window` (the file's start and end, see
`check_window`) instead of the whole file: what costs is then the same for a long recording as
for a short one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..errors import DecodeError
from ._av import READ_SIZE, Deadline, Input, OutsideWindow, Window, opened

__all__ = [
    "FLAC_FRAMES",
    "NAMED_WINDOWS",
    "PCM_WINDOW_HEAD",
    "WINDOW_HEAD",
    "WINDOW_TAIL",
    "check_audio_decodes",
    "check_pdf_opens",
    "check_video_decodes",
    "check_window",
    "run_check",
]

_QUICK_OPEN = {"probesize": "32", "codec_whitelist": "none"}
"""The default check's container options. FFmpeg learns the streams' parameters from the
container's header and stops reading packets for them as soon as it can (``probesize``; 5 MB
and 5 s of them by default, a whole first window's worth of PCM), and opens no decoder of its
own while doing so (``codec_whitelist`` allows none there: its own AAC or Opus decoder costs as
much as the rest of the open). The check then opens the stream's decoder and decodes the first
packets itself: that is the proof, made once."""

_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"fLaC", "flac"),
    (4, b"ftyp", "mov"),
    (0, b"\x1a\x45\xdf\xa3", "matroska"),
    (0, b"OggS", "ogg"),
)
"""(offset, bytes, FFmpeg demuxer) for the containers the default check opens by name, without
FFmpeg's probing (every demuxer's guess over the first KiB): FLAC, MP4/M4A/MOV, Matroska/WebM,
Ogg. Any other file is probed as before."""

WINDOW_HEAD = 128 << 10
"""Bytes of a file's start shipped for a windowed check at first: the container's header, what
FFmpeg reads to find the streams' parameters (32 KiB at a time) and the first frames."""
PCM_WINDOW_HEAD = 256 << 10
"""The same for WAV, AIFF, CAF and AU, whose parameters FFmpeg finds by reading about four
seconds of sound: 128 KiB at 16 kHz mono; 48 kHz stereo needs 768 KiB, a second window."""
WINDOW_TAIL = 64 << 10
"""Bytes of a file's end shipped at first: an MP4 whose index (``moov``) follows the sound, an
Ogg whose last page gives the duration (FFmpeg reads its last 64 KiB)."""
NAMED_WINDOWS = {
    "flac": (64 << 10, 0),
    "matroska": (64 << 10, 0),
    "mov": (64 << 10, WINDOW_TAIL),
    "ogg": (64 << 10, WINDOW_TAIL),
}
"""The first window of the containers the quick open names (`_SIGNATURES`): their header and
first packets, read 32 KiB at a time (a FLAC's pictures or an MP4 index at the start larger
than that get a second, larger window); the end only where the demuxer reads it on opening (an
MP4 indexed at its end, an Ogg's last page), not for FLAC or Matroska."""
FLAC_FRAMES = 12
"""Frames past a FLAC's metadata shipped in its first window. FFmpeg's FLAC parser holds back
the first frame until it has seen about ten frame headers after it (measured: 9.2 to 11.2 of
the largest frame STREAMINFO declares, from 8 kHz mono to 96 kHz stereo): a 44.1 kHz stereo
FLAC needs 96 to 160 KiB, a 16 kHz mono one 32 KiB, so one fixed size fits neither."""
_FLAC_BLOCKS = 64
"""Metadata blocks walked looking for a FLAC's first frame before its window is the default."""
_WINDOW_TRIES = 3
"""Windows tried, each larger than the one before, before the whole file is sent."""

_VIDEO_PACKETS = 2000
"""Packets read looking for the first video frame (and the first audio frame) before giving up."""


def _has_av() -> bool:
    try:
        import av  # noqa: F401
    except ImportError:
        return False
    return True


def check_audio_decodes(
    data: Input, what: str, deadline: Deadline | None = None, *, full: bool = False
) -> None:
    """Open the container and decode its first audio frame (every frame with ``full=True``);
    `DecodeError` naming ``what`` when PyAV cannot (a broken header, a FLAC cut inside its
    first frame, a first packet that does not decode) or finds no audio.

    What can fail to open fails at the start: the container and the first packets. So the
    default reads no more than that (the demuxer named from the file's signature when it is
    one of `_SIGNATURES`, the streams' parameters taken from the first packet: `_QUICK_OPEN`)
    and stops at the first decoded frame, which costs about what reading the headers does,
    whatever the length; when that quick open fails, the verdict is the one of a plain open
    (FFmpeg probing and reading as much as it likes). A stream damaged after its first frame
    is found only with ``full=True``. Memory: one frame."""
    if not _has_av():
        return
    deadline = deadline or Deadline(None, what)
    if full:
        _decode_audio(data, what, deadline, full=True, quick=False)
        return
    try:
        _decode_audio(data, what, deadline, full=False, quick=True)
    except DecodeError:  # the quick open's refusal is not the verdict: a plain open's is
        _decode_audio(data, what, deadline, full=False, quick=False)


def _named_format(data: Input) -> str | None:
    """The demuxer `_SIGNATURES` names for the file's first bytes, or None (probe it)."""
    start = data.head[:12] if isinstance(data, Window) else data[:12]
    for offset, signature, demuxer in _SIGNATURES:
        if start[offset : offset + len(signature)] == signature:
            return demuxer
    return None


def _decode_audio(data: Input, what: str, deadline: Deadline, *, full: bool, quick: bool) -> None:
    """Decode the first audio stream's first frame (``full``: all of them); ``quick``: open
    it by name, reading the least (see `check_audio_decodes`)."""
    options: dict[str, Any] = {}
    if quick:
        options = {"format": _named_format(data), "options": _QUICK_OPEN}
    with opened(data, what, **options) as container:
        if not container.streams.audio:
            raise DecodeError(f"{what}: holds no audio stream")
        stream = container.streams.audio[0]
        frames = 0
        for count, packet in enumerate(container.demux(stream), 1):
            frames += len(packet.decode())
            if count % 256 == 0:
                deadline.check()
            if frames and not full:
                break
    if not frames:
        raise DecodeError(f"{what}: holds no decodable audio")


def check_video_decodes(data: Input, what: str, deadline: Deadline | None = None) -> None:
    """Decode the first video frame (and the first audio frame, if there is audio); a
    `DecodeError` naming ``what`` when either cannot be decoded."""
    if not _has_av():
        return
    deadline = deadline or Deadline(None, what)
    with opened(data, what) as container:
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


_WINDOWED: dict[str, Callable[[Input, str], None]] = {
    "check_audio_decodes": check_audio_decodes,
    "check_video_decodes": check_video_decodes,
}
"""The checks that read only a file's start (and maybe its end): run over a `Window`."""


def check_window(check: str, window: Window, what: str) -> int | None:
    """Run the check named ``check`` (``"check_audio_decodes"`` or ``"check_video_decodes"``)
    over ``window``. ``None`` when it passed reading only the window; else the first offset it
    read outside the window (nothing is decided then: run it over a larger window or the whole
    file). The check's `DecodeError` when it failed reading only the window, which the whole
    file fails alike: the same bytes were read."""
    try:
        _WINDOWED[check](window, what)
    except OutsideWindow as outside:
        return outside.offset
    return None


def _holds_pcm(data: bytes) -> bool:
    """True when the first bytes are a WAV, RF64, AIFF, CAF or AU signature: the window's
    start is then `PCM_WINDOW_HEAD` (a comparison of 12 bytes, nothing parsed)."""
    if data[:4] in (b"RIFF", b"RF64"):
        return data[8:12] == b"WAVE"
    if data[:4] == b"FORM":
        return data[8:12] in (b"AIFF", b"AIFC")
    return data[:4] in (b"caff", b".snd")


def _flac_head(data: bytes) -> int | None:
    """A FLAC's first window: its metadata blocks and `FLAC_FRAMES` of its largest frame (the
    size STREAMINFO declares, else its largest block uncompressed), in whole `READ_SIZE` reads.
    None when the metadata does not say: no 34-byte STREAMINFO first, or no last block among
    the first `_FLAC_BLOCKS` (or before the file ends). One 4-byte header read per block."""
    info = data[8:26]
    if len(info) < 18 or data[4] & 0x7F != 0 or data[5:8] != b"\x00\x00\x22":
        return None  # the first block must be a 34-byte STREAMINFO
    largest_block = int.from_bytes(info[2:4], "big")
    largest_frame = int.from_bytes(info[7:10], "big")
    packed = int.from_bytes(info[10:18], "big")
    channels, bits = ((packed >> 41) & 7) + 1, ((packed >> 36) & 31) + 1
    frame = largest_frame or largest_block * channels * (bits + 7) // 8 + 18
    offset = 4
    for _ in range(_FLAC_BLOCKS):
        header = data[offset : offset + 4]
        if len(header) < 4:
            return None
        offset += 4 + int.from_bytes(header[1:4], "big")
        if header[0] & 0x80:  # the last metadata block: the frames start here
            head = offset + FLAC_FRAMES * frame
            return -(-head // READ_SIZE) * READ_SIZE
    return None


def _first_window(data: bytes) -> tuple[int, int]:
    """The start and end (bytes) shipped for a windowed check at first: for a FLAC, what its
    metadata says FFmpeg reads (`_flac_head`); `NAMED_WINDOWS` for another container the quick
    open names, `PCM_WINDOW_HEAD` for PCM, else `WINDOW_HEAD` and `WINDOW_TAIL`."""
    demuxer = _named_format(data)
    flac = _flac_head(data) if demuxer == "flac" else None
    if flac is not None:
        return flac, 0
    named = NAMED_WINDOWS.get(demuxer or "")
    if named is not None:
        return named
    return (PCM_WINDOW_HEAD if _holds_pcm(data) else WINDOW_HEAD), WINDOW_TAIL


def run_check(check: str, data: bytes, what: str) -> None:
    """The check named ``check`` (one of this module's) over ``data`` in a conversion worker
    (PyAV and PDFium can crash on crafted input), under the limits and time budget in scope.

    An audio or video check gets a `Window` of a file much larger than one: the bytes it then
    ships, and copies on both sides, no longer grow with the recording. A check reading
    outside the window runs again over a larger one (where it read outside), at last over the
    whole file, so the outcome is always the whole file's."""
    from .isolation import run_isolated
    from .limits import current_limits

    converter = "PDF engine (PDFium)" if check == "check_pdf_opens" else "FFmpeg (PyAV)"
    size = len(data)
    head, tail = _first_window(data)
    windowed = check in _WINDOWED and current_limits()[0].isolate
    for _ in range(_WINDOW_TRIES if windowed else 0):
        if 2 * (head + tail) > size:
            break  # the window would be half the file or more: send it all
        window = Window.of(data, head, tail)
        outside = run_isolated(what, check_window, check, window, what, converter=converter)
        if outside is None:
            return
        if outside < size // 2:
            head = max(4 * head, 2 * outside)
        else:
            tail = max(4 * tail, 2 * (size - outside))
    job: Callable[[bytes, str], None] = {**_WINDOWED, "check_pdf_opens": check_pdf_opens}[check]
    run_isolated(what, job, data, what, converter=converter)
