"""Pixel conversions: orientation, CMYK and 16-bit to 8-bit RGB, the output format, resizing."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageCms

from ..errors import UnsupportedBlockError
from .metadata import _FORMAT_MIME, _Facts
from .target import ImageTarget

_MIME_FORMAT = {"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WEBP"}


_TURNS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_TURN_BAND = 128
"""Rows turned at a time. Pillow makes a quarter turn of a large image about 40% faster band by
band than whole (the whole-image turn writes its output out of cache order): 3.5 ms instead of
6 for a 2000x1500 photo."""
_BANDED_MODES = ("RGB", "RGBA", "YCbCr", "L", "LA", "CMYK")


def _transposed(frame: Image.Image, orientation: int, band: int = _TURN_BAND) -> Image.Image:
    """``frame`` turned as EXIF ``orientation`` says; a quarter turn of a large 8-bit frame band
    by band, each band landing in its columns of the turned frame."""
    method = _TURNS[orientation]
    if orientation < 5 or frame.height <= band or frame.mode not in _BANDED_MODES:
        return frame.transpose(method)
    width, height = frame.size
    turned = Image.new(frame.mode, (height, width))
    turned.info = frame.info.copy()
    backwards = method in (Image.Transpose.ROTATE_270, Image.Transpose.TRANSVERSE)
    for top in range(0, height, band):
        bottom = min(height, top + band)
        strip = frame.crop((0, top, width, bottom)).transpose(method)
        turned.paste(strip, (height - bottom if backwards else top, 0))
    return turned


def _cmyk_to_rgb(frame: Image.Image, icc: bytes | None) -> Image.Image:
    if icc:
        try:
            source = ImageCms.ImageCmsProfile(BytesIO(icc))
            srgb = ImageCms.createProfile("sRGB")
            converted = ImageCms.profileToProfile(frame, source, srgb, outputMode="RGB")
            if converted is not None:
                return converted
        except (OSError, ValueError, ImageCms.PyCMSError):
            pass
    return frame.convert("RGB")


def _to_8bit(frame: Image.Image) -> Image.Image:
    if frame.mode in ("I;16", "I;16B", "I;16L", "I"):
        return frame.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    if frame.mode == "F":
        return frame.convert("L")
    return frame


def _has_alpha(frame: Image.Image) -> bool:
    if frame.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        return frame.getextrema()[-1][0] < 255  # type: ignore[index]
    return frame.mode == "P" and "transparency" in frame.info


def _is_graphic(frame: Image.Image) -> bool:
    if frame.mode in ("1", "P"):
        return True
    small = frame if frame.width * frame.height <= 250_000 else frame.resize((400, 400))
    return small.getcolors(maxcolors=256) is not None


def _output_format(
    facts: _Facts,
    format_refused: bool,
    frame: Image.Image,
    target: ImageTarget,
    animated: bool,
) -> str:
    own = _MIME_FORMAT.get(facts.mime)
    keeps_own = own != "GIF" or animated or frame.mode in ("P", "L", "1")
    if own == "WEBP" and facts.lossless_webp and not animated:
        keeps_own = False  # re-encoding would be lossy: a lossless WebP becomes a PNG
    if own is not None and not format_refused and keeps_own:
        return own
    if "image/png" in target.accepted_types and (_has_alpha(frame) or _is_graphic(frame)):
        return "PNG"
    if "image/jpeg" in target.accepted_types:
        return "JPEG"
    if "image/png" in target.accepted_types:
        return "PNG"
    raise UnsupportedBlockError("the provider takes neither JPEG nor PNG images")


def _mime_of(fmt: str) -> str:
    return _FORMAT_MIME[fmt]


def _resize(frame: Image.Image, size: tuple[int, int]) -> Image.Image:
    if frame.mode in ("P", "1"):
        frame = frame.convert("RGBA" if "transparency" in frame.info else "RGB")
    # Hamming: an antialiased filter as sharp as bilinear's cost allows (Lanczos costs 2.3x the
    # time for a difference no model sees); reducing_gap shrinks by whole factors first.
    return frame.resize(size, Image.Resampling.HAMMING, reducing_gap=3.0)


def _upright_exif(raw: bytes) -> bytes:
    exif = Image.Exif()
    exif.load(raw)
    exif[0x0112] = 1
    return exif.tobytes()


def _prepared_for(frame: Image.Image, fmt: str) -> Image.Image:
    if fmt == "JPEG":
        if frame.mode in ("RGBA", "LA", "PA", "P"):
            frame = frame.convert("RGBA")
            background = Image.new("RGB", frame.size, (255, 255, 255))
            background.paste(frame, mask=frame.getchannel("A"))
            return background
        if frame.mode not in ("RGB", "L", "YCbCr"):
            return frame.convert("RGB")
    elif fmt == "PNG" and frame.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
        return frame.convert("RGBA" if "A" in frame.mode else "RGB")
    elif fmt == "WEBP" and frame.mode not in ("RGB", "RGBA"):
        return frame.convert("RGBA" if "A" in frame.mode or "transparency" in frame.info else "RGB")
    return frame
