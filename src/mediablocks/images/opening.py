"""Opening an image safely: the bomb guard, HEIF/SVG/JPEG XL hooks, and Pillow's errors.

Every Pillow call of the package goes through `pillow_errors`, the one boundary where Pillow's
exceptions become `DecodeError` or `ImageBombError` naming the block. Every ``Image.open`` names
its plugins (`mediablocks.probing.plugins`): in the caller's process only `CALLER_FORMATS`; any
other image is `DecodeElsewhere`, fitted in a worker process (`mediablocks.images.fit`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO

from PIL import Image, UnidentifiedImageError
from PIL.ImageFile import ImageFile

from ..errors import DecodeError, ImageBombError, MediaBlocksError, UnsupportedBlockError
from ..probing.plugins import CALLER_FORMATS
from .costs import CALLER_TEXT_BYTES, png_text_bytes
from .target import DEFAULT_MAX_IMAGE_PIXELS, Change, FittedImage, ImageTarget

_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")

_BOMB_MESSAGE = re.compile(r"\((\d+) pixels\)")


class DecodeElsewhere(Exception):
    """Internal: this image is not read in the caller's process (its format is not one of
    `CALLER_FORMATS`, or decoding it costs more than the caller allows): a worker reads it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def image_size(
    data: bytes, *, what: str = "image", max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS
) -> tuple[int, int]:
    """``(width, height)`` from the header only, after the bomb check (orientation not applied).

    Formats the caller does not open are read in a worker process; SVG, JPEG XL and PostScript
    have no size before they are converted (`UnsupportedBlockError`, no process started)."""
    from ..convert.postscript import is_postscript
    from ..convert.raster import is_jxl, is_svg

    if is_svg(data) or is_jxl(data) or is_postscript(data):
        raise UnsupportedBlockError(f"{what}: its size is known once it is converted")
    try:
        with pillow_errors(what), _open(data, what, max_image_pixels) as image:
            width, height = image.size
            return width, height
    except DecodeElsewhere:
        pass
    from ..probing.pillow import pillow_header_in_worker

    width, height, _, _ = pillow_header_in_worker(data, what)
    if max_image_pixels is not None and width * height > max_image_pixels:
        raise _bomb(what, width * height, max_image_pixels, (width, height))
    return width, height


@contextmanager
def pillow_errors(what: str) -> Iterator[None]:
    """The one boundary around Pillow: whatever a decoder or plugin raises on hostile bytes
    (``OSError``, ``EOFError``, ``SyntaxError``, ``struct.error``, ``ValueError``, ``IndexError``,
    ``MemoryError``...) becomes a `DecodeError` naming ``what``; a decompression bomb and a
    ``MemoryError`` become `ImageBombError`. Our own errors pass through unchanged.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module="PIL")  # corrupt EXIF
            yield
    except (MediaBlocksError, DecodeElsewhere):
        raise
    except Image.DecompressionBombError as exc:
        found = _BOMB_MESSAGE.search(str(exc))
        raise _bomb(what, int(found.group(1)) if found else None, None) from None
    except MemoryError:
        raise ImageBombError(f"{what}: decoding it needs more memory than is available") from None
    except Exception as exc:  # any decoder or plugin failure on bytes we do not control
        raise DecodeError(
            f"{what}: not a readable image: {type(exc).__name__}: {exc}".rstrip(": ")
        ) from None


# -- opening --------------------------------------------------------------------------------------


def _open(
    data: bytes, what: str, max_pixels: int | None, formats: tuple[str, ...] = CALLER_FORMATS
) -> ImageFile:
    """Open lazily (header only) with the plugins of ``formats``, with our bomb check and never
    Pillow's warning or error. In the caller (`CALLER_FORMATS`), bytes none of its plugins
    claims raise `DecodeElsewhere`: a worker opens them with `WORKER_FORMATS`."""
    here = formats is not CALLER_FORMATS
    if here and _looks_like_heif(data):
        _register_heif(what)
    if not here and data.startswith(_PNG) and png_text_bytes(data) > CALLER_TEXT_BYTES:
        raise DecodeElsewhere("a PNG whose text chunks may inflate to more than the caller takes")
    names = _registered(formats)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(BytesIO(data), formats=names)
    except Image.DecompressionBombError as exc:
        found = _BOMB_MESSAGE.search(str(exc))
        pixels = int(found.group(1)) if found else None
        raise _bomb(what, pixels, max_pixels) from None
    except UnidentifiedImageError:
        if not here and not (data.startswith(_OLE2) and not _has_olefile()):
            raise DecodeElsewhere("not a format the caller's process decodes") from None
        if data.startswith(_OLE2) and not _has_olefile():
            raise UnsupportedBlockError(
                f"{what}: FlashPix and Image Composer images are compound files, which Pillow "
                "reads only with olefile installed: pip install 'mediablocks[office]' (or olefile)"
            ) from None
        raise UnsupportedBlockError(f"{what}: {_unreadable_hint(data)}") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise DecodeError(f"{what}: not a readable image: {exc}") from None
    width, height = image.size
    if max_pixels is not None and width * height > max_pixels:
        image.close()
        raise _bomb(what, width * height, max_pixels, (width, height))
    return image


_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_PNG = b"\x89PNG\r\n\x1a\n"


def _registered(formats: tuple[str, ...]) -> list[str]:
    """The formats of ``formats`` Pillow has a plugin for here (HEIF only once pillow-heif is
    registered, AVIF only in a Pillow built with libavif): naming one it lacks is an error."""
    if any(name not in Image.OPEN for name in formats):
        Image.preinit()
        if "WEBP" in formats:
            from PIL import WebPImagePlugin  # noqa: F401 (registers itself)
    if any(name not in Image.OPEN for name in formats) and formats != CALLER_FORMATS:
        Image.init()
    return [name for name in formats if name in Image.OPEN]


def _has_olefile() -> bool:
    """Whether olefile (the ``office`` extra) is there for Pillow's FlashPix and MIC readers."""
    from importlib.util import find_spec

    return find_spec("olefile") is not None


def _bomb(
    what: str, pixels: int | None, limit: int | None, size: tuple[int, int] | None = None
) -> ImageBombError:
    dims = f" ({size[0]}x{size[1]})" if size else ""
    count = f"{pixels:,} pixels{dims}" if pixels is not None else "more pixels than Pillow allows"
    return ImageBombError(
        f"{what}: {count} exceeds the decompression-bomb limit of {limit or 0:,} pixels; pass a "
        "larger max_image_pixels if the image is trusted",
        limit=limit,
        size=pixels,
    )


def _looks_like_heif(data: bytes) -> bool:
    return data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS


def _heif_installed() -> bool:
    """True when pillow-heif is installed (found, not imported: it decodes in a worker)."""
    from importlib.util import find_spec

    return find_spec("pillow_heif") is not None


def _heif_decoder() -> bool:
    """True when pillow-heif is installed (its opener is then registered with Pillow)."""
    try:
        import pillow_heif
    except ImportError:
        return False
    pillow_heif.register_heif_opener()
    return True


def _register_heif(what: str) -> None:
    if not _heif_decoder():
        raise UnsupportedBlockError(
            f"{what}: HEIC/HEIF needs pillow-heif to be decoded: pip install 'mediablocks[heif]'"
        )


def _heif_as_is(
    data: bytes, target: ImageTarget, strip_metadata: bool, max_pixels: int | None, what: str
) -> FittedImage:
    """HEIC/HEIF with no decoder installed: sent as it is when nothing needs decoding.

    That is when the provider takes HEIC/HEIF (Gemini), the header's size and the file's bytes are
    within its limits, and the caller turned metadata stripping off: a phone photo carries GPS
    tags, so by default it is never sent unread.
    """
    from ..probing import probe_bytes  # the walkers, not Pillow: nothing here decodes

    info = probe_bytes(data)
    width, height = info.width or 0, info.height or 0
    if max_pixels is not None and width * height > max_pixels:
        raise _bomb(what, width * height, max_pixels, (width, height))
    fits = (
        info.mime_type in target.accepted_types
        and width > 0
        and (target.max_side is None or max(width, height) <= target.max_side)
        and (target.max_pixels is None or width * height <= target.max_pixels)
        and target.fits_bytes(len(data))
    )
    if fits and not strip_metadata:
        return FittedImage(data, info.mime_type, width, height)
    need = "strip its metadata" if fits else "convert or resize it"
    hint = " (or strip_metadata=False to send it as it is)" if fits else ""
    raise UnsupportedBlockError(
        f"{what}: HEIC/HEIF needs pillow-heif to {need}: pip install 'mediablocks[heif]'{hint}"
    )


def _unreadable_hint(data: bytes) -> str:
    from ..convert.raster import unreadable_hint

    return unreadable_hint(data)


def _convert_refused_format(
    data: bytes,
    mime: str | None,
    target: ImageTarget,
    convert: bool,
    max_pixels: int | None,
    what: str,
) -> tuple[bytes, Change] | None:
    """The hook for formats Pillow cannot read alone (SVG, JPEG XL, PostScript): see
    `mediablocks.convert.raster`. New bytes and their `Change`, or None to open ``data``."""
    from ..convert.raster import convert_refused_image

    side = min(target.optimal_side or 2048, target.max_side or 2048, 2048)
    done = convert_refused_image(
        data, mime, max_side=side, max_pixels=max_pixels, convert=convert, what=what
    )
    return None if done is None else (done[0], Change("converted", done[1]))
